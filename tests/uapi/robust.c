// SPDX-License-Identifier: MIT
/*
 * What a hostile or unlucky user must not get away with: queues created,
 * fed and destroyed from several threads at once, files closed with jobs
 * just submitted, a timeout firing while the scheduler still uses the job,
 * a stalled job holding its engine, jobs and packet bytes piling up, host
 * memory pinned without end, a queue timing out again and again. Each
 * case is the regression test of a bug tern.ko had: on the old driver the
 * kernel oopsed, waited or let it happen.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <xf86drm.h>

#include "uapi.h"

/* The largest SUBMIT the driver takes (&drm_tern_info.max_submit_bytes). */
#define MAX_SUBMIT_BYTES	(256u << 10)

/* Several threads, each for this many rounds: seconds of churn. */
#define CHURN_THREADS	4
#define CHURN_ROUNDS	1500
/* Pauses of 1 ms a SUBMIT may wait for room: a bound, not a timing. */
#define CHURN_BUSY_WAITS	30000

struct churn {
	pthread_t thread;
	int fd;			/* shared file, or -1: a file per round */
	unsigned int errors;	/* ioctls that failed */
	int first_error;
};

static void churn_error(struct churn *c, int err)
{
	if (!c->errors++)
		c->first_error = err;
}

/* A NOP, once or twice: just submitted when the queue goes. */
static void churn_submit(struct churn *c, int fd, uint32_t queue,
			 unsigned int round)
{
	struct uapi_stream s = { .size = 0 };
	int err;

	uapi_emit_nop(&s, 1);
	for (unsigned int i = 0; i <= round % 2; i++) {
		/*
		 * Four threads submit faster than one engine runs NOPs: at
		 * the file's limit, wait for jobs to end, as libtern does.
		 */
		for (unsigned int wait = 0; wait < CHURN_BUSY_WAITS; wait++) {
			err = uapi_submit(fd, queue, &s, 0);
			if (err != EBUSY)
				break;
			usleep(1000);
		}
		if (err)
			churn_error(c, err);
	}
}

static int churn_queue_create(int fd, uint32_t *queue)
{
	struct drm_tern_queue_create args = { .engine = 0 };
	int err = uapi_ioctl(fd, DRM_IOCTL_TERN_QUEUE_CREATE, &args);

	*queue = args.queue_id;
	return err;
}

/* QUEUE_CREATE, SUBMIT, QUEUE_DESTROY on one shared file. */
static void *churn_queues(void *arg)
{
	struct churn *c = arg;

	for (unsigned int round = 0; round < CHURN_ROUNDS; round++) {
		struct drm_tern_queue_destroy destroy = { 0 };
		int err = churn_queue_create(c->fd, &destroy.queue_id);

		if (err) {
			churn_error(c, err);
			continue;
		}
		churn_submit(c, c->fd, destroy.queue_id, round);
		err = uapi_ioctl(c->fd, DRM_IOCTL_TERN_QUEUE_DESTROY, &destroy);
		if (err)
			churn_error(c, err);
	}
	return NULL;
}

/* A file of its own each round, closed right after its SUBMIT. */
static void *churn_files(void *arg)
{
	struct churn *c = arg;

	for (unsigned int round = 0; round < CHURN_ROUNDS; round++) {
		int fd = open(uapi.node, O_RDWR | O_CLOEXEC);
		uint32_t queue;
		int err;

		if (fd < 0) {
			churn_error(c, errno);
			continue;
		}
		err = churn_queue_create(fd, &queue);
		if (err)
			churn_error(c, err);
		else
			churn_submit(c, fd, queue, round);
		close(fd);
	}
	return NULL;
}

static void churn_run(void *(*body)(void *), int fd)
{
	struct churn c[CHURN_THREADS];
	unsigned int i;

	for (i = 0; i < CHURN_THREADS; i++) {
		c[i] = (struct churn){ .fd = fd };
		assert_int_equal(pthread_create(&c[i].thread, NULL, body, &c[i]), 0);
	}
	for (i = 0; i < CHURN_THREADS; i++)
		assert_int_equal(pthread_join(c[i].thread, NULL), 0);
	for (i = 0; i < CHURN_THREADS; i++)
		if (c[i].errors)
			fail_msg("thread %u: %u ioctls failed, the first with %s",
				 i, c[i].errors, strerrorname_np(c[i].first_error));
}

/*
 * The scheduler still uses a queue's entity after popping its last job;
 * a queue freed then took the kernel down (6.1).
 */
static void test_queue_churn(void **state)
{
	(void)state;
	churn_run(churn_queues, uapi.fd);
}

/* The same race through closing a file with a job just submitted. */
static void test_file_churn(void **state)
{
	(void)state;
	churn_run(churn_files, -1);
}

/* 1 once the fence in @syncobj has signalled, 0 while it has not. */
static int signalled(int fd, uint32_t syncobj)
{
	int ret = drmSyncobjWait(fd, &syncobj, 1, 0, 0, NULL);

	if (ret && ret != -ETIME)
		fail_msg("syncobj wait: %s", strerror(-ret));
	return ret == 0;
}

/* A stream whose SEM_WAIT on @bo never passes. */
static void emit_stall(struct uapi_stream *s, const struct uapi_bo *bo)
{
	uapi_emit_sem(s, DRM_TERN_OP_SEM_WAIT, 0, bo->va, UINT64_MAX);
}

/*
 * Two queues on one engine: a job waiting on a semaphore holds its own
 * queue, not the engine: a job of the other queue runs meanwhile, and can
 * even be what lets the wait pass.
 */
static void test_stalled_queue_holds_only_itself(void **state)
{
	uint32_t stalled = uapi_queue_create(uapi.fd, 0);
	uint32_t other = uapi_queue_create(uapi.fd, 0);
	uint32_t stalled_out = uapi_syncobj_create(uapi.fd);
	struct uapi_stream s = { .size = 0 };
	struct uapi_bo bo;

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, 4096, &bo);
	uapi_emit_sem(&s, DRM_TERN_OP_SEM_WAIT, 0, bo.va, 5);
	uapi_emit_fill(&s, bo.va + 8, 8, 0x77777777);
	assert_ioctl_ok(uapi_submit(uapi.fd, stalled, &s, stalled_out));

	s.size = 0;
	uapi_emit_fill(&s, bo.va + 16, 8, 0x11111111);
	assert_int_equal(uapi_run(uapi.fd, other, &s), 1);
	/* ran while the waiter still waited: it did not wait its timeout */
	assert_false(signalled(uapi.fd, stalled_out));
	assert_int_equal(bo.cpu[16], 0x11);

	s.size = 0;
	uapi_emit_sem(&s, DRM_TERN_OP_SEM_SIGNAL, 0, bo.va, 5);
	assert_int_equal(uapi_run(uapi.fd, other, &s), 1);
	assert_int_equal(uapi_fence_status(uapi.fd, stalled_out), 1);
	assert_int_equal(bo.cpu[8], 0x77);
	uapi_bo_close(uapi.fd, &bo);
}

static int write_knob_text(const char *name, const char *text)
{
	ssize_t len = (ssize_t)strlen(text);
	char path[128];
	int fd, ret;

	uapi_debugfs_path(name, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = write(fd, text, len) == len ? 0 : -errno;
	close(fd);
	return ret;
}

static int write_knob(const char *name, unsigned int value)
{
	char text[16];

	snprintf(text, sizeof(text), "%u\n", value);
	return write_knob_text(name, text);
}

/* Sets the fault knob @name, or skips the test where there is none. */
static void set_knob_or_skip(const char *name, unsigned int value)
{
	int err = write_knob(name, value);

	if (err) {
		print_message("no %s in debugfs: %s\n", name, strerror(-err));
		skip();
	}
}

/* The knob's value, or -1 if it cannot be read. */
static long read_knob(const char *name)
{
	char path[128];
	long value = -1;
	FILE *f;

	uapi_debugfs_path(name, path, sizeof(path));
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &value) != 1)
		value = -1;
	fclose(f);
	return value;
}

/* The delay knobs take a number of milliseconds and nothing else. */
static void test_fault_knobs_refuse_nonsense(void **state)
{
	static const char *const knobs[] = { "run_job_delay_ms",
					     "timeout_delay_ms" };

	(void)state;
	if (read_knob(knobs[0]) < 0) {
		print_message("no fault knobs in debugfs\n");
		skip();
	}
	for (size_t i = 0; i < ARRAY_SIZE(knobs); i++) {
		assert_int_equal(write_knob_text(knobs[i], "soon\n"), -EINVAL);
		assert_int_equal(write_knob_text(knobs[i], "-1x\n"), -EINVAL);
		assert_int_equal(read_knob(knobs[i]), 0);
	}
}

/*
 * debugfs "engines" shows a job that waits on a semaphore, on its engine
 * and on the scheduler's pending list, under its queue; it takes no
 * writes.
 */
static void test_engines_file_shows_jobs(void **state)
{
	uint32_t queue = uapi_queue_create(uapi.fd, 0);
	uint32_t other = uapi_queue_create(uapi.fd, 0);
	uint32_t out = uapi_syncobj_create(uapi.fd);
	struct uapi_stream s = { .size = 0 };
	char path[128], line[256], want[32];
	int on_engine = 0, pending = 0;
	struct uapi_bo bo;
	FILE *f;

	(void)state;
	uapi_debugfs_path("engines", path, sizeof(path));
	if (access(path, R_OK)) {
		print_message("no %s: %s\n", path, strerror(errno));
		skip();
	}
	assert_int_equal(write_knob_text("engines", "0\n"), -EINVAL);
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, 4096, &bo);
	uapi_emit_sem(&s, DRM_TERN_OP_SEM_WAIT, 0, bo.va, 1);
	assert_ioctl_ok(uapi_submit(uapi.fd, queue, &s, out));

	snprintf(want, sizeof(want), "queue %u ", queue);
	/* The engine takes it soon after SUBMIT; it waits till signalled. */
	for (int tries = 0; tries < 100 && !(on_engine && pending); tries++) {
		f = fopen(path, "r");
		assert_non_null(f);
		while (fgets(line, sizeof(line), f)) {
			if (!strstr(line, want))
				continue;
			on_engine |= strstr(line, "  engine: ") == line;
			pending |= strstr(line, "  pending: ") == line;
		}
		fclose(f);
		if (!(on_engine && pending))
			usleep(10000);
	}
	assert_false(signalled(uapi.fd, out));
	s.size = 0;
	uapi_emit_sem(&s, DRM_TERN_OP_SEM_SIGNAL, 0, bo.va, 1);
	assert_int_equal(uapi_run(uapi.fd, other, &s), 1);
	assert_int_equal(uapi_fence_status(uapi.fd, out), 1);
	assert_true(on_engine);
	assert_true(pending);
	uapi_bo_close(uapi.fd, &bo);
}

static unsigned int module_parameter(const char *name)
{
	char path[96];
	unsigned int value = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/tern/parameters/%s", name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%u", &value) != 1)
		fail_msg("cannot read %s", path);
	fclose(f);
	return value;
}

/*
 * The job timeout fires while the scheduler still uses the job (run_job
 * has not returned): the job fails with -ETIMEDOUT, once, and the queue
 * goes on. The old driver freed the job there, under the scheduler.
 */
static void test_timeout_while_scheduler_uses_job(void **state)
{
	const unsigned int delay_ms = module_parameter("job_timeout_ms") + 1000;
	uint32_t queue = uapi_queue_create(uapi.fd, 0);
	struct uapi_stream s = { .size = 0 };
	struct uapi_bo bo;
	int err;

	(void)state;
	set_knob_or_skip("run_job_delay_ms", delay_ms);
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, 4096, &bo);
	emit_stall(&s, &bo);
	err = uapi_run(uapi.fd, queue, &s);
	assert_int_equal(write_knob("run_job_delay_ms", 0), 0);
	assert_int_equal(err, -ETIMEDOUT);

	s.size = 0;
	uapi_emit_fill(&s, bo.va + 8, 8, 0x22222222);
	assert_int_equal(uapi_run(uapi.fd, queue, &s), 1);
	assert_int_equal(bo.cpu[8], 0x22);
	uapi_bo_close(uapi.fd, &bo);
}

/*
 * The job timeout runs slowly, as on a loaded machine: the reset ends the
 * job while the scheduler holds it off its pending list. The next job
 * must still time out. The old driver put the ended job back where
 * nothing freed it, and the timeout kept finding it instead of the next
 * job, which then waited for ever.
 */
static void test_timeout_after_slow_reset(void **state)
{
	const unsigned int delay_ms = module_parameter("job_timeout_ms") / 4;
	uint32_t queue = uapi_queue_create(uapi.fd, 0);
	uint32_t next = uapi_syncobj_create(uapi.fd);
	struct uapi_stream s = { .size = 0 };
	struct uapi_bo bo;
	int err, first;

	(void)state;
	set_knob_or_skip("timeout_delay_ms", delay_ms);
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, 4096, &bo);
	emit_stall(&s, &bo);
	first = uapi_run(uapi.fd, queue, &s);
	assert_ioctl_ok(uapi_submit(uapi.fd, queue, &s, next));
	/* Five job timeouts: far more than it takes, far less than never. */
	err = drmSyncobjWait(uapi.fd, &next, 1, now_ns() +
			     5ll * module_parameter("job_timeout_ms") * 1000000,
			     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
	assert_int_equal(write_knob("timeout_delay_ms", 0), 0);
	assert_int_equal(first, -ETIMEDOUT);
	if (err)
		fail_msg("the job after a slow timeout did not time out: %s",
			 strerror(-err));
	assert_int_equal(uapi_fence_status(uapi.fd, next), -ETIMEDOUT);
	uapi_bo_close(uapi.fd, &bo);
}

/*
 * queue_ban_timeouts jobs of a queue time out: the queue is banned, its
 * other jobs fail with -EIO at once and SUBMIT to it fails with -EIO;
 * the file's other queues go on.
 */
static void test_queue_banned_after_timeouts(void **state)
{
	const uint32_t ban = uapi_get_info(uapi.fd).queue_ban_timeouts;
	uint32_t queue = uapi_queue_create(uapi.fd, 0);
	uint32_t other = uapi_queue_create(uapi.fd, 0);
	struct uapi_stream s = { .size = 0 };
	uint32_t out[8];
	struct uapi_bo bo;

	(void)state;
	assert_true(ban >= 1 && ban + 2 <= 8);
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, 4096, &bo);
	emit_stall(&s, &bo);
	for (uint32_t i = 0; i < ban + 2; i++) {
		out[i] = uapi_syncobj_create(uapi.fd);
		assert_ioctl_ok(uapi_submit(uapi.fd, queue, &s, out[i]));
	}
	for (uint32_t i = 0; i < ban + 2; i++)
		assert_int_equal(uapi_fence_status(uapi.fd, out[i]),
				 i < ban ? -ETIMEDOUT : -EIO);
	assert_errno(uapi_submit(uapi.fd, queue, &s, 0), EIO);

	s.size = 0;
	uapi_emit_fill(&s, bo.va + 8, 8, 0x33333333);
	assert_int_equal(uapi_run(uapi.fd, other, &s), 1);
	uapi_bo_close(uapi.fd, &bo);
}

/*
 * QUEUE_DESTROY returns at once, even with more stalled jobs than the
 * engine takes; the jobs still end and signal.
 */
static void test_queue_destroy_does_not_wait(void **state)
{
	const uint32_t jobs = 70;
	struct drm_tern_queue_destroy destroy = {
		.queue_id = uapi_queue_create(uapi.fd, 0),
	};
	struct uapi_stream s = { .size = 0 };
	uint32_t first = uapi_syncobj_create(uapi.fd);
	uint32_t last = uapi_syncobj_create(uapi.fd);
	struct uapi_bo bo;

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, 4096, &bo);
	emit_stall(&s, &bo);
	for (uint32_t i = 0; i < jobs; i++)
		assert_ioctl_ok(uapi_submit(uapi.fd, destroy.queue_id, &s,
					    i == 0 ? first :
					    i == jobs - 1 ? last : 0));
	assert_ioctl_ok(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_QUEUE_DESTROY,
				   &destroy));
	/* returned while the first job still waits: it waited for nothing */
	assert_false(signalled(uapi.fd, first));
	assert_errno(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_QUEUE_DESTROY,
				&destroy), ENOENT);
	assert_errno(uapi_submit(uapi.fd, destroy.queue_id, &s, 0), ENOENT);
	assert_int_equal(uapi_fence_status(uapi.fd, first), -ETIMEDOUT);
	assert_int_equal(uapi_fence_status(uapi.fd, last), -EIO);
	uapi_bo_close(uapi.fd, &bo);
}

/*
 * Submits @args (its out-syncobj replaced by a fresh one each time) until
 * SUBMIT fails or @most went in; returns how many went in, the errno in
 * *@err, and in *@ended how many of those had ended by then. Jobs time
 * out while this runs, so the limit is checked against what was still in
 * flight, not against the count alone.
 */
static uint32_t submit_until_refused(int fd, struct drm_tern_submit *args,
				     uint32_t most, int *err, uint32_t *ended)
{
	uint32_t *outs = calloc(most, sizeof(*outs));
	uint32_t n;

	assert_non_null(outs);
	*err = 0;
	for (n = 0; n < most; n++) {
		outs[n] = uapi_syncobj_create(fd);
		args->out_syncobj = outs[n];
		*err = uapi_ioctl(fd, DRM_IOCTL_TERN_SUBMIT, args);
		if (*err)
			break;
	}
	*ended = 0;
	for (uint32_t i = 0; i < n; i++)
		*ended += signalled(fd, outs[i]);
	free(outs);
	return n;
}

/*
 * At most @limit jobs of @job_bytes were in flight when SUBMIT said
 * -EBUSY, and it did say so.
 */
static void assert_refused_at(uint32_t n, int err, uint32_t ended,
			      uint32_t limit)
{
	assert_int_equal(err, EBUSY);
	/* all of them in flight would be more than the limit */
	assert_true(n >= limit);
	/* what was in flight at the refusal never went past it */
	assert_true(n - ended <= limit);
}

/* A file's jobs in flight stop at max_jobs_in_flight: -EBUSY. */
static void test_jobs_in_flight_limit(void **state)
{
	const uint32_t limit = DRM_TERN_MAX_JOBS_PER_FILE;
	int fd = uapi_open();
	uint32_t other = uapi_queue_create(fd, 1 % uapi.info.engine_count);
	struct uapi_stream s = { .size = 0 };
	struct drm_tern_submit args = { 0 };
	uint32_t n, ended;
	struct uapi_bo bo;
	int err;

	(void)state;
	uapi_bo_create(fd, DRM_TERN_PLACEMENT_HOST, 4096, &bo);
	emit_stall(&s, &bo);
	args.queue_id = uapi_queue_create(fd, 0);
	args.packets = (uintptr_t)s.words;
	args.packets_size = s.size;
	n = submit_until_refused(fd, &args, limit + 64, &err, &ended);
	assert_refused_at(n, err, ended, limit);
	/* the file's limit, whichever queue */
	if (n - ended == limit)
		assert_errno(uapi_submit(fd, other, &s, 0), EBUSY);
	/* another file is not held back */
	s.size = 0;
	uapi_emit_nop(&s, 1);
	other = uapi_queue_create(uapi.fd, 1 % uapi.info.engine_count);
	assert_int_equal(uapi_run(uapi.fd, other, &s), 1);
	munmap(bo.cpu, bo.size);
	close(fd);
	assert_int_equal(uapi.info.max_jobs_in_flight, limit);
}

/* A file's packet bytes in flight stop at max_packet_bytes_in_flight. */
static void test_packet_bytes_in_flight_limit(void **state)
{
	const uint64_t limit = DRM_TERN_MAX_PACKET_BYTES_PER_FILE;
	const uint32_t job_bytes = uapi.info.max_submit_bytes;
	static uint64_t words[MAX_SUBMIT_BYTES / 8];
	struct drm_tern_packet_sem_wait *wait = (void *)words;
	struct drm_tern_packet_header *nop = (void *)&words[3];
	struct drm_tern_submit args = { .packets_size = job_bytes };
	int fd = uapi_open();
	uint32_t n, ended;
	struct uapi_bo bo;
	int err;

	(void)state;
	assert_true(job_bytes <= sizeof(words));
	uapi_bo_create(fd, DRM_TERN_PLACEMENT_HOST, 4096, &bo);
	/* a wait that never passes, then a NOP to the end of the stream */
	*wait = (struct drm_tern_packet_sem_wait){
		.header = { .opcode = DRM_TERN_OP_SEM_WAIT, .length = 3 },
		.addr = bo.va, .value = UINT64_MAX,
	};
	*nop = (struct drm_tern_packet_header){
		.opcode = DRM_TERN_OP_NOP, .length = job_bytes / 8 - 3,
	};
	args.queue_id = uapi_queue_create(fd, 0);
	args.packets = (uintptr_t)words;
	n = submit_until_refused(fd, &args, limit / job_bytes + 64, &err,
				 &ended);
	assert_refused_at(n, err, ended, limit / job_bytes);
	munmap(bo.cpu, bo.size);
	close(fd);
	assert_int_equal(uapi.info.max_packet_bytes_in_flight, limit);
}

/*
 * Host-placement buffers pin host memory: all of them together get
 * host_memory_budget bytes (module parameter host_mem_mb); past it
 * BO_CREATE fails with -ENOMEM, above it with -E2BIG, and freeing gives
 * the budget back.
 */
static void test_host_memory_budget(void **state)
{
	struct drm_tern_info info = uapi_get_info(uapi.fd);
	const uint64_t budget = info.host_memory_budget;
	struct drm_tern_bo_create args = { .placement = DRM_TERN_PLACEMENT_HOST };
	struct uapi_bo first;

	(void)state;
	assert_true(budget > 0 && budget % uapi.page_size == 0);
	args.size = budget + 1;
	assert_errno(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_BO_CREATE, &args), E2BIG);
	if (budget > (512ull << 20)) {
		print_message("a budget of %llu MiB is too large to use up here "
			      "(load tern.ko with host_mem_mb=256)\n",
			      (unsigned long long)(budget >> 20));
		skip();
	}
	/* more than half of what is left, twice: the second must fail */
	args.size = (budget - info.host_memory_pinned) / 2 + uapi.page_size;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, args.size, &first);
	assert_true(uapi_get_info(uapi.fd).host_memory_pinned >=
		    info.host_memory_pinned + args.size);
	assert_errno(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_BO_CREATE, &args), ENOMEM);
	uapi_bo_close(uapi.fd, &first);
	assert_int_equal(uapi_get_info(uapi.fd).host_memory_pinned,
			 info.host_memory_pinned);
	assert_ioctl_ok(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_BO_CREATE, &args));
}

#define T(f) cmocka_unit_test_setup_teardown(f, uapi_setup, uapi_teardown)

int uapi_robust_tests(void)
{
	const struct CMUnitTest tests[] = {
		T(test_queue_churn),
		T(test_file_churn),
		T(test_stalled_queue_holds_only_itself),
		T(test_timeout_while_scheduler_uses_job),
		T(test_timeout_after_slow_reset),
		T(test_fault_knobs_refuse_nonsense),
		T(test_engines_file_shows_jobs),
		T(test_queue_banned_after_timeouts),
		T(test_queue_destroy_does_not_wait),
		T(test_jobs_in_flight_limit),
		T(test_packet_bytes_in_flight_limit),
		T(test_host_memory_budget),
	};

	return cmocka_run_group_tests_name("uapi_robust", tests, NULL, NULL);
}
