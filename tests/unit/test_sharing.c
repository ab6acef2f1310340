// SPDX-License-Identifier: MIT
/*
 * Processes sharing one simulated machine, well-behaved or not:
 *
 * - two processes running all-reduces over the same two devices both
 *   stay exact and never wait for each other's jobs (a job waiting on a
 *   semaphore holds no engine);
 * - a process killed in the middle of its collectives, beside a
 *   bystander on the same devices: the bystander's all-reduces stay
 *   exact, and the killed process's memory comes back at once;
 * - a process whose jobs wait on their own fence or on a word nothing
 *   writes, then destroys the queue and exits, leaves nothing held.
 *
 * The machine's job timeout is 600 s here, so that nothing passes by
 * waiting for it: a test that would need it fails well before.
 *
 * This program holds machine "s-PID" (2 devices) for the whole run; the
 * processes it needs are this program again (--child NAME).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "packets.h"
#include "raw_client.h"
#include "sim_test.h"
#include "tern.h"

#define COUNT		4096		/* floats per all-reduce */
#define KILL_CYCLES	100
/* No progress for this long, with a 600 s job timeout: a deadlock. */
#define STALL_NS	30000000000ull

static char machine_name[64];
static tern_device_t dev[2];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Runs this program as --child @name, its fd 3 @fd. Returns its pid. */
static pid_t child_start(const char *name, int fd)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (fd != 3) {
			dup2(fd, 3);
			close(fd);
		}
		execl("/proc/self/exe", "test_sharing", "--child", name,
		      (char *)NULL);
		_exit(127);
	}
	assert_true(pid > 0);
	return pid;
}

static int child_wait(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* ---- a pair of ranks on devices 0 and 1, in one process ---- */

struct pair {
	tern_device_t dev[2];
	tern_comm_t comm[2];
	tern_stream_t stream[2];
	tern_buffer_t buf[2];
	float *cpu[2];
	unsigned int round;
};

static tern_status_t pair_open(struct pair *p, const tern_device_t *devs)
{
	tern_status_t s;

	for (int r = 0; r < 2; r++) {
		p->dev[r] = devs[r];
		s = tern_stream_create(p->dev[r], &p->stream[r]);
		if (!s)
			s = tern_buffer_alloc(p->dev[r], TERN_MEMORY_DEVICE,
					      COUNT * sizeof(float),
					      &p->buf[r]);
		if (!s)
			s = tern_buffer_map(p->buf[r], (void **)&p->cpu[r]);
		if (s)
			return s;
	}
	return tern_comm_init_all(p->comm, 2, p->dev);
}

/* Fills both ranks' buffers and enqueues an all-reduce of them. */
static tern_status_t pair_start(struct pair *p)
{
	tern_status_t s, end;

	p->round++;
	for (int r = 0; r < 2; r++)
		for (int k = 0; k < COUNT; k++)
			p->cpu[r][k] = (float)((r + 1) * (p->round % 13 + 1) +
					       k % 5);
	s = tern_group_start();
	for (int r = 0; r < 2 && !s; r++)
		s = tern_all_reduce(tern_ptr(p->buf[r], 0),
				    tern_ptr(p->buf[r], 0), COUNT, TERN_FLOAT32,
				    TERN_SUM, p->comm[r], p->stream[r]);
	end = tern_group_end();
	return s ? s : end;
}

/* Waits for the all-reduce; TERN_ERROR_BACKEND if a sum is wrong. */
static tern_status_t pair_finish(struct pair *p)
{
	for (int r = 0; r < 2; r++) {
		tern_status_t s = tern_stream_synchronize(p->stream[r]);

		if (s)
			return s;
	}
	for (int r = 0; r < 2; r++)
		for (int k = 0; k < COUNT; k++)
			if (p->cpu[r][k] != (float)(3 * (p->round % 13 + 1) +
						    2 * (k % 5)))
				return TERN_ERROR_BACKEND;
	return TERN_SUCCESS;
}

static void pair_close(struct pair *p)
{
	for (int r = 0; r < 2; r++) {
		tern_comm_destroy(p->comm[r]);
		tern_buffer_free(p->buf[r]);
		tern_stream_destroy(p->stream[r]);
	}
}

/* ---- children ---- */

static int child_open(tern_device_t *devs)
{
	for (int i = 0; i < 2; i++)
		if (tern_device_open(i, &devs[i]))
			return -1;
	return 0;
}

/*
 * All-reduces for TERN_TEST_SECONDS, a byte to fd 3 after each: exit 0
 * if every one was exact, 2 with what went wrong otherwise.
 */
static int child_reduce(void)
{
	const char *env = getenv("TERN_TEST_SECONDS");
	uint64_t end = now_ns() + (env ? strtoull(env, NULL, 10) : 10) *
				  1000000000ull;
	tern_device_t devs[2];
	struct pair p = { 0 };
	tern_status_t s;

	if (child_open(devs))
		return 1;
	s = pair_open(&p, devs);
	while (!s && now_ns() < end) {
		s = pair_start(&p);
		if (!s)
			s = pair_finish(&p);
		if (!s && write(3, "+", 1) != 1)
			return 1;
	}
	if (s) {
		fprintf(stderr, "round %u: %s (%s)\n", p.round,
			tern_status_name(s), tern_get_last_error());
		return 2;
	}
	pair_close(&p);
	return 0;
}

/* All-reduces without end, 'r' to fd 3 once the first is done. */
static int child_churn(void)
{
	tern_device_t devs[2];
	struct pair p = { 0 };

	if (child_open(devs) || pair_open(&p, devs) || pair_start(&p) ||
	    pair_finish(&p) || write(3, "r", 1) != 1)
		return 1;
	for (;;)
		if (pair_start(&p) || pair_finish(&p))
			return 2;
}

static int child_main(const char *name)
{
	if (strcmp(name, "reduce") == 0)
		return child_reduce();
	if (strcmp(name, "churn") == 0)
		return child_churn();
	return 1;
}

/* ---- two jobs on the same devices ---- */

/*
 * Two processes' all-reduces on devices 0 and 1 for TERN_TEST_SECONDS
 * (default 15): an engine that ran one job to its end would let each
 * process's job wait on its partner queued behind the other's, which
 * waits the same way.
 */
static void test_two_jobs_on_the_same_devices(void **state)
{
	uint64_t rounds[2] = { 0, 0 }, last[2];
	bool open[2] = { true, true };
	int fds[2][2];
	pid_t pid[2];

	(void)state;
	if (!getenv("TERN_TEST_SECONDS"))
		setenv("TERN_TEST_SECONDS", "15", 1);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(pipe2(fds[i], O_CLOEXEC), 0);
		pid[i] = child_start("reduce", fds[i][1]);
		close(fds[i][1]);
		last[i] = now_ns();
	}
	while (open[0] || open[1]) {
		struct pollfd pfd[2];
		char bytes[256];

		for (int i = 0; i < 2; i++)
			pfd[i] = (struct pollfd){ .fd = open[i] ? fds[i][0] : -1,
						  .events = POLLIN };
		poll(pfd, 2, 1000);
		for (int i = 0; i < 2; i++) {
			ssize_t n = 0;

			if (pfd[i].revents)
				n = read(fds[i][0], bytes, sizeof(bytes));
			if (n > 0) {
				rounds[i] += (uint64_t)n;
				last[i] = now_ns();
			} else if (pfd[i].revents) {
				open[i] = false;
			}
			if (open[i] && now_ns() - last[i] > STALL_NS) {
				kill(pid[0], SIGKILL);
				kill(pid[1], SIGKILL);
				fail_msg("process %d made no progress for 30 s "
					 "(after %llu and %llu all-reduces): the "
					 "two wait for each other", i,
					 (unsigned long long)rounds[0],
					 (unsigned long long)rounds[1]);
			}
		}
	}
	for (int i = 0; i < 2; i++) {
		close(fds[i][0]);
		assert_int_equal(child_wait(pid[i]), 0);
	}
	printf("# two processes: %llu and %llu exact all-reduces\n",
	       (unsigned long long)rounds[0], (unsigned long long)rounds[1]);
	assert_true(rounds[0] > 0 && rounds[1] > 0);
}

/* ---- a process killed beside a bystander ---- */

static uint64_t used(int i)
{
	uint64_t u = 0, total = 0;

	assert_ok(tern_device_memory_usage(dev[i], &u, &total));
	return u;
}

static void bystander_stuck(int sig)
{
	static const char msg[] =
		"bystander: its all-reduce did not end in 60 s\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

/*
 * Each cycle: a process runs all-reduces on devices 0 and 1, this one
 * enqueues its own there and the other is killed. This one's all-reduce
 * is exact, and the other's memory comes back within 10 s (a job
 * timeout of 600 s would otherwise hold it).
 */
static void test_killed_beside_bystander(void **state)
{
	uint64_t base[2] = { used(0), used(1) }, slowest = 0;
	unsigned int seed = (unsigned int)getpid();
	struct pair p = { 0 };

	(void)state;
	assert_ok(pair_open(&p, dev));
	base[0] = used(0);
	base[1] = used(1);
	signal(SIGALRM, bystander_stuck);
	for (int cycle = 0; cycle < KILL_CYCLES; cycle++) {
		struct timespec pause = { 0, (rand_r(&seed) % 20000) * 1000L };
		uint64_t killed, deadline;
		int fds[2];
		pid_t pid;
		char ready;

		assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
		pid = child_start("churn", fds[1]);
		close(fds[1]);
		assert_int_equal(read(fds[0], &ready, 1), 1);
		close(fds[0]);
		assert_ok(pair_start(&p));
		nanosleep(&pause, NULL);
		kill(pid, SIGKILL);
		killed = now_ns();
		assert_int_equal(child_wait(pid), 128);
		alarm(60);
		assert_ok(pair_finish(&p));
		alarm(0);
		deadline = killed + 10000000000ull;
		while ((used(0) != base[0] || used(1) != base[1]) &&
		       now_ns() < deadline)
			usleep(1000);
		if (used(0) != base[0] || used(1) != base[1])
			fail_msg("cycle %d: memory %llu and %llu, not back to "
				 "%llu and %llu after 10 s", cycle,
				 (unsigned long long)used(0),
				 (unsigned long long)used(1),
				 (unsigned long long)base[0],
				 (unsigned long long)base[1]);
		if (now_ns() - killed > slowest)
			slowest = now_ns() - killed;
	}
	signal(SIGALRM, SIG_DFL);
	pair_close(&p);
	printf("# %d kills: bystander exact every time, memory back within "
	       "%.3f s\n", KILL_CYCLES, (double)slowest / 1e9);
}

/* ---- a job that waits on its own fence ---- */

static uint32_t processes(void)
{
	tern_sim_machine_t m[64];
	uint32_t n = 0;

	assert_ok(tern_sim_machine_list(m, 64, &n));
	for (uint32_t i = 0; i < n && i < 64; i++)
		if (strcmp(m[i].name, machine_name) == 0)
			return m[i].processes;
	fail_msg("machine %s is not listed", machine_name);
	return 0;
}

/*
 * A process holds a buffer, submits a job whose wait names the fence
 * slot the job itself fills and one waiting on a word nothing writes,
 * destroys the queue and goes: the QUEUE_DESTROY is answered at once,
 * and nothing of the process stays.
 */
static void test_own_fence_then_queue_destroy(void **state)
{
	uint64_t base = used(0), deadline;
	uint32_t attached = processes();
	struct sim_ctx_open open_req = { .device = 0 };
	struct sim_ctx_open_reply opened;
	struct sim_queue_reply queued;
	struct sim_bo_reply bo;
	struct raw_client c;
	struct pollfd pfd;
	struct {
		struct sim_submit head;
		struct sim_fence_ref wait;
		uint64_t packets[8];
	} job = { 0 };
	struct tern_packet_builder b;

	(void)state;
	raw_connect(&c, machine_name);
	assert_int_equal(raw_call(&c, SIM_MSG_CTX_OPEN, &open_req,
				  sizeof(open_req), &opened, sizeof(opened)),
			 TERN_SUCCESS);
	{
		struct sim_bo_create req = { .ctx = opened.ctx,
					     .kind = TERN_MEMORY_DEVICE,
					     .bytes = 1 << 20 };

		assert_int_equal(raw_call(&c, SIM_MSG_BO_CREATE, &req,
					  sizeof(req), &bo, sizeof(bo)),
				 TERN_SUCCESS);
	}
	{
		struct sim_queue_create req = { .ctx = opened.ctx };

		assert_int_equal(raw_call(&c, SIM_MSG_QUEUE_CREATE, &req,
					  sizeof(req), &queued,
					  sizeof(queued)), TERN_SUCCESS);
	}
	/* A job waiting on its own fence, then one on a word never written. */
	for (uint32_t i = 0; i < 2; i++) {
		tern_packets_init(&b, job.packets, sizeof(job.packets));
		if (i == 0)
			tern_packet_nop(&b, 1);
		else
			tern_packet_sem_wait(&b, bo.va, 1, false);
		job.head = (struct sim_submit){ .ctx = opened.ctx,
						.queue = queued.queue,
						.fence = { 7 + i, 1 },
						.size = b.size,
						.wait_count = 1 };
		job.wait = (struct sim_fence_ref){ 7, 1 };
		assert_int_equal(sim_wire_send(c.sock, SIM_MSG_SUBMIT, &job,
					       sizeof(job.head) +
					       sizeof(job.wait) + b.size,
					       NULL, 0, NULL, 0), 0);
	}
	{
		struct sim_queue_destroy req = { .ctx = opened.ctx,
						 .queue = queued.queue };

		assert_int_equal(sim_wire_send(c.sock, SIM_MSG_QUEUE_DESTROY,
					       &req, sizeof(req), NULL, 0,
					       NULL, 0), 0);
	}
	pfd = (struct pollfd){ .fd = c.sock, .events = POLLIN };
	if (poll(&pfd, 1, 10000) != 1)
		fail_msg("QUEUE_DESTROY not answered in 10 s");
	raw_close(&c);

	deadline = now_ns() + 10000000000ull;
	while ((used(0) != base || processes() != attached) &&
	       now_ns() < deadline)
		usleep(1000);
	assert_int_equal(used(0), base);
	assert_int_equal(processes(), attached);
}

static int open_fixture(void **state)
{
	(void)state;
	if (child_open(dev)) {
		printf("# devices: %s\n", tern_get_last_error());
		return -1;
	}
	return 0;
}

static int close_fixture(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++)
		tern_device_close(dev[i]);
	tern_sim_machine_stop(machine_name, 1, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_jobs_on_the_same_devices),
		cmocka_unit_test(test_killed_beside_bystander),
		cmocka_unit_test(test_own_fence_then_queue_destroy),
	};

	if (argc == 3 && strcmp(argv[1], "--child") == 0)
		return child_main(argv[2]);
	if (sim_own_machine("s", machine_name, sizeof(machine_name), "2",
			    "64"))
		return 1;
	setenv("TERN_SIM_JOB_TIMEOUT_MS", "600000", 1);
	if (getenv("TERN_TEST_FILTER"))
		cmocka_set_test_filter(getenv("TERN_TEST_FILTER"));
	return cmocka_run_group_tests_name("sharing", tests, open_fixture,
					   close_fixture) ? 1 : 0;
}
