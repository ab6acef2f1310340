/* SPDX-License-Identifier: MIT */
/*
 * The options of tern-bench's compute tests: which shapes, input types and
 * core counts make the rows, and how often each runs.
 */
#ifndef TOOLS_BENCH_COMPUTE_ARGS_H
#define TOOLS_BENCH_COMPUTE_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data.h"
#include "options.h"

#define COMPUTE_MAX_SIDE	32768
#define COMPUTE_MAX_LIST	32

struct compute_args {
	uint32_t sizes[COMPUTE_MAX_LIST];	/* matrix sides, in order */
	size_t size_count;
	const struct compute_type *types[COMPUTE_MAX_LIST];
	size_t type_count;
	uint32_t cores[COMPUTE_MAX_LIST];	/* 0: every core */
	size_t core_count;
	bool transpose_a, transpose_b;
	long iters, warmup_iters, device;
};

/*
 * Parses argv (argv[0] the test's name) into @args, printing a sentence
 * that says what was wanted for anything it rejects. Core counts and the
 * device index are checked against the device later, by the test.
 */
enum bench_parse_result compute_parse_args(int argc, char **argv,
					   struct compute_args *args);

/* Prints the options help for test @name to stdout. */
void compute_print_usage(const char *name, const char *summary);

#endif /* TOOLS_BENCH_COMPUTE_ARGS_H */
