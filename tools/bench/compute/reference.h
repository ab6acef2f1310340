/* SPDX-License-Identifier: MIT */
/*
 * What tern_gemm() must write, element by element, by the arithmetic
 * Documentation/libtern.rst defines; and which elements a row checks.
 */
#ifndef TOOLS_BENCH_COMPUTE_REFERENCE_H
#define TOOLS_BENCH_COMPUTE_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* C (M x N) = op(A) (M x K) . op(B) (K x N), rows packed (ld = columns). */
struct gemm_shape {
	uint32_t m, n, k;
	bool transpose_a, transpose_b;	/* A is K x M, B is N x K */
};

/* An element of C, where the reference puts it. */
struct gemm_sample {
	uint32_t row, col;
	float expect;		/* bit for bit what the device must write */
	double magnitude;	/* sum over k of |op(A)[row][k] op(B)[k][col]| */
};

/* Every element up to this many; past it, GEMM_SAMPLES of them. */
#define GEMM_CHECK_ALL	65536
#define GEMM_SAMPLES	256

/*
 * Chooses the elements of C a row checks into @samples (room for
 * GEMM_CHECK_ALL) and returns how many: all of them for a C of at most
 * GEMM_CHECK_ALL elements, else its four corners (the edges of the last
 * tiles) and random others, from @seed.
 */
size_t gemm_choose_samples(const struct gemm_shape *s, uint64_t seed,
			   struct gemm_sample *samples);

/*
 * Fills in each sample's expected value from op(A) and op(B)'s float32
 * values @a and @b: fused multiply-adds in K order from -0, times alpha
 * (1), then IDENTITY's fma(t, 1, 0), each step rounded to float32.
 */
void gemm_reference(const struct gemm_shape *s, const float *a,
		    const float *b, struct gemm_sample *samples, size_t count);

/* The samples whose element of @c (M x N float32) differs in any bit. */
uint64_t gemm_count_wrong(const struct gemm_shape *s, const float *c,
			  const struct gemm_sample *samples, size_t count);

#endif /* TOOLS_BENCH_COMPUTE_REFERENCE_H */
