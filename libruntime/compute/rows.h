/* SPDX-License-Identifier: MIT */
/*
 * The row kernels' common part (rows.c) and what each kernel gives it.
 */
#ifndef TERN_COMPUTE_ROWS_H
#define TERN_COMPUTE_ROWS_H

#include "compute.h"

/* One block of up to 128 rows as a kernel's body sees it. */
struct rows_block {
	tern_program_t p;
	uint32_t rows, cols;
	bool first;			/* the core's first block */
	uint32_t sum_chunks;		/* PSUM banks a sum down the rows takes */
	tern_tile_t in[4];		/* the inputs, float32 */
	tern_tile_t out[3];		/* the outputs, of their matrices' types */
	tern_tile_t tmp[4];		/* float32 scratch of the block's shape */
	tern_tile_t row_in[2];		/* a float32 per row, loaded */
	tern_tile_t row_out[2];		/* a float32 per row, stored */
	tern_tile_t column[4];		/* a float32 per row, scratch */
	tern_tile_t col_in[2];		/* a float32 per column, every row */
	tern_tile_t ones;		/* 1.0 per row */
};

/* A row kernel: its operands, its needs, and its body. */
struct rows_kernel {
	const char *name;
	uint32_t rows, cols;		/* rows_run(): in[0]'s */
	const tern_matrix_t *in[4];
	uint32_t n_in;
	const tern_matrix_t *out[3];
	uint32_t n_out;
	tern_ptr_t row_in[2], row_out[2];	/* rows float32 each */
	uint32_t n_row_in, n_row_out;
	tern_ptr_t col_in[2];			/* cols float32, broadcast */
	uint32_t n_col_in;
	tern_ptr_t col_out[2];			/* cols float32: row sums */
	uint32_t n_col_out;
	uint32_t scratch, columns;		/* tmp and column tiles */
	tern_status_t (*body)(struct rows_block *b, const void *arg);
	const void *arg;
};

/* Checks @kernel's operands, builds its programs and launches them. */
tern_status_t rows_run(const struct rows_kernel *kernel, tern_stream_t stream);

/*
 * Adds @tile's rows into sum @which down the rows (of the core's blocks;
 * the first block starts it).
 */
tern_status_t rows_sum_into(struct rows_block *b, uint32_t which,
			    const tern_tile_t *tile);

#endif /* TERN_COMPUTE_ROWS_H */
