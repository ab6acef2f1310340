// SPDX-License-Identifier: MIT
/*
 * fuzz_bootstrap: the bootstrap of tern_comm_init_rank (libruntime/coll/
 * trust/auth.c, init/bootstrap.c, init/rank.c, comm/link.c) under attack, for --seconds.
 *
 * Each run is a communicator of 2 or 3 real ranks, each a process of its
 * own on the slot's simulated machine, and one attacker: a stranger
 * without the secret (outside.c), or a member with it between rank k and
 * rank 0 (member.c, misdeed.c). Its plan (plan.c) comes from the seed
 * and the run's number alone: --seed S --run N replays it. This file
 * reads the options, starts the slots (run.c), which run in parallel, and
 * sums up; the same program is also each rank and attacker, by its first
 * argument.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

static void fz_usage(void)
{
	fprintf(stderr,
		"usage: fuzz_bootstrap [--seconds N] [--seed S] [--jobs N] [--runs N]\n"
		"                      [--run N] [--timeout-ms MS] [--cover] [--verbose]\n"
		"       fuzz_bootstrap --seed S --list N   (what runs 0 to N-1 do)\n");
}

/* The processes a run is made of: this program again. */
static int fz_child(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "--rank") == 0)
		return fz_rank_main(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (argc == 2 && strcmp(argv[1], "--hold") == 0)
		return fz_hold_main();
	if (argc == 6 && strcmp(argv[1], "--proxy") == 0)
		return fz_proxy_main(argv + 2);
	if (argc == 6 && strcmp(argv[1], "--outside") == 0)
		return fz_outside_main(argv + 2);
	return -1;
}

static bool fz_options(int argc, char **argv, struct fz_options *opt,
		       long *list)
{
	bool seeded = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0) {
			opt->verbose = true;
			continue;
		}
		/*
		 * The member hides what it changed from the digest and the
		 * area ids: libtern cannot see it (Documentation/fuzzing.rst).
		 */
		if (strcmp(a, "--cover") == 0) {
			setenv("FUZZ_BOOTSTRAP_COVER", "1", 1);
			continue;
		}
		if (!v)
			return false;
		i++;
		if (strcmp(a, "--seconds") == 0)
			opt->seconds = atoi(v);
		else if (strcmp(a, "--seed") == 0)
			opt->seed = strtoull(v, NULL, 0), seeded = true;
		else if (strcmp(a, "--jobs") == 0)
			opt->jobs = atoi(v);
		else if (strcmp(a, "--runs") == 0)
			opt->runs = atol(v);
		else if (strcmp(a, "--run") == 0)
			opt->only = atol(v);
		else if (strcmp(a, "--timeout-ms") == 0)
			opt->timeout_ms = atoi(v);
		else if (strcmp(a, "--list") == 0)
			*list = atol(v);
		else
			return false;
	}
	if (opt->seconds < 0 || opt->jobs < 1 || opt->jobs > 64 ||
	    opt->timeout_ms < 100)
		return false;
	/* A random seed, for campaigns; printed, to replay. */
	if (!seeded &&
	    getrandom(&opt->seed, sizeof(opt->seed), 0) != sizeof(opt->seed))
		opt->seed = (uint64_t)time(NULL);
	if (!seeded)
		opt->seed %= 1000000000;
	if (opt->only >= 0)
		opt->jobs = 1;
	return true;
}

/* The simulated machines' settings: small, quick to give up. */
static void fz_environment(void)
{
	static char dir[] = "/tmp/tern-fuzzboot.XXXXXX";

	if (!getenv("TERN_SIM_DIR") && mkdtemp(dir))
		setenv("TERN_SIM_DIR", dir, 1);
	setenv("TERN_BACKEND", "sim", 1);
	setenv("TERN_SIM_DEVICES", "4", 1);
	setenv("TERN_SIM_TOPOLOGY", "ring", 1);
	if (!getenv("TERN_SIM_MEM_MB"))
		setenv("TERN_SIM_MEM_MB", "64", 1);
	setenv("TERN_SIM_JOB_TIMEOUT_MS", "1000", 1);
	setenv("TERN_SIM_IDLE_MS", "2000", 1);
	unsetenv("TERN_ALGO");
}

int main(int argc, char **argv)
{
	struct fz_options opt = { .seconds = 8, .jobs = 2, .timeout_ms = 1000,
				  .runs = -1, .only = -1 };
	uint64_t runs = 0, outside = 0, failed = 0, applied = 0, outcome[3] = { 0 };
	uint64_t crashes = 0, hangs = 0, wrong = 0, leaks = 0, unmet = 0;
	uint64_t harness = 0;
	int pipefd[2], slots = 0, ret = fz_child(argc, argv);
	long list = -1;
	pid_t slot[64];
	struct fz_result res;
	int64_t start, end;
	double secs;

	if (ret >= 0)
		return ret;
	if (!fz_options(argc, argv, &opt, &list)) {
		fz_usage();
		return 2;
	}
	for (long run = 0; run < list; run++) {
		struct fz_plan plan;
		char desc[256];

		fz_make_plan(opt.seed, (uint64_t)run, opt.timeout_ms, &plan);
		fz_describe(&plan, desc, sizeof(desc));
		printf("run %ld: %s\n", run, desc);
	}
	if (list >= 0)
		return 0;
	opt.logdir = getenv("TERN_TEST_LOGS") ? getenv("TERN_TEST_LOGS") :
		     "/tmp";
	fz_environment();
	printf("fuzz/bootstrap: seed %" PRIu64 ", %d s, %d slots, init timeout %d ms (%d ms where a run may succeed)\n",
	       opt.seed, opt.seconds, opt.jobs, opt.timeout_ms,
	       3 * opt.timeout_ms);
	printf("fuzz/bootstrap: to replay one run: %s --seed %" PRIu64 " --run N\n",
	       argv[0], opt.seed);
	fflush(stdout);
	if (pipe2(pipefd, O_CLOEXEC))
		return 1;
	start = fz_now_ms();
	end = start + (int64_t)opt.seconds * 1000;
	for (int i = 0; i < opt.jobs; i++) {
		slot[i] = fork();
		if (slot[i] == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			close(pipefd[0]);
			_exit(fz_slot_main(&opt, i, pipefd[1], end));
		}
		slots += slot[i] > 0;
	}
	close(pipefd[1]);
	while (read(pipefd[0], &res, sizeof(res)) == (ssize_t)sizeof(res)) {
		failed += res.failed;
		if (res.run == UINT64_MAX) {
			harness++;	/* a slot that could not start */
			continue;
		}
		runs++;
		outside += res.attack == FZ_OUTSIDE;
		applied += res.attack == FZ_MEMBER && res.applied;
		crashes += res.crashes;
		hangs += res.hangs;
		wrong += res.wrong;
		leaks += res.leaks;
		unmet += res.unmet;
		harness += res.harness > 0;
		outcome[res.outcome < 3 ? res.outcome : OUT_MIXED]++;
	}
	for (int i = 0; i < opt.jobs; i++)
		while (slot[i] > 0 && waitpid(slot[i], &ret, 0) < 0 &&
		       errno == EINTR)
			;
	secs = (double)(fz_now_ms() - start) / 1000.0;
	printf("fuzz/bootstrap: outcomes: every rank ok %" PRIu64 ", every init failed %" PRIu64 ", mixed %" PRIu64 "; the member misbehaved in %" PRIu64 "; %.1f runs/s\n",
	       outcome[OUT_ALL_OK], outcome[OUT_ALL_FAILED], outcome[OUT_MIXED],
	       applied, secs > 0 ? (double)runs / secs : 0.0);
	printf("fuzz/bootstrap: failures: wrong data %" PRIu64 ", fd leaks %" PRIu64 ", not as expected %" PRIu64 ", harness %" PRIu64 "\n",
	       wrong, leaks, unmet, harness);
	printf("fuzz/bootstrap: %" PRIu64 " runs (outside %" PRIu64 ", member %" PRIu64 "), %" PRIu64 " crashes, %" PRIu64 " hangs, seed %" PRIu64 "\n",
	       runs, outside, runs - outside, crashes, hangs, opt.seed);
	/* As cmocka counts, for tests/suite-lib.sh. */
	printf("[  PASSED  ] %" PRIu64 " test(s).\n",
	       runs - (failed > runs ? runs : failed));
	if (failed)
		printf("[  FAILED  ] %" PRIu64 " test(s), listed above.\n", failed);
	return failed || runs == 0 || slots != opt.jobs ? 1 : 0;
}
