/* SPDX-License-Identifier: MIT */
/*
 * tern-bench's tests of libtern's row kernels (act, softmax): what each
 * kernel gives the common runner in rows.c.
 */
#ifndef TOOLS_BENCH_COMPUTE_ROWS_H
#define TOOLS_BENCH_COMPUTE_ROWS_H

#include <stdint.h>

#include "args.h"
#include "tern_compute.h"

struct rows_test {
	struct compute_test test;
	const char *op;		/* the op column; NULL: the function's name */
	/* y = the kernel of x (with @f, where it takes one), queued */
	tern_status_t (*enqueue)(const tern_matrix_t *x, const tern_matrix_t *y,
				 tern_activation_t f, tern_stream_t stream);
	/*
	 * The float32 results of row @x (@cols of them) by the sequence of
	 * roundings libtern.rst gives, before the one into y's type.
	 */
	void (*reference)(const float *x, uint32_t cols, tern_activation_t f,
			  float *out);
	/* The same by a plain C loop over @rows rows, as a host would. */
	void (*peer)(const float *x, float *y, uint32_t rows, uint32_t cols,
		     tern_activation_t f);
	/*
	 * ACTIVATEs over a whole row that libtern.rst's sequence makes per
	 * block of 128 rows: the scalar engine's least work, F + 64 cycles
	 * each (Documentation/compute.rst).
	 */
	unsigned int passes;
};

/* The test's entry point: parses argv, runs every row, returns the status. */
int rows_main(const struct rows_test *t, int argc, char **argv);

#endif /* TOOLS_BENCH_COMPUTE_ROWS_H */
