/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * MATMUL's inner loop on the FPU, for the simulator: the same fused
 * multiply-adds in the same order as tern_compute.c's integer path, so the
 * same bits (test_compute --digest against test_compute_soft), but
 * vectorised across N where the CPU has AVX2 and FMA. Userspace only.
 */
#ifndef TERN_MATMUL_FPU_H
#define TERN_MATMUL_FPU_H

#if !defined(__KERNEL__) && !defined(TERN_MODEL_SOFT_FLOAT)
#define TERN_MATMUL_FPU

#include "tern_model_port.h"

/*
 * acc[n] = fma(a[k], b[k * ldb + n], acc[n]) for k from 0 to @k_count - 1
 * in order, each n in [0, @n_count).
 */
void tern_matmul_fpu_row(float *acc, const float *a, const float *b,
			 u32 k_count, u32 n_count, u32 ldb);
#endif

#endif /* TERN_MATMUL_FPU_H */
