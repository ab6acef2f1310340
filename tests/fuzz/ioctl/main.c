// SPDX-License-Identifier: MIT
/*
 * tern-fuzz's supervisor: prints the seed, forks the racer and the worker
 * processes, SIGKILLs a random worker now and then (its jobs in flight)
 * and forks another in its place, and at the end stops everything,
 * within bounds, and prints the table of calls.
 *
 * Exit status: 0 when the fuzzer worked, whatever the kernel did (the
 * kernel log judges that); 1 when the fuzzer failed: no Tern device, a
 * worker that crashed or exited on its own, a process that would not die
 * (stuck in the kernel); 2 for a bad command line.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

/* How long a killed process may take to go; longer means stuck. */
#define REAP_BOUND_MS		60000
/* How long workers get to see the stop flag before SIGKILL. */
#define STOP_GRACE_MS		500
#define TICK_MS			10
#define MAX_DYING		1024

struct dying {
	pid_t pid;
	unsigned int generation;
	int64_t killed_ms;
};

struct supervisor {
	const struct fuzz_options *opt;
	const struct fuzz_devices *devices;
	struct fuzz_shared *shared;
	struct rng rng;
	pid_t *workers;			/* one slot per --procs */
	unsigned int *generations;
	pid_t racer;
	unsigned int started, killed, failures;
	struct dying dying[MAX_DYING];
	unsigned int dying_count;
};

static int64_t now_ms(void)
{
	return monotonic_ns() / 1000000;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void describe(int status, char *out, size_t size)
{
	if (WIFSIGNALED(status))
		snprintf(out, size, "killed by signal %d (SIG%s)", WTERMSIG(status),
			 sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
	else
		snprintf(out, size, "exit status %d", WEXITSTATUS(status));
}

static pid_t spawn_worker(struct supervisor *s, unsigned int slot)
{
	unsigned int generation = s->started++;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		perror("tern-fuzz: fork");
		s->failures++;
		return -1;
	}
	if (pid == 0)
		worker_main(s->opt, s->devices, s->shared, generation);
	s->workers[slot] = pid;
	s->generations[slot] = generation;
	if (s->opt->verbose)
		fprintf(stderr, "tern-fuzz: worker %u started (pid %d)\n",
			generation, (int)pid);
	return pid;
}

static void kill_worker(struct supervisor *s, unsigned int slot)
{
	pid_t pid = s->workers[slot];

	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	if (s->dying_count < MAX_DYING)
		s->dying[s->dying_count++] = (struct dying){
			pid, s->generations[slot], now_ms(),
		};
	if (s->opt->verbose)
		fprintf(stderr, "tern-fuzz: worker %u killed (pid %d)\n",
			s->generations[slot], (int)pid);
	s->workers[slot] = 0;
}

/* A reaped process: a killed worker, a live worker or the racer. */
static void reaped(struct supervisor *s, pid_t pid, int status, bool stopping)
{
	char how[64];

	describe(status, how, sizeof(how));
	for (unsigned int i = 0; i < s->dying_count; i++) {
		if (s->dying[i].pid != pid)
			continue;
		/* killed by us, or it had already died some other way */
		if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
			if (WIFSIGNALED(status) || WEXITSTATUS(status)) {
				fprintf(stderr, "tern-fuzz: worker %u (pid %d): %s\n",
					s->dying[i].generation, (int)pid, how);
				s->failures++;
			}
		}
		s->dying[i] = s->dying[--s->dying_count];
		return;
	}
	if (pid == s->racer) {
		s->racer = 0;
		if (!stopping || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "tern-fuzz: the racer (pid %d): %s\n", (int)pid, how);
			s->failures++;
		}
		return;
	}
	for (unsigned int slot = 0; slot < s->opt->procs; slot++) {
		if (s->workers[slot] != pid)
			continue;
		s->workers[slot] = 0;
		if (stopping && WIFEXITED(status) && !WEXITSTATUS(status))
			return;
		/*
		 * A worker never ends on its own: it crashed, or an oops in
		 * one of its calls killed it (the kernel log will tell).
		 */
		fprintf(stderr, "tern-fuzz: worker %u (pid %d) died: %s\n",
			s->generations[slot], (int)pid, how);
		s->failures++;
		if (!stopping)
			spawn_worker(s, slot);
		return;
	}
}

static void reap(struct supervisor *s, bool stopping)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		reaped(s, pid, status, stopping);
}

/* Killed processes that have not gone are stuck in the kernel. */
static void check_stuck(struct supervisor *s)
{
	int64_t now = now_ms();

	for (unsigned int i = 0; i < s->dying_count; i++) {
		if (now - s->dying[i].killed_ms < REAP_BOUND_MS)
			continue;
		fprintf(stderr, "tern-fuzz: worker %u (pid %d) still there %d s "
			"after SIGKILL: stuck in the kernel\n", s->dying[i].generation,
			(int)s->dying[i].pid, REAP_BOUND_MS / 1000);
		s->failures++;
		s->dying[i--] = s->dying[--s->dying_count];
	}
}

static int64_t next_kill(struct supervisor *s, int64_t now)
{
	unsigned int mean = s->opt->kill_ms;

	return now + mean / 2 + (int64_t)rng_below(&s->rng, mean + 1);
}

static void run(struct supervisor *s)
{
	int64_t start = now_ms(), end = start + 1000ll * s->opt->time_s;
	int64_t kill_at = next_kill(s, start);

	for (unsigned int slot = 0; slot < s->opt->procs; slot++)
		spawn_worker(s, slot);
	for (int64_t now = start; now < end; now = now_ms()) {
		reap(s, false);
		check_stuck(s);
		if (s->opt->kill_ms && now >= kill_at) {
			unsigned int slot = (unsigned int)rng_below(&s->rng, s->opt->procs);

			kill_worker(s, slot);
			s->killed++;
			spawn_worker(s, slot);
			kill_at = next_kill(s, now);
		}
		sleep_ms(TICK_MS);
	}
}

static bool anyone_left(const struct supervisor *s)
{
	if (s->racer > 0 || s->dying_count)
		return true;
	for (unsigned int slot = 0; slot < s->opt->procs; slot++) {
		if (s->workers[slot] > 0)
			return true;
	}
	return false;
}

/* Stop flag, a grace period, SIGKILL, then a bounded wait for them all. */
static void stop(struct supervisor *s)
{
	int64_t deadline;

	atomic_store(&s->shared->stop, 1);
	for (int64_t end = now_ms() + STOP_GRACE_MS; now_ms() < end && anyone_left(s);) {
		reap(s, true);
		sleep_ms(TICK_MS);
	}
	for (unsigned int slot = 0; slot < s->opt->procs; slot++)
		kill_worker(s, slot);
	deadline = now_ms() + REAP_BOUND_MS;
	while (anyone_left(s) && now_ms() < deadline) {
		reap(s, true);
		sleep_ms(TICK_MS);
	}
	if (s->racer > 0) {
		fprintf(stderr, "tern-fuzz: the racer (pid %d) did not stop\n",
			(int)s->racer);
		kill(s->racer, SIGKILL);
		s->failures++;
	}
	check_stuck(s);
	for (unsigned int i = 0; i < s->dying_count; i++) {
		fprintf(stderr, "tern-fuzz: worker %u (pid %d) did not go after "
			"SIGKILL: stuck in the kernel\n", s->dying[i].generation,
			(int)s->dying[i].pid);
		s->failures++;
	}
}

static bool draws_anything(const struct fuzz_options *opt)
{
	for (int call = 0; call < CALL_FENCE_STATUS; call++) {
		if (!opt->skip[call])
			return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	static struct fuzz_devices devices;
	struct fuzz_options opt;
	struct supervisor s;
	int64_t start, ran_ms;

	options_parse(&opt, argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* first, so that even a run that dies can be repeated */
	options_print_replay(&opt);
	if (!draws_anything(&opt)) {
		fprintf(stderr, "tern-fuzz: --skip leaves no call to make\n");
		return 2;
	}
	if (!devices_find(&devices)) {
		fprintf(stderr, "tern-fuzz: no Tern device node (load tern.ko)\n");
		return 1;
	}
	/* The second user's workers open the nodes themselves: let them. */
	for (unsigned int d = 0; opt.second_uid && d < devices.count; d++) {
		if (chmod(devices.dev[d].node, 0666)) {
			perror(devices.dev[d].node);
			return 1;
		}
	}
	for (unsigned int d = 0; d < devices.count; d++)
		printf("tern-fuzz: device %u: %s, %u engines, %u ports, %llu MiB\n",
		       devices.dev[d].info.device_index, devices.dev[d].node,
		       devices.dev[d].info.engine_count,
		       devices.dev[d].info.fabric_port_count,
		       (unsigned long long)(devices.dev[d].info.device_memory_size >> 20));

	memset(&s, 0, sizeof(s));
	s.opt = &opt;
	s.devices = &devices;
	s.shared = stats_create();
	s.workers = calloc(opt.procs, sizeof(*s.workers));
	s.generations = calloc(opt.procs, sizeof(*s.generations));
	if (!s.workers || !s.generations)
		return 1;
	/* the supervisor's own sequence: when to kill, and whom */
	rng_seed(&s.rng, seed_derive(opt.seed, ~0ull, ~0ull));
	signal(SIGPIPE, SIG_IGN);

	start = now_ms();
	if (opt.racer) {
		fflush(stdout);
		s.racer = fork();
		if (s.racer == 0)
			racer_main(&opt, s.shared);
		if (s.racer < 0) {
			perror("tern-fuzz: fork");
			return 1;
		}
	}
	run(&s);
	/* calls per second of the run itself, not of the stopping */
	ran_ms = now_ms() - start;
	stop(&s);
	printf("tern-fuzz: %u workers started, %u killed while running\n",
	       s.started, s.killed);
	stats_print(s.shared, (double)ran_ms / 1000.0);
	if (s.failures)
		printf("tern-fuzz: FAILED: %u fuzzer failures (above)\n", s.failures);
	free(s.workers);
	free(s.generations);
	return s.failures ? 1 : 0;
}
