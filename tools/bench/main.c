// SPDX-License-Identifier: MIT
/*
 * tern-bench: measures Tern devices the way nccl-tests measures GPUs, with
 * every result checked. "tern-bench TEST [options]"; see --help.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "cli.h"

/* A test: its own entry point (@main), else collective @coll. */
struct bench_test {
	const char *name;
	const char *summary;
	int (*main)(int argc, char **argv);
	enum coll_id coll;
};

static const struct bench_test bench_tests[] = {
	{ "copy", "h2d, d2h and d2d copy bandwidth over a range of sizes",
	  .main = bench_copy_main },
	{ "latency", "a null request, submit plus wait, submit alone, back to back",
	  .main = bench_latency_main },
	{ "gemm", "C = A.B on a device's cores against the peak and OpenBLAS",
	  .main = bench_gemm_main },
	{ "act", "y = f(x) on a device's cores against the engines and a C loop",
	  .main = bench_act_main },
	{ "softmax", "row softmax on a device's cores against the engines and a C loop",
	  .main = bench_softmax_main },
	{ "all-reduce", "all-reduce bandwidth and fabric efficiency",
	  .coll = COLL_ALL_REDUCE },
	{ "all-gather", "all-gather bandwidth and fabric efficiency",
	  .coll = COLL_ALL_GATHER },
	{ "reduce-scatter", "reduce-scatter bandwidth and fabric efficiency",
	  .coll = COLL_REDUCE_SCATTER },
	{ "broadcast", "broadcast bandwidth and fabric efficiency",
	  .coll = COLL_BROADCAST },
	{ "reduce", "reduce bandwidth and fabric efficiency",
	  .coll = COLL_REDUCE },
	{ "all-to-all", "all-to-all bandwidth and fabric efficiency",
	  .coll = COLL_ALL_TO_ALL },
};

#define BENCH_TEST_COUNT (sizeof(bench_tests) / sizeof(bench_tests[0]))

static void bench_usage(FILE *out)
{
	fprintf(out,
		"Usage: tern-bench TEST [options]\n"
		"       tern-bench TEST --help    options of TEST\n"
		"\n"
		"Tests:\n");
	for (size_t i = 0; i < BENCH_TEST_COUNT; i++)
		fprintf(out, "  %-14s %s\n", bench_tests[i].name,
			bench_tests[i].summary);
	fprintf(out,
		"\n"
		"Runs on tern.ko's devices, or on simulated ones when there are\n"
		"none (TERN_BACKEND=kernel|sim, TERN_SIM_DEVICES, TERN_SIM_MEM_MB,\n"
		"TERN_SIM_TOPOLOGY).\n");
}

static int bench_run(const struct bench_test *test, int argc, char **argv)
{
	if (test->main)
		return test->main(argc, argv);
	return bench_coll_main(test->coll, argc, argv);
}

static const struct bench_test *bench_find(const char *name)
{
	for (size_t i = 0; i < BENCH_TEST_COUNT; i++)
		if (strcmp(bench_tests[i].name, name) == 0)
			return &bench_tests[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct bench_test *test;

	if (argc < 2) {
		bench_usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		if (argc > 2 && strcmp(argv[1], "help") == 0) {
			test = bench_find(argv[2]);
			if (test) {
				char help[] = "--help";
				char *help_argv[] = { argv[2], help, NULL };

				return bench_run(test, 2, help_argv);
			}
			fprintf(stderr, "tern-bench: no test named '%s'\n",
				argv[2]);
			return EXIT_USAGE;
		}
		bench_usage(stdout);
		return 0;
	}
	test = bench_find(argv[1]);
	if (!test) {
		fprintf(stderr, "tern-bench: %s '%s'; tests are:", argv[1][0] == '-' ?
			"expected a test name before options, got" :
			"unknown test", argv[1]);
		for (size_t i = 0; i < BENCH_TEST_COUNT; i++)
			fprintf(stderr, " %s", bench_tests[i].name);
		fprintf(stderr, " (see 'tern-bench --help')\n");
		return EXIT_USAGE;
	}
	return bench_run(test, argc - 1, argv + 1);
}
