// SPDX-License-Identifier: MIT
/*
 * Syncobjs and sync_files on Tern files: the DRM core's syncobj ioctls
 * with small counts only (FUZZ_CORE_MAX_COUNT), bounded waits only, and
 * job fences exported as sync_files whose status is read, merged and
 * polled.
 */
#include <errno.h>
#include <linux/sync_file.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <xf86drm.h>

#include "fuzz.h"

/* A patient wait on a large job: long enough for it to end, bounded. */
#define PATIENT_WAIT_NS		200000000ll

static void syncobj_destroy(struct fuzz_thread *t, int fd, uint32_t handle)
{
	struct drm_syncobj_destroy args = {
		.handle = value_u32(&t->rng, handle),
		.pad = value_flags(&t->rng, 0),
	};

	fuzz_done(t, CALL_SYNCOBJ_DESTROY,
		  fuzz_ioctl(fd, DRM_IOCTL_SYNCOBJ_DESTROY, &args));
}

static void remember_syncobj(struct fuzz_thread *t, uint32_t file,
			     uint32_t handle)
{
	struct pool_syncobj syncobj = { .file = file, .handle = handle }, evicted;
	struct pool_file owner;

	if (pool_add(&t->worker->pool, POOL_SYNCOBJ, &syncobj, &evicted, &t->rng) &&
	    pool_pick(&t->worker->pool, POOL_FILE, &t->rng, evicted.file, &owner))
		syncobj_destroy(t, owner.fd, evicted.handle);
}

static void remember_fd(struct fuzz_thread *t, int fd, enum pool_fd_kind kind)
{
	struct pool_fd item = { .fd = fd, .kind = kind }, evicted;

	if (pool_add(&t->worker->pool, POOL_FD, &item, &evicted, &t->rng))
		release_fd(t, &evicted);
}

/* A syncobj handle for @file: its own mostly, else anything. */
static uint32_t syncobj_handle(struct fuzz_thread *t, const struct pool_file *file)
{
	struct pool_syncobj syncobj = { .handle = (uint32_t)rng_below(&t->rng, 64) };

	pool_pick(&t->worker->pool, POOL_SYNCOBJ, &t->rng,
		  rng_chance(&t->rng, 90) ? file->file : 0, &syncobj);
	return value_u32(&t->rng, syncobj.handle);
}

/*
 * Fills @handles (FUZZ_CORE_MAX_COUNT entries) and @points; returns the
 * count to pass, never above FUZZ_CORE_MAX_COUNT.
 */
static uint32_t syncobj_array(struct fuzz_thread *t, const struct pool_file *file,
			      uint32_t *handles, uint64_t *points)
{
	uint32_t count = 1 + (uint32_t)rng_below(&t->rng, 4);

	for (uint32_t i = 0; i < FUZZ_CORE_MAX_COUNT; i++) {
		handles[i] = syncobj_handle(t, file);
		points[i] = rng_chance(&t->rng, 70) ? 0 : rng_below(&t->rng, 4);
		if (rng_chance(&t->rng, 3))
			points[i] = value_boundary(&t->rng);
	}
	return value_core_count(&t->rng, count);
}

static uint32_t wait_flags(struct fuzz_thread *t)
{
	uint32_t flags = (uint32_t)rng_below(&t->rng, 8) &
			 (DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL |
			  DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT |
			  DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE);

	return value_flags(&t->rng, flags);
}

void op_syncobj_create(struct fuzz_thread *t)
{
	struct drm_syncobj_create args;
	struct pool_file file;
	int err;

	if (!fuzz_file(t, &file))
		return;
	memset(&args, 0, sizeof(args));
	args.flags = value_flags(&t->rng, rng_chance(&t->rng, 30) ?
				 DRM_SYNCOBJ_CREATE_SIGNALED : 0);
	err = fuzz_ioctl(file.fd, DRM_IOCTL_SYNCOBJ_CREATE, &args);
	fuzz_done(t, CALL_SYNCOBJ_CREATE, err);
	if (!err)
		remember_syncobj(t, file.file, args.handle);
}

void op_syncobj_destroy(struct fuzz_thread *t)
{
	struct pool_syncobj syncobj = { .handle = (uint32_t)rng_below(&t->rng, 64) };
	struct pool_file file;

	if (!fuzz_file(t, &file))
		return;
	pool_take(&t->worker->pool, POOL_SYNCOBJ, &t->rng, file.file, &syncobj);
	syncobj_destroy(t, file.fd, syncobj.handle);
}

/* The core ioctls on an array of syncobjs, drawn from one set of values. */
enum syncobj_set_op { SET_WAIT, SET_TIMELINE_WAIT, SET_RESET, SET_SIGNAL,
		      SET_QUERY, SET_TIMELINE_SIGNAL };

static void syncobj_set_op(struct fuzz_thread *t, enum syncobj_set_op op)
{
	static const struct {
		unsigned long request;
		enum fuzz_call call;
	} ioctls[] = {
		[SET_WAIT] = { DRM_IOCTL_SYNCOBJ_WAIT, CALL_SYNCOBJ_WAIT },
		[SET_TIMELINE_WAIT] = { DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT,
					CALL_SYNCOBJ_TIMELINE_WAIT },
		[SET_RESET] = { DRM_IOCTL_SYNCOBJ_RESET, CALL_SYNCOBJ_RESET },
		[SET_SIGNAL] = { DRM_IOCTL_SYNCOBJ_SIGNAL, CALL_SYNCOBJ_SIGNAL },
		[SET_QUERY] = { DRM_IOCTL_SYNCOBJ_QUERY, CALL_SYNCOBJ_QUERY },
		[SET_TIMELINE_SIGNAL] = { DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL,
					  CALL_SYNCOBJ_TIMELINE_SIGNAL },
	};
	void *args[SET_TIMELINE_SIGNAL + 1];
	uint32_t handles[FUZZ_CORE_MAX_COUNT];
	uint64_t points[FUZZ_CORE_MAX_COUNT];
	struct drm_syncobj_timeline_wait wait;
	struct drm_syncobj_timeline_array timeline;
	struct drm_syncobj_wait binary_wait;
	struct drm_syncobj_array binary;
	struct pool_file file;
	uint32_t count, pad = value_flags(&t->rng, 0);
	uint64_t handles_ptr;

	if (!fuzz_file(t, &file))
		return;
	count = syncobj_array(t, &file, handles, points);
	handles_ptr = value_read_ptr(&t->rng, handles);
	/* (structures without implicit padding: the literals zero the rest) */
	wait = (struct drm_syncobj_timeline_wait){
		.handles = handles_ptr, .count_handles = count,
		.points = value_read_ptr(&t->rng, points),
		.timeout_nsec = value_deadline(&t->rng),
		.flags = wait_flags(t), .pad = pad,
	};
	/* QUERY writes the points; TIMELINE_SIGNAL reads them */
	timeline = (struct drm_syncobj_timeline_array){
		.handles = handles_ptr, .count_handles = count,
		.points = op == SET_QUERY ? value_write_ptr(&t->rng, points) :
					    value_read_ptr(&t->rng, points),
		.flags = value_flags(&t->rng, op == SET_QUERY && rng_chance(&t->rng, 30) ?
				     DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED : 0),
	};
	binary = (struct drm_syncobj_array){
		.handles = handles_ptr, .count_handles = count, .pad = pad,
	};
	binary_wait = (struct drm_syncobj_wait){
		.handles = handles_ptr, .count_handles = count,
		.timeout_nsec = wait.timeout_nsec, .flags = wait.flags, .pad = pad,
	};
	args[SET_WAIT] = &binary_wait;
	args[SET_TIMELINE_WAIT] = &wait;
	args[SET_RESET] = args[SET_SIGNAL] = &binary;
	args[SET_QUERY] = args[SET_TIMELINE_SIGNAL] = &timeline;
	fuzz_done(t, ioctls[op].call,
		  fuzz_ioctl(file.fd, ioctls[op].request, args[op]));
}

void op_syncobj_wait(struct fuzz_thread *t)
{
	syncobj_set_op(t, SET_WAIT);
}

void op_syncobj_timeline_wait(struct fuzz_thread *t)
{
	syncobj_set_op(t, SET_TIMELINE_WAIT);
}

void op_syncobj_reset(struct fuzz_thread *t)
{
	syncobj_set_op(t, SET_RESET);
}

void op_syncobj_signal(struct fuzz_thread *t)
{
	syncobj_set_op(t, SET_SIGNAL);
}

void op_syncobj_query(struct fuzz_thread *t)
{
	syncobj_set_op(t, SET_QUERY);
}

void op_syncobj_timeline_signal(struct fuzz_thread *t)
{
	syncobj_set_op(t, SET_TIMELINE_SIGNAL);
}

/* SYNCOBJ_HANDLE_TO_FD: a syncobj fd, or its fence as a sync_file. */
static int syncobj_export(struct fuzz_thread *t, int fd, uint32_t handle,
			  bool sync_file)
{
	struct drm_syncobj_handle args;
	int err;

	memset(&args, 0, sizeof(args));
	args.handle = value_u32(&t->rng, handle);
	args.flags = value_flags(&t->rng, sync_file ?
				 DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE : 0);
	args.fd = -1;
	args.pad = value_flags(&t->rng, 0);
	err = fuzz_ioctl(fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &args);
	fuzz_done(t, CALL_SYNCOBJ_HANDLE_TO_FD, err);
	return err ? -1 : args.fd;
}

void op_syncobj_handle_to_fd(struct fuzz_thread *t)
{
	bool sync_file = rng_chance(&t->rng, 60);
	struct pool_file file;
	int fd;

	if (!fuzz_file(t, &file))
		return;
	fd = syncobj_export(t, file.fd, syncobj_handle(t, &file), sync_file);
	if (fd >= 0)
		remember_fd(t, fd, sync_file ? FD_SYNC_FILE : FD_SYNCOBJ);
}

void op_syncobj_fd_to_handle(struct fuzz_thread *t)
{
	struct pool_fd fd = { .fd = -1 };
	struct drm_syncobj_handle args;
	struct pool_file file;
	bool import;
	int err;

	if (!fuzz_file(t, &file))
		return;
	pool_pick(&t->worker->pool, POOL_FD, &t->rng, 0, &fd);
	/* a sync_file's fence goes into an existing syncobj */
	import = fd.kind == FD_SYNC_FILE ? rng_chance(&t->rng, 85) :
					   rng_chance(&t->rng, 10);
	memset(&args, 0, sizeof(args));
	args.fd = value_fd(t, fd.fd);
	args.flags = value_flags(&t->rng, import ?
				 DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE : 0);
	args.handle = import ? syncobj_handle(t, &file) : 0;
	args.pad = value_flags(&t->rng, 0);
	err = fuzz_ioctl(file.fd, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &args);
	fuzz_done(t, CALL_SYNCOBJ_FD_TO_HANDLE, err);
	if (!err && !(args.flags & DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE))
		remember_syncobj(t, file.file, args.handle);
}

void op_syncobj_transfer(struct fuzz_thread *t)
{
	struct drm_syncobj_transfer args;
	struct pool_file file;

	if (!fuzz_file(t, &file))
		return;
	memset(&args, 0, sizeof(args));
	args.src_handle = syncobj_handle(t, &file);
	args.dst_handle = syncobj_handle(t, &file);
	args.src_point = rng_chance(&t->rng, 70) ? 0 : value_boundary(&t->rng);
	args.dst_point = rng_chance(&t->rng, 70) ? 0 : rng_below(&t->rng, 8);
	args.flags = value_flags(&t->rng, rng_chance(&t->rng, 20) ?
				 DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT : 0);
	args.pad = value_flags(&t->rng, 0);
	fuzz_done(t, CALL_SYNCOBJ_TRANSFER,
		  fuzz_ioctl(file.fd, DRM_IOCTL_SYNCOBJ_TRANSFER, &args));
}

/* SYNC_IOC_FILE_INFO; counts the fence's status once it has one. */
static void sync_file_info(struct fuzz_thread *t, int fd)
{
	struct sync_file_info info;
	int err;

	memset(&info, 0, sizeof(info));
	info.flags = value_flags(&t->rng, 0);
	err = ioctl(fd, SYNC_IOC_FILE_INFO, &info) ? errno : 0;
	fuzz_done(t, CALL_SYNC_FILE_INFO, err);
	if (err)
		return;
	if (info.status != 0)
		stats_record(t->worker->shared, CALL_FENCE_STATUS,
			     info.status < 0 ? -info.status : 0);
	/* then the fences themselves, when the scratch holds them */
	if (!info.num_fences || rng_chance(&t->rng, 50) ||
	    info.num_fences * sizeof(struct sync_fence_info) > FUZZ_SCRATCH_BYTES)
		return;
	info.sync_fence_info = value_write_ptr(&t->rng, t->scratch);
	if (rng_chance(&t->rng, 10))
		info.num_fences--;	/* too few: refused */
	fuzz_done(t, CALL_SYNC_FILE_INFO,
		  ioctl(fd, SYNC_IOC_FILE_INFO, &info) ? errno : 0);
}

/* A remembered sync_file's descriptor, or -1. */
static int pick_sync_file(struct fuzz_thread *t)
{
	struct pool_fd fds[32];
	unsigned int n = pool_collect(&t->worker->pool, POOL_FD, 0, fds, 32), sync = 0;

	for (unsigned int i = 0; i < n; i++) {
		if (fds[i].kind == FD_SYNC_FILE)
			fds[sync++] = fds[i];
	}
	return sync ? fds[rng_below(&t->rng, sync)].fd : -1;
}

void op_sync_file_info(struct fuzz_thread *t)
{
	int fd = pick_sync_file(t);

	if (fd >= 0)
		sync_file_info(t, fd);
}

void op_sync_file_merge(struct fuzz_thread *t)
{
	struct sync_merge_data args;
	int fd = pick_sync_file(t), err;

	if (fd < 0)
		return;
	memset(&args, 0, sizeof(args));
	strcpy(args.name, "tern-fuzz");
	args.fd2 = value_fd(t, pick_sync_file(t));
	args.flags = value_flags(&t->rng, 0);
	args.pad = value_flags(&t->rng, 0);
	err = ioctl(fd, SYNC_IOC_MERGE, &args) ? errno : 0;
	fuzz_done(t, CALL_SYNC_FILE_MERGE, err);
	if (!err)
		remember_fd(t, (int)args.fence, FD_SYNC_FILE);
}

/* ETIMEDOUT in the table: not signalled within the few milliseconds. */
void op_sync_file_poll(struct fuzz_thread *t)
{
	struct pollfd pfd = { .fd = pick_sync_file(t), .events = POLLIN };
	int ret;

	if (pfd.fd < 0)
		return;
	ret = poll(&pfd, 1, (int)rng_below(&t->rng, 10));
	fuzz_done(t, CALL_SYNC_FILE_POLL, ret < 0 ? errno : ret == 0 ? ETIMEDOUT : 0);
}

void fence_follow(struct fuzz_thread *t, int fd, uint32_t syncobj, bool patient)
{
	uint64_t roll = rng_below(&t->rng, 100);
	int sync_fd;

	if (patient || roll < 45) {
		struct drm_syncobj_wait args = {
			.handles = (uintptr_t)&syncobj,
			.count_handles = 1,
			.timeout_nsec = patient ? monotonic_ns() + PATIENT_WAIT_NS :
						  value_deadline(&t->rng),
			.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
		};

		fuzz_done(t, CALL_SYNCOBJ_WAIT,
			  fuzz_ioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, &args));
		return;
	}
	if (roll >= 85)
		return;
	sync_fd = syncobj_export(t, fd, syncobj, true);
	if (sync_fd < 0)
		return;
	sync_file_info(t, sync_fd);
	if (rng_chance(&t->rng, 50))
		remember_fd(t, sync_fd, FD_SYNC_FILE);
	else
		close(sync_fd);
}
