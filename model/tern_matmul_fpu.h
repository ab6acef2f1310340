/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * MATMUL on the FPU, for the simulator: the same fused multiply-adds in
 * the same order as tern_compute.c's integer path, so the same bits
 * (test_compute --digest against test_compute_soft), but each input read
 * into float32 once a call and the result computed in blocks of rows and
 * columns, vectorised where the CPU has AVX2 and FMA (unless built with
 * TERN_MATMUL_PORTABLE, as test_compute_portable is). Userspace only.
 */
#ifndef TERN_MATMUL_FPU_H
#define TERN_MATMUL_FPU_H

#if !defined(__KERNEL__) && !defined(TERN_MODEL_SOFT_FLOAT)
#define TERN_MATMUL_FPU

#include "tern_model_port.h"

/**
 * struct tern_matmul_fpu - a MATMUL's tiles, as memory
 * @stationary: element [k][m] of the stationary tile at
 *	@stationary + k * @stride + m * its element size
 * @moving: element [k][n] of the moving tile, likewise
 * @stride: bytes from one partition of SBUF to the next
 * @stationary_dtype: its enum drm_tern_dtype, a float type
 * @moving_dtype: likewise
 * @result: float32 element [m][n] of the result at
 *	@result + m * @result_stride + n * 4
 * @result_stride: bytes from one partition of PSUM to the next
 * @k_count: partitions of both inputs, at most DRM_TERN_PARTITIONS
 * @n_count: the moving tile's elements, at most 512
 * @accumulate: each chain starts from the result's value, else from -0
 */
struct tern_matmul_fpu {
	const u8 *stationary;
	const u8 *moving;
	u64 stride;
	u32 stationary_dtype;
	u32 moving_dtype;
	u8 *result;
	u64 result_stride;
	u32 k_count;
	u32 n_count;
	bool accumulate;
};

/*
 * Result elements [@at, @end) of @mm, counted row by row: each
 * result[m][n] = fma(stationary[k][m], moving[k][n], result[m][n]) for k
 * from 0 in order, a NaN stored as the quiet NaN. Returns false, having
 * done nothing, when the thread's scratch memory cannot be had.
 */
bool tern_matmul_fpu_run(const struct tern_matmul_fpu *mm, u64 at, u64 end);
#endif

#endif /* TERN_MATMUL_FPU_H */
