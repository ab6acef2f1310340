// SPDX-License-Identifier: MIT
/*
 * Layer norm over each row, and its backward, as row kernels. With n the
 * columns, each step rounded to float32 in the order written:
 *
 *   mean = sum of (x * 1/n)                 in column order
 *   ss   = sum of (x - mean)^2
 *   rstd = rsqrt(ss * 1/n + eps)
 *   y    = ((x - mean) * rstd) * gamma + beta
 *
 * and backward, with xhat = (x - mean) * rstd and g = dy * gamma:
 *
 *   a  = sum of (g * 1/n),  c = sum of ((g * xhat) * 1/n)
 *   dx = ((g - xhat * c) - a) * rstd
 *   dgamma = sum down the rows of dy * xhat,  dbeta = that of dy
 */
#include "rows.h"

struct norm_arg {
	float inv_n;
	float eps;
};

/* @column = sum of (@in * 1/n); @scratch receives the products. */
static tern_status_t norm_mean(struct rows_block *b, const tern_tile_t *in,
			       const tern_tile_t *column,
			       const tern_tile_t *scratch, float inv_n)
{
	return tern_program_activate(b->p, scratch, in, TERN_ACT_IDENTITY,
				     tern_value(inv_n), tern_value(0.0f),
				     &column->offset);
}

/* @out = (x - mean) * rstd from the columns @mean and @rstd. */
static tern_status_t norm_xhat(struct rows_block *b, const tern_tile_t *out,
			       const tern_tile_t *mean,
			       const tern_tile_t *rstd)
{
	return tern_program_tensor_scalar(b->p, TERN_ENGINE_VECTOR, out,
					  &b->in[0], TERN_ALU_SUBTRACT,
					  tern_column(mean->offset),
					  TERN_ALU_MULTIPLY,
					  tern_column(rstd->offset));
}

static tern_status_t norm_body(struct rows_block *b, const void *arg)
{
	const struct norm_arg *a = arg;
	const tern_tile_t *mean = &b->row_out[0], *rstd = &b->row_out[1];
	const tern_tile_t *neg = &b->column[0], *ss = &b->column[1];
	const tern_tile_t *t = &b->tmp[0];
	tern_status_t s = norm_mean(b, &b->in[0], mean, t, a->inv_n);

	if (!s)
		s = tern_program_tensor_scalar(b->p, TERN_ENGINE_SCALAR, neg,
					       mean, TERN_ALU_MULTIPLY,
					       tern_value(-1.0f), TERN_ALU_NONE,
					       tern_value(0.0f));
	if (!s)
		s = tern_program_activate(b->p, t, &b->in[0], TERN_ACT_SQUARE,
					  tern_value(1.0f),
					  tern_column(neg->offset),
					  &ss->offset);
	if (!s)
		s = tern_program_activate(b->p, rstd, ss, TERN_ACT_RSQRT,
					  tern_value(a->inv_n),
					  tern_value(a->eps), NULL);
	if (!s)
		s = norm_xhat(b, t, mean, rstd);
	if (!s)
		s = tern_program_tensor_tensor(b->p, t, t, TERN_ALU_MULTIPLY,
					       &b->col_in[0]);
	return s ? s : tern_program_tensor_tensor(b->p, &b->out[0], t,
						  TERN_ALU_ADD, &b->col_in[1]);
}

static tern_status_t norm_back_body(struct rows_block *b, const void *arg)
{
	const struct norm_arg *a = arg;
	const tern_tile_t *mean = &b->row_in[0], *rstd = &b->row_in[1];
	const tern_tile_t *xhat = &b->tmp[0], *g = &b->tmp[1];
	const tern_tile_t *t = &b->tmp[2];
	const tern_tile_t *ca = &b->column[0], *cc = &b->column[1];
	const tern_tile_t *dy = &b->in[1];
	tern_status_t s = norm_xhat(b, xhat, mean, rstd);

	if (!s)
		s = tern_program_tensor_tensor(b->p, g, dy, TERN_ALU_MULTIPLY,
					       &b->col_in[0]);
	if (!s)
		s = norm_mean(b, g, ca, t, a->inv_n);
	if (!s)
		s = tern_program_tensor_tensor(b->p, t, g, TERN_ALU_MULTIPLY,
					       xhat);
	if (!s)
		s = norm_mean(b, t, cc, t, a->inv_n);
	if (!s)
		s = tern_program_tensor_scalar(b->p, TERN_ENGINE_VECTOR, t,
					       xhat, TERN_ALU_MULTIPLY,
					       tern_column(cc->offset),
					       TERN_ALU_NONE, tern_value(0.0f));
	if (!s)
		s = tern_program_tensor_tensor(b->p, t, g, TERN_ALU_SUBTRACT, t);
	if (!s)
		s = tern_program_tensor_scalar(b->p, TERN_ENGINE_VECTOR,
					       &b->out[0], t, TERN_ALU_SUBTRACT,
					       tern_column(ca->offset),
					       TERN_ALU_MULTIPLY,
					       tern_column(rstd->offset));
	if (!s)
		s = tern_program_tensor_tensor(b->p, t, dy, TERN_ALU_MULTIPLY,
					       xhat);
	if (!s)
		s = rows_sum_into(b, 0, t);
	return s ? s : rows_sum_into(b, 1, dy);
}

static bool norm_eps_ok(float eps)
{
	if (eps >= 0.0f && eps < 1e30f)
		return true;
	tern_set_last_error("tern_layer_norm: eps %g is not a number from 0 up",
			    (double)eps);
	return false;
}

TERN_API tern_status_t tern_layer_norm(const tern_matrix_t *x,
				       tern_ptr_t gamma, tern_ptr_t beta,
				       float eps, const tern_matrix_t *y,
				       tern_ptr_t mean, tern_ptr_t rstd,
				       tern_stream_t stream)
{
	struct norm_arg a = { 0.0f, eps };
	struct rows_kernel k = {
		.name = "tern_layer_norm", .n_in = 1, .n_out = 1,
		.n_row_out = 2, .n_col_in = 2, .scratch = 1, .columns = 2,
		.body = norm_body, .arg = &a,
	};

	if (!x || !y || !norm_eps_ok(eps))
		return TERN_ERROR_INVALID_ARGUMENT;
	a.inv_n = 1.0f / (float)x->cols;
	k.rows = x->rows;
	k.cols = x->cols;
	k.in[0] = x;
	k.out[0] = y;
	k.row_out[0] = mean;
	k.row_out[1] = rstd;
	k.col_in[0] = gamma;
	k.col_in[1] = beta;
	return rows_run(&k, stream);
}

TERN_API tern_status_t tern_layer_norm_backward(const tern_matrix_t *x,
						tern_ptr_t gamma,
						tern_ptr_t mean, tern_ptr_t rstd,
						const tern_matrix_t *dy,
						const tern_matrix_t *dx,
						tern_ptr_t dgamma,
						tern_ptr_t dbeta,
						tern_stream_t stream)
{
	struct norm_arg a = { 0.0f, 0.0f };
	struct rows_kernel k = {
		.name = "tern_layer_norm_backward", .n_in = 2, .n_out = 1,
		.n_row_in = 2, .n_col_in = 1, .n_col_out = 2, .scratch = 3,
		.columns = 2, .body = norm_back_body, .arg = &a,
	};

	if (!x || !dy || !dx)
		return TERN_ERROR_INVALID_ARGUMENT;
	a.inv_n = 1.0f / (float)x->cols;
	k.rows = x->rows;
	k.cols = x->cols;
	k.in[0] = x;
	k.in[1] = dy;
	k.out[0] = dx;
	k.row_in[0] = mean;
	k.row_in[1] = rstd;
	k.col_in[0] = gamma;
	k.col_out[0] = dgamma;
	k.col_out[1] = dbeta;
	return rows_run(&k, stream);
}
