// SPDX-License-Identifier: MIT
/*
 * Tern's own ioctls: GET_INFO, BO_CREATE in both placements, BO_INFO,
 * QUEUE_CREATE and QUEUE_DESTROY, SUBMIT of valid, mutated and stalling
 * streams, TOPOLOGY, and any command number of the driver's range with
 * random bytes and sizes.
 */
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fuzz.h"

/* Host memory this worker's buffers may hold before it keeps them small. */
#define HOST_BUDGET_BYTES	(32ull << 20)
/* The largest host buffer; device buffers are bounded by device memory. */
#define HOST_LARGE_BYTES	(8ull << 20)
#define SMALL_BYTES		(256u << 10)
/* In-syncobj handles SUBMIT may read: at least max_in_syncobjs (64). */
#define IN_SYNCOBJS_ROOM	64

static const struct drm_tern_info *info_of(struct fuzz_thread *t,
					   const struct pool_file *file)
{
	return &t->worker->devices->dev[file->device].info;
}

void op_get_info(struct fuzz_thread *t)
{
	struct drm_tern_info args;
	struct pool_file file;

	if (!fuzz_file(t, &file))
		return;
	memset(&args, 0, sizeof(args));
	args.flags = value_flags(&t->rng, 0);
	args.pad = value_flags(&t->rng, 0);
	fuzz_done(t, CALL_TERN_GET_INFO,
		  fuzz_ioctl(file.fd, DRM_IOCTL_TERN_GET_INFO, &args));
}

/* Host RAM: a host buffer must stay far below it or the guest runs out. */
static uint64_t host_ram_bytes(void)
{
	return (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
}

/*
 * A buffer size: mostly small, page sizes +-1, up to @large, exactly
 * @total and just past it, boundary values and random bits.
 */
static uint64_t bo_size(struct fuzz_thread *t, uint64_t total, uint64_t large)
{
	uint64_t roll = rng_below(&t->rng, 100);

	if (roll < 60)
		return 1 + rng_below(&t->rng, SMALL_BYTES);
	if (roll < 75)
		return 4096 * (1 + rng_below(&t->rng, 16)) + rng_below(&t->rng, 3) - 1;
	if (roll < 84)
		return 1 + rng_below(&t->rng, large);
	if (roll < 90) {
		static const int64_t past_total[] = { 0, 1, 4096, -4096, -1 };

		return total + (uint64_t)past_total[rng_below(&t->rng, 5)];
	}
	if (roll < 97)
		return value_boundary(&t->rng);
	return rng_next(&t->rng);
}

static void bo_create(struct fuzz_thread *t, uint32_t placement,
		      enum fuzz_call call)
{
	struct drm_tern_bo_create args;
	struct pool_file file;
	struct pool_bo bo, evicted;
	uint64_t ram = host_ram_bytes();
	int err;

	if (!fuzz_file(t, &file))
		return;
	memset(&args, 0, sizeof(args));
	if (placement == DRM_TERN_PLACEMENT_DEVICE) {
		uint64_t total = info_of(t, &file)->device_memory_size;

		args.size = bo_size(t, total, total);
	} else {
		bool roomy = pool_host_bytes(&t->worker->pool) < HOST_BUDGET_BYTES;

		args.size = bo_size(t, ram, roomy ? HOST_LARGE_BYTES : SMALL_BYTES);
	}
	/*
	 * Whatever the placement asked for, a size between "large" and all
	 * of RAM is made refusable: tern.ko takes host buffers up to the
	 * RAM's size, and allocating that would only run the guest out of
	 * memory.
	 */
	if (args.size > HOST_LARGE_BYTES && args.size <= ram)
		args.size = ram + 4096 * (1 + rng_below(&t->rng, 4));
	args.placement = value_u32(&t->rng, placement);
	args.flags = value_flags(&t->rng, 0);
	args.pad = value_flags(&t->rng, 0);
	err = fuzz_ioctl(file.fd, DRM_IOCTL_TERN_BO_CREATE, &args);
	fuzz_done(t, call, err);
	if (err)
		return;
	bo = (struct pool_bo){
		.file = file.file, .handle = args.handle, .size = args.size,
		.va = args.device_va, .mmap_offset = args.mmap_offset,
		.placement = args.placement,
	};
	if (pool_add(&t->worker->pool, POOL_BO, &bo, &evicted, &t->rng))
		release_bo(t, &evicted);
}

void op_bo_create_device(struct fuzz_thread *t)
{
	bo_create(t, DRM_TERN_PLACEMENT_DEVICE, CALL_TERN_BO_CREATE_DEVICE);
}

void op_bo_create_host(struct fuzz_thread *t)
{
	bo_create(t, DRM_TERN_PLACEMENT_HOST, CALL_TERN_BO_CREATE_HOST);
}

/* A buffer handle for @file: mostly its own, sometimes another file's. */
static uint32_t bo_handle(struct fuzz_thread *t, const struct pool_file *file)
{
	struct pool_bo bo = { .handle = (uint32_t)rng_below(&t->rng, 64) };

	pool_pick(&t->worker->pool, POOL_BO, &t->rng,
		  rng_chance(&t->rng, 85) ? file->file : 0, &bo);
	return value_u32(&t->rng, bo.handle);
}

void op_bo_info(struct fuzz_thread *t)
{
	struct drm_tern_bo_info args;
	struct pool_file file;

	if (!fuzz_file(t, &file))
		return;
	memset(&args, 0, sizeof(args));
	args.handle = bo_handle(t, &file);
	args.flags = value_flags(&t->rng, 0);
	args.pad = value_flags(&t->rng, 0);
	fuzz_done(t, CALL_TERN_BO_INFO,
		  fuzz_ioctl(file.fd, DRM_IOCTL_TERN_BO_INFO, &args));
}

static void queue_destroy(struct fuzz_thread *t, int fd, uint32_t id)
{
	struct drm_tern_queue_destroy args = {
		.queue_id = value_u32(&t->rng, id),
		.flags = value_flags(&t->rng, 0),
	};

	fuzz_done(t, CALL_TERN_QUEUE_DESTROY,
		  fuzz_ioctl(fd, DRM_IOCTL_TERN_QUEUE_DESTROY, &args));
}

/* QUEUE_CREATE on @file; the new queue is remembered and copied to @out. */
static bool queue_create(struct fuzz_thread *t, const struct pool_file *file,
			 struct pool_queue *out)
{
	struct drm_tern_queue_create args;
	struct pool_queue queue, evicted;
	struct pool_file owner;
	int err;

	memset(&args, 0, sizeof(args));
	args.engine = value_u32(&t->rng, (uint32_t)rng_below(&t->rng,
					info_of(t, file)->engine_count));
	args.flags = value_flags(&t->rng, 0);
	args.pad = value_flags(&t->rng, 0);
	err = fuzz_ioctl(file->fd, DRM_IOCTL_TERN_QUEUE_CREATE, &args);
	fuzz_done(t, CALL_TERN_QUEUE_CREATE, err);
	if (err)
		return false;
	queue = (struct pool_queue){
		.file = file->file, .id = args.queue_id, .engine = args.engine,
	};
	if (pool_add(&t->worker->pool, POOL_QUEUE, &queue, &evicted, &t->rng) &&
	    !t->worker->opt->skip[CALL_TERN_QUEUE_DESTROY] &&
	    pool_pick(&t->worker->pool, POOL_FILE, &t->rng, evicted.file, &owner))
		queue_destroy(t, owner.fd, evicted.id);
	if (out)
		*out = queue;
	return true;
}

void op_queue_create(struct fuzz_thread *t)
{
	struct pool_file file;

	if (fuzz_file(t, &file))
		queue_create(t, &file, NULL);
}

/* In-syncobjs of a SUBMIT: none, a few of the file's, or a bad count. */
static uint32_t in_syncobjs(struct fuzz_thread *t, const struct pool_file *file,
			    const struct drm_tern_info *info, uint32_t *handles,
			    uint32_t room, bool damaged)
{
	uint64_t roll = rng_below(&t->rng, 100);
	uint32_t count;

	memset(handles, 0, room * sizeof(*handles));
	if (roll < 55)
		return 0;
	if (roll < 93 || !damaged) {
		struct pool_syncobj syncobj;

		count = 1 + (uint32_t)rng_below(&t->rng, 4);
		for (uint32_t i = 0; i < count; i++) {
			if (!pool_pick(&t->worker->pool, POOL_SYNCOBJ, &t->rng,
				       file->file, &syncobj))
				return i;
			handles[i] = damaged ? value_u32(&t->rng, syncobj.handle) :
					       syncobj.handle;
		}
		return count;
	}
	/* the limit, just past it, or far past it: only the limit is read */
	switch (rng_below(&t->rng, 4)) {
	case 0:
		return info->max_in_syncobjs <= room ? info->max_in_syncobjs : room;
	case 1:
		return info->max_in_syncobjs + 1;
	default:
		return (uint32_t)value_boundary(&t->rng) | (room + 1);
	}
}

/*
 * SUBMIT of a stream of @kind for @queue's engine on it, of @file;
 * @follow: the job's fence may be waited for or exported after
 * (fence_follow()).
 */
static void submit_on(struct fuzz_thread *t, const struct pool_file *file,
		      const struct pool_queue *queue, enum stream_kind kind,
		      enum fuzz_call call, bool follow)
{
	struct pool_bo bos[16];
	struct fuzz_target targets[16];
	uint32_t handles[IN_SYNCOBJS_ROOM];
	struct pool_syncobj out = { .handle = 0 };
	/* the ioctl's own fields damaged too, or only the stream's */
	bool damaged = kind == STREAM_MUTATED || rng_chance(&t->rng, 10);
	const struct drm_tern_info *info = info_of(t, file);
	struct drm_tern_submit args;
	unsigned int n;
	int err;

	n = pool_collect(&t->worker->pool, POOL_BO, file->file, bos, 16);
	for (unsigned int i = 0; i < n; i++)
		targets[i] = (struct fuzz_target){ bos[i].va, bos[i].size };
	stream_build(t, t->stream, targets, n, info, queue->engine, kind);
	if (rng_chance(&t->rng, 80))
		pool_pick(&t->worker->pool, POOL_SYNCOBJ, &t->rng, file->file, &out);

	memset(&args, 0, sizeof(args));
	args.queue_id = queue->id;
	args.packets = (uintptr_t)t->stream->words;
	args.packets_size = t->stream->size;
	args.in_syncobj_count = in_syncobjs(t, file, info, handles,
					    IN_SYNCOBJS_ROOM, damaged);
	args.in_syncobjs = (uintptr_t)handles;
	args.out_syncobj = out.handle;
	if (damaged) {
		args.queue_id = value_u32(&t->rng, args.queue_id);
		args.flags = value_flags(&t->rng, 0);
		args.packets = value_read_ptr(&t->rng, t->stream->words);
		args.packets_size = value_u32(&t->rng, args.packets_size);
		args.in_syncobjs = value_read_ptr(&t->rng, handles);
		args.out_syncobj = value_u32(&t->rng, out.handle);
		args.pad = value_flags(&t->rng, 0);
	}
	err = fuzz_ioctl(file->fd, DRM_IOCTL_TERN_SUBMIT, &args);
	fuzz_done(t, call, err);
	if (follow && !err && args.out_syncobj == out.handle && out.handle)
		fence_follow(t, file->fd, out.handle, t->stream->size > (64u << 10));
}

static void submit(struct fuzz_thread *t, enum stream_kind kind,
		   enum fuzz_call call)
{
	struct pool_queue queue = { .id = (uint32_t)rng_below(&t->rng, 8) };
	struct pool_file file;

	if (!fuzz_file(t, &file))
		return;
	/* a queue of the file, one made for it, or another file's id */
	if (!pool_pick(&t->worker->pool, POOL_QUEUE, &t->rng,
		       rng_chance(&t->rng, 98) ? file.file : 0, &queue) &&
	    !t->worker->opt->skip[CALL_TERN_QUEUE_CREATE])
		queue_create(t, &file, &queue);
	submit_on(t, &file, &queue, kind, call, true);
}

void op_submit_valid(struct fuzz_thread *t)
{
	submit(t, STREAM_VALID, CALL_TERN_SUBMIT_VALID);
}

void op_submit_mutated(struct fuzz_thread *t)
{
	submit(t, STREAM_MUTATED, CALL_TERN_SUBMIT_MUTATED);
}

void op_submit_stall(struct fuzz_thread *t)
{
	submit(t, STREAM_STALL, CALL_TERN_SUBMIT_STALL);
}

void op_queue_destroy(struct fuzz_thread *t)
{
	struct pool_queue queue = { .id = (uint32_t)rng_below(&t->rng, 8) };
	struct pool_file file;

	if (!fuzz_file(t, &file))
		return;
	/*
	 * Short-lived queues, a few in a row: each made, given a job and
	 * destroyed at once, while the job is still on its way through the
	 * scheduler.
	 */
	if (rng_chance(&t->rng, 40)) {
		for (unsigned int n = 1 + (unsigned int)rng_below(&t->rng, 8); n--;) {
			if (!queue_create(t, &file, &queue))
				continue;
			pool_forget(&t->worker->pool, POOL_QUEUE, &queue, sizeof(queue));
			submit_on(t, &file, &queue, STREAM_VALID,
				  CALL_TERN_SUBMIT_VALID, false);
			queue_destroy(t, file.fd, queue.id);
		}
		return;
	}
	/* its own queue, or another file's id tried on this one */
	if (rng_chance(&t->rng, 85))
		pool_take(&t->worker->pool, POOL_QUEUE, &t->rng, file.file, &queue);
	else
		pool_pick(&t->worker->pool, POOL_QUEUE, &t->rng, 0, &queue);
	queue_destroy(t, file.fd, queue.id);
}

void op_topology(struct fuzz_thread *t)
{
	struct drm_tern_topology args;
	struct pool_file file;
	uint32_t ports;

	if (!fuzz_file(t, &file))
		return;
	ports = info_of(t, &file)->fabric_port_count;
	memset(&args, 0, sizeof(args));
	args.flags = value_flags(&t->rng, 0);
	args.pad = value_flags(&t->rng, 0);
	switch (rng_below(&t->rng, 5)) {
	case 0:
		args.port_count = 0;
		break;
	case 1:
		args.port_count = ports ? (uint32_t)rng_below(&t->rng, ports) : 0;
		break;
	case 2:
		args.port_count = (uint32_t)value_boundary(&t->rng);
		break;
	default:
		args.port_count = ports;
		break;
	}
	/* however many it asks for, the device writes only its own ports */
	args.ports = value_write_ptr(&t->rng, t->scratch);
	fuzz_done(t, CALL_TERN_TOPOLOGY,
		  fuzz_ioctl(file.fd, DRM_IOCTL_TERN_TOPOLOGY, &args));
}

/*
 * Random bytes are fine wherever the kernel only reads; the fields it
 * acts on in ways that could hurt the fuzzer itself are made safe: the
 * pointer TOPOLOGY writes through, a host buffer size that could take
 * all of RAM, and RING_WAIT's deadline, which could be days away (ring
 * ids are small numbers: random bytes name a live ring often enough).
 */
static void raw_make_safe(struct fuzz_thread *t, unsigned int nr,
			  uint8_t *buf, uint32_t size)
{
	if (nr == DRM_TERN_TOPOLOGY && size > offsetof(struct drm_tern_topology, ports)) {
		uint64_t ports = value_write_ptr(&t->rng, t->scratch);

		memcpy(buf + offsetof(struct drm_tern_topology, ports), &ports,
		       sizeof(ports));
	}
	if (nr == DRM_TERN_RING_WAIT &&
	    size > offsetof(struct drm_tern_ring_wait, timeout_ns)) {
		size_t at = offsetof(struct drm_tern_ring_wait, timeout_ns);
		int64_t deadline = value_deadline(&t->rng);

		if (size >= at + sizeof(deadline))
			memcpy(buf + at, &deadline, sizeof(deadline));
		else	/* the kernel reads the rest as zeroes: long past */
			memset(buf + at, 0, size - at);
	}
	if (nr == DRM_TERN_BO_CREATE) {
		uint64_t bytes;

		memcpy(&bytes, buf, sizeof(bytes));
		if (bytes > HOST_LARGE_BYTES && bytes <= host_ram_bytes()) {
			bytes |= 1ull << 62;
			memcpy(buf, &bytes, sizeof(bytes));
		}
	}
}

void op_tern_raw(struct fuzz_thread *t)
{
	static const uint32_t sizes[] = {
		sizeof(struct drm_tern_info), sizeof(struct drm_tern_bo_create),
		sizeof(struct drm_tern_bo_info), sizeof(struct drm_tern_queue_create),
		sizeof(struct drm_tern_queue_destroy), sizeof(struct drm_tern_submit),
		sizeof(struct drm_tern_topology),
		sizeof(struct drm_tern_ring_create),
		sizeof(struct drm_tern_ring_destroy),
		sizeof(struct drm_tern_ring_kick),
		sizeof(struct drm_tern_ring_wait),
	};
	static const unsigned int dirs[] = {
		_IOC_NONE, _IOC_READ, _IOC_WRITE, _IOC_READ | _IOC_WRITE,
	};
	const unsigned int known = sizeof(sizes) / sizeof(sizes[0]);
	uint8_t buf[256];
	struct pool_file file;
	unsigned int nr = (unsigned int)rng_below(&t->rng, 16);
	uint32_t size;

	if (!fuzz_file(t, &file))
		return;
	/* the right size (an older or newer caller's otherwise) */
	if (nr < known && rng_chance(&t->rng, 50))
		size = sizes[nr];
	else
		size = (uint32_t)rng_below(&t->rng, sizeof(buf) + 1);
	memset(buf, 0, sizeof(buf));
	if (rng_chance(&t->rng, 50)) {
		rng_fill(&t->rng, buf, size);
	} else {
		for (unsigned int i = 1 + (unsigned int)rng_below(&t->rng, 3); size && i--;)
			buf[rng_below(&t->rng, size)] = (uint8_t)rng_next(&t->rng);
	}
	raw_make_safe(t, nr, buf, size);
	fuzz_done(t, CALL_TERN_RAW,
		  fuzz_ioctl(file.fd, _IOC(dirs[rng_below(&t->rng, 4)], DRM_IOCTL_BASE,
					   DRM_COMMAND_BASE + nr, size), buf));
}
