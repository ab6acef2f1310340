// SPDX-License-Identifier: MIT
/*
 * The OpenBLAS peer of tern-bench gemm. OpenBLAS sums in an order of its
 * own, blocked for the host's vector units, so its result is checked to
 * the bound any order meets rather than to the bit.
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>

#include "blas.h"
#include "setup.h"

const char *blas_description(void)
{
	static char text[160];

	snprintf(text, sizeof(text), "%s on %d thread%s", openblas_get_config(),
		 openblas_get_num_threads(),
		 openblas_get_num_threads() == 1 ? "" : "s");
	return text;
}

static void blas_sgemm(const struct gemm_shape *s, const float *a,
		       const float *b, float *c)
{
	cblas_sgemm(CblasRowMajor,
		    s->transpose_a ? CblasTrans : CblasNoTrans,
		    s->transpose_b ? CblasTrans : CblasNoTrans,
		    (int)s->m, (int)s->n, (int)s->k, 1.0f,
		    a, (int)(s->transpose_a ? s->m : s->k),
		    b, (int)(s->transpose_b ? s->k : s->n),
		    0.0f, c, (int)s->n);
}

void blas_run(const struct gemm_shape *s, const float *a, const float *b,
	      float *c, long warmup, long iters,
	      const struct gemm_sample *samples, size_t count,
	      struct blas_result *result)
{
	double start;

	for (long i = 0; i < warmup; i++)
		blas_sgemm(s, a, b, c);
	start = compute_now_us();
	for (long i = 0; i < iters; i++)
		blas_sgemm(s, a, b, c);
	result->time_us = (compute_now_us() - start) / (double)iters;
	result->wrong = 0;
	for (size_t i = 0; i < count; i++) {
		const struct gemm_sample *x = &samples[i];
		double got = c[(size_t)x->row * s->n + x->col];

		if (!(fabs(got - x->expect) <=
		      ldexp((double)s->k, -23) * x->magnitude))
			result->wrong++;
	}
}
