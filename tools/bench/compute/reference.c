// SPDX-License-Identifier: MIT
/*
 * The reference for tern-bench gemm: the elements the device wrote are
 * compared bit for bit with the spec's own sequence of float32 roundings,
 * so a wrong tile, a lost K tile or a reordered sum all show.
 */
#include <math.h>
#include <string.h>

#include "pattern.h"
#include "reference.h"

size_t gemm_choose_samples(const struct gemm_shape *s, uint64_t seed,
			   struct gemm_sample *samples)
{
	uint64_t elements = (uint64_t)s->m * s->n;
	size_t count = 0;

	if (elements <= GEMM_CHECK_ALL) {
		for (uint32_t r = 0; r < s->m; r++)
			for (uint32_t c = 0; c < s->n; c++)
				samples[count++] = (struct gemm_sample) {
					.row = r, .col = c };
		return count;
	}
	samples[count++] = (struct gemm_sample) { .row = 0, .col = 0 };
	samples[count++] = (struct gemm_sample) { .row = 0, .col = s->n - 1 };
	samples[count++] = (struct gemm_sample) { .row = s->m - 1, .col = 0 };
	samples[count++] = (struct gemm_sample) {
		.row = s->m - 1, .col = s->n - 1 };
	while (count < GEMM_SAMPLES) {
		uint64_t at = pattern_word(seed, count) % elements;

		samples[count++] = (struct gemm_sample) {
			.row = (uint32_t)(at / s->n),
			.col = (uint32_t)(at % s->n) };
	}
	return count;
}

/* op(A)[row][k] and op(B)[k][col] of matrices stored rows packed. */
static float gemm_a(const struct gemm_shape *s, const float *a, uint32_t row,
		    uint32_t k)
{
	return s->transpose_a ? a[(size_t)k * s->m + row] :
				a[(size_t)row * s->k + k];
}

static float gemm_b(const struct gemm_shape *s, const float *b, uint32_t k,
		    uint32_t col)
{
	return s->transpose_b ? b[(size_t)col * s->k + k] :
				b[(size_t)k * s->n + col];
}

void gemm_reference(const struct gemm_shape *s, const float *a,
		    const float *b, struct gemm_sample *samples, size_t count)
{
	const float alpha = 1.0f;	/* alpha * (scale_a * scale_b) */

	for (size_t i = 0; i < count; i++) {
		struct gemm_sample *x = &samples[i];
		double magnitude = 0;
		float acc = -0.0f, t;

		for (uint32_t k = 0; k < s->k; k++) {
			float p = gemm_a(s, a, x->row, k);
			float q = gemm_b(s, b, k, x->col);

			acc = fmaf(p, q, acc);
			magnitude += fabs((double)p * q);
		}
		t = acc * alpha;
		/* the epilogue's ACTIVATE: IDENTITY of fma(t, scale 1, bias 0) */
		x->expect = fmaf(t, 1.0f, 0.0f);
		x->magnitude = magnitude;
	}
}

uint64_t gemm_count_wrong(const struct gemm_shape *s, const float *c,
			  const struct gemm_sample *samples, size_t count)
{
	uint64_t wrong = 0;

	for (size_t i = 0; i < count; i++) {
		const float *got = &c[(size_t)samples[i].row * s->n +
				      samples[i].col];

		wrong += memcmp(got, &samples[i].expect, sizeof(float)) != 0;
	}
	return wrong;
}
