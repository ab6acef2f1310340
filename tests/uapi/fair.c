// SPDX-License-Identifier: MIT
/*
 * Sharing an engine (Documentation/driver.rst): a REDUCE is cut into
 * steps by its work, not its bytes; another user's rings on many files
 * and soft-float REDUCEs do not push a user's jobs past the job timeout;
 * a ring's job timeout fails that job alone, resetting nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xf86drm.h>

#include "uapi.h"

/* The largest REDUCE of float16 one buffer of 4 MiB holds, in place. */
#define BIG_BYTES	(4u << 20)
#define BIG_COUNT	(BIG_BYTES / 2)
/*
 * Work units of one float16 element of a dividing REDUCE and of one step
 * (Documentation/driver.rst, "Sharing an engine").
 */
#define F16_DIVIDE_COST	1024u
#define STEP_BUDGET	(4u << 20)

/* The other user of the two-user test, and how much it holds. */
#define OTHER_UID	65534
#define OTHER_FILES	20
#define OTHER_RINGS	16	/* tried per file; the driver may refuse some */
#define OTHER_RECORDS	32	/* jobs written into each ring */
#define OTHER_JOBS	4	/* SUBMITs per file */
/* The first user's jobs, each waited for at most this long. */
#define OWN_JOBS	10

static int write_text(const char *path, const char *text)
{
	ssize_t len = (ssize_t)strlen(text);
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, text, len) == len ? 0 : -errno;
	close(fd);
	return ret;
}

/* A number of the device's sysfs directory, or -1. */
static long long sysfs_number(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/bus/platform/devices/tern.%u/tern/%s",
		 uapi.info.device_index, name);
	return uapi_read_number(path);
}

/* A parameter of tern.ko, or -1. */
static long long module_parameter(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/tern/parameters/%s", name);
	return uapi_read_number(path);
}

/* debugfs "steps" of @engine: its steps and the longest, or -1. */
static int read_steps(uint32_t engine, long long *steps, long long *max_ns)
{
	char path[128], line[128];
	int found = -1;
	FILE *f;

	uapi_debugfs_path("steps", path, sizeof(path));
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned int e;
		long long n, max, slow;

		if (sscanf(line, "%u %lld %lld %lld", &e, &n, &max, &slow) == 4 &&
		    e == engine) {
			*steps = n;
			*max_ns = max;
			found = 0;
		}
	}
	fclose(f);
	return found;
}

/* A dividing float16 REDUCE of @count elements in place at @va. */
static void emit_f16_divide(struct uapi_stream *s, uint64_t va, uint64_t count)
{
	struct drm_tern_packet_reduce p = {
		.header = { DRM_TERN_OP_REDUCE, sizeof(p) / 8, DRM_TERN_REDUCE_DIVIDE },
		.src0 = va, .src1 = va, .dst = va, .count = count,
		.dtype = DRM_TERN_DTYPE_FLOAT16, .op = DRM_TERN_REDOP_SUM, .divisor = 3,
	};

	memcpy((uint8_t *)s->words + s->size, &p, sizeof(p));
	s->size += sizeof(p);
}

/*
 * The largest soft-float DIVIDE REDUCE one buffer holds runs in steps
 * of at most STEP_BUDGET work units: at least count * cost / budget of
 * them. The driver with a budget of bytes ran it in one.
 */
static void test_reduce_steps_by_work(void **state)
{
	const uint32_t engine = uapi_dma_engines() - 1;
	uint32_t queue = uapi_queue_create(uapi.fd, engine);
	struct uapi_stream s = { .size = 0 };
	long long steps = 0, max_ns = 0;
	char path[128];
	struct uapi_bo bo;

	(void)state;
	uapi_debugfs_path("steps", path, sizeof(path));
	if (write_text(path, "0\n")) {
		print_message("no debugfs steps: cannot count steps\n");
		skip();
	}
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, BIG_BYTES, &bo);
	for (uint32_t i = 0; i < BIG_COUNT; i++)
		((uint16_t *)bo.cpu)[i] = 0x3c00;	/* 1.0 */
	emit_f16_divide(&s, bo.va, BIG_COUNT);
	assert_int_equal(uapi_run(uapi.fd, queue, &s), 1);
	assert_int_equal(read_steps(engine, &steps, &max_ns), 0);
	print_message("REDUCE float16 DIVIDE of %u elements: %lld steps, "
		      "longest %lld ns\n", BIG_COUNT, steps, max_ns);
	assert_true(steps >= (long long)BIG_COUNT * F16_DIVIDE_COST /
		    STEP_BUDGET);
	/* (1 + 1) / 3, rounded to float16 */
	assert_int_equal(((uint16_t *)bo.cpu)[0], 0x3955);
	assert_int_equal(((uint16_t *)bo.cpu)[BIG_COUNT - 1], 0x3955);
	uapi_bo_close(uapi.fd, &bo);
}

/* ---- two users on one engine ---- */

/* A ring of the other user's: its buffer, mapped. */
struct other_ring {
	uint32_t id;
	struct drm_tern_ring_ctl *ctl;
	uint8_t *data;
};

/*
 * Fills @r with a job that waits for the word at @gate, then
 * OTHER_RECORDS jobs, each the big REDUCE at @va, and kicks: the KICK
 * finds the first job waiting and returns, whatever the driver.
 */
static void other_ring_feed(int fd, struct other_ring *r, uint64_t va,
			    uint64_t gate)
{
	const size_t hdr = sizeof(struct drm_tern_ring_record);
	struct uapi_stream s = { .size = 0 }, wait = { .size = 0 };
	struct drm_tern_ring_kick kick = { .ring_id = r->id };
	struct drm_tern_ring_record first = { 0 };
	uint64_t tail;

	uapi_emit_sem(&wait, DRM_TERN_OP_SEM_WAIT, 0, gate, 1);
	first.size = wait.size;
	memcpy(r->data, &first, hdr);
	memcpy(r->data + hdr, wait.words, wait.size);
	tail = hdr + wait.size;
	emit_f16_divide(&s, va, BIG_COUNT);
	for (int i = 0; i < OTHER_RECORDS; i++) {
		struct drm_tern_ring_record rec = { .size = s.size };

		memcpy(r->data + tail, &rec, hdr);
		memcpy(r->data + tail + hdr, s.words, s.size);
		tail += hdr + s.size;
	}
	__atomic_store_n(&r->ctl->tail, tail, __ATOMIC_SEQ_CST);
	uapi_ioctl(fd, DRM_IOCTL_TERN_RING_KICK, &kick);
}

/*
 * The other user: OTHER_FILES files, each with as many rings as it may
 * have on engine 0 full of soft-float REDUCEs and OTHER_JOBS SUBMITs of
 * them; then it says so on @ready and waits to be killed. Exits 2 when it
 * cannot even start.
 */
static void other_user(int ready)
{
	uint64_t *gates[OTHER_FILES];
	int rings = 0;

	if (setgid(OTHER_UID) || setuid(OTHER_UID))
		_exit(2);
	for (int f = 0; f < OTHER_FILES; f++) {
		struct uapi_stream s = { .size = 0 };
		struct drm_tern_queue_create queue = { .engine = 0 };
		struct uapi_bo big, gate;
		int fd = open(uapi.node, O_RDWR | O_CLOEXEC);

		if (fd < 0)
			_exit(2);
		uapi_bo_create(fd, DRM_TERN_PLACEMENT_HOST, BIG_BYTES, &big);
		uapi_bo_create(fd, DRM_TERN_PLACEMENT_HOST, 4096, &gate);
		gates[f] = (uint64_t *)gate.cpu;
		for (int i = 0; i < OTHER_RINGS; i++) {
			struct drm_tern_ring_create create = {
				.size = DRM_TERN_RING_MIN_SIZE,
			};
			struct other_ring r;
			struct uapi_bo bo;

			uapi_bo_create(fd, DRM_TERN_PLACEMENT_HOST,
				       DRM_TERN_RING_DATA_OFFSET + DRM_TERN_RING_MIN_SIZE,
				       &bo);
			create.handle = bo.handle;
			if (uapi_ioctl(fd, DRM_IOCTL_TERN_RING_CREATE, &create))
				break;	/* its limits: fine */
			r.id = create.ring_id;
			r.ctl = (struct drm_tern_ring_ctl *)bo.cpu;
			r.data = bo.cpu + DRM_TERN_RING_DATA_OFFSET;
			other_ring_feed(fd, &r, big.va, gate.va);
			rings++;
		}
		if (uapi_ioctl(fd, DRM_IOCTL_TERN_QUEUE_CREATE, &queue))
			_exit(2);
		emit_f16_divide(&s, big.va, BIG_COUNT);
		for (int j = 0; j < OTHER_JOBS; j++)
			uapi_submit(fd, queue.queue_id, &s, 0);
	}
	for (int f = 0; f < OTHER_FILES; f++)
		__atomic_store_n(gates[f], 1, __ATOMIC_SEQ_CST);
	if (write(ready, &rings, sizeof(rings)) != sizeof(rings))
		_exit(2);
	for (;;)
		pause();
}

/* Waits at most @bound_ns for @syncobj: 0, or -ETIME. */
static int wait_bounded(int fd, uint32_t syncobj, int64_t bound_ns)
{
	return drmSyncobjWait(fd, &syncobj, 1, now_ns() + bound_ns,
			      DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
}

/*
 * Another user (uid OTHER_UID) loads engine 0 with rings on
 * OTHER_FILES files and soft-float REDUCEs, SUBMITted and in its rings.
 * This user's small jobs on engine 0 still end, each well within the job
 * timeout: none times out, the queue is not banned. The driver that gave
 * every ring its own turn on the engine, and a whole REDUCE a step, made
 * them time out and banned the queue.
 */
static void test_two_users_share_engine(void **state)
{
	const int64_t timeout_ns = 1000000ll *
		(module_parameter("job_timeout_ms") > 0 ?
		 module_parameter("job_timeout_ms") : 5000);
	uint32_t queue = uapi_queue_create(uapi.fd, 0);
	struct uapi_stream s = { .size = 0 };
	int pipefd[2], rings = 0, timed_out = 0, failed = 0, ok = 0, status;
	int64_t start, longest = 0;
	struct stat st;
	struct uapi_bo bo;
	pid_t other;

	(void)state;
	if (getuid() != 0) {
		print_message("needs root, to be two users\n");
		skip();
	}
	/* Without udev the node is root's alone: let the other user in. */
	assert_int_equal(stat(uapi.node, &st), 0);
	assert_int_equal(chmod(uapi.node, 0666), 0);
	assert_int_equal(pipe(pipefd), 0);
	other = fork();
	assert_true(other >= 0);
	if (!other) {
		close(pipefd[0]);
		other_user(pipefd[1]);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &rings, sizeof(rings)) != sizeof(rings)) {
		waitpid(other, &status, 0);
		chmod(uapi.node, st.st_mode & 07777);
		fail_msg("the other user did not start (status %d)", status);
	}
	close(pipefd[0]);
	print_message("other user: %d rings on %d files\n", rings, OTHER_FILES);

	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, 4096, &bo);
	uapi_emit_fill(&s, bo.va, 4096, 0x11111111);
	for (int i = 0; i < OWN_JOBS && failed + timed_out < 3; i++) {
		uint32_t out = uapi_syncobj_create(uapi.fd);
		int64_t took;

		start = now_ns();
		if (uapi_submit(uapi.fd, queue, &s, out)) {
			failed++;
			continue;
		}
		/* Longer than a timeout would have failed it. */
		if (wait_bounded(uapi.fd, out, 2 * timeout_ns)) {
			timed_out++;
			continue;
		}
		took = now_ns() - start;
		if (took > longest)
			longest = took;
		if (uapi_fence_status(uapi.fd, out) != 1)
			failed++;
		else
			ok++;
	}
	kill(other, SIGKILL);
	waitpid(other, &status, 0);
	chmod(uapi.node, st.st_mode & 07777);
	print_message("own jobs: %d ended well, %d failed, %d not ended "
		      "within two job timeouts; longest %lld us\n",
		      ok, failed, timed_out,
		      (long long)(longest / 1000));
	assert_int_equal(timed_out, 0);
	assert_int_equal(failed, 0);
	assert_int_equal(ok, OWN_JOBS);
	/* Not banned: it takes and runs more. */
	assert_int_equal(uapi_run(uapi.fd, queue, &s), 1);
	assert_int_equal(*(uint32_t *)bo.cpu, 0x11111111);
	uapi_bo_close(uapi.fd, &bo);
}

/* ---- a ring's job timeout ---- */

static int hang_engine(uint32_t engine)
{
	char path[128], text[16];

	uapi_debugfs_path("engine_hang", path, sizeof(path));
	snprintf(text, sizeof(text), "%u\n", engine);
	return write_text(path, text);
}

static int engine_hung(uint32_t engine)
{
	char path[128];
	unsigned int e;
	int hung = 0;
	FILE *f;

	uapi_debugfs_path("engine_hang", path, sizeof(path));
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fscanf(f, "%u", &e) == 1)
		hung |= e == engine;
	fclose(f);
	return hung;
}

/*
 * Runs one job of @s's packets through a new ring on @engine and waits
 * for it; the job's fence word (fence value 0x10000 | error) is returned.
 */
static uint64_t ring_one_job(uint32_t engine, const struct uapi_stream *s,
			     struct uapi_bo *words, unsigned int slot)
{
	const size_t hdr = sizeof(struct drm_tern_ring_record);
	struct drm_tern_ring_create create = {
		.engine = engine, .size = DRM_TERN_RING_MIN_SIZE,
	};
	struct drm_tern_ring_record rec = { 0 };
	struct drm_tern_ring_wait wait = { 0 };
	struct drm_tern_ring_kick kick = { 0 };
	struct drm_tern_ring_ctl *ctl;
	struct uapi_bo ring;
	uint64_t fence;

	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST,
		       DRM_TERN_RING_DATA_OFFSET + DRM_TERN_RING_MIN_SIZE, &ring);
	create.handle = ring.handle;
	assert_ioctl_ok(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_RING_CREATE, &create));
	ctl = (struct drm_tern_ring_ctl *)ring.cpu;
	rec.size = s->size;
	rec.fence_va = words->va + 8 * slot;
	rec.fence_value = 0x10000;
	memcpy(ring.cpu + DRM_TERN_RING_DATA_OFFSET, &rec, hdr);
	memcpy(ring.cpu + DRM_TERN_RING_DATA_OFFSET + hdr, s->words, s->size);
	__atomic_store_n(&ctl->tail, hdr + s->size, __ATOMIC_SEQ_CST);
	kick.ring_id = create.ring_id;
	assert_ioctl_ok(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_RING_KICK, &kick));
	wait.ring_id = create.ring_id;
	wait.done = 1;
	wait.timeout_ns = now_ns() + 30000000000ll;
	assert_ioctl_ok(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_RING_WAIT, &wait));
	fence = ((uint64_t *)words->cpu)[slot];
	uapi_bo_close(uapi.fd, &ring);
	return fence;
}

/*
 * A ring's job on a hung engine times out: it fails with -ETIMEDOUT and
 * resets the engine, once (a hang reset), as a scheduler's job would;
 * with only rings there, nothing else would end the hang. A ring's job
 * that waits on a semaphore nothing writes, on an engine that works,
 * fails alone: no reset. The driver once reset the engine for every
 * ring's timeout, counting a reset per ring.
 */
static void test_ring_timeout_resets_only_a_hang(void **state)
{
	const uint32_t engine = uapi_dma_engines() - 1;
	struct uapi_stream s = { .size = 0 };
	long long resets, hang_resets;
	struct uapi_bo words;
	uint64_t *word;

	(void)state;
	resets = sysfs_number("engine_resets");
	hang_resets = sysfs_number("engine_hang_resets");
	if (resets < 0 || hang_engine(engine)) {
		print_message("no engine_hang in debugfs or no sysfs\n");
		skip();
	}
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, 4096, &words);
	word = (uint64_t *)words.cpu;
	uapi_emit_fill(&s, words.va + 64, 8, 1);
	assert_int_equal(ring_one_job(engine, &s, &words, 0),
			 0x10000 | (ETIMEDOUT & 0xffff));
	assert_int_equal(word[8], 0);		/* it never ran */
	assert_int_equal(engine_hung(engine), 0);
	assert_int_equal(sysfs_number("engine_resets"), resets + 1);
	assert_int_equal(sysfs_number("engine_hang_resets"), hang_resets + 1);

	/* On an engine that works, a waiting job fails alone. */
	s.size = 0;
	uapi_emit_sem(&s, DRM_TERN_OP_SEM_WAIT, 0, words.va + 128, 1);
	assert_int_equal(ring_one_job(engine, &s, &words, 1),
			 0x10000 | (ETIMEDOUT & 0xffff));
	assert_int_equal(sysfs_number("engine_resets"), resets + 1);
	assert_int_equal(sysfs_number("engine_hang_resets"), hang_resets + 1);
	uapi_bo_close(uapi.fd, &words);
}

#define T(f) cmocka_unit_test_setup_teardown(f, uapi_setup, uapi_teardown)

int uapi_fair_tests(void)
{
	const struct CMUnitTest tests[] = {
		T(test_reduce_steps_by_work),
		T(test_two_users_share_engine),
		T(test_ring_timeout_resets_only_a_hang),
	};

	return cmocka_run_group_tests_name("uapi_fair", tests, NULL, NULL);
}
