// SPDX-License-Identifier: MIT
/*
 * User rings: RING_CREATE, RING_DESTROY, RING_KICK and RING_WAIT, one case
 * per error path; what a ring does with its records (order, wrapping,
 * fence words, a failing job); and every record the engine must refuse,
 * each of which stops the ring with nothing after it run.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uapi.h"

#define RING_SIZE	DRM_TERN_RING_MIN_SIZE
#define HDR		sizeof(struct drm_tern_ring_record)

/* A ring of the test's file, its buffer mapped, and where userspace is. */
struct ring {
	struct uapi_bo bo;
	uint32_t id;
	uint32_t size;
	uint64_t tail;
	struct drm_tern_ring_ctl *ctl;
	uint8_t *data;
};

static int ring_create_args(struct drm_tern_ring_create *args)
{
	return uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_RING_CREATE, args);
}

static void ring_make_on(struct ring *r, uint32_t size, uint32_t engine)
{
	struct drm_tern_ring_create args = { .engine = engine, .size = size };

	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, DRM_TERN_RING_DATA_OFFSET + size,
		       &r->bo);
	args.handle = r->bo.handle;
	/* Rings destroyed just before count until they are freed, soon. */
	for (int i = 0; i < 1000 && ring_create_args(&args) == ENOSPC; i++)
		usleep(10000);
	assert_int_not_equal(args.ring_id, 0);
	assert_int_not_equal(args.ring_id, 0);
	r->id = args.ring_id;
	r->size = size;
	r->tail = 0;
	r->ctl = (struct drm_tern_ring_ctl *)r->bo.cpu;
	r->data = r->bo.cpu + DRM_TERN_RING_DATA_OFFSET;
	assert_int_equal(r->ctl->kick, 1);
	assert_int_equal(r->ctl->done, 0);
}

static void ring_make(struct ring *r, uint32_t size)
{
	ring_make_on(r, size, 0);
}

static int ring_kick(uint32_t id, uint32_t flags)
{
	struct drm_tern_ring_kick args = { .ring_id = id, .flags = flags };

	return uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_RING_KICK, &args);
}

static int ring_wait(uint32_t id, uint64_t done, int64_t timeout_ns)
{
	struct drm_tern_ring_wait args = {
		.ring_id = id, .done = done, .timeout_ns = timeout_ns,
	};

	return uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_RING_WAIT, &args);
}

static int ring_destroy(uint32_t id, uint32_t flags)
{
	struct drm_tern_ring_destroy args = { .ring_id = id, .flags = flags };

	return uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_RING_DESTROY, &args);
}

/* Room before the ring's end, filled with a PAD record (or skipped). */
static void ring_pad_to_end(struct ring *r)
{
	uint64_t at = r->tail % r->size, left = r->size - at;

	if (left >= HDR) {
		struct drm_tern_ring_record pad = {
			.size = (uint32_t)(left - HDR),
			.flags = DRM_TERN_RING_RECORD_PAD,
		};

		memcpy(r->data + at, &pad, HDR);
	}
	r->tail += left;
}

/*
 * Writes @rec and @size bytes of @packets at the tail, padding first when
 * they would pass the ring's end; moves the tail only if @publish.
 */
static void ring_put(struct ring *r, const struct drm_tern_ring_record *rec,
		     const void *packets, uint32_t size, bool publish)
{
	if (r->size - r->tail % r->size < HDR + size)
		ring_pad_to_end(r);
	memcpy(r->data + r->tail % r->size, rec, HDR);
	memcpy(r->data + r->tail % r->size + HDR, packets, size);
	r->tail += HDR + size;
	if (publish)
		__atomic_store_n(&r->ctl->tail, r->tail, __ATOMIC_SEQ_CST);
}

/* A job of @s whose end writes @value at @fence_va. */
static void ring_job(struct ring *r, const struct uapi_stream *s,
		     uint64_t fence_va, uint64_t value)
{
	struct drm_tern_ring_record rec = {
		.size = s->size, .fence_va = fence_va, .fence_value = value,
	};

	ring_put(r, &rec, s->words, s->size, true);
}

/* Kicks @r and waits (bounded) until @done of its jobs have ended. */
static void ring_run(struct ring *r, uint64_t done)
{
	assert_ioctl_ok(ring_kick(r->id, 0));
	assert_ioctl_ok(ring_wait(r->id, done, now_ns() + 10000000000ll));
	assert_int_equal(r->ctl->done, done);
}

/* Waits, 10 s at most, for *@word to be @value; what it last read. */
static uint64_t word_await(const uint64_t *word, uint64_t value)
{
	uint64_t now = __atomic_load_n(word, __ATOMIC_SEQ_CST);

	for (int i = 0; i < 1000 && now != value; i++) {
		usleep(10000);
		now = __atomic_load_n(word, __ATOMIC_SEQ_CST);
	}
	return now;
}

/* ---- RING_CREATE ---- */

static void test_ring_create_flags(void **state)
{
	struct uapi_bo bo;

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST,
		       DRM_TERN_RING_DATA_OFFSET + RING_SIZE, &bo);
	for (int bit = 0; bit < 32; bit++) {
		struct drm_tern_ring_create args = {
			.flags = 1u << bit, .handle = bo.handle,
			.size = RING_SIZE,
		};

		assert_errno(ring_create_args(&args), EINVAL);
	}
	uapi_bo_close(uapi.fd, &bo);
}

static void test_ring_create_pad(void **state)
{
	struct uapi_bo bo;
	struct drm_tern_ring_create args = { .size = RING_SIZE, .pad = 1 };

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST,
		       DRM_TERN_RING_DATA_OFFSET + RING_SIZE, &bo);
	args.handle = bo.handle;
	assert_errno(ring_create_args(&args), EINVAL);
	uapi_bo_close(uapi.fd, &bo);
}

static void test_ring_create_engine(void **state)
{
	const uint32_t bad[] = {
		uapi.info.engine_count, uapi.info.engine_count + 1, 0xffffffffu,
	};
	struct uapi_bo bo;

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST,
		       DRM_TERN_RING_DATA_OFFSET + RING_SIZE, &bo);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct drm_tern_ring_create args = {
			.engine = bad[i], .handle = bo.handle,
			.size = RING_SIZE,
		};

		assert_errno(ring_create_args(&args), EINVAL);
	}
	uapi_bo_close(uapi.fd, &bo);
}

static void test_ring_create_size(void **state)
{
	const uint32_t bad[] = {
		0, 8, DRM_TERN_RING_MIN_SIZE / 2, DRM_TERN_RING_MIN_SIZE + 8,
		3 * DRM_TERN_RING_MIN_SIZE, DRM_TERN_RING_MAX_SIZE * 2, 0x80000000u,
		0xffffffffu,
	};
	struct uapi_bo bo;

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST,
		       DRM_TERN_RING_DATA_OFFSET + 4 * RING_SIZE, &bo);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct drm_tern_ring_create args = {
			.handle = bo.handle, .size = bad[i],
		};

		assert_errno(ring_create_args(&args), EINVAL);
	}
	uapi_bo_close(uapi.fd, &bo);
}

static void test_ring_create_buffer_too_small(void **state)
{
	struct uapi_bo bo;
	struct drm_tern_ring_create args = { .size = RING_SIZE };

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, RING_SIZE, &bo);
	args.handle = bo.handle;
	assert_errno(ring_create_args(&args), EINVAL);
	uapi_bo_close(uapi.fd, &bo);
}

static void test_ring_create_unknown_handle(void **state)
{
	struct drm_tern_ring_create args = { .handle = 0x7fff, .size = RING_SIZE };

	(void)state;
	assert_errno(ring_create_args(&args), ENOENT);
	args.handle = 0;
	assert_errno(ring_create_args(&args), ENOENT);
}

/* Rings and queues share DRM_TERN_MAX_QUEUES_PER_FILE. */
static void test_ring_create_too_many(void **state)
{
	struct drm_tern_ring_create args = { .size = RING_SIZE };
	struct drm_tern_ring_create more = { .size = RING_SIZE };
	struct uapi_bo bo, other;

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST,
		       DRM_TERN_RING_DATA_OFFSET + RING_SIZE, &bo);
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST,
		       DRM_TERN_RING_DATA_OFFSET + RING_SIZE, &other);
	args.handle = bo.handle;
	more.handle = other.handle;
	for (int i = 0; i < DRM_TERN_MAX_QUEUES_PER_FILE - 1; i++)
		uapi_queue_create(uapi.fd, 0);
	assert_ioctl_ok(ring_create_args(&args));
	assert_errno(ring_create_args(&more), ENOSPC);
	/* a destroyed ring no longer counts as a queue, at once */
	assert_ioctl_ok(ring_destroy(args.ring_id, 0));
	assert_ioctl_ok(ring_create_args(&more));
	uapi_bo_close(uapi.fd, &bo);
	uapi_bo_close(uapi.fd, &other);
}

/*
 * Retries RING_CREATE with @args for up to 10 s while it fails with
 * @busy: a destroyed ring holds its buffer and its share of the limits
 * until it is freed, which follows its destroy soon, not at once.
 */
static int ring_create_retry(int fd, struct drm_tern_ring_create *args,
			     int busy)
{
	int err = 0;

	for (int i = 0; i < 1000; i++) {
		err = uapi_ioctl(fd, DRM_IOCTL_TERN_RING_CREATE, args);
		if (err != busy)
			break;
		usleep(10000);
	}
	return err;
}

/* One buffer, one ring: a second RING_CREATE on it fails with EBUSY. */
static void test_ring_create_buffer_taken(void **state)
{
	struct drm_tern_ring_create args = { .size = RING_SIZE };
	struct drm_tern_ring_create again = { .size = RING_SIZE };
	struct uapi_bo bo;

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST,
		       DRM_TERN_RING_DATA_OFFSET + RING_SIZE, &bo);
	args.handle = bo.handle;
	assert_ioctl_ok(ring_create_args(&args));
	again.handle = bo.handle;
	assert_errno(ring_create_args(&again), EBUSY);
	again.engine = uapi.info.engine_count - 1;
	assert_errno(ring_create_args(&again), EBUSY);
	/* Its ring destroyed and gone, the buffer takes another. */
	assert_ioctl_ok(ring_destroy(args.ring_id, 0));
	assert_ioctl_ok(ring_create_retry(uapi.fd, &again, EBUSY));
	uapi_bo_close(uapi.fd, &bo);
}

/*
 * A file has at most DRM_TERN_MAX_RINGS_PER_FILE rings, destroyed ones
 * included until they are freed: one more fails with ENOSPC.
 */
static void test_ring_create_rings_per_file(void **state)
{
	struct drm_tern_ring_create args[DRM_TERN_MAX_RINGS_PER_FILE + 1];
	struct uapi_bo bo[DRM_TERN_MAX_RINGS_PER_FILE + 1];

	(void)state;
	for (int i = 0; i <= DRM_TERN_MAX_RINGS_PER_FILE; i++) {
		uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST,
			       DRM_TERN_RING_DATA_OFFSET + RING_SIZE, &bo[i]);
		args[i] = (struct drm_tern_ring_create){
			.handle = bo[i].handle, .size = RING_SIZE,
		};
		if (i < DRM_TERN_MAX_RINGS_PER_FILE)
			assert_ioctl_ok(ring_create_args(&args[i]));
	}
	assert_errno(ring_create_args(&args[DRM_TERN_MAX_RINGS_PER_FILE]), ENOSPC);
	assert_ioctl_ok(ring_destroy(args[0].ring_id, 0));
	assert_ioctl_ok(ring_create_retry(uapi.fd,
					  &args[DRM_TERN_MAX_RINGS_PER_FILE],
					  ENOSPC));
	for (int i = 0; i <= DRM_TERN_MAX_RINGS_PER_FILE; i++)
		uapi_bo_close(uapi.fd, &bo[i]);
}

/* The ring memory budget, KiB, and what one ring takes of it. */
static long ring_mem_kb(void)
{
	return (long)uapi_read_number("/sys/module/tern/parameters/ring_mem_kb");
}

#define RING_CHARGE_KB	((long)(uapi.info.max_submit_bytes >> 10) + 4)

/*
 * Rings of every file together take at most ring_mem_kb of kernel
 * memory: past it RING_CREATE fails with ENOMEM, whichever file asks,
 * and a ring freed gives its share back. The driver without a budget
 * let every file make rings until the queue limit.
 */
static void test_ring_memory_budget(void **state)
{
	const long kb = ring_mem_kb();
	const long most = kb / RING_CHARGE_KB;
	const int files = (int)(most / DRM_TERN_MAX_RINGS_PER_FILE) + 2;
	int *fds = calloc((size_t)files, sizeof(*fds));
	struct drm_tern_ring_create args = { .size = RING_SIZE };
	long made = 0;
	int err = 0;

	(void)state;
	if (kb < 0) {
		print_message("tern.ko has no ring_mem_kb\n");
		free(fds);
		fail();
	}
	assert_non_null(fds);
	for (int f = 0; f < files && !err; f++) {
		fds[f] = uapi_open();
		for (int i = 0; i < DRM_TERN_MAX_RINGS_PER_FILE; i++) {
			struct uapi_bo bo;

			uapi_bo_create(fds[f], DRM_TERN_PLACEMENT_HOST,
				       DRM_TERN_RING_DATA_OFFSET + RING_SIZE, &bo);
			munmap(bo.cpu, bo.size);
			args.handle = bo.handle;
			err = uapi_ioctl(fds[f], DRM_IOCTL_TERN_RING_CREATE,
					 &args);
			if (err)
				break;
			made++;
		}
	}
	print_message("ring_mem_kb %ld: %ld rings, then %s\n", kb, made,
		      strerror(err));
	assert_int_equal(err, ENOMEM);
	/* Rings of earlier tests may still be on their way out. */
	assert_true(made <= most && made + DRM_TERN_MAX_RINGS_PER_FILE >= most);
	for (int f = 0; f < files; f++)
		if (fds[f] > 0)
			close(fds[f]);
	free(fds);
	/* Their rings freed, the budget is back. */
	{
		struct uapi_bo bo;

		uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST,
			       DRM_TERN_RING_DATA_OFFSET + RING_SIZE, &bo);
		args.handle = bo.handle;
		assert_ioctl_ok(ring_create_retry(uapi.fd, &args, ENOMEM));
		uapi_bo_close(uapi.fd, &bo);
	}
}

/* A buffer that held another ring's records: the new ring starts empty. */
static void test_ring_create_starts_empty(void **state)
{
	struct drm_tern_ring_create args = { .size = RING_SIZE };
	struct drm_tern_ring_ctl *ctl;
	struct uapi_bo bo;

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST,
		       DRM_TERN_RING_DATA_OFFSET + RING_SIZE, &bo);
	memset(bo.cpu, 0xa5, bo.size);
	ctl = (struct drm_tern_ring_ctl *)bo.cpu;
	args.handle = bo.handle;
	assert_ioctl_ok(ring_create_args(&args));
	assert_int_equal(ctl->tail, 0);
	assert_int_equal(ctl->head, 0);
	assert_int_equal(ctl->done, 0);
	assert_int_equal(ctl->error, 0);
	assert_ioctl_ok(ring_kick(args.ring_id, 0));
	assert_int_equal(ctl->error, 0);
	uapi_bo_close(uapi.fd, &bo);
}

/* ---- RING_DESTROY, RING_KICK, RING_WAIT: their own arguments ---- */

static void test_ring_destroy_args(void **state)
{
	struct ring r;

	(void)state;
	ring_make(&r, RING_SIZE);
	assert_errno(ring_destroy(r.id, 1), EINVAL);
	assert_errno(ring_destroy(r.id + 1, 0), ENOENT);
	assert_errno(ring_destroy(0, 0), ENOENT);
	assert_ioctl_ok(ring_destroy(r.id, 0));
	assert_errno(ring_destroy(r.id, 0), ENOENT);
	assert_errno(ring_kick(r.id, 0), ENOENT);
	assert_errno(ring_wait(r.id, 0, now_ns()), ENOENT);
	uapi_bo_close(uapi.fd, &r.bo);
}

static void test_ring_kick_args(void **state)
{
	struct ring r;

	(void)state;
	ring_make(&r, RING_SIZE);
	for (int bit = 0; bit < 32; bit++)
		assert_errno(ring_kick(r.id, 1u << bit), EINVAL);
	assert_errno(ring_kick(r.id + 1, 0), ENOENT);
	assert_ioctl_ok(ring_kick(r.id, 0));	/* nothing written: nothing run */
	assert_int_equal(r.ctl->done, 0);
	uapi_bo_close(uapi.fd, &r.bo);
}

static void test_ring_wait_args(void **state)
{
	struct drm_tern_ring_wait args = { .done = 1 };
	struct ring r;

	(void)state;
	ring_make(&r, RING_SIZE);
	args.ring_id = r.id;
	args.timeout_ns = now_ns();
	args.flags = 1;
	assert_errno(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_RING_WAIT, &args),
		     EINVAL);
	args.flags = 0;
	args.pad = 1;
	assert_errno(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_RING_WAIT, &args),
		     EINVAL);
	assert_errno(ring_wait(r.id + 1, 0, now_ns()), ENOENT);
	/* Nothing will end: the deadline passes, now and a little later. */
	assert_errno(ring_wait(r.id, 1, now_ns()), ETIME);
	assert_errno(ring_wait(r.id, 1, now_ns() + 20000000), ETIME);
	assert_errno(ring_wait(r.id, 1, -1), ETIME);
	/* far in the past: no wrap into a wait without end */
	assert_errno(ring_wait(r.id, 1, INT64_MIN), ETIME);
	assert_ioctl_ok(ring_wait(r.id, 0, now_ns()));
	uapi_bo_close(uapi.fd, &r.bo);
}

/* ---- what a ring does ---- */

/* A ring and a buffer of words for its jobs: each test's own. */
static struct {
	struct ring r;
	struct uapi_bo bo;
	uint64_t *words;
} tc;

static int ring_case_setup(void **state)
{
	uapi_setup(state);
	ring_make(&tc.r, RING_SIZE);
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, 4096, &tc.bo);
	tc.words = (uint64_t *)tc.bo.cpu;
	return 0;
}

static int ring_case_teardown(void **state)
{
	uapi_bo_close(uapi.fd, &tc.bo);
	uapi_bo_close(uapi.fd, &tc.r.bo);
	return uapi_teardown(state);
}

/*
 * One job: it runs, its fence word gets the value, done and head move,
 * and the engine asks for a kick again once it has nothing left.
 */
static void test_ring_runs_a_job(void **state)
{
	struct uapi_stream s = { .size = 0 };

	(void)state;
	uapi_emit_fill(&s, tc.bo.va + 8, 64, 0x5a5a5a5a);
	ring_job(&tc.r, &s, tc.bo.va, 0x10000);
	ring_run(&tc.r, 1);
	assert_int_equal(tc.words[0], 0x10000);
	assert_int_equal(tc.words[1], 0x5a5a5a5a5a5a5a5aull);
	assert_int_equal(tc.r.ctl->head, tc.r.tail);
	assert_int_equal(tc.r.ctl->error, 0);
	/* asked for once nothing is left: at once or after the job's end */
	for (int i = 0; i < 100 && !__atomic_load_n(&tc.r.ctl->kick,
						 __ATOMIC_SEQ_CST); i++)
		usleep(10000);
	assert_int_equal(tc.r.ctl->kick, 1);
}

/*
 * Jobs going round the ring three times: each waits for a counter at its
 * number and sets it to the next, so a job run out of order stalls the
 * ring. Records of 2000 to 2040 bytes make the ring's end fall anywhere:
 * on PAD records and on too few bytes for a header. Whenever the ring is
 * nearly full, what is in it runs.
 */
static void test_ring_runs_in_order_round_the_ring(void **state)
{
	const uint32_t jobs = 3 * RING_SIZE / 2000;

	(void)state;
	for (uint32_t i = 0; i < jobs; i++) {
		struct uapi_stream s = { .size = 0 };

		uapi_emit_sem(&s, DRM_TERN_OP_SEM_WAIT, DRM_TERN_SEM_WAIT_EQ, tc.bo.va, i);
		uapi_emit_sem(&s, DRM_TERN_OP_SEM_SIGNAL, 0, tc.bo.va, i + 1);
		uapi_emit_nop(&s, (uint16_t)(240 + i % 6));
		if (tc.r.tail + 2 * 2048 - tc.r.ctl->head > tc.r.size)
			ring_run(&tc.r, i);
		ring_job(&tc.r, &s, 0, 0);
	}
	ring_run(&tc.r, jobs);
	assert_int_equal(tc.words[0], jobs);
	assert_int_equal(tc.r.ctl->error, 0);
}

/*
 * A job that faults fails alone: its fence word carries -EFAULT, and the
 * next job runs.
 */
static void test_ring_failing_job(void **state)
{
	struct uapi_stream bad = { .size = 0 }, good = { .size = 0 };

	(void)state;
	uapi_emit_fill(&bad, uapi_unmapped_va(), 8, 1);
	uapi_emit_fill(&good, tc.bo.va + 16, 8, 2);
	ring_job(&tc.r, &bad, tc.bo.va, 0x20000);
	ring_job(&tc.r, &good, tc.bo.va + 8, 0x30000);
	ring_run(&tc.r, 2);
	assert_int_equal(tc.words[0], 0x20000 | (EFAULT & 0xffff));
	assert_int_equal(tc.words[1], 0x30000);
	assert_int_equal(tc.words[2], 0x0000000200000002ull);
	assert_int_equal(tc.r.ctl->error, 0);
}

/*
 * A job that waits does not hold up the KICK: it returns, the job ends
 * once the host writes the semaphore, and RING_WAIT sees it end.
 */
static void test_ring_stalled_job_ends_later(void **state)
{
	struct uapi_stream s = { .size = 0 };

	(void)state;
	uapi_emit_sem(&s, DRM_TERN_OP_SEM_WAIT, 0, tc.bo.va, 1);
	ring_job(&tc.r, &s, tc.bo.va + 8, 0x40000);
	assert_ioctl_ok(ring_kick(tc.r.id, 0));
	assert_errno(ring_wait(tc.r.id, 1, now_ns() + 20000000), ETIME);
	assert_int_equal(tc.r.ctl->kick, 0);
	__atomic_store_n(&tc.words[0], 1, __ATOMIC_SEQ_CST);
	assert_ioctl_ok(ring_wait(tc.r.id, 1, now_ns() + 10000000000ll));
	assert_int_equal(tc.words[1], 0x40000);
}

/*
 * A record the engine takes by itself, no KICK since it was written,
 * whose DMA_TILE needs SBUF the file has not made yet: the engine may
 * not allocate it, so the record is taken where memory can be, and its
 * job runs as if kicked (run without, it would fail with -ENOMEM).
 */
static void test_ring_job_needs_onchip_memory(void **state)
{
	const struct drm_tern_tile t = uapi_tile(DRM_TERN_SPACE_SBUF,
						 DRM_TERN_DTYPE_FLOAT32, 0, 4, 0, 16);
	struct uapi_stream s = { .size = 0 };

	(void)state;
	uapi_need_cores();
	uapi_emit_sem(&s, DRM_TERN_OP_SEM_WAIT, 0, tc.bo.va, 1);
	ring_job(&tc.r, &s, tc.bo.va + 8, 0x40000);
	assert_ioctl_ok(ring_kick(tc.r.id, 0));
	assert_int_equal(tc.r.ctl->kick, 0);
	s.size = 0;
	memset(tc.bo.cpu + 1024, 0x3c, 256);
	uapi_emit_dma_tile(&s, 0, 1, tc.bo.va + 1024, 64, DRM_TERN_DTYPE_FLOAT32, t);
	uapi_emit_dma_tile(&s, DRM_TERN_DMA_TILE_TO_MEMORY, 1, tc.bo.va + 2048, 64,
			   DRM_TERN_DTYPE_FLOAT32, t);
	ring_job(&tc.r, &s, tc.bo.va + 16, 0x50000);
	__atomic_store_n(&tc.words[0], 1, __ATOMIC_SEQ_CST);
	assert_ioctl_ok(ring_wait(tc.r.id, 2, now_ns() + 10000000000ll));
	assert_int_equal(tc.words[1], 0x40000);
	assert_int_equal(tc.words[2], 0x50000);
	for (int i = 0; i < 256; i++)
		assert_int_equal(tc.bo.cpu[2048 + i], 0x3c);
}

/*
 * A ring of a core's tensor engine runs a MATMUL; a FILL, which only DMA
 * engines run, stops it as a malformed record does.
 */
static void test_ring_on_a_tensor_engine(void **state)
{
	struct drm_tern_packet_matmul m = {
		.header = { DRM_TERN_OP_MATMUL, sizeof(m) / 8, 0 },
		.stationary = uapi_tile(DRM_TERN_SPACE_SBUF, DRM_TERN_DTYPE_FLOAT32,
					0, 8, 0, 4),
		.moving = uapi_tile(DRM_TERN_SPACE_SBUF, DRM_TERN_DTYPE_BFLOAT16,
				    0, 8, 256, 16),
		.result = uapi_tile(DRM_TERN_SPACE_PSUM, DRM_TERN_DTYPE_FLOAT32,
				    0, 4, 0, 16),
	};
	struct uapi_stream s = { .size = 0 };
	struct ring r;

	(void)state;
	uapi_need_cores();
	ring_make_on(&r, RING_SIZE, uapi_core_engine(1, DRM_TERN_ENGINE_TENSOR));
	uapi_emit_packet(&s, &m, sizeof(m));
	ring_job(&r, &s, tc.bo.va, 0x60000);
	ring_run(&r, 1);
	assert_int_equal(tc.words[0], 0x60000);
	s.size = 0;
	uapi_emit_fill(&s, tc.bo.va + 8, 8, 1);
	ring_job(&r, &s, tc.bo.va + 16, 0x70000);
	if (ring_kick(r.id, 0) == 0)
		assert_errno(ring_wait(r.id, 2, now_ns() + 10000000000ll), EIO);
	assert_int_equal(r.ctl->error, -EINVAL);
	assert_int_equal(tc.words[1], 0);
	assert_int_equal(tc.words[2], 0);
	uapi_bo_close(uapi.fd, &r.bo);
}

/* RING_DESTROY returns at once; a job already taken still ends. */
static void test_ring_destroy_lets_the_job_end(void **state)
{
	struct uapi_stream s = { .size = 0 };

	(void)state;
	uapi_emit_sem(&s, DRM_TERN_OP_SEM_WAIT, 0, tc.bo.va, 1);
	ring_job(&tc.r, &s, tc.bo.va + 8, 0x50000);
	assert_ioctl_ok(ring_kick(tc.r.id, 0));
	assert_ioctl_ok(ring_destroy(tc.r.id, 0));
	__atomic_store_n(&tc.words[0], 1, __ATOMIC_SEQ_CST);
	assert_int_equal(word_await(&tc.words[1], 0x50000), 0x50000);
}

/*
 * RING_DESTROY while the ring's work runs a long job, again and again,
 * with every CPU busy: the destroy, put off while it waits for the ring's
 * lock, holds it just as the work comes back for its next turn, and the
 * job must still end, its fence word written.
 */
static void test_ring_destroy_while_running(void **state)
{
	const uint64_t bytes = 1 << 20;
	pid_t busy[2];
	struct uapi_bo big;

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, bytes, &big);
	for (int b = 0; b < 2; b++) {
		busy[b] = fork();
		assert_true(busy[b] >= 0);
		if (!busy[b])
			for (;;)
				;
	}
	for (uint64_t i = 1; i <= 100; i++) {
		struct uapi_stream s = { .size = 0 };
		struct ring r;

		ring_make(&r, RING_SIZE);
		for (int f = 0; f < 8; f++)
			uapi_emit_fill(&s, big.va, bytes, (uint32_t)i);
		ring_job(&r, &s, tc.bo.va, i << 16);
		assert_ioctl_ok(ring_kick(r.id, 0));
		assert_ioctl_ok(ring_destroy(r.id, 0));
		if (word_await(&tc.words[0], i << 16) != i << 16) {
			for (int b = 0; b < 2; b++)
				kill(busy[b], SIGKILL);
			fail_msg("ring %u: its job never ended", r.id);
		}
		uapi_bo_close(uapi.fd, &r.bo);
	}
	for (int b = 0; b < 2; b++) {
		kill(busy[b], SIGKILL);
		waitpid(busy[b], NULL, 0);
	}
	uapi_bo_close(uapi.fd, &big);
}

/* Threads in RING_WAIT while a ring's job ends, and what each got. */
#define WAITERS	4
#define WAIT_ROUNDS	300

static struct {
	pthread_barrier_t start, end;
	uint32_t ring;
	bool poll;	/* RING_WAIT that returns at once, again and again */
	int got[WAITERS];
	bool stop;
} waiters;

static void *waiter(void *arg)
{
	int *got = arg;

	for (;;) {
		uint64_t until;

		pthread_barrier_wait(&waiters.start);
		if (waiters.stop)
			return NULL;
		until = now_ns() + 10000000000ll;
		do
			*got = ring_wait(waiters.ring, 1, waiters.poll ?
					 now_ns() : until);
		while (*got == ETIME && now_ns() < until);
		pthread_barrier_wait(&waiters.end);
	}
}

/*
 * RING_WAIT for a job that ends and stops its ring by ending (its fence
 * word is outside the file's buffers): the job ended, so every wait for
 * it succeeds. Every other round the ring is destroyed first, with the
 * waiters asleep in RING_WAIT; in the others they look again and again.
 * The driver that cleared "has a job" before it counted the job done
 * answered EIO to a waiter that looked in between.
 */
static void test_ring_wait_destroy_race(void **state)
{
	pthread_t threads[WAITERS];
	struct uapi_bo bo;
	int wrong = 0, first = 0;

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, 4096, &bo);
	pthread_barrier_init(&waiters.start, NULL, WAITERS + 1);
	pthread_barrier_init(&waiters.end, NULL, WAITERS + 1);
	waiters.stop = false;
	for (int t = 0; t < WAITERS; t++)
		assert_int_equal(pthread_create(&threads[t], NULL, waiter,
						&waiters.got[t]), 0);
	for (int round = 0; round < WAIT_ROUNDS; round++) {
		struct uapi_stream s = { .size = 0 };
		uint64_t *gate = (uint64_t *)bo.cpu;
		struct ring r;

		__atomic_store_n(gate, 0, __ATOMIC_SEQ_CST);
		ring_make(&r, RING_SIZE);
		uapi_emit_sem(&s, DRM_TERN_OP_SEM_WAIT, 0, bo.va, 1);
		ring_job(&r, &s, uapi_unmapped_va() & ~7ull, 0x10000);
		assert_ioctl_ok(ring_kick(r.id, 0));
		waiters.ring = r.id;
		waiters.poll = round % 2;
		pthread_barrier_wait(&waiters.start);
		usleep(2000);	/* most are in RING_WAIT by now */
		if (!waiters.poll)
			assert_ioctl_ok(ring_destroy(r.id, 0));
		__atomic_store_n(gate, 1, __ATOMIC_SEQ_CST);
		pthread_barrier_wait(&waiters.end);
		if (waiters.poll)
			assert_ioctl_ok(ring_destroy(r.id, 0));
		for (int t = 0; t < WAITERS; t++) {
			/* ENOENT: it came after the destroy; not the point */
			if (waiters.got[t] && waiters.got[t] != ENOENT) {
				if (!wrong++)
					first = waiters.got[t];
			}
		}
		uapi_bo_close(uapi.fd, &r.bo);
	}
	waiters.stop = true;
	pthread_barrier_wait(&waiters.start);
	for (int t = 0; t < WAITERS; t++)
		pthread_join(threads[t], NULL);
	pthread_barrier_destroy(&waiters.start);
	pthread_barrier_destroy(&waiters.end);
	uapi_bo_close(uapi.fd, &bo);
	if (wrong)
		fail_msg("%d of %d waits for an ended job failed, the first "
			 "with %s", wrong, WAITERS * WAIT_ROUNDS,
			 strerror(first));
}

/* A job past the job timeout fails with -ETIMEDOUT; the next runs. */
static void test_ring_job_timeout(void **state)
{
	struct uapi_stream stall = { .size = 0 }, good = { .size = 0 };

	(void)state;
	uapi_emit_sem(&stall, DRM_TERN_OP_SEM_WAIT, 0, tc.bo.va, UINT64_MAX);
	uapi_emit_fill(&good, tc.bo.va + 24, 8, 7);
	ring_job(&tc.r, &stall, tc.bo.va + 8, 0x60000);
	ring_job(&tc.r, &good, tc.bo.va + 16, 0x70000);
	ring_run(&tc.r, 2);
	assert_int_equal(tc.words[1], 0x60000 | (ETIMEDOUT & 0xffff));
	assert_int_equal(tc.words[2], 0x70000);
	assert_int_equal(tc.r.ctl->error, 0);
}

/*
 * A file closed with a job stalled in its ring: the close does not wait
 * for the job timeout, and another file sees the device as before.
 */
static void test_ring_close_with_stalled_job(void **state)
{
	struct uapi_stream s = { .size = 0 };
	struct uapi_bo bo;
	struct ring r;
	int64_t start;

	(void)state;
	ring_make(&r, RING_SIZE);
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, 4096, &bo);
	uapi_emit_sem(&s, DRM_TERN_OP_SEM_WAIT, 0, bo.va, UINT64_MAX);
	ring_job(&r, &s, bo.va + 8, 0x80000);
	assert_ioctl_ok(ring_kick(r.id, 0));
	munmap(bo.cpu, bo.size);
	munmap(r.bo.cpu, r.bo.size);
	start = now_ns();
	close(uapi.fd);
	uapi.fd = uapi_open();
	/* well within a job timeout (2 s in the suites) */
	assert_true(now_ns() - start < 1000000000ll);
	ring_make(&r, RING_SIZE);
	uapi_bo_close(uapi.fd, &r.bo);
}

/* ---- records the engine refuses ---- */

enum bad_record {
	BAD_FLAGS, BAD_SIZE_ZERO, BAD_SIZE_ODD, BAD_SIZE_BIG, BAD_FENCE_VA,
	BAD_FENCE_VALUE, BAD_PAST_TAIL, BAD_TAIL_AHEAD, BAD_TAIL_ODD,
	BAD_PACKET, BAD_PAD, BAD_COUNT,
};

static const char *const bad_names[BAD_COUNT] = {
	"unknown flag", "size 0", "size not a multiple of 8",
	"size above max_submit_bytes", "fence_va misaligned",
	"fence_value with error bits", "record past the tail",
	"tail past the ring", "tail not a multiple of 8", "malformed packet",
	"PAD short of the end",
};

/* Writes the refused record after one good job, then kicks. */
static void write_bad(struct ring *r, enum bad_record bad, uint64_t fence_va)
{
	struct drm_tern_ring_record rec = { .fence_va = fence_va,
					    .fence_value = 0x90000 };
	struct uapi_stream s = { .size = 0 };
	uint32_t size;

	uapi_emit_nop(&s, 1);
	size = s.size;
	switch (bad) {
	case BAD_FLAGS:
		rec.flags = 2;
		break;
	case BAD_SIZE_ZERO:
		size = 0;
		break;
	case BAD_SIZE_ODD:
		/* the tail itself stays a multiple of 8 */
		rec.size = 12;
		ring_put(r, &rec, s.words, 16, true);
		return;
	case BAD_SIZE_BIG:
		rec.size = uapi.info.max_submit_bytes + 8;
		ring_put(r, &rec, s.words, 0, false);
		r->tail = r->tail + 4096;
		__atomic_store_n(&r->ctl->tail, r->tail, __ATOMIC_SEQ_CST);
		return;
	case BAD_FENCE_VA:
		rec.fence_va = fence_va + 4;
		break;
	case BAD_FENCE_VALUE:
		rec.fence_value |= 1;
		break;
	case BAD_PAST_TAIL:
		rec.size = size;
		ring_put(r, &rec, s.words, size, false);
		__atomic_store_n(&r->ctl->tail, r->tail - 8, __ATOMIC_SEQ_CST);
		return;
	case BAD_TAIL_AHEAD:
		__atomic_store_n(&r->ctl->tail, r->tail + r->size + 8,
				 __ATOMIC_SEQ_CST);
		return;
	case BAD_TAIL_ODD:
		rec.size = size;
		ring_put(r, &rec, s.words, size, false);
		__atomic_store_n(&r->ctl->tail, r->tail + 4, __ATOMIC_SEQ_CST);
		return;
	case BAD_PACKET:
		uapi_packet(&s, 0)->opcode = 0x7f;
		break;
	case BAD_PAD:
		rec.flags = DRM_TERN_RING_RECORD_PAD;
		size = 8;
		break;
	case BAD_COUNT:
		return;
	}
	rec.size = size;
	ring_put(r, &rec, s.words, size, true);
}

/*
 * Each refused record stops the ring with -EINVAL: the good job before it
 * ran, it did not, KICK says -EIO, and RING_WAIT for it says -EIO. A tail
 * that makes no sense stops the ring before it takes anything: no record
 * under it can be trusted.
 */
static void test_ring_refuses_bad_records(void **state)
{
	struct uapi_stream good = { .size = 0 };
	struct uapi_bo bo;

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, 4096, &bo);
	uapi_emit_fill(&good, bo.va + 8, 8, 3);
	for (int bad = 0; bad < BAD_COUNT; bad++) {
		uint64_t *words = (uint64_t *)bo.cpu;
		struct ring r;
		bool tail;

		memset(bo.cpu, 0, 64);
		ring_make(&r, RING_SIZE);
		ring_job(&r, &good, bo.va + 16, 0xa0000);
		write_bad(&r, (enum bad_record)bad, bo.va + 24);
		/* The kick may stop it at once, or its work soon after. */
		if (ring_kick(r.id, 0) == 0)
			assert_errno(ring_wait(r.id, 2, now_ns() +
					       10000000000ll), EIO);
		if (ring_kick(r.id, 0) != EIO)
			fail_msg("%s: KICK did not fail with EIO",
				 bad_names[bad]);
		tail = bad == BAD_TAIL_AHEAD || bad == BAD_TAIL_ODD;
		if (r.ctl->error != -EINVAL || r.ctl->done != (tail ? 0 : 1))
			fail_msg("%s: error %d, done %llu", bad_names[bad],
				 r.ctl->error,
				 (unsigned long long)r.ctl->done);
		assert_int_equal(words[2], tail ? 0 : 0xa0000);
		assert_int_equal(words[3], 0);	/* the refused one: no fence */
		assert_errno(ring_wait(r.id, 2, now_ns() + 10000000000ll),
			     EIO);
		uapi_bo_close(uapi.fd, &r.bo);
	}
	uapi_bo_close(uapi.fd, &bo);
}

/* A fence word outside the file's buffers: the job runs, the ring stops. */
static void test_ring_fence_outside_buffers(void **state)
{
	struct uapi_stream s = { .size = 0 };

	(void)state;
	uapi_emit_fill(&s, tc.bo.va, 8, 9);
	ring_job(&tc.r, &s, uapi_unmapped_va() & ~7ull, 0xb0000);
	if (ring_kick(tc.r.id, 0) == 0)	/* its end, then the stop */
		assert_ioctl_ok(ring_wait(tc.r.id, 1, now_ns() +
					  10000000000ll));
	assert_errno(ring_kick(tc.r.id, 0), EIO);
	assert_int_equal(tc.r.ctl->error, -EFAULT);
	assert_int_equal(*(uint64_t *)tc.bo.cpu, 0x0000000900000009ull);
}

#define T(f) cmocka_unit_test_setup_teardown(f, uapi_setup, uapi_teardown)
#define TC(f) cmocka_unit_test_setup_teardown(f, ring_case_setup, \
					      ring_case_teardown)

int uapi_ring_tests(void)
{
	const struct CMUnitTest tests[] = {
		T(test_ring_create_flags),
		T(test_ring_create_pad),
		T(test_ring_create_engine),
		T(test_ring_create_size),
		T(test_ring_create_buffer_too_small),
		T(test_ring_create_unknown_handle),
		T(test_ring_create_too_many),
		T(test_ring_create_buffer_taken),
		T(test_ring_create_rings_per_file),
		T(test_ring_memory_budget),
		T(test_ring_create_starts_empty),
		T(test_ring_destroy_args),
		T(test_ring_kick_args),
		T(test_ring_wait_args),
		TC(test_ring_runs_a_job),
		TC(test_ring_runs_in_order_round_the_ring),
		TC(test_ring_failing_job),
		TC(test_ring_stalled_job_ends_later),
		TC(test_ring_job_needs_onchip_memory),
		TC(test_ring_on_a_tensor_engine),
		TC(test_ring_destroy_lets_the_job_end),
		TC(test_ring_destroy_while_running),
		TC(test_ring_job_timeout),
		T(test_ring_wait_destroy_race),
		T(test_ring_close_with_stalled_job),
		T(test_ring_refuses_bad_records),
		TC(test_ring_fence_outside_buffers),
	};

	return cmocka_run_group_tests_name("uapi_rings", tests, NULL, NULL);
}
