// SPDX-License-Identifier: MIT
/*
 * Activations and their derivatives as row kernels. The forward is one
 * ACTIVATE. Each backward is dx = dy * f'(x), f'(x) composed of the
 * engines' own operations, each rounded to float32, in the order written
 * beside it (Documentation/libtern.rst repeats them).
 */
#include "rows.h"

/* 2^127, twice: any positive float times it twice is at least 1. */
#define HUGE_STEP	1.7014118346046923e38f
/* gelu's tanh form: sqrt(2 / pi) and its cubic coefficient */
#define GELU_C		0.7978845608028654f
#define GELU_A		0.044715f

struct act_arg {
	tern_activation_t function;
};

static tern_status_t act_forward(struct rows_block *b, const void *arg)
{
	const struct act_arg *a = arg;

	return tern_program_activate(b->p, &b->out[0], &b->in[0], a->function,
				     tern_value(1.0f), tern_value(0.0f), NULL);
}

/* @out = @in @op0 @v0 (@op1 @v1): a tensor-scalar step on the vector engine. */
static tern_status_t ts(struct rows_block *b, const tern_tile_t *out,
			const tern_tile_t *in, tern_alu_op_t op0, float v0,
			tern_alu_op_t op1, float v1)
{
	return tern_program_tensor_scalar(b->p, TERN_ENGINE_VECTOR, out, in,
					  op0, tern_value(v0), op1,
					  tern_value(v1));
}

static tern_status_t act(struct rows_block *b, const tern_tile_t *out,
			 const tern_tile_t *in, tern_activation_t f,
			 float scale)
{
	return tern_program_activate(b->p, out, in, f, tern_value(scale),
				     tern_value(0.0f), NULL);
}

static tern_status_t tt(struct rows_block *b, const tern_tile_t *out,
			const tern_tile_t *in0, tern_alu_op_t op,
			const tern_tile_t *in1)
{
	return tern_program_tensor_tensor(b->p, out, in0, op, in1);
}

/* d = f'(x) into @d, from x = in[0], with tmp[1..] as scratch. */
static tern_status_t act_derivative(struct rows_block *b,
				    tern_activation_t f, const tern_tile_t *d)
{
	const tern_tile_t *x = &b->in[0], *t = &b->tmp[1], *u = &b->tmp[2];
	const tern_tile_t *q = &b->tmp[3];
	tern_status_t s;

	switch (f) {
	case TERN_ACT_RELU:		/* min(relu(x) * 2^127 * 2^127, 1) */
		s = act(b, d, x, TERN_ACT_RELU, 1.0f);
		if (!s)
			s = ts(b, d, d, TERN_ALU_MULTIPLY, HUGE_STEP,
			       TERN_ALU_MULTIPLY, HUGE_STEP);
		return s ? s : ts(b, d, d, TERN_ALU_MIN, 1.0f, TERN_ALU_NONE, 0);
	case TERN_ACT_SIGMOID:		/* s * (s * -1 + 1) */
		s = act(b, t, x, TERN_ACT_SIGMOID, 1.0f);
		if (!s)
			s = ts(b, d, t, TERN_ALU_MULTIPLY, -1.0f, TERN_ALU_ADD,
			       1.0f);
		return s ? s : tt(b, d, t, TERN_ALU_MULTIPLY, d);
	case TERN_ACT_TANH:		/* t * t * -1 + 1 */
		s = act(b, t, x, TERN_ACT_TANH, 1.0f);
		if (!s)
			s = tt(b, d, t, TERN_ALU_MULTIPLY, t);
		return s ? s : ts(b, d, d, TERN_ALU_MULTIPLY, -1.0f,
				  TERN_ALU_ADD, 1.0f);
	case TERN_ACT_EXP:		/* exp(x) */
		return act(b, d, x, TERN_ACT_EXP, 1.0f);
	case TERN_ACT_LOG:		/* rsqrt(x) * rsqrt(x) */
		s = act(b, t, x, TERN_ACT_RSQRT, 1.0f);
		return s ? s : tt(b, d, t, TERN_ALU_MULTIPLY, t);
	case TERN_ACT_RSQRT:		/* r * r * r * -0.5 */
		s = act(b, t, x, TERN_ACT_RSQRT, 1.0f);
		if (!s)
			s = tt(b, d, t, TERN_ALU_MULTIPLY, t);
		if (!s)
			s = tt(b, d, d, TERN_ALU_MULTIPLY, t);
		return s ? s : ts(b, d, d, TERN_ALU_MULTIPLY, -0.5f,
				  TERN_ALU_NONE, 0);
	case TERN_ACT_SQUARE:		/* x * 2 */
		return ts(b, d, x, TERN_ALU_MULTIPLY, 2.0f, TERN_ALU_NONE, 0);
	case TERN_ACT_SILU:		/* s * ((s * -1 + 1) * x + 1) */
		s = act(b, t, x, TERN_ACT_SIGMOID, 1.0f);
		if (!s)
			s = ts(b, d, t, TERN_ALU_MULTIPLY, -1.0f, TERN_ALU_ADD,
			       1.0f);
		if (!s)
			s = tt(b, d, d, TERN_ALU_MULTIPLY, x);
		if (!s)
			s = ts(b, d, d, TERN_ALU_ADD, 1.0f, TERN_ALU_NONE, 0);
		return s ? s : tt(b, d, d, TERN_ALU_MULTIPLY, t);
	case TERN_ACT_GELU_TANH:
		/*
		 * x2 = x * x; th = tanh(c * ((x2 * a + 1) * x));
		 * d = (th * 0.5 + 0.5) +
		 *     ((th * th * -1 + 1) * (x2 * 3ac + c)) * x * 0.5
		 */
		s = tt(b, u, x, TERN_ALU_MULTIPLY, x);
		if (!s)
			s = ts(b, t, u, TERN_ALU_MULTIPLY, GELU_A, TERN_ALU_ADD,
			       1.0f);
		if (!s)
			s = tt(b, t, t, TERN_ALU_MULTIPLY, x);
		if (!s)
			s = act(b, t, t, TERN_ACT_TANH, GELU_C);
		if (!s)
			s = ts(b, u, u, TERN_ALU_MULTIPLY, 3 * GELU_A * GELU_C,
			       TERN_ALU_ADD, GELU_C);
		if (!s)
			s = tt(b, q, t, TERN_ALU_MULTIPLY, t);
		if (!s)
			s = ts(b, q, q, TERN_ALU_MULTIPLY, -1.0f, TERN_ALU_ADD,
			       1.0f);
		if (!s)
			s = tt(b, q, q, TERN_ALU_MULTIPLY, u);
		if (!s)
			s = tt(b, q, q, TERN_ALU_MULTIPLY, x);
		if (!s)
			s = ts(b, q, q, TERN_ALU_MULTIPLY, 0.5f, TERN_ALU_NONE, 0);
		if (!s)
			s = ts(b, d, t, TERN_ALU_MULTIPLY, 0.5f, TERN_ALU_ADD,
			       0.5f);
		return s ? s : tt(b, d, d, TERN_ALU_ADD, q);
	default:
		return TERN_ERROR_INVALID_ARGUMENT;
	}
}

static tern_status_t act_backward(struct rows_block *b, const void *arg)
{
	const struct act_arg *a = arg;
	tern_status_t s;

	if (a->function == TERN_ACT_IDENTITY)	/* dx = dy, rounded */
		return tern_program_copy(b->p, TERN_ENGINE_VECTOR, &b->out[0],
					 &b->in[1], false);
	s = act_derivative(b, a->function, &b->tmp[0]);

	return s ? s : tt(b, &b->out[0], &b->in[1], TERN_ALU_MULTIPLY,
			  &b->tmp[0]);
}

static bool act_known(tern_activation_t function, const char *kernel)
{
	if ((unsigned int)function < TERN_ACTIVATION_COUNT)
		return true;
	tern_set_last_error("%s: activation %d is none of tern_activation_t",
			    kernel, (int)function);
	return false;
}

TERN_API tern_status_t tern_activation(const tern_matrix_t *x,
				       const tern_matrix_t *y,
				       tern_activation_t function,
				       tern_stream_t stream)
{
	struct act_arg a = { function };
	struct rows_kernel k = {
		.name = "tern_activation", .n_in = 1, .n_out = 1,
		.body = act_forward, .arg = &a,
	};

	if (!x || !y || !act_known(function, k.name))
		return TERN_ERROR_INVALID_ARGUMENT;
	k.rows = x->rows;
	k.cols = x->cols;
	k.in[0] = x;
	k.out[0] = y;
	return rows_run(&k, stream);
}

TERN_API tern_status_t tern_activation_backward(const tern_matrix_t *x,
						const tern_matrix_t *dy,
						const tern_matrix_t *dx,
						tern_activation_t function,
						tern_stream_t stream)
{
	struct act_arg a = { function };
	struct rows_kernel k = {
		.name = "tern_activation_backward", .n_in = 2, .n_out = 1,
		.scratch = 4, .body = act_backward, .arg = &a,
	};

	if (!x || !dy || !dx || !act_known(function, k.name))
		return TERN_ERROR_INVALID_ARGUMENT;
	k.rows = x->rows;
	k.cols = x->cols;
	k.in[0] = x;
	k.in[1] = dy;
	k.out[0] = dx;
	return rows_run(&k, stream);
}
