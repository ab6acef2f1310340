// SPDX-License-Identifier: MIT
/*
 * tern-fuzz's command line.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: tern-fuzz [options]\n"
		"\n"
		"Random and mutated ioctls on every Tern device node from several\n"
		"processes and threads, SIGKILLs while jobs run, and a racer writing\n"
		"the debugfs fault knobs and reading netlink and sysfs. Prints the\n"
		"seed first and a table of calls and errnos last. Exits 0 unless the\n"
		"fuzzer itself failed; the kernel log tells how the kernel fared.\n"
		"\n"
		"  --seed N        master seed (default: from the clock); every\n"
		"                  worker's and thread's seed derives from it\n"
		"  --time SEC      how long to run (default 30)\n"
		"  --procs N       worker processes at a time (default 3)\n"
		"  --threads N     threads per worker (default 4)\n"
		"  --kill-ms N     mean time between SIGKILLs of a random worker,\n"
		"                  which is then replaced (default 500; 0: never)\n"
		"  --no-faults     the racer reads but injects no faults\n"
		"  --no-racer      no racer process at all\n"
		"  --second-uid U  odd workers run as uid and gid U (root only; the\n"
		"                  nodes are made 0666 for them): two users at once\n"
		"  --skip CALLS    calls no worker makes, comma-separated names\n"
		"                  from --list-calls, e.g. TERN_QUEUE_DESTROY\n"
		"  --list-calls    the names of the calls workers make\n"
		"  --verbose       log every worker's and thread's seed\n"
		"  --trace         log every call (for replays with one thread)\n"
		"  -h, --help      this text\n");
}

static unsigned int number(const char *option, const char *text,
			   unsigned int min, unsigned int max)
{
	char *end;
	unsigned long value;

	errno = 0;
	value = strtoul(text, &end, 0);
	if (errno || *end || end == text || value < min || value > max) {
		fprintf(stderr, "tern-fuzz: %s: not a number in %u-%u: %s\n",
			option, min, max, text);
		exit(2);
	}
	return (unsigned int)value;
}

static void skip_calls(struct fuzz_options *opt, const char *list)
{
	char *copy = strdup(list), *save = NULL;

	for (char *name = strtok_r(copy, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		enum fuzz_call call = call_by_name(name);

		if (call >= CALL_FENCE_STATUS) {
			fprintf(stderr, "tern-fuzz: --skip: no call %s (see --list-calls)\n",
				name);
			exit(2);
		}
		opt->skip[call] = true;
	}
	free(copy);
}

void options_parse(struct fuzz_options *opt, int argc, char **argv)
{
	enum { OPT_SEED = 256, OPT_TIME, OPT_PROCS, OPT_THREADS, OPT_KILL_MS,
	       OPT_NO_FAULTS, OPT_NO_RACER, OPT_SKIP, OPT_LIST, OPT_VERBOSE,
	       OPT_TRACE, OPT_SECOND_UID };
	static const struct option long_options[] = {
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "time", required_argument, NULL, OPT_TIME },
		{ "procs", required_argument, NULL, OPT_PROCS },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "kill-ms", required_argument, NULL, OPT_KILL_MS },
		{ "no-faults", no_argument, NULL, OPT_NO_FAULTS },
		{ "no-racer", no_argument, NULL, OPT_NO_RACER },
		{ "skip", required_argument, NULL, OPT_SKIP },
		{ "list-calls", no_argument, NULL, OPT_LIST },
		{ "verbose", no_argument, NULL, OPT_VERBOSE },
		{ "trace", no_argument, NULL, OPT_TRACE },
		{ "second-uid", required_argument, NULL, OPT_SECOND_UID },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct timespec now;
	char *end;
	int c;

	clock_gettime(CLOCK_REALTIME, &now);
	*opt = (struct fuzz_options){
		.seed = ((uint64_t)now.tv_sec << 20) ^ (uint64_t)now.tv_nsec ^
			((uint64_t)getpid() << 40),
		.time_s = 30, .procs = 3, .threads = 4, .kill_ms = 500,
		.faults = true, .racer = true,
	};
	while ((c = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
		switch (c) {
		case OPT_SEED:
			errno = 0;
			opt->seed = strtoull(optarg, &end, 0);
			if (errno || *end || end == optarg) {
				fprintf(stderr, "tern-fuzz: --seed: not a number: %s\n",
					optarg);
				exit(2);
			}
			break;
		case OPT_TIME:
			opt->time_s = number("--time", optarg, 1, 7 * 86400);
			break;
		case OPT_PROCS:
			opt->procs = number("--procs", optarg, 1, 64);
			break;
		case OPT_THREADS:
			opt->threads = number("--threads", optarg, 1, 64);
			break;
		case OPT_KILL_MS:
			opt->kill_ms = number("--kill-ms", optarg, 0, 3600000);
			break;
		case OPT_NO_FAULTS:
			opt->faults = false;
			break;
		case OPT_NO_RACER:
			opt->racer = false;
			break;
		case OPT_SKIP:
			skip_calls(opt, optarg);
			break;
		case OPT_LIST:
			for (int call = 0; call < CALL_FENCE_STATUS; call++)
				printf("%s\n", call_name((enum fuzz_call)call));
			exit(0);
		case OPT_VERBOSE:
			opt->verbose = true;
			break;
		case OPT_TRACE:
			opt->trace = true;
			break;
		case OPT_SECOND_UID:
			opt->second_uid = number("--second-uid", optarg, 1,
						 0x7fffffff);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "tern-fuzz: unexpected argument %s\n", argv[optind]);
		exit(2);
	}
}

void options_print_replay(const struct fuzz_options *opt)
{
	const char *sep = " --skip ";

	printf("tern-fuzz: seed %" PRIu64 "\n", opt->seed);
	printf("tern-fuzz: replay: tern-fuzz --seed %" PRIu64
	       " --time %u --procs %u --threads %u --kill-ms %u%s%s",
	       opt->seed, opt->time_s, opt->procs, opt->threads, opt->kill_ms,
	       opt->faults ? "" : " --no-faults", opt->racer ? "" : " --no-racer");
	if (opt->second_uid)
		printf(" --second-uid %u", opt->second_uid);
	for (int call = 0; call < CALL_FENCE_STATUS; call++) {
		if (!opt->skip[call])
			continue;
		printf("%s%s", sep, call_name((enum fuzz_call)call));
		sep = ",";
	}
	printf("\n");
	fflush(stdout);
}
