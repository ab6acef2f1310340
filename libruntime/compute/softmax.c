// SPDX-License-Identifier: MIT
/*
 * Row softmax and log-softmax, their backward, attention's scaled and
 * masked softmax, and cross-entropy on the log-softmax, as row kernels. With m the row's maximum and S the sum of
 * exp(x - m) (each exp rounded, summed in order in float32):
 *
 *   b = (m * -1) - log(S)
 *   log_softmax = x + b,  softmax = exp(x + b)
 *
 * so softmax needs no division, and log-softmax is exact where it matters
 * (the largest element gets -log(S)).
 */
#include "rows.h"

/* column[1] = b of the comment above, for the rows of @x; uses tmp[0]. */
static tern_status_t softmax_offset(struct rows_block *b, const tern_tile_t *x)
{
	const tern_tile_t *m = &b->column[0], *bias = &b->column[1];
	const tern_tile_t *sum = &b->column[2], *lse = &b->column[3];
	tern_status_t s;

	s = tern_program_reduce(b->p, m, x, TERN_ALU_MAX);
	if (!s)
		s = tern_program_tensor_scalar(b->p, TERN_ENGINE_SCALAR, bias,
					       m, TERN_ALU_MULTIPLY,
					       tern_value(-1.0f), TERN_ALU_NONE,
					       tern_value(0.0f));
	if (!s)
		s = tern_program_activate(b->p, &b->tmp[0], x,
					  TERN_ACT_EXP, tern_value(1.0f),
					  tern_column(bias->offset),
					  &sum->offset);
	if (!s)
		s = tern_program_activate(b->p, lse, sum, TERN_ACT_LOG,
					  tern_value(1.0f), tern_value(0.0f),
					  NULL);
	if (!s)
		s = tern_program_tensor_tensor(b->p, bias, bias,
					       TERN_ALU_SUBTRACT, lse);
	return s;
}

/* @out = @x + b, or exp(@x + b) with @exp. */
static tern_status_t softmax_apply(struct rows_block *b, const tern_tile_t *x,
				   const tern_tile_t *out, bool exp)
{
	return tern_program_activate(b->p, out, x,
				     exp ? TERN_ACT_EXP : TERN_ACT_IDENTITY,
				     tern_value(1.0f),
				     tern_column(b->column[1].offset), NULL);
}

struct softmax_arg {
	bool log;
	float grad_scale;
	float scale;		/* attention: x * scale (+ mask), or dx * scale */
	bool mask;
};

static tern_status_t softmax_body(struct rows_block *b, const void *arg)
{
	const struct softmax_arg *a = arg;
	tern_status_t s = softmax_offset(b, &b->in[0]);

	return s ? s : softmax_apply(b, &b->in[0], &b->out[0], !a->log);
}

/* Attention's scores: softmax of x * scale + mask (in[1], with a mask). */
static tern_status_t attention_body(struct rows_block *b, const void *arg)
{
	const struct softmax_arg *a = arg;
	const tern_tile_t *t = &b->tmp[1];
	tern_status_t s;

	s = tern_program_tensor_scalar(b->p, TERN_ENGINE_SCALAR, t, &b->in[0],
				       TERN_ALU_MULTIPLY, tern_value(a->scale),
				       TERN_ALU_NONE, tern_value(0.0f));
	if (!s && a->mask)
		s = tern_program_tensor_tensor(b->p, t, t, TERN_ALU_ADD,
					       &b->in[1]);
	if (!s)
		s = softmax_offset(b, t);
	return s ? s : softmax_apply(b, t, &b->out[0], true);
}

/*
 * softmax:     dx = (dy - sum(dy * y)) * y
 * log-softmax: dx = dy - exp(y) * sum(dy)
 */
static tern_status_t softmax_back_body(struct rows_block *b, const void *arg)
{
	const struct softmax_arg *a = arg;
	const tern_tile_t *y = &b->in[0], *dy = &b->in[1], *t = &b->tmp[0];
	const tern_tile_t *sum = &b->column[0];
	/* attention's backward: the gradient, then times the scale */
	const tern_tile_t *dx = a->scale != 1.0f ? &b->tmp[1] : &b->out[0];
	tern_status_t s;

	if (!a->log) {
		s = tern_program_tensor_tensor(b->p, t, dy, TERN_ALU_MULTIPLY,
					       y);
		if (!s)
			s = tern_program_reduce(b->p, sum, t, TERN_ALU_ADD);
		if (!s)
			s = tern_program_tensor_scalar(b->p, TERN_ENGINE_VECTOR,
						       t, dy, TERN_ALU_SUBTRACT,
						       tern_column(sum->offset),
						       TERN_ALU_NONE,
						       tern_value(0.0f));
		if (!s)
			s = tern_program_tensor_tensor(b->p, dx, t,
						       TERN_ALU_MULTIPLY, y);
		if (s || dx == &b->out[0])
			return s;
		return tern_program_tensor_scalar(b->p, TERN_ENGINE_SCALAR,
						  &b->out[0], dx,
						  TERN_ALU_MULTIPLY,
						  tern_value(a->scale),
						  TERN_ALU_NONE,
						  tern_value(0.0f));
	}
	s = tern_program_reduce(b->p, sum, dy, TERN_ALU_ADD);
	if (!s)
		s = tern_program_activate(b->p, t, y, TERN_ACT_EXP,
					  tern_value(1.0f), tern_value(0.0f),
					  NULL);
	if (!s)
		s = tern_program_tensor_scalar(b->p, TERN_ENGINE_VECTOR, t, t,
					       TERN_ALU_MULTIPLY,
					       tern_column(sum->offset),
					       TERN_ALU_NONE, tern_value(0.0f));
	return s ? s : tern_program_tensor_tensor(b->p, &b->out[0], dy,
						  TERN_ALU_SUBTRACT, t);
}

/*
 * loss = (sum of targets * log_softmax) * -1; with dlogits,
 * dlogits = (exp(log_softmax) - targets) * grad_scale.
 */
static tern_status_t xent_body(struct rows_block *b, const void *arg)
{
	const struct softmax_arg *a = arg;
	const tern_tile_t *ls = &b->tmp[1], *t = &b->tmp[2];
	tern_status_t s = softmax_offset(b, &b->in[0]);

	if (!s)
		s = softmax_apply(b, &b->in[0], ls, false);
	if (!s)
		s = tern_program_tensor_tensor(b->p, t, &b->in[1],
					       TERN_ALU_MULTIPLY, ls);
	if (!s)
		s = tern_program_reduce(b->p, &b->column[0], t, TERN_ALU_ADD);
	if (!s)
		s = tern_program_tensor_scalar(b->p, TERN_ENGINE_VECTOR,
					       &b->row_out[0], &b->column[0],
					       TERN_ALU_MULTIPLY,
					       tern_value(-1.0f), TERN_ALU_NONE,
					       tern_value(0.0f));
	if (s || !a->grad_scale)
		return s;
	s = tern_program_activate(b->p, t, ls, TERN_ACT_EXP, tern_value(1.0f),
				  tern_value(0.0f), NULL);
	if (!s)
		s = tern_program_tensor_tensor(b->p, t, t, TERN_ALU_SUBTRACT,
					       &b->in[1]);
	return s ? s : tern_program_tensor_scalar(b->p, TERN_ENGINE_VECTOR,
						  &b->out[0], t,
						  TERN_ALU_MULTIPLY,
						  tern_value(a->grad_scale),
						  TERN_ALU_NONE,
						  tern_value(0.0f));
}

TERN_API tern_status_t tern_softmax(const tern_matrix_t *x,
				    const tern_matrix_t *y, bool log,
				    tern_stream_t stream)
{
	struct softmax_arg a = { log, 0.0f, 1.0f, false };
	struct rows_kernel k = {
		.name = "tern_softmax", .n_in = 1, .n_out = 1, .scratch = 1,
		.columns = 4, .body = softmax_body, .arg = &a,
	};

	if (!x || !y)
		return TERN_ERROR_INVALID_ARGUMENT;
	k.in[0] = x;
	k.out[0] = y;
	return rows_run(&k, stream);
}

TERN_API tern_status_t tern_softmax_backward(const tern_matrix_t *y,
					     const tern_matrix_t *dy,
					     const tern_matrix_t *dx, bool log,
					     tern_stream_t stream)
{
	struct softmax_arg a = { log, 0.0f, 1.0f, false };
	struct rows_kernel k = {
		.name = "tern_softmax_backward", .n_in = 2, .n_out = 1,
		.scratch = 1, .columns = 1, .body = softmax_back_body,
		.arg = &a,
	};

	if (!y || !dy || !dx)
		return TERN_ERROR_INVALID_ARGUMENT;
	k.in[0] = y;
	k.in[1] = dy;
	k.out[0] = dx;
	return rows_run(&k, stream);
}

TERN_API tern_status_t tern_cross_entropy(const tern_matrix_t *logits,
					  const tern_matrix_t *targets,
					  tern_ptr_t loss,
					  const tern_matrix_t *dlogits,
					  float grad_scale,
					  tern_stream_t stream)
{
	struct softmax_arg a = { true, dlogits ? grad_scale : 0.0f, 1.0f,
				 false };
	struct rows_kernel k = {
		.name = "tern_cross_entropy", .n_in = 2, .n_row_out = 1,
		.scratch = 3, .columns = 4, .body = xent_body, .arg = &a,
	};

	if (!logits || !targets)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (dlogits && !(grad_scale == grad_scale && grad_scale != 0.0f)) {
		tern_set_last_error("tern_cross_entropy: a gradient needs a grad_scale other than 0 and NaN");
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	k.in[0] = logits;
	k.in[1] = targets;
	k.row_out[0] = loss;
	if (dlogits) {
		k.out[0] = dlogits;
		k.n_out = 1;
	}
	return rows_run(&k, stream);
}

/* A scale attention takes: finite, not 0; a sentence if not. */
static bool attention_scale_ok(const char *kernel, float scale)
{
	if (scale == scale && scale != 0.0f && scale - scale == 0.0f)
		return true;
	tern_set_last_error("%s: the scale is %g; it takes a finite value other than 0",
			    kernel, (double)scale);
	return false;
}

TERN_API tern_status_t tern_attention_softmax(const tern_matrix_t *x,
					      const tern_matrix_t *mask,
					      float scale,
					      const tern_matrix_t *y,
					      tern_stream_t stream)
{
	struct softmax_arg a = { false, 0.0f, scale, mask != NULL };
	struct rows_kernel k = {
		.name = "tern_attention_softmax", .n_in = 1, .n_out = 1,
		.scratch = 2, .columns = 4, .body = attention_body, .arg = &a,
	};

	if (!x || !y)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (!attention_scale_ok(k.name, scale))
		return TERN_ERROR_INVALID_ARGUMENT;
	k.in[0] = x;
	if (mask) {
		k.in[1] = mask;
		k.n_in = 2;
	}
	k.out[0] = y;
	return rows_run(&k, stream);
}

TERN_API tern_status_t tern_attention_softmax_backward(const tern_matrix_t *y,
						       const tern_matrix_t *dy,
						       float scale,
						       const tern_matrix_t *dx,
						       tern_stream_t stream)
{
	struct softmax_arg a = { false, 0.0f, scale, false };
	struct rows_kernel k = {
		.name = "tern_attention_softmax_backward", .n_in = 2,
		.n_out = 1, .scratch = 2, .columns = 1,
		.body = softmax_back_body, .arg = &a,
	};

	if (!y || !dy || !dx)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (!attention_scale_ok(k.name, scale))
		return TERN_ERROR_INVALID_ARGUMENT;
	k.in[0] = y;
	k.in[1] = dy;
	k.out[0] = dx;
	return rows_run(&k, stream);
}
