// SPDX-License-Identifier: MIT
/*
 * tern-bench act: y = f(x) by tern_activation(), one ACTIVATE a block of
 * 128 rows. The reference is that ACTIVATE's arithmetic, f(fma(x, 1, 0)),
 * with f the device model's own (tern_activate(), the one implementation
 * tern.ko and the simulator share); the peer is libm's float functions.
 */
#include <math.h>
#include <string.h>

#include "bench.h"
#include "rows.h"
#include "tern_activate.h"

/* f(x) as the device computes it: float32 in, float32 out. */
static float act_device(tern_activation_t f, float x)
{
	uint32_t bits;
	float y;

	memcpy(&bits, &x, 4);
	bits = tern_activate((uint32_t)f, bits);
	memcpy(&y, &bits, 4);
	return y;
}

static void act_reference(const float *x, uint32_t cols, tern_activation_t f,
			  float *out)
{
	for (uint32_t c = 0; c < cols; c++)
		out[c] = act_device(f, fmaf(x[c], 1.0f, 0.0f));
}

/* The function as a host program writes it, in the forms that do not cancel. */
static float act_host(tern_activation_t f, float x)
{
	const float c = 0.7978845608f, a = 0.044715f;	/* gelu's tanh form */

	switch (f) {
	case TERN_ACT_RELU:
		return x > 0 ? x : 0.0f;
	case TERN_ACT_GELU_TANH:
		return x / (1.0f + expf(-2.0f * c * (x + a * x * x * x)));
	case TERN_ACT_SILU:
		return x / (1.0f + expf(-x));
	case TERN_ACT_SIGMOID:
		return 1.0f / (1.0f + expf(-x));
	case TERN_ACT_TANH:
		return tanhf(x);
	case TERN_ACT_EXP:
		return expf(x);
	case TERN_ACT_LOG:
		return logf(x);
	case TERN_ACT_RSQRT:
		return 1.0f / sqrtf(x);
	case TERN_ACT_SQUARE:
		return x * x;
	default:
		return x;
	}
}

static void act_peer(const float *x, float *y, uint32_t rows, uint32_t cols,
		     tern_activation_t f)
{
	size_t n = (size_t)rows * cols;

	for (size_t i = 0; i < n; i++)
		y[i] = act_host(f, x[i]);
}

static tern_status_t act_enqueue(const tern_matrix_t *x, const tern_matrix_t *y,
				 tern_activation_t f, tern_stream_t stream)
{
	return tern_activation(x, y, f, stream);
}

static const struct rows_test act_test = {
	.test = {
		.name = "act",
		.summary = "y = f(x) by tern_activation on a device's cores: device time against the\n"
			   "scalar engines' bound, and the host's time against a plain C loop.",
		.takes = COMPUTE_TAKES_FUNCTION,
	},
	.enqueue = act_enqueue,
	.reference = act_reference,
	.peer = act_peer,
	.passes = 1,
};

int bench_act_main(int argc, char **argv)
{
	return rows_main(&act_test, argc, argv);
}
