/* SPDX-License-Identifier: MIT */
/*
 * The sweep options every tern-bench test shares, spelled as in nccl-tests.
 */
#ifndef TOOLS_BENCH_OPTIONS_H
#define TOOLS_BENCH_OPTIONS_H

#include <stdint.h>

#include "tern.h"

struct bench_options {
	uint64_t min_bytes;	/* -b */
	uint64_t max_bytes;	/* -e */
	uint64_t factor;	/* -f: each size is the previous one times this */
	long iters;		/* -n: timed iterations per size */
	long warmup_iters;	/* -w: untimed iterations before timing */
	long device;		/* -d: device index */
};

/* What bench_parse_options() found. */
enum bench_parse_result {
	BENCH_PARSE_RUN,	/* options are valid: run the test */
	BENCH_PARSE_HELP,	/* help was printed: exit 0 */
	BENCH_PARSE_USAGE,	/* a message was printed: exit EXIT_USAGE */
};

/*
 * Parses argv (argv[0] is the test's name, e.g. "copy") into @opts, printing
 * a message that says what was wanted for anything it rejects. The device
 * index is checked against the devices present later, by the test.
 */
enum bench_parse_result bench_parse_options(int argc, char **argv,
					    struct bench_options *opts);

/* Prints the options help for test @name to stdout. */
void bench_print_usage(const char *name, const char *summary);

/* As bench_parse_options(), for tern-bench latency: -n -w -d only. */
enum bench_parse_result bench_parse_latency_options(int argc, char **argv,
						    struct bench_options *opts);
void bench_print_latency_usage(const char *summary);

/*
 * The options of the collective tests (all-reduce, ...): the sweep, plus
 * nccl-tests' -c -d -o -r -g. Here -d is the data type, as in nccl-tests,
 * not a device index: a collective runs on -g devices from device 0.
 */
struct bench_coll_options {
	struct bench_options sweep;	/* .device is unused */
	long check;		/* -c: 1 verify results, 0 do not */
	tern_dtype_t dtype;	/* -d */
	tern_redop_t op;	/* -o */
	long root;		/* -r: checked against the ranks later */
	long ndev;		/* -g: 0 means every device */
	long sim_hosts;		/* -H: ranks on this many simulated hosts */
};

/* As bench_parse_options(), for a collective test. */
enum bench_parse_result bench_parse_coll_options(int argc, char **argv,
						 struct bench_coll_options *opts);

/* Prints the options help for collective test @name to stdout. */
void bench_print_coll_usage(const char *name, const char *summary);

/* nccl-tests' names: "float", "half", ... and "sum", "prod", "min", "max", "avg". */
const char *bench_dtype_name(tern_dtype_t dtype);
const char *bench_redop_name(tern_redop_t op);

/* The next size of the sweep after @size, or 0 when the sweep is over. */
uint64_t bench_next_size(const struct bench_options *opts, uint64_t size);

#endif /* TOOLS_BENCH_OPTIONS_H */
