// SPDX-License-Identifier: MIT
/*
 * User rings: RING_CREATE on a buffer of the file, mostly valid (64 KiB
 * to 1 MiB of records, an engine in range), else with stray flags or pad,
 * a bad size, a buffer too small, unknown, another file's or imported, or
 * an engine out of range; records written into a ring's buffer, then
 * RING_KICK: valid records carrying the streams SUBMIT gets (a stall now
 * and then), or damaged ones (flags, sizes, fence words, PADs, tails,
 * random bytes); RING_WAIT with deadlines at most 50 ms away; and
 * RING_DESTROY, also of short-lived rings whose jobs may still run, and
 * racing a RING_WAIT on another thread; and rings en masse on one buffer
 * shared by many files.
 *
 * Nothing here waits on a ring for longer than RING_WAIT's deadline: a
 * KICK runs jobs on its caller's thread for a bounded time only, and the
 * rest run on the engine. What a worker's rings hold is bounded by the
 * pool: FUZZ_POOL_RINGS rings, of a MiB of records at most when made here.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

#define RECORD_BYTES		((uint32_t)sizeof(struct drm_tern_ring_record))
#define PAGE_BYTES		4096u
/* Host bytes this worker's buffers may hold; past them rings use the device. */
#define RING_HOST_BUDGET_BYTES	(32ull << 20)
/* The furthest a RING_WAIT's deadline is: the call sleeps until then. */
#define RING_WAIT_MAX_NS	(50 * 1000000ll)
/* Records written before one kick, at most. */
#define RING_BATCH_MAX		16
/* Random bytes written in a record's place, at most. */
#define RING_JUNK_BYTES		512u

/* How RING_CREATE's arguments are drawn. */
enum ring_create_kind {
	CREATE_VALID,
	CREATE_FLAGS,		/* stray flags or pad */
	CREATE_SIZE,		/* not a power of two from 64 KiB to 16 MiB */
	CREATE_SMALL,		/* a buffer without room for ctl and records */
	CREATE_HANDLE,		/* none, unknown, another file's, an import */
	CREATE_ENGINE,		/* not below engine_count */
	CREATE_KINDS
};

/*
 * What is wrong with the records written before a kick, if anything: the
 * record kinds first, then the tail's.
 */
enum ring_damage {
	DAMAGE_NONE,
	DAMAGE_FLAGS,		/* stray flags on a job record, PAD too */
	DAMAGE_SIZE,		/* 0, unaligned, too large, not its packets' */
	DAMAGE_FENCE_ALIGN,	/* fence_va not 8-aligned */
	DAMAGE_FENCE_OUTSIDE,	/* fence_va in no buffer */
	DAMAGE_FENCE_VALUE,	/* fence_value with bits of the error mask */
	DAMAGE_STREAM,		/* a mutated packet stream */
	DAMAGE_PAD,		/* a PAD of the wrong size, or stray flags */
	DAMAGE_NO_PAD,		/* the end skipped, no PAD though one fits */
	DAMAGE_BYTES,		/* random bytes before the record */
	DAMAGE_TAIL,		/* a tail unaligned, far ahead or behind */
	DAMAGE_SHORT_TAIL,	/* a tail short of the last record's end */
	DAMAGE_KINDS
};

static const struct drm_tern_info *info_of(struct fuzz_thread *t,
					   const struct pool_file *file)
{
	return &t->worker->devices->dev[file->device].info;
}

/* ---- the ring's buffer, touched only with the pool locked ---- */

/*
 * A look at a ring's buffer (ring_access()): what to write, and what was
 * read back.
 */
struct ring_access {
	void (*fn)(struct ring_access *a);
	struct rng *rng;
	struct pool_ring *ring;		/* the pool's own, while locked */
	struct drm_tern_ring_ctl *ctl;
	int fault;
	/* for ring_append() */
	const struct drm_tern_ring_record *rec;
	const void *packets;
	uint32_t bytes;
	enum ring_damage damage;
	bool pad_early;			/* a PAD, though the record fits */
	bool wrote;
	/* read back */
	uint64_t done, jobs;
	int32_t error;
	uint32_t kick;
};

static void ring_access_guarded(void *ctx)
{
	struct ring_access *a = ctx;

	a->fn(a);
}

static void ring_access_locked(void *item, void *ctx)
{
	struct ring_access *a = ctx;

	a->ring = item;
	a->ctl = (struct drm_tern_ring_ctl *)a->ring->addr;
	a->fault = fault_guard(ring_access_guarded, a);
}

/*
 * Runs @fn on @ring's buffer with the pool locked, if the ring is still
 * remembered: false if it is not, or if touching the buffer faulted
 * (counted as touch/mapping's EFAULT: the kernel's bug, as there).
 */
static bool ring_access(struct fuzz_thread *t, const struct pool_ring *ring,
			void (*fn)(struct ring_access *a),
			struct ring_access *a)
{
	a->fn = fn;
	a->rng = &t->rng;
	a->fault = 0;
	if (!pool_with(&t->worker->pool, POOL_RING, ring, POOL_RING_KEY_BYTES,
		       ring_access_locked, a))
		return false;
	if (a->fault)
		fuzz_done(t, CALL_TOUCH, a->fault);
	return !a->fault;
}

static void ring_peek(struct ring_access *a)
{
	a->done = __atomic_load_n(&a->ctl->done, __ATOMIC_ACQUIRE);
	a->error = __atomic_load_n(&a->ctl->error, __ATOMIC_RELAXED);
	a->kick = __atomic_load_n(&a->ctl->kick, __ATOMIC_RELAXED);
	a->jobs = a->ring->jobs;
}

/* Copies @bytes to offset @at of the records; never past their end. */
static void ring_put(struct ring_access *a, uint32_t at, const void *src,
		     uint32_t bytes)
{
	const struct pool_ring *r = a->ring;

	if (at <= r->size && bytes <= r->size - at)
		memcpy(r->addr + DRM_TERN_RING_DATA_OFFSET + at, src, bytes);
}

static void ring_put_pad(struct ring_access *a, uint32_t at, uint32_t size,
			 uint32_t flags)
{
	struct drm_tern_ring_record pad = { .size = size, .flags = flags };

	ring_put(a, at, &pad, RECORD_BYTES);
}

/* A damaged PAD where @right would be the size: wrong size or flags. */
static void ring_put_bad_pad(struct ring_access *a, uint32_t at, uint32_t right)
{
	static const int32_t deltas[] = { -16, -8, 8, 16, 4 };
	uint32_t size;

	switch (rng_below(a->rng, 5)) {
	case 0:
		size = 0;
		break;
	case 1:
		size = (uint32_t)rng_next(a->rng);
		break;
	case 2:
		ring_put_pad(a, at, right, DRM_TERN_RING_RECORD_PAD |
			     1u << (1 + rng_below(a->rng, 31)));
		return;
	default:
		size = right + (uint32_t)deltas[rng_below(a->rng, 5)];
		break;
	}
	ring_put_pad(a, at, size == right ? right + 8 : size,
		     DRM_TERN_RING_RECORD_PAD);
}

/*
 * Appends the record and its packets at the tail: after a PAD to the end
 * (or none, with less than a header left) if they would pass it, and only
 * into room the kernel has taken records from. ctl->head lags the
 * kernel's own head (it is written as a record is taken, not as a PAD is
 * skipped), so the room is never overestimated.
 */
static void ring_append(struct ring_access *a)
{
	struct pool_ring *r = a->ring;
	uint64_t head = __atomic_load_n(&a->ctl->head, __ATOMIC_ACQUIRE), room;
	uint32_t need = RECORD_BYTES + a->bytes, at, left;

	a->wrote = false;
	/*
	 * More than a ring behind the head: the kernel took what a bad tail
	 * covered (records of an earlier lap), or a touch or a packet's
	 * store wrote ctl->head. Records go on from that head.
	 */
	if (r->tail - head > r->size) {
		if (head % 8)
			return;
		r->tail = head;
	}
	room = r->size - (r->tail - head);
	if (need > r->size)
		return;
	at = (uint32_t)(r->tail & (r->size - 1));
	left = r->size - at;

	switch (a->damage) {
	case DAMAGE_BYTES: {
		uint8_t junk[RING_JUNK_BYTES];
		uint32_t most = left < RING_JUNK_BYTES ? left : RING_JUNK_BYTES;
		uint32_t bytes = 8 + 8 * (uint32_t)rng_below(a->rng, most / 8);

		if (bytes > room)
			return;
		rng_fill(a->rng, junk, bytes);
		ring_put(a, at, junk, bytes);
		r->tail += bytes;
		room -= bytes;
		break;
	}
	case DAMAGE_PAD:
		if (left < RECORD_BYTES || left > room)
			return;
		ring_put_bad_pad(a, at, left - RECORD_BYTES);
		r->tail += left;
		room -= left;
		break;
	case DAMAGE_NO_PAD:
		/* the kernel reads whatever an earlier lap left there */
		if (left < RECORD_BYTES || left > room)
			return;
		r->tail += left;
		room -= left;
		break;
	default:
		/* a PAD that ends at the ring's end is fine anywhere */
		if (a->pad_early && left >= RECORD_BYTES && left <= room) {
			ring_put_pad(a, at, left - RECORD_BYTES,
				     DRM_TERN_RING_RECORD_PAD);
			r->tail += left;
			room -= left;
		}
		break;
	}
	at = (uint32_t)(r->tail & (r->size - 1));
	left = r->size - at;
	/* records never wrap */
	if (left < RECORD_BYTES || need > left) {
		if ((uint64_t)left + need > room)
			return;
		if (left >= RECORD_BYTES)
			ring_put_pad(a, at, left - RECORD_BYTES,
				     DRM_TERN_RING_RECORD_PAD);
		r->tail += left;
		room -= left;
		at = 0;
	}
	if (need > room)
		return;
	ring_put(a, at, a->rec, RECORD_BYTES);
	ring_put(a, at + RECORD_BYTES, a->packets, a->bytes);
	r->tail += need;
	r->jobs += a->damage == DAMAGE_NONE;
	a->wrote = true;
}

/* A tail the kernel must refuse, mostly; or one that replays a lap. */
static uint64_t ring_bad_tail(struct ring_access *a, uint64_t tail)
{
	uint64_t head = __atomic_load_n(&a->ctl->head, __ATOMIC_RELAXED);
	uint64_t size = a->ring->size;

	switch (rng_below(a->rng, 8)) {
	case 0:
		return tail + 1 + rng_below(a->rng, 7);		/* unaligned */
	case 1:
		return tail + size + 8 * (1 + rng_below(a->rng, 4));
	case 2:
		return tail + size * (2 + rng_below(a->rng, 1000));
	case 3:
		return head - 8 * (1 + rng_below(a->rng, 4));	/* behind */
	case 4:
		return tail - size - 8;
	case 5:
		/* a whole ring ahead of the head: the last lap runs again */
		return head + size;
	case 6:
		return value_boundary(a->rng);
	default:
		return rng_next(a->rng);
	}
}

/*
 * Stores the tail (a damaged one, if so drawn), then reads whether the
 * kernel asks for a kick: the kernel sets ctl->kick, then reads the tail,
 * so the tail is stored before ctl->kick is read, both in order.
 */
static void ring_publish(struct ring_access *a)
{
	uint64_t tail = a->ring->tail;

	if (a->damage == DAMAGE_TAIL)
		tail = ring_bad_tail(a, tail);
	else if (a->damage == DAMAGE_SHORT_TAIL)
		tail -= 8 * (1 + rng_below(a->rng, 3));
	__atomic_store_n(&a->ctl->tail, tail, __ATOMIC_SEQ_CST);
	a->kick = __atomic_load_n(&a->ctl->kick, __ATOMIC_SEQ_CST);
	a->error = __atomic_load_n(&a->ctl->error, __ATOMIC_RELAXED);
}

static void ring_clear_tail(void *ctx)
{
	struct drm_tern_ring_ctl *ctl = ctx;

	__atomic_store_n(&ctl->tail, 0, __ATOMIC_RELAXED);
}

/* ---- the calls ---- */

static int ring_destroy_call(struct fuzz_thread *t, int fd, uint32_t id,
			     uint32_t flags)
{
	struct drm_tern_ring_destroy args = { .ring_id = id, .flags = flags };
	int err = fuzz_ioctl(fd, DRM_IOCTL_TERN_RING_DESTROY, &args);

	fuzz_done(t, CALL_TERN_RING_DESTROY, err);
	return err;
}

static void ring_kick_call(struct fuzz_thread *t, int fd, uint32_t id)
{
	struct drm_tern_ring_kick args = {
		.ring_id = value_u32(&t->rng, id),
		.flags = value_flags(&t->rng, 0),
	};

	fuzz_done(t, CALL_TERN_RING_KICK,
		  fuzz_ioctl(fd, DRM_IOCTL_TERN_RING_KICK, &args));
}

/* Destroys a ring no thread can reach any more, and unmaps its buffer. */
static void ring_drop(struct fuzz_thread *t, int fd,
		      const struct pool_ring *ring)
{
	if (!t->worker->opt->skip[CALL_TERN_RING_DESTROY])
		ring_destroy_call(t, fd, ring->id, 0);
	if (ring->addr)
		munmap(ring->addr, ring->len);
}

/* A ring the pool let go of: destroyed if its file is open, unmapped. */
static void ring_release(struct fuzz_thread *t, const struct pool_ring *ring)
{
	struct pool_file owner;

	if (pool_pick(&t->worker->pool, POOL_FILE, &t->rng, ring->file, &owner))
		ring_drop(t, owner.fd, ring);
	else
		munmap(ring->addr, ring->len);
}

/*
 * Destroys a ring taken out of the pool, with stray flags now and then,
 * and again without them if they were refused: a ring left alive would
 * hold its buffer until its file closes. Then unmaps the buffer.
 */
static void ring_destroy_taken(struct fuzz_thread *t, int fd,
			       const struct pool_ring *ring)
{
	uint32_t flags = value_flags(&t->rng, 0);

	if (ring_destroy_call(t, fd, ring->id, flags) == EINVAL && flags)
		ring_destroy_call(t, fd, ring->id, 0);
	munmap(ring->addr, ring->len);
}

/* Bytes of records: 64 KiB mostly, up to 1 MiB: a ring holds its buffer. */
static uint32_t ring_size(struct fuzz_thread *t)
{
	uint64_t roll = rng_below(&t->rng, 100);
	unsigned int shift = roll < 45 ? 0 : roll < 70 ? 1 : roll < 85 ? 2 :
			     roll < 93 ? 3 : 4;

	return DRM_TERN_RING_MIN_SIZE << shift;
}

/* A size RING_CREATE must refuse (a boundary value may be a right one). */
static uint32_t ring_bad_size(struct fuzz_thread *t)
{
	static const uint32_t sizes[] = {
		0, 8, 4096, DRM_TERN_RING_MIN_SIZE / 2, DRM_TERN_RING_MIN_SIZE - 8,
		DRM_TERN_RING_MIN_SIZE + 8, DRM_TERN_RING_MIN_SIZE + 4096,
		3 * DRM_TERN_RING_MIN_SIZE, 2 * DRM_TERN_RING_MAX_SIZE, 1u << 31,
		0xffffffffu,
	};
	const size_t n = sizeof(sizes) / sizeof(sizes[0]);

	if (rng_chance(&t->rng, 80))
		return sizes[rng_below(&t->rng, n)];
	return (uint32_t)value_boundary(&t->rng);
}

static uint32_t ring_bad_engine(struct fuzz_thread *t,
				const struct drm_tern_info *info)
{
	switch (rng_below(&t->rng, 4)) {
	case 0:
		return info->engine_count;
	case 1:
		return info->engine_count + 1 +
		       (uint32_t)rng_below(&t->rng, 16);
	case 2:
		return ~0u;
	default:
		return (uint32_t)value_boundary(&t->rng);
	}
}

/* A handle RING_CREATE must refuse: none, unknown, another's, an import. */
static uint32_t ring_bad_handle(struct fuzz_thread *t,
				const struct pool_file *file)
{
	struct pool_bo bos[32];
	unsigned int n;

	switch (rng_below(&t->rng, 4)) {
	case 0:
		return 0;
	case 1:
		/* another file's: unknown here, or another buffer here */
		if (pool_pick(&t->worker->pool, POOL_BO, &t->rng, 0, bos) &&
		    bos[0].file != file->file)
			return bos[0].handle;
		return (uint32_t)value_boundary(&t->rng);
	case 2:
		/* another device's buffer: no kernel mapping to hold a ring */
		n = pool_collect(&t->worker->pool, POOL_BO, file->file, bos,
				 32);
		for (unsigned int i = 0; i < n; i++) {
			if (bos[i].import)
				return bos[i].handle;
		}
		return (uint32_t)rng_next(&t->rng);
	default:
		return (uint32_t)rng_next(&t->rng);
	}
}

/* What mmap maps of a buffer of @bytes, and what a ring may use of it. */
static size_t page_round(uint64_t bytes)
{
	return (size_t)((bytes + PAGE_BYTES - 1) & ~(uint64_t)(PAGE_BYTES - 1));
}

/*
 * BO_CREATE of @bytes for a ring, in device memory or, within this
 * worker's budget, host memory; remembered like any buffer.
 */
static bool ring_bo_make(struct fuzz_thread *t, const struct pool_file *file,
			 uint64_t bytes, struct pool_bo *out)
{
	bool host = rng_chance(&t->rng, 40) &&
		    pool_host_bytes(&t->worker->pool) < RING_HOST_BUDGET_BYTES;
	enum fuzz_call call = host ? CALL_TERN_BO_CREATE_HOST :
				     CALL_TERN_BO_CREATE_DEVICE;
	struct drm_tern_bo_create args;
	struct pool_bo evicted;
	int err;

	if (t->worker->opt->skip[call])
		return false;
	memset(&args, 0, sizeof(args));
	args.size = bytes;
	args.placement = host ? DRM_TERN_PLACEMENT_HOST : DRM_TERN_PLACEMENT_DEVICE;
	err = fuzz_ioctl(file->fd, DRM_IOCTL_TERN_BO_CREATE, &args);
	fuzz_done(t, call, err);
	if (err)
		return false;
	*out = (struct pool_bo){
		.file = file->file, .handle = args.handle, .size = args.size,
		.va = args.device_va, .mmap_offset = args.mmap_offset,
		.placement = args.placement,
	};
	if (pool_add(&t->worker->pool, POOL_BO, out, &evicted, &t->rng))
		release_bo(t, &evicted);
	return true;
}

/* Whether @bo holds one of the rings remembered. */
static bool ring_bo_busy(const struct pool_bo *bo,
			 const struct pool_ring *rings, unsigned int count)
{
	for (unsigned int i = 0; i < count; i++) {
		if (rings[i].handle == bo->handle)
			return true;
	}
	return false;
}

/*
 * A buffer of @file for a ring: one of its own of @lo bytes and more,
 * below @hi, or one of @bytes made now if @make. Imports are left out:
 * they have no kernel mapping to hold a ring. So are, mostly, buffers of
 * other rings: two rings on one buffer write over each other's records
 * and soon both stop, which is worth a try now and then only.
 */
static bool ring_bo(struct fuzz_thread *t, const struct pool_file *file,
		    uint64_t lo, uint64_t hi, uint64_t bytes, bool make,
		    struct pool_bo *out)
{
	struct pool_ring rings[FUZZ_POOL_RINGS];
	bool share = rng_chance(&t->rng, 5);
	struct pool_bo bos[32];
	unsigned int n, fit = 0, busy;

	busy = pool_collect(&t->worker->pool, POOL_RING, file->file, rings,
			    FUZZ_POOL_RINGS);
	n = pool_collect(&t->worker->pool, POOL_BO, file->file, bos, 32);
	for (unsigned int i = 0; i < n; i++) {
		if (!bos[i].import && bos[i].size >= lo && bos[i].size < hi &&
		    (share || !ring_bo_busy(&bos[i], rings, busy)))
			bos[fit++] = bos[i];
	}
	if (fit && (!make || rng_chance(&t->rng, 50))) {
		*out = bos[rng_below(&t->rng, fit)];
		return true;
	}
	if (make && ring_bo_make(t, file, bytes, out))
		return true;
	if (!fit)
		return false;
	*out = bos[rng_below(&t->rng, fit)];
	return true;
}

/* Bytes of a buffer too small for a ring of @size, or just large enough. */
static uint64_t ring_small_bytes(struct fuzz_thread *t, uint32_t size)
{
	switch (rng_below(&t->rng, 4)) {
	case 0:
		return size;			/* no page for ctl */
	case 1:
		return DRM_TERN_RING_DATA_OFFSET + size / 2;
	case 2:
		/* 8 bytes short, which the page rounding makes up for */
		return DRM_TERN_RING_DATA_OFFSET + size - 8;
	default:
		return 1 + rng_below(&t->rng, size);
	}
}

/*
 * RING_CREATE on @file, its arguments drawn as @kind says. A ring made on
 * the buffer mapped for it is remembered (and copied to @out): true.
 */
static bool ring_create(struct fuzz_thread *t, const struct pool_file *file,
			enum ring_create_kind kind, struct pool_ring *out)
{
	const struct drm_tern_info *info = info_of(t, file);
	/* no buffer worth a MiB for a device without rings */
	bool make = info->capabilities & DRM_TERN_CAP_USER_RING, have = false;
	uint32_t size = ring_size(t);
	uint64_t need = DRM_TERN_RING_DATA_OFFSET + (uint64_t)size, extra;
	struct drm_tern_ring_create args;
	struct pool_ring ring, evicted;
	struct pool_bo bo;
	uint8_t *addr = NULL;
	size_t len = 0;
	int err;

	/*
	 * With RING_DESTROY skipped, nothing would destroy a ring pushed out
	 * of a full pool, and each holds its buffer until its file closes.
	 */
	if (t->worker->opt->skip[CALL_TERN_RING_DESTROY] &&
	    pool_count(&t->worker->pool, POOL_RING) >= FUZZ_POOL_RINGS)
		return false;
	memset(&args, 0, sizeof(args));
	args.engine = (uint32_t)rng_below(&t->rng, info->engine_count);
	args.size = size;
	/* refused before the buffer is looked at: one of the file's, if any */
	switch (kind) {
	case CREATE_FLAGS:
		if (rng_chance(&t->rng, 60))
			args.flags = 1u << rng_below(&t->rng, 32);
		if (!args.flags || rng_chance(&t->rng, 30))
			args.pad = rng_chance(&t->rng, 50) ?
				   1u << rng_below(&t->rng, 32) :
				   (uint32_t)rng_next(&t->rng);
		have = ring_bo(t, file, need, UINT64_MAX, need, false, &bo);
		break;
	case CREATE_SIZE:
		args.size = ring_bad_size(t);
		have = ring_bo(t, file, need, UINT64_MAX, need, false, &bo);
		break;
	case CREATE_ENGINE:
		args.engine = ring_bad_engine(t, info);
		have = ring_bo(t, file, need, UINT64_MAX, need, false, &bo);
		break;
	case CREATE_SMALL:
		have = ring_bo(t, file, 1, need - PAGE_BYTES + 1,
			       ring_small_bytes(t, size), make, &bo);
		break;
	case CREATE_HANDLE:
		args.handle = ring_bad_handle(t, file);
		break;
	default:
		/* exactly enough mostly, else a few pages more */
		extra = rng_chance(&t->rng, 20) ?
			PAGE_BYTES * (1 + rng_below(&t->rng, 3)) : 0;
		have = ring_bo(t, file, need, UINT64_MAX, need + extra, make,
			       &bo);
		break;
	}
	if (have) {
		args.handle = bo.handle;
		len = page_round(bo.size);
		addr = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
			    file->fd, (off_t)bo.mmap_offset);
		if (addr == MAP_FAILED)		/* closed meanwhile */
			addr = NULL;
		/* a buffer used before may hold any tail; a ring starts at 0 */
		if (addr && rng_chance(&t->rng, 95)) {
			err = fault_guard(ring_clear_tail, addr);
			if (err)
				fuzz_done(t, CALL_TOUCH, err);
		}
	}
	err = fuzz_ioctl(file->fd, DRM_IOCTL_TERN_RING_CREATE, &args);
	fuzz_done(t, CALL_TERN_RING_CREATE, err);
	if (err) {
		if (addr)
			munmap(addr, len);
		return false;
	}
	ring = (struct pool_ring){
		.file = file->file, .id = args.ring_id, .handle = args.handle,
		.engine = args.engine, .addr = addr, .len = len,
		.size = args.size,
	};
	/*
	 * Made on a buffer that is not mapped here (a handle drawn at
	 * random): nothing to write into, and no thread must try.
	 */
	if (!addr || len < DRM_TERN_RING_DATA_OFFSET + (size_t)args.size) {
		ring_drop(t, file->fd, &ring);
		return false;
	}
	if (pool_add(&t->worker->pool, POOL_RING, &ring, &evicted, &t->rng))
		ring_release(t, &evicted);
	if (out)
		*out = ring;
	return true;
}

/*
 * A ring of @file to write into (true), made for it when it has none and
 * @make; or (false) only an id to try on it: another file's ring's, or a
 * small number.
 */
static bool ring_pick(struct fuzz_thread *t, const struct pool_file *file,
		      bool make, struct pool_ring *ring)
{
	memset(ring, 0, sizeof(*ring));
	ring->id = (uint32_t)rng_below(&t->rng, 8);
	if (rng_chance(&t->rng, 4)) {
		pool_pick(&t->worker->pool, POOL_RING, &t->rng, 0, ring);
		return false;
	}
	if (pool_pick(&t->worker->pool, POOL_RING, &t->rng, file->file, ring))
		return true;
	return make && !t->worker->opt->skip[CALL_TERN_RING_CREATE] &&
	       ring_create(t, file, CREATE_VALID, ring);
}

/* A stopped ring takes no more records: destroyed, another made instead. */
static void ring_replace(struct fuzz_thread *t, const struct pool_file *file,
			 struct pool_ring *ring)
{
	if (t->worker->opt->skip[CALL_TERN_RING_DESTROY])
		return;
	/* whoever takes a ring out of the pool destroys and unmaps it */
	if (pool_forget(&t->worker->pool, POOL_RING, ring, POOL_RING_KEY_BYTES))
		ring_drop(t, file->fd, ring);
	if (!t->worker->opt->skip[CALL_TERN_RING_CREATE])
		ring_create(t, file, CREATE_VALID, ring);
}

/* A fence word: 8-aligned in one of the file's buffers, or none (0). */
static uint64_t ring_fence_va(struct fuzz_thread *t,
			      const struct fuzz_target *targets, unsigned int n)
{
	const struct fuzz_target *tg;

	if (!n || rng_chance(&t->rng, 30))
		return 0;
	tg = &targets[rng_below(&t->rng, n)];
	if (tg->size < 8)
		return 0;
	return tg->va + 8 * rng_below(&t->rng, tg->size / 8);
}

/* An 8-aligned fence word in no buffer: before or past one, or nowhere. */
static uint64_t ring_fence_outside(struct fuzz_thread *t,
				   const struct drm_tern_info *info,
				   const struct fuzz_target *targets,
				   unsigned int n)
{
	uint64_t roll = rng_below(&t->rng, 100);
	const struct fuzz_target *tg;

	if (n && roll < 40) {
		tg = &targets[rng_below(&t->rng, n)];
		return roll < 20 ? tg->va - 8 : tg->va + page_round(tg->size);
	}
	if (roll < 85 && info->va_base >= (1u << 20))
		return info->va_base - (1u << 20);
	if (roll < 85)
		return info->va_base + info->va_size;
	return value_boundary(&t->rng) & ~7ull;
}

static void ring_damage_record(struct fuzz_thread *t,
			       const struct drm_tern_info *info,
			       const struct pool_ring *ring,
			       enum ring_damage damage,
			       struct drm_tern_ring_record *rec,
			       const struct fuzz_target *targets,
			       unsigned int n)
{
	uint32_t max_bytes = info->max_submit_bytes ?
			     info->max_submit_bytes : 4096;

	switch (damage) {
	case DAMAGE_FLAGS:
		/* PAD alone too: a job's size does not reach the ring's end */
		if (rng_chance(&t->rng, 30))
			rec->flags = DRM_TERN_RING_RECORD_PAD;
		else if (rng_chance(&t->rng, 50))
			rec->flags = 1u << rng_below(&t->rng, 32);
		else
			rec->flags = (uint32_t)rng_next(&t->rng) | 2;
		break;
	case DAMAGE_SIZE:
		switch (rng_below(&t->rng, 7)) {
		case 0:
			rec->size = 0;
			break;
		case 1:
			rec->size += 1 + (uint32_t)rng_below(&t->rng, 7);
			break;
		case 2:
			rec->size = max_bytes + 8;
			break;
		case 3:
			/* more than its packets: the next record's, or none */
			rec->size += 8 * (1 + (uint32_t)rng_below(&t->rng, 64));
			break;
		case 4:
			/* fewer: the rest is read as the next record */
			rec->size = rec->size > 8 ? rec->size - 8 : 0;
			break;
		case 5:
			rec->size = ring->size;		/* past the end */
			break;
		default:
			rec->size = (uint32_t)value_boundary(&t->rng);
			break;
		}
		break;
	case DAMAGE_FENCE_ALIGN:
		rec->fence_va += 1 + rng_below(&t->rng, 7);
		break;
	case DAMAGE_FENCE_OUTSIDE:
		rec->fence_va = ring_fence_outside(t, info, targets, n);
		break;
	case DAMAGE_FENCE_VALUE:
		rec->fence_value |= 1 + rng_below(&t->rng,
						  DRM_TERN_RING_FENCE_ERROR_MASK);
		break;
	default:
		break;
	}
}

/*
 * Writes a few records into @ring of @file, then stores the tail: valid
 * records mostly, with the streams SUBMIT gets over the file's buffers;
 * else one damage among them, to a record, the layout or the tail.
 * Returns whether to kick: the kernel asks, or the ring is stopped.
 */
static bool ring_write(struct fuzz_thread *t, const struct pool_file *file,
		       const struct pool_ring *ring)
{
	const struct drm_tern_info *info = info_of(t, file);
	uint32_t max_bytes = info->max_submit_bytes ?
			     info->max_submit_bytes : 4096;
	struct drm_tern_info capped = *info;
	enum ring_damage damage = DAMAGE_NONE;
	struct fuzz_target targets[16];
	struct pool_bo bos[16];
	struct ring_access a;
	unsigned int n, records, victim;

	n = pool_collect(&t->worker->pool, POOL_BO, file->file, bos, 16);
	for (unsigned int i = 0; i < n; i++)
		targets[i] = (struct fuzz_target){ bos[i].va, bos[i].size };
	/* a quarter of the ring at most, so that a few records fit at once */
	capped.max_submit_bytes = max_bytes < ring->size / 4 ? max_bytes :
			ring->size / 4;
	if (rng_chance(&t->rng, 30))
		damage = (enum ring_damage)(1 + rng_below(&t->rng,
							  DAMAGE_KINDS - 1));
	records = rng_chance(&t->rng, 85) ?
		  1 + (unsigned int)rng_below(&t->rng, 4) :
		  5 + (unsigned int)rng_below(&t->rng, RING_BATCH_MAX - 4);
	/* the record damaged, if a record is; none (records) otherwise */
	victim = damage != DAMAGE_NONE && damage < DAMAGE_TAIL ?
		 (unsigned int)rng_below(&t->rng, records) : records;
	for (unsigned int i = 0; i < records; i++) {
		enum stream_kind kind = STREAM_VALID;
		struct drm_tern_ring_record rec;
		bool hit = i == victim;

		if (hit && damage == DAMAGE_STREAM)
			kind = STREAM_MUTATED;
		/* a stall holds every later record until the job timeout */
		else if (i == records - 1 && rng_chance(&t->rng, 3))
			kind = STREAM_STALL;
		stream_build(t, t->stream, targets, n, &capped, ring->engine,
			     kind);
		rec = (struct drm_tern_ring_record){
			.size = t->stream->size,
			.fence_va = ring_fence_va(t, targets, n),
			/* a count above the error bits, as a SEM_WAIT wants */
			.fence_value = rng_chance(&t->rng, 70) ?
				(ring->jobs + i + 1) << 16 :
				rng_next(&t->rng) & ~DRM_TERN_RING_FENCE_ERROR_MASK,
		};
		if (hit)
			ring_damage_record(t, info, ring, damage, &rec,
					   targets, n);
		memset(&a, 0, sizeof(a));
		a.rec = &rec;
		a.packets = t->stream->words;
		a.bytes = t->stream->size;
		a.damage = hit ? damage : DAMAGE_NONE;
		a.pad_early = rng_chance(&t->rng, 3);
		if (!ring_access(t, ring, ring_append, &a))
			return true;
		if (!a.wrote)
			break;		/* full: the engine is behind */
	}
	memset(&a, 0, sizeof(a));
	a.damage = damage >= DAMAGE_TAIL ? damage : DAMAGE_NONE;
	if (!ring_access(t, ring, ring_publish, &a))
		return true;
	return a.kick || a.error;
}

/*
 * An absolute CLOCK_MONOTONIC deadline: past, now, or at most
 * RING_WAIT_MAX_NS away. Never near INT64_MIN either: the kernel takes
 * the time left as the deadline minus now, which would wrap to centuries.
 */
static int64_t ring_deadline(struct fuzz_thread *t)
{
	int64_t now = monotonic_ns();

	switch (rng_below(&t->rng, 10)) {
	case 0:
		return rng_chance(&t->rng, 50) ? 0 : -1;
	case 1:
		return now - 1000000000ll;
	case 2: case 3:
		return now;
	default:
		return now + (int64_t)rng_below(&t->rng, RING_WAIT_MAX_NS + 1);
	}
}

/* What to wait for: every job written, the next one, any, or far more. */
static uint64_t ring_wait_count(struct fuzz_thread *t,
				const struct ring_access *a)
{
	switch (rng_below(&t->rng, 10)) {
	case 0: case 1: case 2: case 3:
		return a->jobs;
	case 4: case 5:
		return a->done + 1;
	case 6:
		return rng_below(&t->rng, a->jobs + 2);
	case 7:
		return 0;
	case 8:
		return value_boundary(&t->rng);
	default:
		return rng_next(&t->rng);
	}
}

void op_ring_create(struct fuzz_thread *t)
{
	enum ring_create_kind kind = CREATE_VALID;
	struct pool_file file;

	if (!fuzz_file(t, &file))
		return;
	if (rng_chance(&t->rng, 25))
		kind = (enum ring_create_kind)(1 + rng_below(&t->rng,
							     CREATE_KINDS - 1));
	ring_create(t, &file, kind, NULL);
}

void op_ring_kick(struct fuzz_thread *t)
{
	struct pool_file file;
	struct pool_ring ring;
	struct ring_access a;
	bool kick = true;

	if (!fuzz_file(t, &file))
		return;
	if (ring_pick(t, &file, true, &ring)) {
		memset(&a, 0, sizeof(a));
		if (ring_access(t, &ring, ring_peek, &a) && a.error &&
		    rng_chance(&t->rng, 80))
			ring_replace(t, &file, &ring);
		/* not asked to: the engine is looking, or says so */
		kick = ring_write(t, &file, &ring) || rng_chance(&t->rng, 50);
	}
	if (kick)
		ring_kick_call(t, file.fd, ring.id);
}

void op_ring_wait(struct fuzz_thread *t)
{
	struct drm_tern_ring_wait args;
	struct pool_file file;
	struct pool_ring ring;
	struct ring_access a;

	if (!fuzz_file(t, &file))
		return;
	memset(&a, 0, sizeof(a));
	if (ring_pick(t, &file, false, &ring))
		ring_access(t, &ring, ring_peek, &a);
	memset(&args, 0, sizeof(args));
	args.ring_id = value_u32(&t->rng, ring.id);
	args.flags = value_flags(&t->rng, 0);
	args.done = ring_wait_count(t, &a);
	args.timeout_ns = ring_deadline(t);
	args.pad = rng_chance(&t->rng, 4) ? 1ull << rng_below(&t->rng, 64) : 0;
	fuzz_done(t, CALL_TERN_RING_WAIT,
		  fuzz_ioctl(file.fd, DRM_IOCTL_TERN_RING_WAIT, &args));
}

void op_ring_destroy(struct fuzz_thread *t)
{
	const struct fuzz_options *opt = t->worker->opt;
	struct pool_ring ring = { .id = (uint32_t)rng_below(&t->rng, 8) };
	struct pool_file file;

	if (!fuzz_file(t, &file))
		return;
	/*
	 * Short-lived rings, a few in a row: each made, given records and
	 * kicked, and destroyed at once, while its jobs may still run.
	 */
	if (rng_chance(&t->rng, 25) && !opt->skip[CALL_TERN_RING_CREATE]) {
		unsigned int n = 1 + (unsigned int)rng_below(&t->rng, 4);

		while (n--) {
			if (!ring_create(t, &file, CREATE_VALID, &ring))
				continue;
			ring_write(t, &file, &ring);
			if (!opt->skip[CALL_TERN_RING_KICK])
				ring_kick_call(t, file.fd, ring.id);
			if (pool_forget(&t->worker->pool, POOL_RING, &ring,
					POOL_RING_KEY_BYTES))
				ring_destroy_taken(t, file.fd, &ring);
		}
		return;
	}
	/* its own ring, or another file's id tried on this one */
	if (rng_chance(&t->rng, 85) &&
	    pool_take(&t->worker->pool, POOL_RING, &t->rng, file.file, &ring)) {
		ring_destroy_taken(t, file.fd, &ring);
		return;
	}
	pool_pick(&t->worker->pool, POOL_RING, &t->rng, 0, &ring);
	ring_destroy_call(t, file.fd, value_u32(&t->rng, ring.id),
			  value_flags(&t->rng, 0));
}

/* Files of one mass of rings, at most. */
#define RING_MASS_FILES		8
/* Rings tried on each of them. */
#define RING_MASS_TRIES		4

/*
 * Rings en masse on one buffer: a buffer of a fresh file, imported into
 * up to RING_MASS_FILES more files of its device through PRIME, and
 * RING_CREATE tried on it from each, several times: one ring may hold it,
 * every other try fails (EBUSY); a few more buffers of its own per file
 * take rings until the file's or the budget's limits. The files are
 * closed at the end, with their rings' jobs, if any, still to end.
 */
void op_ring_mass(struct fuzz_thread *t)
{
	unsigned int device = (unsigned int)rng_below(&t->rng,
						      t->worker->devices->count);
	const char *node = t->worker->devices->dev[device].node;
	unsigned int files = 2 + (unsigned int)rng_below(&t->rng,
							 RING_MASS_FILES - 1);
	struct drm_tern_bo_create bo = {
		.size = DRM_TERN_RING_DATA_OFFSET + DRM_TERN_RING_MIN_SIZE,
		.placement = DRM_TERN_PLACEMENT_DEVICE,
	};
	struct drm_prime_handle prime = { .flags = DRM_CLOEXEC };
	int fds[RING_MASS_FILES];
	unsigned int opened = 0;

	for (unsigned int f = 0; f < files; f++) {
		fds[f] = open(node, O_RDWR | O_CLOEXEC);
		fuzz_done(t, CALL_OPEN, fds[f] < 0 ? errno : 0);
		if (fds[f] < 0)
			break;
		opened++;
	}
	if (opened < 2 || fuzz_ioctl(fds[0], DRM_IOCTL_TERN_BO_CREATE, &bo))
		goto out;
	prime.handle = bo.handle;
	if (fuzz_ioctl(fds[0], DRM_IOCTL_PRIME_HANDLE_TO_FD, &prime))
		goto out;
	for (unsigned int f = 0; f < opened; f++) {
		struct drm_prime_handle in = { .fd = prime.fd };
		struct drm_tern_ring_create args = {
			.engine = (uint32_t)rng_below(
				&t->rng,
				t->worker->devices->dev[device].info.engine_count),
			.size = DRM_TERN_RING_MIN_SIZE,
		};

		if (f == 0)
			args.handle = bo.handle;
		else if (!fuzz_ioctl(fds[f], DRM_IOCTL_PRIME_FD_TO_HANDLE, &in))
			args.handle = in.handle;
		for (unsigned int i = 0; args.handle && i < RING_MASS_TRIES; i++)
			fuzz_done(t, CALL_TERN_RING_MASS,
				  fuzz_ioctl(fds[f], DRM_IOCTL_TERN_RING_CREATE,
					     &args));
		/* and buffers of its own, a ring each */
		for (unsigned int i = 0; i < RING_MASS_TRIES; i++) {
			struct drm_tern_bo_create own = bo;

			if (fuzz_ioctl(fds[f], DRM_IOCTL_TERN_BO_CREATE, &own))
				break;
			args.handle = own.handle;
			fuzz_done(t, CALL_TERN_RING_MASS,
				  fuzz_ioctl(fds[f], DRM_IOCTL_TERN_RING_CREATE,
					     &args));
		}
	}
	close(prime.fd);
out:
	for (unsigned int f = 0; f < opened; f++)
		fuzz_done(t, CALL_CLOSE, close(fds[f]) ? errno : 0);
}

/* A RING_WAIT on another thread, racing what this one does to the ring. */
struct ring_waiter {
	pthread_t thread;
	int fd;
	uint32_t ring;
	int err;
};

static void *ring_waiter_main(void *arg)
{
	struct ring_waiter *w = arg;
	struct drm_tern_ring_wait args = {
		.ring_id = w->ring, .done = 1,
		.timeout_ns = monotonic_ns() + RING_WAIT_MAX_NS,
	};

	w->err = fuzz_ioctl(w->fd, DRM_IOCTL_TERN_RING_WAIT, &args);
	return NULL;
}

/*
 * RING_DESTROY racing RING_WAIT: a ring of a fresh file with one job
 * waiting on a word, sometimes with its fence word in no buffer (its end
 * stops the ring); a thread waits for the job while this one releases it
 * and destroys the ring, in either order, or only destroys it. The job
 * ends either way (the destroy lets it), and the wait must then never
 * say EIO: one that does counts as EPROTO, a driver bug.
 */
void op_ring_wait_destroy(struct fuzz_thread *t)
{
	unsigned int device = (unsigned int)rng_below(&t->rng,
						      t->worker->devices->count);
	const size_t hdr = sizeof(struct drm_tern_ring_record);
	struct drm_tern_bo_create words = {
		.size = PAGE_BYTES, .placement = DRM_TERN_PLACEMENT_HOST,
	};
	struct drm_tern_bo_create bo = {
		.size = DRM_TERN_RING_DATA_OFFSET + DRM_TERN_RING_MIN_SIZE,
		.placement = DRM_TERN_PLACEMENT_DEVICE,
	};
	struct drm_tern_ring_create create = { .size = DRM_TERN_RING_MIN_SIZE };
	struct drm_tern_packet_sem_wait wait = {
		.header = { DRM_TERN_OP_SEM_WAIT, sizeof(wait) / 8, 0 },
		.value = 1,
	};
	struct drm_tern_ring_record rec = { .size = sizeof(wait) };
	struct drm_tern_ring_kick kick = { 0 };
	struct ring_waiter w = { .err = 0 };
	uint8_t *ring = MAP_FAILED, *word = MAP_FAILED;
	bool release = rng_chance(&t->rng, 70), started = false;
	int fd = open(t->worker->devices->dev[device].node, O_RDWR | O_CLOEXEC);
	struct drm_tern_ring_ctl *ctl;

	fuzz_done(t, CALL_OPEN, fd < 0 ? errno : 0);
	if (fd < 0)
		return;
	if (fuzz_ioctl(fd, DRM_IOCTL_TERN_BO_CREATE, &words) ||
	    fuzz_ioctl(fd, DRM_IOCTL_TERN_BO_CREATE, &bo))
		goto out;
	word = mmap(NULL, PAGE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    (off_t)words.mmap_offset);
	ring = mmap(NULL, page_round(bo.size), PROT_READ | PROT_WRITE,
		    MAP_SHARED, fd, (off_t)bo.mmap_offset);
	if (word == MAP_FAILED || ring == MAP_FAILED)
		goto out;
	create.handle = bo.handle;
	create.engine = (uint32_t)rng_below(
		&t->rng, t->worker->devices->dev[device].info.engine_count);
	fuzz_done(t, CALL_TERN_RING_CREATE,
		  fuzz_ioctl(fd, DRM_IOCTL_TERN_RING_CREATE, &create));
	if (!create.ring_id)
		goto out;
	wait.addr = words.device_va;
	rec.fence_va = rng_chance(&t->rng, 50) ? words.device_va + 8 :
		       ring_fence_outside(t, &t->worker->devices->dev[device].info,
					  NULL, 0) & ~7ull;
	rec.fence_value = 1ull << 16;
	memcpy(ring + DRM_TERN_RING_DATA_OFFSET, &rec, hdr);
	memcpy(ring + DRM_TERN_RING_DATA_OFFSET + hdr, &wait, sizeof(wait));
	ctl = (struct drm_tern_ring_ctl *)ring;
	__atomic_store_n(&ctl->tail, hdr + sizeof(wait), __ATOMIC_RELEASE);
	kick.ring_id = create.ring_id;
	fuzz_done(t, CALL_TERN_RING_KICK,
		  fuzz_ioctl(fd, DRM_IOCTL_TERN_RING_KICK, &kick));
	w.fd = fd;
	w.ring = create.ring_id;
	started = !pthread_create(&w.thread, NULL, ring_waiter_main, &w);
	if (rng_chance(&t->rng, 50))
		usleep((useconds_t)rng_below(&t->rng, 2000));
	if (release && rng_chance(&t->rng, 50))
		__atomic_store_n((uint64_t *)word, 1, __ATOMIC_RELEASE);
	ring_destroy_call(t, fd, create.ring_id, 0);
	if (release)
		__atomic_store_n((uint64_t *)word, 1, __ATOMIC_RELEASE);
	if (started) {
		pthread_join(w.thread, NULL);
		/* ended, yet "it never will": the driver's bug */
		if (w.err == EIO &&
		    __atomic_load_n(&ctl->done, __ATOMIC_ACQUIRE) >= 1)
			w.err = EPROTO;
		fuzz_done(t, CALL_TERN_RING_WAIT_DESTROY, w.err);
	}
out:
	if (ring != MAP_FAILED)
		munmap(ring, page_round(bo.size));
	if (word != MAP_FAILED)
		munmap(word, PAGE_BYTES);
	fuzz_done(t, CALL_CLOSE, close(fd) ? errno : 0);
}
