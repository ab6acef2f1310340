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

/* The options only some of the tests take. */
#define COMPUTE_TAKES_CORES	(1u << 0)
#define COMPUTE_TAKES_TRANSPOSE	(1u << 1)
#define COMPUTE_TAKES_FUNCTION	(1u << 2)

/* What sets a compute test's command line apart from the others'. */
struct compute_test {
	const char *name;
	const char *summary;
	unsigned int takes;	/* COMPUTE_TAKES_* */
	bool fp8;		/* takes 8-bit float inputs */
};

struct compute_args {
	uint32_t sizes[COMPUTE_MAX_LIST];	/* matrix sides, in order */
	size_t size_count;
	const struct compute_type *types[COMPUTE_MAX_LIST];
	size_t type_count;
	uint32_t cores[COMPUTE_MAX_LIST];	/* 0: every core */
	size_t core_count;
	const struct compute_function *functions[COMPUTE_MAX_LIST];
	size_t function_count;
	bool transpose_a, transpose_b;
	long iters, warmup_iters, device;
};

/*
 * Parses argv (argv[0] the test's name) into @args by the options @test
 * takes, printing a sentence that says what was wanted for anything it
 * rejects. Core counts and the device index are checked against the
 * device later, by the test.
 */
enum bench_parse_result compute_parse_args(const struct compute_test *test,
					   int argc, char **argv,
					   struct compute_args *args);

/* Prints @test's options help to stdout. */
void compute_print_usage(const struct compute_test *test);

#endif /* TOOLS_BENCH_COMPUTE_ARGS_H */
