// SPDX-License-Identifier: MIT
/*
 * Options of the compute tests. One table gives each option's names, its
 * line of --help, what it wants and which tests take it, so the parser,
 * the help and the messages cannot disagree. -b -e -f -n -w -d are
 * copy's, with sizes the side of a square matrix; the lists have long
 * names only.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"

#define COMPUTE_MAX_FACTOR 1024
#define COMPUTE_MAX_ITERS 1000000

/* Options without a short form. */
enum { OPT_SIZES = 256, OPT_DTYPE, OPT_CORES, OPT_TRANSPOSE, OPT_FUNCTION };

struct compute_option {
	int id;			/* the short option, or OPT_* */
	const char *name;	/* long name */
	const char *arg;	/* its value in --help; NULL: takes none */
	const char *help;	/* NULL: an alias, not listed */
	const char *wanted;	/* follows "expected" */
	unsigned int only;	/* 0: every test; else COMPUTE_TAKES_* */
};

#define SIDE_WANTED \
	"a matrix side from 1 to 32K (digits with an optional K suffix, e.g. 4K)"
#define HELP_INDENT "\n                             "

static const struct compute_option compute_options[] = {
	{ 'b', "minsize", "N",
	  "smallest matrix side (default 128)", SIDE_WANTED, 0 },
	{ 'e', "maxsize", "N",
	  "largest matrix side (default 4096)", SIDE_WANTED, 0 },
	{ 'f', "stepfactor", "N",
	  "multiply the side by N each step (default 2)",
	  "a whole multiplication factor from 2 to 1024", 0 },
	{ OPT_SIZES, "sizes", "LIST",
	  "these sides instead of -b -e -f, e.g. 100,1000",
	  "matrix sides from 1 to 32K, comma-separated, each once (e.g. 128,1000,4K)",
	  0 },
	{ OPT_DTYPE, "dtype", "LIST",
	  "input types (default bf16,fp32):" HELP_INDENT,
	  "input types, comma-separated, each once: ", 0 },
	{ OPT_FUNCTION, "function", "LIST",
	  "activations (default gelu, the tanh form):" HELP_INDENT,
	  "activations, comma-separated, each once: ", COMPUTE_TAKES_FUNCTION },
	{ OPT_CORES, "cores", "LIST",
	  "core counts to spread C over, e.g. 1,8 (default all)",
	  "core counts from 1 to 64 or 'all', comma-separated, each once",
	  COMPUTE_TAKES_CORES },
	{ OPT_TRANSPOSE, "transpose", "OPS",
	  "nn, nt, tn or tt: op(A), op(B) as stored (n)" HELP_INDENT
	  "or transposed (t) (default nn)",
	  "nn, nt, tn or tt: op(A) then op(B), n as stored or t transposed",
	  COMPUTE_TAKES_TRANSPOSE },
	{ 'n', "iters", "N",
	  "timed iterations per row (default 3)",
	  "a whole number of iterations from 1 to 1000000", 0 },
	{ 'w', "warmup_iters", "N",
	  "untimed iterations per row first (default 1)",
	  "a whole number of warm-up iterations from 0 to 1000000", 0 },
	{ 'w', "warmup", "N", NULL, NULL, 0 },
	{ 'd', "device", "N",
	  "device index (default 0)",
	  "a device index, a whole number from 0 (see 'tern-inspect list')",
	  0 },
	{ 'h', "help", NULL, "show this help", NULL, 0 },
};

#define COMPUTE_OPTIONS (sizeof(compute_options) / sizeof(compute_options[0]))

static bool compute_takes(const struct compute_test *test,
			  const struct compute_option *o)
{
	return !o->only || (test->takes & o->only);
}

static const struct compute_option *compute_option(int id)
{
	for (size_t i = 0; i < COMPUTE_OPTIONS; i++)
		if (compute_options[i].id == id)
			return &compute_options[i];
	return NULL;
}

/* "-b" or "--sizes": how a message names the option. */
static const char *compute_option_name(int id)
{
	static char name[32];

	if (id < OPT_SIZES)
		snprintf(name, sizeof(name), "-%c", id);
	else
		snprintf(name, sizeof(name), "--%s", compute_option(id)->name);
	return name;
}

/* The names a list takes end its lines; every other line is as written. */
static const char *compute_with_names(const struct compute_test *test, int id,
				      const char *text)
{
	static char line[320];

	if (id == OPT_DTYPE)
		snprintf(line, sizeof(line), "%s%s", text,
			 compute_type_names(test->fp8));
	else if (id == OPT_FUNCTION)
		snprintf(line, sizeof(line), "%s%s", text,
			 compute_function_names());
	else
		return text;
	return line;
}

void compute_print_usage(const struct compute_test *test)
{
	printf("Usage: tern-bench %s [options]\n%s\n\nOptions:\n", test->name,
	       test->summary);
	for (size_t i = 0; i < COMPUTE_OPTIONS; i++) {
		const struct compute_option *o = &compute_options[i];
		char left[40];

		if (!o->help || !compute_takes(test, o))
			continue;
		snprintf(left, sizeof(left), "%s%c%s --%s%s%s",
			 o->id < OPT_SIZES ? "-" : " ",
			 o->id < OPT_SIZES ? o->id : ' ',
			 o->id < OPT_SIZES ? "," : " ", o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
		printf("  %-27s%s\n", left,
		       compute_with_names(test, o->id, o->help));
	}
	printf("\n"
	       "Every result is checked; the exit status is 0 when all are right,\n"
	       "1 when any is wrong or the device fails, 2 for a bad command line\n"
	       "or TERN_* settings. Devices: tern.ko's, or simulated ones when there\n"
	       "are none; on the simulator this test sets TERN_SIM_CORES=8 and\n"
	       "TERN_SIM_CLOCK=model unless they are set.\n");
}

/* Splits @text at commas; false for an empty item or too many. */
static bool compute_split(const char *text, char items[][16], size_t *count)
{
	const char *at = text;

	*count = 0;
	for (;;) {
		size_t len = strcspn(at, ",");

		if (len == 0 || len >= sizeof(items[0]) ||
		    *count == COMPUTE_MAX_LIST)
			return false;
		memcpy(items[*count], at, len);
		items[(*count)++][len] = '\0';
		if (!at[len])
			return true;
		at += len + 1;
	}
}

/* Item @i of list option @id into @args; false if it is none of its values. */
static bool compute_parse_item(const struct compute_test *test, int id,
			       const char *item, size_t i,
			       struct compute_args *args)
{
	uint64_t side;
	long cores;

	switch (id) {
	case OPT_SIZES:
		if (!cli_parse_size(item, 1, COMPUTE_MAX_SIDE, &side))
			return false;
		args->sizes[i] = (uint32_t)side;
		return true;
	case OPT_DTYPE:
		args->types[i] = compute_type_find(item);
		return args->types[i] &&
		       (test->fp8 || args->types[i]->bytes > 1);
	case OPT_FUNCTION:
		args->functions[i] = compute_function_find(item);
		return args->functions[i] != NULL;
	default:	/* OPT_CORES */
		if (strcmp(item, "all") == 0)
			cores = 0;
		else if (!cli_parse_long(item, 1, 64, &cores))
			return false;
		args->cores[i] = (uint32_t)cores;
		return true;
	}
}

static bool compute_parse_list(const struct compute_test *test, int id,
			       const char *text, struct compute_args *args)
{
	char items[COMPUTE_MAX_LIST][16];
	size_t count;

	if (!compute_split(text, items, &count))
		return false;
	for (size_t i = 0; i < count; i++) {
		for (size_t j = 0; j < i; j++)
			if (strcmp(items[i], items[j]) == 0)
				return false;
		if (!compute_parse_item(test, id, items[i], i, args))
			return false;
	}
	if (id == OPT_SIZES)
		args->size_count = count;
	else if (id == OPT_DTYPE)
		args->type_count = count;
	else if (id == OPT_FUNCTION)
		args->function_count = count;
	else
		args->core_count = count;
	return true;
}

/* The sweep -b -e -f, as given or by default. */
struct compute_sweep {
	uint64_t min, max;
	long factor;
	bool given;
};

static bool compute_parse_value(const struct compute_test *test, int id,
				const char *text, struct compute_args *args,
				struct compute_sweep *sweep)
{
	switch (id) {
	case 'b':
		sweep->given = true;
		return cli_parse_size(text, 1, COMPUTE_MAX_SIDE, &sweep->min);
	case 'e':
		sweep->given = true;
		return cli_parse_size(text, 1, COMPUTE_MAX_SIDE, &sweep->max);
	case 'f':
		sweep->given = true;
		return cli_parse_long(text, 2, COMPUTE_MAX_FACTOR,
				      &sweep->factor);
	case OPT_SIZES:
	case OPT_DTYPE:
	case OPT_CORES:
	case OPT_FUNCTION:
		return compute_parse_list(test, id, text, args);
	case OPT_TRANSPOSE:
		if (strlen(text) != 2 || !strchr("nt", text[0]) ||
		    !strchr("nt", text[1]))
			return false;
		args->transpose_a = text[0] == 't';
		args->transpose_b = text[1] == 't';
		return true;
	case 'n':
		return cli_parse_long(text, 1, COMPUTE_MAX_ITERS, &args->iters);
	case 'w':
		return cli_parse_long(text, 0, COMPUTE_MAX_ITERS,
				      &args->warmup_iters);
	case 'd':
		return cli_parse_long(text, 0, INT_MAX, &args->device);
	}
	return false;
}

/* The sides of the sweep; the caller has checked -b <= -e. */
static void compute_expand_sweep(const struct compute_sweep *sweep,
				 struct compute_args *args)
{
	args->size_count = 0;
	for (uint64_t side = sweep->min;
	     side <= sweep->max && args->size_count < COMPUTE_MAX_LIST;
	     side *= (uint64_t)sweep->factor)
		args->sizes[args->size_count++] = (uint32_t)side;
}

/* Names the option getopt rejected: "--long..." as typed, or "-x". */
static void compute_unknown_option(const char *name, int argc, char **argv)
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

/* After the options: the checks that involve two of them. */
static enum bench_parse_result compute_finish(const char *name,
					      const struct compute_sweep *sweep,
					      struct compute_args *args)
{
	if (sweep->given && args->size_count) {
		fprintf(stderr,
			"tern-bench %s: --sizes and -b, -e or -f both give the sizes: use one or the other\n",
			name);
		return BENCH_PARSE_USAGE;
	}
	if (sweep->min > sweep->max) {
		fprintf(stderr,
			"tern-bench %s: -b (%llu) must not exceed -e (%llu)\n",
			name, (unsigned long long)sweep->min,
			(unsigned long long)sweep->max);
		return BENCH_PARSE_USAGE;
	}
	if (!args->size_count)
		compute_expand_sweep(sweep, args);
	return BENCH_PARSE_RUN;
}

/* getopt's tables, from the options @test takes. */
static void compute_getopt_tables(const struct compute_test *test,
				  struct option *longopts, char *optstring)
{
	size_t n = 0;

	strcpy(optstring, "+:");
	for (size_t i = 0; i < COMPUTE_OPTIONS; i++) {
		const struct compute_option *o = &compute_options[i];

		if (!compute_takes(test, o))
			continue;
		longopts[n++] = (struct option) {
			o->name, o->arg ? required_argument : no_argument,
			NULL, o->id };
		if (o->id < OPT_SIZES && !strchr(optstring, o->id)) {
			size_t len = strlen(optstring);

			optstring[len] = (char)o->id;
			strcpy(optstring + len + 1, o->arg ? ":" : "");
		}
	}
	longopts[n] = (struct option) { NULL, 0, NULL, 0 };
}

enum bench_parse_result compute_parse_args(const struct compute_test *test,
					   int argc, char **argv,
					   struct compute_args *args)
{
	struct option longopts[COMPUTE_OPTIONS + 1];
	const char *name = argv[0];
	char optstring[64];
	struct compute_sweep sweep = { .min = 128, .max = 4096, .factor = 2 };
	int opt;

	*args = (struct compute_args) {
		.types = { compute_type_find("bf16"),
			   compute_type_find("fp32") },
		.type_count = 2,
		.core_count = 1,	/* cores[0] = 0: all */
		.functions = { compute_function_find("gelu") },
		.function_count = 1,
		.iters = 3,
		.warmup_iters = 1,
	};
	compute_getopt_tables(test, longopts, optstring);
	opterr = 0;	/* our messages say what was wanted */
	optind = 0;	/* glibc: full rescan, main() already used getopt */
	while ((opt = getopt_long(argc, argv, optstring, longopts, NULL)) !=
	       -1) {
		const struct compute_option *o = compute_option(optopt);

		switch (opt) {
		case 'h':
			return BENCH_PARSE_HELP;
		case ':':
			fprintf(stderr, "tern-bench %s: %s needs a value: expected %s\n",
				name, argv[optind - 1],
				compute_with_names(test, optopt,
						   o ? o->wanted : "a value"));
			return BENCH_PARSE_USAGE;
		case '?':
			compute_unknown_option(name, argc, argv);
			return BENCH_PARSE_USAGE;
		default:
			if (compute_parse_value(test, opt, optarg, args, &sweep))
				break;
			fprintf(stderr, "tern-bench %s: %s '%s': expected %s\n",
				name, compute_option_name(opt), optarg,
				compute_with_names(test, opt,
						   compute_option(opt)->wanted));
			return BENCH_PARSE_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr,
			"tern-bench %s: unexpected argument '%s' (options only; see 'tern-bench %s --help')\n",
			name, argv[optind], name);
		return BENCH_PARSE_USAGE;
	}
	return compute_finish(name, &sweep, args);
}
