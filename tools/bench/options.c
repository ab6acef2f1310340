// SPDX-License-Identifier: MIT
/*
 * Options for tern-bench tests, as in nccl-tests with the same long names:
 * -b -e -f -n -w -d -h for copy (-d a device), and for the collectives
 * -b -e -f -n -w -c -d -o -r -g -h (-d a data type).
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "options.h"

#define BENCH_MAX_BYTES (1ull << 40)	/* 1T: far past any device memory */
#define BENCH_MAX_FACTOR 1024
#define BENCH_MAX_ITERS 1000000

static const struct option bench_long_options[] = {
	{ "minbytes", required_argument, NULL, 'b' },
	{ "maxbytes", required_argument, NULL, 'e' },
	{ "stepfactor", required_argument, NULL, 'f' },
	{ "iters", required_argument, NULL, 'n' },
	{ "warmup_iters", required_argument, NULL, 'w' },
	{ "device", required_argument, NULL, 'd' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct option bench_coll_long_options[] = {
	{ "minbytes", required_argument, NULL, 'b' },
	{ "maxbytes", required_argument, NULL, 'e' },
	{ "stepfactor", required_argument, NULL, 'f' },
	{ "iters", required_argument, NULL, 'n' },
	{ "warmup_iters", required_argument, NULL, 'w' },
	{ "check", required_argument, NULL, 'c' },
	{ "datatype", required_argument, NULL, 'd' },
	{ "op", required_argument, NULL, 'o' },
	{ "root", required_argument, NULL, 'r' },
	{ "ngpus", required_argument, NULL, 'g' },
	{ "ndevices", required_argument, NULL, 'g' },
	{ "sim-hosts", required_argument, NULL, 'H' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* tern-bench latency: iterations and a device, no sizes. */
static const struct option bench_latency_long_options[] = {
	{ "iters", required_argument, NULL, 'n' },
	{ "warmup_iters", required_argument, NULL, 'w' },
	{ "device", required_argument, NULL, 'd' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const char *const bench_redop_names[TERN_REDOP_COUNT] = {
	[TERN_SUM] = "sum", [TERN_PROD] = "prod",
	[TERN_MIN] = "min", [TERN_MAX] = "max", [TERN_AVG] = "avg",
};

/* libtern's names, but for the two nccl-tests spells its own way. */
const char *bench_dtype_name(tern_dtype_t dtype)
{
	switch (dtype) {
	case TERN_FLOAT32:
		return "float";
	case TERN_FLOAT16:
		return "half";
	default:
		return tern_dtype_name(dtype);
	}
}

/*
 * "float, half, ... or uint64"; with @width, broken before a name that
 * would pass that column, the next line indented by @indent.
 */
static const char *bench_dtype_list(int indent, int width)
{
	static char list[512];
	size_t used = 0;
	int col = indent;

	for (int d = 0; d < TERN_DTYPE_COUNT && used < sizeof(list); d++) {
		const char *name = bench_dtype_name((tern_dtype_t)d);
		const char *sep = d == 0 ? "" :
				  d + 1 < TERN_DTYPE_COUNT ? "," : " or";
		int len = (int)(strlen(sep) + strlen(name)) + (d > 0);
		bool wrap = width && d > 0 && col + len > width;
		int n = snprintf(list + used, sizeof(list) - used, "%s%s%*s%s",
				 sep, wrap ? "\n" : d > 0 ? " " : "",
				 wrap ? indent : 0, "", name);

		col = wrap ? indent + (int)strlen(name) : col + len;
		used += n > 0 ? (size_t)n : 0;
	}
	return list;
}

const char *bench_redop_name(tern_redop_t op)
{
	return (unsigned int)op < TERN_REDOP_COUNT ?
		bench_redop_names[op] : "unknown";
}

/* What each option wants, worded to follow "expected". */
static const char *bench_wanted(int opt, bool coll)
{
	if (coll) {
		switch (opt) {
		case 'c':
			return "0 (do not check results) or 1 (check them)";
		case 'd': {
			static char wanted[300];

			snprintf(wanted, sizeof(wanted), "a data type: %s",
				 bench_dtype_list(0, 0));
			return wanted;
		}
		case 'o':
			return "a reduction: sum, prod, min, max or avg";
		case 'r':
			return "a root rank, a whole number from 0";
		case 'g':
			return "a number of devices, a whole number from 1";
		case 'H':
			return "a number of simulated hosts from 1 to 64 that "
			       "divides the launcher's ranks";
		}
	}
	switch (opt) {
	case 'b':
	case 'e':
		return "a size in bytes from 1 to 1T (digits with an optional "
		       "K, M or G suffix, e.g. 64K)";
	case 'f':
		return "a whole multiplication factor from 2 to 1024";
	case 'n':
		return "a whole number of iterations from 1 to 1000000";
	case 'w':
		return "a whole number of warm-up iterations from 0 to 1000000";
	case 'd':
		return "a device index, a whole number from 0 (see "
		       "'tern-inspect list')";
	}
	return "nothing";
}

/* The options of the size sweep, which every test takes. */
#define BENCH_SWEEP_USAGE \
	"Options (sizes take K, M or G suffixes, powers of 1024):\n" \
	"  -b, --minbytes SIZE        smallest size (default 1K)\n" \
	"  -e, --maxbytes SIZE        largest size (default 64M)\n" \
	"  -f, --stepfactor N         multiply the size by N each step (default 4)\n" \
	"  -n, --iters N              timed iterations per size (default 20)\n" \
	"  -w, --warmup_iters N       untimed iterations per size first (default 5)\n"

void bench_print_usage(const char *name, const char *summary)
{
	printf("Usage: tern-bench %s [options]\n"
	       "%s\n"
	       "\n"
	       BENCH_SWEEP_USAGE
	       "  -d, --device N             device index (default 0)\n"
	       "  -h, --help                 show this help\n"
	       "\n"
	       "Every result is checked; the exit status is 0 when all are right,\n"
	       "1 when any is wrong or the device fails, 2 for a bad command line\n"
	       "or TERN_* settings. Devices: tern.ko's, or simulated ones when there\n"
	       "are none (TERN_BACKEND=kernel|sim, TERN_SIM_DEVICES, TERN_SIM_MEM_MB).\n",
	       name, summary);
}

static bool bench_parse_name(const char *text, const char *const *names,
			     int count, int *index)
{
	for (int i = 0; i < count; i++) {
		if (strcmp(text, names[i]) == 0) {
			*index = i;
			return true;
		}
	}
	return false;
}

static bool bench_parse_coll_value(int opt, const char *text,
				   struct bench_coll_options *coll)
{
	int index;

	switch (opt) {
	case 'c':
		return cli_parse_long(text, 0, 1, &coll->check);
	case 'd':
		for (int d = 0; d < TERN_DTYPE_COUNT; d++) {
			if (strcmp(text, bench_dtype_name((tern_dtype_t)d)))
				continue;
			coll->dtype = (tern_dtype_t)d;
			return true;
		}
		return false;
	case 'o':
		if (!bench_parse_name(text, bench_redop_names,
				      TERN_REDOP_COUNT, &index))
			return false;
		coll->op = (tern_redop_t)index;
		return true;
	case 'r':
		return cli_parse_long(text, 0, INT_MAX, &coll->root);
	case 'g':
		return cli_parse_long(text, 1, INT_MAX, &coll->ndev);
	case 'H':
		return cli_parse_long(text, 1, 64, &coll->sim_hosts);
	}
	return false;
}

static bool bench_parse_value(int opt, const char *text,
			      struct bench_options *opts,
			      struct bench_coll_options *coll)
{
	if (coll && strchr("cdorgH", opt))
		return bench_parse_coll_value(opt, text, coll);
	switch (opt) {
	case 'b':
		return cli_parse_size(text, 1, BENCH_MAX_BYTES,
				      &opts->min_bytes);
	case 'e':
		return cli_parse_size(text, 1, BENCH_MAX_BYTES,
				      &opts->max_bytes);
	case 'f': {
		long factor;

		if (!cli_parse_long(text, 2, BENCH_MAX_FACTOR, &factor))
			return false;
		opts->factor = (uint64_t)factor;
		return true;
	}
	case 'n':
		return cli_parse_long(text, 1, BENCH_MAX_ITERS, &opts->iters);
	case 'w':
		return cli_parse_long(text, 0, BENCH_MAX_ITERS,
				      &opts->warmup_iters);
	case 'd':
		return cli_parse_long(text, 0, INT_MAX, &opts->device);
	}
	return false;
}

/* Names the option getopt rejected: "--long..." as typed, or "-x". */
static void bench_unknown_option(const char *name, int argc, char **argv)
{
	const char *typed = optind > 0 && optind <= argc ? argv[optind - 1] : "";

	if (strncmp(typed, "--", 2) == 0 || !optopt)
		fprintf(stderr, "tern-bench %s: unknown option '%s'", name,
			typed);
	else
		fprintf(stderr, "tern-bench %s: unknown option '-%c'", name,
			optopt);
	fprintf(stderr, " (see 'tern-bench %s --help')\n", name);
}

/*
 * Parses the sweep into @opts and, for a collective (@coll set), the rest;
 * with @latency, only -n -w -d (and -h).
 */
static enum bench_parse_result bench_parse(int argc, char **argv,
					   struct bench_options *opts,
					   struct bench_coll_options *coll,
					   bool latency)
{
	const char *name = argv[0];
	const char *optstring = coll ? "+:b:e:f:n:w:c:d:o:r:g:H:h" :
				latency ? "+:n:w:d:h" : "+:b:e:f:n:w:d:h";
	const struct option *longopts = coll ? bench_coll_long_options :
					latency ? bench_latency_long_options :
					bench_long_options;
	int opt;

	*opts = (struct bench_options) {
		.min_bytes = 1 << 10,
		.max_bytes = 64 << 20,
		.factor = 4,
		.iters = 20,
		.warmup_iters = 5,
		.device = 0,
	};

	opterr = 0;	/* our messages say what was wanted */
	optind = 0;	/* glibc: full rescan, main() already used getopt */
	if (latency) {
		opts->iters = 10000;
		opts->warmup_iters = 100;
	}
	while ((opt = getopt_long(argc, argv, optstring, longopts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'h':
			return BENCH_PARSE_HELP;
		case ':':
			fprintf(stderr, "tern-bench %s: %s needs a value: expected %s\n",
				name, argv[optind - 1],
				bench_wanted(optopt, coll != NULL));
			return BENCH_PARSE_USAGE;
		case '?':
			bench_unknown_option(name, argc, argv);
			return BENCH_PARSE_USAGE;
		default:
			if (!bench_parse_value(opt, optarg, opts, coll)) {
				fprintf(stderr,
					"tern-bench %s: -%c '%s': expected %s\n",
					name, opt, optarg,
					bench_wanted(opt, coll != NULL));
				return BENCH_PARSE_USAGE;
			}
		}
	}
	if (optind < argc) {
		fprintf(stderr,
			"tern-bench %s: unexpected argument '%s' (options only; see 'tern-bench %s --help')\n",
			name, argv[optind], name);
		return BENCH_PARSE_USAGE;
	}
	if (opts->min_bytes > opts->max_bytes) {
		fprintf(stderr,
			"tern-bench %s: -b (%llu bytes) must not exceed -e (%llu bytes)\n",
			name, (unsigned long long)opts->min_bytes,
			(unsigned long long)opts->max_bytes);
		return BENCH_PARSE_USAGE;
	}
	return BENCH_PARSE_RUN;
}

enum bench_parse_result bench_parse_options(int argc, char **argv,
					    struct bench_options *opts)
{
	return bench_parse(argc, argv, opts, NULL, false);
}

enum bench_parse_result bench_parse_latency_options(int argc, char **argv,
						    struct bench_options *opts)
{
	return bench_parse(argc, argv, opts, NULL, true);
}

void bench_print_latency_usage(const char *summary)
{
	printf("Usage: tern-bench latency [options]\n"
	       "%s\n"
	       "\n"
	       "Options:\n"
	       "  -n, --iters N              timed iterations of each (default 10000)\n"
	       "  -w, --warmup_iters N       untimed iterations of each first (default 100)\n"
	       "  -d, --device N             device index (default 0)\n"
	       "  -h, --help                 show this help\n"
	       "\n"
	       "The exit status is 0 when every call succeeds, 1 when the device\n"
	       "fails, 2 for a bad command line or TERN_* settings. Devices: tern.ko's,\n"
	       "or simulated ones when there are none (TERN_BACKEND=kernel|sim).\n",
	       summary);
}

enum bench_parse_result bench_parse_coll_options(int argc, char **argv,
						 struct bench_coll_options *opts)
{
	opts->check = 1;
	opts->dtype = TERN_FLOAT32;
	opts->op = TERN_SUM;
	opts->root = 0;
	opts->ndev = 0;
	opts->sim_hosts = 0;
	return bench_parse(argc, argv, &opts->sweep, opts, false);
}

void bench_print_coll_usage(const char *name, const char *summary)
{
	printf("Usage: tern-bench %s [options]\n"
	       "%s\n"
	       "\n"
	       BENCH_SWEEP_USAGE
	       "  -c, --check 0|1            check every result (default 1)\n"
	       "  -d, --datatype TYPE        %s (default float)\n"
	       "  -o, --op OP                sum, prod, min, max or avg (default sum)\n"
	       "  -r, --root N               root rank of broadcast and reduce (default 0)\n"
	       "  -g, --ngpus N              devices, one rank each (default: all)\n"
	       "  -H, --sim-hosts N          under a launcher: the ranks in N runs, each\n"
	       "                             a simulated machine of its own (a host)\n"
	       "  -h, --help                 show this help\n"
	       "\n"
	       "The exit status is 0 when every result is right, 1 when any is wrong\n"
	       "or a device fails, 2 for a bad command line or TERN_* settings.\n"
	       "Devices: tern.ko's, or simulated ones when there are none\n"
	       "(TERN_BACKEND=kernel|sim, TERN_SIM_DEVICES, TERN_SIM_TOPOLOGY).\n",
	       name, summary, bench_dtype_list(29, 72));
}

uint64_t bench_next_size(const struct bench_options *opts, uint64_t size)
{
	if (size > opts->max_bytes / opts->factor)
		return 0;
	return size * opts->factor;
}
