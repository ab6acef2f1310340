// SPDX-License-Identifier: MIT
/*
 * tern-bench softmax: each row of y = softmax of x's, by tern_softmax().
 * The reference follows libtern.rst's sequence: m the row's maximum,
 * S the in-order sum of exp(x - m), b = (m * -1) - log(S), y = exp(x + b),
 * each step rounded to float32, with exp and log the device model's own.
 * Both exps are ACTIVATEs over the whole row, two passes on the scalar
 * engine; the peer is the loop a host program would write.
 */
#include <math.h>
#include <string.h>

#include "bench.h"
#include "rows.h"
#include "tern_activate.h"

/* ACTIVATE of @f with scale 1 and bias @bias: f(fma(x, 1, bias)). */
static float softmax_activate(tern_activation_t f, float x, float bias)
{
	float in = fmaf(x, 1.0f, bias), y;
	uint32_t bits;

	memcpy(&bits, &in, 4);
	bits = tern_activate((uint32_t)f, bits);
	memcpy(&y, &bits, 4);
	return y;
}

static void softmax_reference(const float *x, uint32_t cols,
			      tern_activation_t f, float *out)
{
	float m = x[0], bias, sum = 0, lse;

	(void)f;
	/* the inputs are never NaN nor zero: a comparison is MAX */
	for (uint32_t c = 1; c < cols; c++)
		m = x[c] > m ? x[c] : m;
	bias = m * -1.0f;
	for (uint32_t c = 0; c < cols; c++) {
		float e = softmax_activate(TERN_ACT_EXP, x[c], bias);

		sum = c ? sum + e : e;
	}
	lse = softmax_activate(TERN_ACT_LOG, sum, 0.0f);
	bias = bias - lse;
	for (uint32_t c = 0; c < cols; c++)
		out[c] = softmax_activate(TERN_ACT_EXP, x[c], bias);
}

static void softmax_peer(const float *x, float *y, uint32_t rows,
			 uint32_t cols, tern_activation_t f)
{
	(void)f;
	for (uint32_t r = 0; r < rows; r++) {
		const float *xr = x + (size_t)r * cols;
		float *yr = y + (size_t)r * cols;
		float m = xr[0], sum = 0;

		for (uint32_t c = 1; c < cols; c++)
			m = xr[c] > m ? xr[c] : m;
		for (uint32_t c = 0; c < cols; c++) {
			yr[c] = expf(xr[c] - m);
			sum += yr[c];
		}
		for (uint32_t c = 0; c < cols; c++)
			yr[c] /= sum;
	}
}

static tern_status_t softmax_enqueue(const tern_matrix_t *x,
				     const tern_matrix_t *y,
				     tern_activation_t f, tern_stream_t stream)
{
	(void)f;
	return tern_softmax(x, y, false, stream);
}

static const struct rows_test softmax_test = {
	.test = {
		.name = "softmax",
		.summary = "Each row of y = softmax of x's by tern_softmax on a device's cores: device\n"
			   "time against the scalar engines' bound, the host's time against a C loop.",
	},
	.op = "softmax",
	.enqueue = softmax_enqueue,
	.reference = softmax_reference,
	.peer = softmax_peer,
	.passes = 2,
};

int bench_softmax_main(int argc, char **argv)
{
	return rows_main(&softmax_test, argc, argv);
}
