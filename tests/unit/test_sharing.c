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
 *   writes, then destroys the queue and exits, leaves nothing held;
 * - processes making buffers at once all get them, zeroed;
 * - the costliest REDUCE runs in steps of the model's work budget, as
 *   the machine's state counts them;
 * - what one process may hold is bounded: buffers by descriptors (an
 *   honest TERN_ERROR_LIMIT, the machine's own limit raised to the hard
 *   one), host memory by a budget, jobs in flight by caps (the machine
 *   stops reading a process at its cap; a legitimate one's submissions
 *   wait), and another process is served meanwhile.
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
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "packets.h"
#include "raw_client.h"
#include "sim_child.h"
#include "sim_test.h"
#include "submit.h"
#include "tern_model.h"
#include "tern_reduce.h"
#include "tern.h"
#include "tern_sim.h"

#define COUNT		4096		/* floats per all-reduce */
/* No progress for this long, with a 600 s job timeout: a deadlock. */
#define STALL_NS	30000000000ull

static char machine_name[64];
/* A process killed beside a bystander, this many times (TERN_TEST_CYCLES). */
static int kill_cycles = 100;
static tern_device_t dev[2];

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

/*
 * Under a descriptor limit of 1024 (TERN_TEST_HARD=1: the hard limit too),
 * on a machine this process starts: 4 KiB buffers until one is refused.
 * Tells fd 3 "COUNT STATUS|ERROR\n", then holds them until killed.
 */
static int child_fds(void)
{
	struct rlimit rl;
	tern_device_t d;
	tern_buffer_t buf;
	tern_status_t s = TERN_SUCCESS;
	unsigned int n = 0;
	char line[512];
	int len;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 1;
	rl.rlim_cur = 1024;
	if (getenv("TERN_TEST_HARD") || rl.rlim_max < 1024)
		rl.rlim_max = 1024;
	if (setrlimit(RLIMIT_NOFILE, &rl) || tern_device_open(0, &d))
		return 1;
	while (n < 40000 && !(s = tern_buffer_alloc(d, TERN_MEMORY_DEVICE,
						    4096, &buf)))
		n++;
	len = snprintf(line, sizeof(line), "%u %s|%s\n", n,
		       tern_status_name(s), tern_get_last_error());
	if (write(3, line, (size_t)len) != len)
		return 1;
	for (;;)
		pause();
}

/* A few buffers and a fill on device 0: exit 0 if all went. */
static int child_small(void)
{
	tern_buffer_t buf[16];
	tern_stream_t st;
	tern_device_t d;

	if (tern_device_open(0, &d) || tern_stream_create(d, &st))
		return 1;
	for (int i = 0; i < 16; i++)
		if (tern_buffer_alloc(d, TERN_MEMORY_DEVICE, 4096, &buf[i]) ||
		    tern_memset_async(buf[i], 0, i, 4096, st))
			return 2;
	return tern_stream_synchronize(st) ? 3 : 0;
}

/*
 * Host buffers of 64 MiB until one is refused: fd 3 gets
 * "COUNT STATUS\n"; holds them until killed.
 */
static int child_host(void)
{
	tern_device_t d;
	tern_buffer_t buf;
	tern_status_t s = TERN_SUCCESS;
	unsigned int n = 0;
	char line[128];
	int len;

	if (tern_device_open(0, &d))
		return 1;
	while (n < 1024 && !(s = tern_buffer_alloc(d, TERN_MEMORY_HOST,
						   64u << 20, &buf)))
		n++;
	len = snprintf(line, sizeof(line), "%u %s\n", n, tern_status_name(s));
	if (write(3, line, (size_t)len) != len)
		return 1;
	for (;;)
		pause();
}

/*
 * A process whose jobs never end (each waits on a word nothing writes)
 * sends 60 KiB jobs on the socket, never blocking, until the machine
 * stops reading: fd 3 gets the MiB it took; then it holds on.
 */
static int child_flood(void)
{
	static uint64_t words[8192];
	struct tern_packet_builder b;
	struct sim_ctx_open open_req = { .device = 0 };
	struct sim_ctx_open_reply opened;
	struct sim_queue_create qc;
	struct sim_queue_reply queued;
	struct sim_bo_reply bo;
	struct raw_client c;
	struct sim_submit *head = (void *)words;
	uint64_t sent = 0, stalled_since = 0;
	tern_device_t d;
	char line[64];
	int len;

	/* The machine, started with this process's limits. */
	if (tern_device_open(0, &d))
		return 1;
	raw_connect(&c, getenv("TERN_SIM_MACHINE"));
	if (raw_call(&c, SIM_MSG_CTX_OPEN, &open_req, sizeof(open_req),
		     &opened, sizeof(opened)))
		return 1;
	{
		struct sim_bo_create req = { .ctx = opened.ctx,
					     .kind = TERN_MEMORY_DEVICE,
					     .bytes = 4096 };

		if (raw_call(&c, SIM_MSG_BO_CREATE, &req, sizeof(req), &bo,
			     sizeof(bo)))
			return 1;
	}
	qc = (struct sim_queue_create){ .ctx = opened.ctx };
	if (raw_call(&c, SIM_MSG_QUEUE_CREATE, &qc, sizeof(qc), &queued,
		     sizeof(queued)))
		return 1;
	fcntl(c.sock, F_SETFL, O_NONBLOCK);
	for (uint32_t i = 0; sent < (2048ull << 20); i++) {
		tern_packets_init(&b, head + 1, sizeof(words) - sizeof(*head));
		tern_packet_sem_wait(&b, bo.va, 1, false);
		tern_packet_nop(&b, 7000);
		*head = (struct sim_submit){ .ctx = opened.ctx,
					     .queue = queued.queue,
					     .fence = { i % 1000, i + 1 },
					     .size = b.size };
		if (sim_wire_send(c.sock, SIM_MSG_SUBMIT, head,
				  sizeof(*head) + b.size, NULL, 0, NULL,
				  0) == 0) {
			sent += b.size;
			stalled_since = 0;
			continue;
		}
		/* Not read from for a second: the machine stopped. */
		if (!stalled_since)
			stalled_since = now_ns();
		else if (now_ns() - stalled_since > 1000000000ull)
			break;
		i--;
		usleep(1000);
	}
	len = snprintf(line, sizeof(line), "%llu\n",
		       (unsigned long long)(sent >> 20));
	if (write(3, line, (size_t)len) != len)
		return 1;
	for (;;)
		pause();
}

/*
 * 400 fills of device 0 submitted at once under a cap of 16 jobs in
 * flight: the submissions wait for room, and every fill lands.
 */
static int child_capped(void)
{
	tern_buffer_t buf;
	tern_stream_t st;
	tern_device_t d;
	uint8_t *cpu;

	if (tern_device_open(0, &d) || tern_stream_create(d, &st) ||
	    tern_buffer_alloc(d, TERN_MEMORY_DEVICE, 4096, &buf) ||
	    tern_buffer_map(buf, (void **)&cpu))
		return 1;
	for (int i = 0; i < 400; i++)
		if (tern_memset_async(buf, (size_t)i, (uint8_t)(i % 251 + 1), 1,
				      st))
			return 2;
	if (tern_stream_synchronize(st))
		return 3;
	for (int i = 0; i < 400; i++)
		if (cpu[i] != (uint8_t)(i % 251 + 1))
			return 4;
	return 0;
}

/*
 * 150 buffers of 4 KiB on device 0, each zeroed when made and written,
 * all freed: with others doing the same at once.
 */
static int child_many(void)
{
	tern_buffer_t buf[150];
	tern_device_t d;

	if (tern_device_open(0, &d))
		return 1;
	for (int i = 0; i < 150; i++) {
		uint8_t *cpu;

		if (tern_buffer_alloc(d, TERN_MEMORY_DEVICE, 4096, &buf[i]) ||
		    tern_buffer_map(buf[i], (void **)&cpu))
			return 2;
		for (int k = 0; k < 4096; k++)
			if (cpu[k])
				return 3;
		memset(cpu, i, 4096);
	}
	for (int i = 0; i < 150; i++)
		if (tern_buffer_free(buf[i]))
			return 4;
	return tern_device_close(d) ? 5 : 0;
}

static int child_main(const char *name)
{
	if (strcmp(name, "many") == 0)
		return child_many();
	if (strcmp(name, "fds") == 0)
		return child_fds();
	if (strcmp(name, "small") == 0)
		return child_small();
	if (strcmp(name, "host") == 0)
		return child_host();
	if (strcmp(name, "flood") == 0)
		return child_flood();
	if (strcmp(name, "capped") == 0)
		return child_capped();
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
		pid[i] = child_start("reduce", NULL, fds[i][1]);
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
	for (int cycle = 0; cycle < kill_cycles; cycle++) {
		struct timespec pause = { 0, (rand_r(&seed) % 20000) * 1000L };
		uint64_t killed, deadline;
		int fds[2];
		pid_t pid;
		char ready;

		assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
		pid = child_start("churn", NULL, fds[1]);
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
	       "%.3f s\n", kill_cycles, (double)slowest / 1e9);
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

/*
 * Eight processes make 150 buffers each at once, three times over: the
 * machine's table of every buffer's memory grows under all of them (it
 * once grew for one and took two, past its end).
 */
static void test_buffers_made_at_once(void **state)
{
	pid_t pid[8];

	(void)state;
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 8; i++)
			pid[i] = child_start("many", NULL, 3);
		for (int i = 0; i < 8; i++)
			assert_int_equal(child_wait(pid[i]), 0);
	}
}

/* ---- a step's work ---- */

/* Steps every engine of device 0 has run so far. */
static uint64_t device0_steps(uint64_t *longest_ns)
{
	tern_sim_device_state_t *st = calloc(1, sizeof(*st));
	uint64_t steps = 0;

	assert_non_null(st);
	assert_ok(tern_sim_device_state(0, st));
	*longest_ns = 0;
	for (uint32_t e = 0; e < st->engine_count; e++) {
		steps += st->engines[e].steps;
		if (st->engines[e].longest_step_ns > *longest_ns)
			*longest_ns = st->engines[e].longest_step_ns;
	}
	free(st);
	return steps;
}

/*
 * The costliest REDUCE the model knows, float16 divided, over 4 MiB:
 * its engine takes it in steps of the model's work budget (the machine's
 * state counts them), so that no step holds the engine from others for
 * more than one budget's work, whatever the packet asks.
 */
static void test_reduce_steps_bounded_by_work(void **state)
{
	const uint64_t count = 2u << 20;	/* float16: 4 MiB a buffer */
	uint64_t va[3], before, after, longest, want;
	struct tern_packet_builder b;
	uint8_t packets[TERN_PACKET_MAX_BYTES];
	tern_buffer_t buf[3];
	tern_stream_t st;

	(void)state;
	assert_ok(tern_stream_create(dev[0], &st));
	for (int i = 0; i < 3; i++) {
		assert_ok(tern_buffer_alloc(dev[0], TERN_MEMORY_DEVICE,
					    count * 2, &buf[i]));
		assert_ok(tern_buffer_device_address(buf[i], &va[i]));
	}
	tern_packets_init(&b, packets, sizeof(packets));
	tern_packet_reduce_divide(&b, va[2], va[0], va[1], count,
				  DRM_TERN_DTYPE_FLOAT16, 2);
	before = device0_steps(&longest);
	assert_ok(tern_stream_submit(st, packets, b.size, NULL, 0, NULL));
	assert_ok(tern_stream_synchronize(st));
	after = device0_steps(&longest);
	want = count * tern_model_reduce_cost(DRM_TERN_DTYPE_FLOAT16,
					      DRM_TERN_REDOP_SUM, true) /
	       TERN_MODEL_BUDGET;
	printf("# float16 divided, %llu elements: %llu steps (the budget "
	       "asks %llu), the longest %.2f ms\n",
	       (unsigned long long)count, (unsigned long long)(after - before),
	       (unsigned long long)want, (double)longest / 1e6);
	assert_true(after - before >= want);
	for (int i = 0; i < 3; i++)
		assert_ok(tern_buffer_free(buf[i]));
	assert_ok(tern_stream_destroy(st));
}

/* ---- what one process may hold ---- */

/* A line from @fd within 120 s, into @line. */
static void read_line(int fd, char *line, size_t len)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t got = 0;

	while (got + 1 < len && (got == 0 || line[got - 1] != '\n')) {
		ssize_t n;

		if (poll(&pfd, 1, 120000) != 1)
			fail_msg("no word from the child in 120 s");
		n = read(fd, line + got, len - 1 - got);
		if (n <= 0)
			fail_msg("the child ended without a word");
		got += (size_t)n;
	}
	line[got] = '\0';
}

/*
 * Starts child @name on machine @machine with @env (NULL-ended) more,
 * its fd 3 @fd. Returns its pid.
 */
static pid_t child_start_on(const char *name, const char *machine,
			    const char *const *env, int fd)
{
	char machine_var[96];
	const char *all[8] = { machine_var };
	int n = 1;

	snprintf(machine_var, sizeof(machine_var), "TERN_SIM_MACHINE=%s",
		 machine);
	for (const char *const *e = env; e && *e && n < 7; e++)
		all[n++] = *e;
	all[n] = NULL;
	return child_start(name, all, fd);
}

/* As child_start_on(); its first line into @line. The caller kills it. */
static pid_t child_report(const char *name, const char *machine,
			  const char *const *env, char *line, size_t len)
{
	int fds[2];
	pid_t pid;

	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	pid = child_start_on(name, machine, env, fds[1]);
	close(fds[1]);
	read_line(fds[0], line, len);
	close(fds[0]);
	return pid;
}

/* Runs child @name on @machine to its end; its exit status. */
static int child_on(const char *name, const char *machine,
		    const char *const *env)
{
	return child_wait(child_start_on(name, machine, env, 3));
}

static void stop_machine(const char *name)
{
	tern_status_t s = tern_sim_machine_stop(name, 1, NULL);

	assert_true(s == TERN_SUCCESS || s == TERN_ERROR_NO_DEVICE);
}

/*
 * A process under `ulimit -n 1024` starts a machine and allocates 4 KiB
 * buffers: with a hard limit of 1024 as well, it gets a share and then
 * TERN_ERROR_LIMIT naming descriptors, never OUT_OF_MEMORY with memory
 * free; with a higher hard limit, the machine raises its own to it and
 * the process gets past 1024. Another process still gets buffers and
 * runs its jobs.
 */
static void test_descriptors(void **state)
{
	struct rlimit rl;

	(void)state;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	for (int hard = 1; hard >= 0; hard--) {
		const char *env[] = { hard ? "TERN_TEST_HARD=1" : NULL, NULL };
		char machine[64], line[512], status[64];
		unsigned int count = 0;
		pid_t pid;

		if (!hard && rl.rlim_max < 4096) {
			printf("# hard descriptor limit %llu: the raise is "
			       "not tried\n", (unsigned long long)rl.rlim_max);
			continue;
		}
		snprintf(machine, sizeof(machine), "fd%d-%d", hard,
			 (int)getpid());
		pid = child_report("fds", machine, env, line, sizeof(line));
		assert_int_equal(sscanf(line, "%u %63[^|]", &count, status), 2);
		printf("# hard limit %s: %u buffers, then %s", hard ? "1024" :
		       "above", count, line + strcspn(line, " ") + 1);
		if (hard) {
			assert_string_equal(status, "TERN_ERROR_LIMIT");
			assert_non_null(strstr(line, "descriptor"));
			assert_true(count >= 100);
		} else {
			assert_true(count > 1024);
			assert_true(strcmp(status, "TERN_ERROR_LIMIT") == 0 ||
				    strcmp(status, "TERN_ERROR_OUT_OF_MEMORY") ==
				    0);
		}
		/* The machine still serves another process, buffers and all. */
		assert_int_equal(child_on("small", machine, NULL), 0);
		kill(pid, SIGKILL);
		child_wait(pid);
		stop_machine(machine);
	}
}

/*
 * With TERN_SIM_HOST_MEM_MB=512, a process gets 256 MiB of host buffers
 * (its half), a second the other 256, a third none: host memory is
 * charged, to the process and the machine.
 */
static void test_host_memory_budget(void **state)
{
	const char *env[] = { "TERN_SIM_HOST_MEM_MB=512", NULL };
	char machine[64], line[3][128];
	unsigned int count[3];
	pid_t pid[3];

	(void)state;
	snprintf(machine, sizeof(machine), "host-%d", (int)getpid());
	for (int i = 0; i < 3; i++) {
		pid[i] = child_report("host", machine, env, line[i],
				      sizeof(line[i]));
		assert_int_equal(sscanf(line[i], "%u", &count[i]), 1);
		assert_non_null(strstr(line[i], "TERN_ERROR_OUT_OF_MEMORY"));
	}
	printf("# host budget 512 MiB: %u, %u and %u buffers of 64 MiB\n",
	       count[0], count[1], count[2]);
	assert_int_equal(count[0], 4);
	assert_int_equal(count[1], 4);
	assert_int_equal(count[2], 0);
	for (int i = 0; i < 3; i++) {
		kill(pid[i], SIGKILL);
		child_wait(pid[i]);
	}
	stop_machine(machine);
}

/* The resident memory of machine @name, in MiB. */
static unsigned long machine_rss_mb(const char *name)
{
	tern_sim_machine_t m[64];
	char path[64], text[256];
	unsigned long kb = 0;
	uint32_t n = 0;
	FILE *f;

	assert_ok(tern_sim_machine_list(m, 64, &n));
	for (uint32_t i = 0; i < n && i < 64; i++) {
		if (strcmp(m[i].name, name))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/status", (int)m[i].pid);
		f = fopen(path, "r");
		assert_non_null(f);
		while (fgets(text, sizeof(text), f))
			if (sscanf(text, "VmRSS: %lu kB", &kb) == 1)
				break;
		fclose(f);
		return kb >> 10;
	}
	fail_msg("machine %s is not listed", name);
	return 0;
}

/*
 * A process queues jobs that never end, as fast as it can: with
 * TERN_SIM_CLIENT_JOB_MB=16 the machine stops reading it past 16 MiB of
 * packets and its memory stays bounded; another process's jobs still
 * run meanwhile.
 */
static void test_job_flood(void **state)
{
	const char *env[] = { "TERN_SIM_CLIENT_JOB_MB=16", NULL };
	char machine[64], line[64];
	unsigned long taken = 0, rss;
	pid_t pid;

	(void)state;
	snprintf(machine, sizeof(machine), "flood-%d", (int)getpid());
	pid = child_report("flood", machine, env, line, sizeof(line));
	assert_int_equal(sscanf(line, "%lu", &taken), 1);
	rss = machine_rss_mb(machine);
	printf("# a flood of jobs: the machine took %lu MiB, resident %lu "
	       "MiB\n", taken, rss);
	assert_true(taken <= 24);
	assert_true(rss < 128);
	assert_int_equal(child_on("small", machine, NULL), 0);
	kill(pid, SIGKILL);
	child_wait(pid);
	stop_machine(machine);
}

/* Under a cap of 16 jobs in flight, 400 submissions wait and all land. */
static void test_capped_submissions_wait(void **state)
{
	const char *env[] = { "TERN_SIM_CLIENT_JOBS=16", NULL };
	char machine[64];

	(void)state;
	snprintf(machine, sizeof(machine), "cap-%d", (int)getpid());
	assert_int_equal(child_on("capped", machine, env), 0);
	stop_machine(machine);
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
	return 0;
}

int main(int argc, char **argv)
{
	/* What any backend must do: tern.ko too, in the VM suite. */
	const struct CMUnitTest shared[] = {
		cmocka_unit_test(test_two_jobs_on_the_same_devices),
		cmocka_unit_test(test_killed_beside_bystander),
	};
	const struct CMUnitTest machine[] = {
		cmocka_unit_test(test_own_fence_then_queue_destroy),
		cmocka_unit_test(test_buffers_made_at_once),
		cmocka_unit_test(test_reduce_steps_bounded_by_work),
		cmocka_unit_test(test_descriptors),
		cmocka_unit_test(test_host_memory_budget),
		cmocka_unit_test(test_job_flood),
		cmocka_unit_test(test_capped_submissions_wait),
	};
	const char *backend = getenv("TERN_BACKEND");
	const char *cycles = getenv("TERN_TEST_CYCLES");
	int failed;

	if (argc == 3 && strcmp(argv[1], "--child") == 0)
		return child_main(argv[2]);
	if (cycles)
		kill_cycles = atoi(cycles);
	if (getenv("TERN_TEST_FILTER"))
		cmocka_set_test_filter(getenv("TERN_TEST_FILTER"));
	if (backend && strcmp(backend, "kernel") == 0)
		return cmocka_run_group_tests_name("sharing-kernel", shared,
						   open_fixture, close_fixture) ?
		       1 : 0;
	if (sim_own_machine("s", machine_name, sizeof(machine_name), "2",
			    "64"))
		return 1;
	setenv("TERN_SIM_JOB_TIMEOUT_MS", "600000", 1);
	failed = cmocka_run_group_tests_name("sharing", shared, open_fixture,
					     close_fixture);
	failed |= cmocka_run_group_tests_name("sharing-machine", machine,
					      open_fixture, close_fixture);
	tern_sim_machine_stop(machine_name, 1, NULL);
	return failed ? 1 : 0;
}
