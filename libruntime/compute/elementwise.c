// SPDX-License-Identifier: MIT
/*
 * Element-by-element arithmetic of two matrices, and sums down the rows
 * (a bias's gradient), as row kernels.
 */
#include "rows.h"

struct binary_arg {
	tern_alu_op_t op;
};

static tern_status_t binary_body(struct rows_block *b, const void *arg)
{
	const struct binary_arg *a = arg;

	return tern_program_tensor_tensor(b->p, &b->out[0], &b->in[0], a->op,
					  &b->in[1]);
}

TERN_API tern_status_t tern_elementwise(const tern_matrix_t *a,
					tern_alu_op_t op,
					const tern_matrix_t *b,
					const tern_matrix_t *out,
					tern_stream_t stream)
{
	struct binary_arg arg = { op };
	struct rows_kernel k = {
		.name = "tern_elementwise", .n_in = 2, .n_out = 1,
		.body = binary_body, .arg = &arg,
	};

	if (!a || !b || !out)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (op == TERN_ALU_NONE || (unsigned int)op > TERN_ALU_MIN) {
		tern_set_last_error("tern_elementwise: op %d is not one of add, subtract, multiply, max and min",
				    (int)op);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	k.rows = a->rows;
	k.cols = a->cols;
	k.in[0] = a;
	k.in[1] = b;
	k.out[0] = out;
	return rows_run(&k, stream);
}

static tern_status_t sum_body(struct rows_block *b, const void *arg)
{
	(void)arg;
	return rows_sum_into(b, 0, &b->in[0]);
}

TERN_API tern_status_t tern_sum_rows(const tern_matrix_t *x, tern_ptr_t sums,
				     tern_stream_t stream)
{
	struct rows_kernel k = {
		.name = "tern_sum_rows", .n_in = 1, .n_col_out = 1,
		.scratch = 1, .body = sum_body,
	};

	if (!x)
		return TERN_ERROR_INVALID_ARGUMENT;
	k.rows = x->rows;
	k.cols = x->cols;
	k.in[0] = x;
	k.col_out[0] = sums;
	return rows_run(&k, stream);
}
