/* SPDX-License-Identifier: MIT */
/*
 * tern-bench gemm's peer: the same product by OpenBLAS's sgemm on the
 * host, from the same values, in the same run.
 */
#ifndef TOOLS_BENCH_COMPUTE_BLAS_H
#define TOOLS_BENCH_COMPUTE_BLAS_H

#include <stddef.h>
#include <stdint.h>

#include "reference.h"

struct blas_result {
	double time_us;		/* per call, by the host's clock */
	uint64_t wrong;		/* samples past a float32 dot product's error */
};

/* "OpenBLAS 0.3.21 ... on N threads", for the header. */
const char *blas_description(void);

/*
 * C = op(A) . op(B) by cblas_sgemm, @warmup untimed calls then @iters
 * timed; then the samples are checked, each within the error bound of a
 * float32 dot product in any order (K 2^-23 times its magnitude: its own
 * error and the reference's).
 */
void blas_run(const struct gemm_shape *s, const float *a, const float *b,
	      float *c, long warmup, long iters,
	      const struct gemm_sample *samples, size_t count,
	      struct blas_result *result);

#endif /* TOOLS_BENCH_COMPUTE_BLAS_H */
