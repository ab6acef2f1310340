// SPDX-License-Identifier: MIT
/*
 * Kernel backend jobs and fences. Every submission gets a fresh syncobj as
 * its out-fence; it never holds anything else, so sharing one reference
 * counted fence between a stream and its events is safe. A job's error is
 * the status of its dma-fence, read through a sync_file export.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/sync_file.h>
#include <xf86drm.h>

#include "kernel.h"
#include "tern_model.h"

struct kbe_fence {
	struct tern_fence base;
	struct kbe_device *dev;
	uint32_t syncobj;
	/* Final status once known (fences only signal once), else 0. */
	_Atomic int cached;
};

#define KBE_STATUS_UNKNOWN	0
#define KBE_STATUS_BIAS		1	/* cached = status + bias */

static struct kbe_fence *kbe_fence(struct tern_fence *bfence)
{
	return tern_container_of(bfence, struct kbe_fence, base);
}

static void kbe_fence_release(struct tern_fence *bfence)
{
	struct kbe_fence *fence = kbe_fence(bfence);

	drmSyncobjDestroy(fence->dev->fd, fence->syncobj);
	free(fence);
}

/* A fence object around a new empty syncobj of @dev. */
static tern_status_t kbe_fence_create(struct kbe_device *dev,
				      struct kbe_fence **out)
{
	struct kbe_fence *fence = calloc(1, sizeof(*fence));
	int ret;

	if (!fence)
		return TERN_ERROR_OUT_OF_MEMORY;
	ret = drmSyncobjCreate(dev->fd, 0, &fence->syncobj);
	if (ret) {
		ret = errno;
		free(fence);
		return kbe_errno_status(ret);
	}
	atomic_init(&fence->base.refs, 1);
	fence->base.release = kbe_fence_release;
	fence->dev = dev;
	*out = fence;
	return TERN_SUCCESS;
}

/* How long SUBMIT may wait for room before the caller hears of it. */
#define KBE_SUBMIT_BUSY_NS	(60ll * 1000000000ll)

static int64_t kbe_now_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/*
 * SUBMIT, waiting while the file's jobs in flight are at the driver's
 * limit (-EBUSY): its own jobs end, or time out, so room comes; if none
 * has come within a minute, something holds them all, and the caller
 * gets EBUSY rather than a hang.
 */
static int kbe_submit_ioctl(int fd, struct drm_tern_submit *args)
{
	struct timespec pause = { .tv_nsec = 20000 };
	int64_t deadline = 0;

	while (drmIoctl(fd, DRM_IOCTL_TERN_SUBMIT, args)) {
		if (errno != EBUSY)
			return errno;
		if (!deadline)
			deadline = kbe_now_ns() + KBE_SUBMIT_BUSY_NS;
		else if (kbe_now_ns() > deadline)
			return EBUSY;
		nanosleep(&pause, NULL);
		if (pause.tv_nsec < 1000000)
			pause.tv_nsec *= 2;
	}
	return 0;
}

tern_status_t kbe_submit(struct tern_be_device *bdev,
			 struct tern_be_queue *bqueue, const void *packets,
			 uint32_t size, struct tern_fence *const *waits,
			 uint32_t wait_count, struct tern_fence **out)
{
	struct kbe_device *dev = kbe_device(bdev);
	uint32_t local[TERN_MODEL_MAX_IN_SYNCOBJS], *handles = local;
	struct drm_tern_submit args = {
		.queue_id = kbe_queue(bqueue)->id,
		.packets = (uintptr_t)packets,
		.packets_size = size,
		.in_syncobj_count = wait_count,
	};
	struct kbe_fence *fence;
	tern_status_t status;
	uint32_t i;
	int ret;

	if (wait_count > TERN_MODEL_MAX_IN_SYNCOBJS) {
		handles = malloc(wait_count * sizeof(*handles));
		if (!handles)
			return TERN_ERROR_OUT_OF_MEMORY;
	}
	for (i = 0; i < wait_count; i++)
		handles[i] = kbe_fence(waits[i])->syncobj;
	args.in_syncobjs = (uintptr_t)handles;
	status = kbe_fence_create(dev, &fence);
	if (status)
		goto out;
	args.out_syncobj = fence->syncobj;
	ret = kbe_submit_ioctl(dev->fd, &args);
	if (ret) {
		/*
		 * EIO: the queue is banned, after its jobs timed out; EBUSY:
		 * none of the file's jobs in flight ended for a minute.
		 */
		status = ret == EIO || ret == EBUSY ? TERN_ERROR_TIMEOUT :
			 kbe_errno_status(ret);
		tern_fence_put(&fence->base);
		goto out;
	}
	*out = &fence->base;
out:
	if (handles != local)
		free(handles);
	return status;
}

tern_status_t kbe_fence_wait(struct tern_fence *bfence, int64_t timeout_ns)
{
	struct kbe_fence *fence = kbe_fence(bfence);
	int64_t deadline = INT64_MAX;
	struct timespec now;
	int ret;

	if (timeout_ns != TERN_WAIT_FOREVER) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		deadline = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec +
			   (timeout_ns > 0 ? timeout_ns : 0);
	}
	ret = drmSyncobjWait(fence->dev->fd, &fence->syncobj, 1, deadline, 0,
			     NULL);
	if (ret == 0)
		return TERN_SUCCESS;
	return ret == -ETIME ? TERN_ERROR_NOT_READY : kbe_errno_status(-ret);
}

/* The status for a dma-fence error. */
static tern_status_t kbe_fence_error(int err)
{
	switch (err) {
	case EFAULT:
		return TERN_ERROR_DEVICE_FAULT;
	case ETIMEDOUT:
	case ETIME:
	case EIO:	/* its queue was banned after jobs timed out */
		return TERN_ERROR_TIMEOUT;
	case ECANCELED:
		return TERN_ERROR_CANCELLED;
	case ENOLINK:
		return TERN_ERROR_NO_ROUTE;
	case ECONNRESET:	/* a SEM_WAIT_ABORT's abort word was set */
		return TERN_ERROR_PEER_FAILED;
	default:
		return TERN_ERROR_BACKEND;
	}
}

tern_status_t kbe_fence_status(struct tern_fence *bfence)
{
	struct kbe_fence *fence = kbe_fence(bfence);
	struct sync_file_info info = { 0 };
	tern_status_t status;
	int cached = atomic_load(&fence->cached), fd, ret;

	if (cached != KBE_STATUS_UNKNOWN)
		return (tern_status_t)(cached - KBE_STATUS_BIAS);
	if (drmSyncobjExportSyncFile(fence->dev->fd, fence->syncobj, &fd))
		return kbe_errno_status(errno);
	ret = ioctl(fd, SYNC_IOC_FILE_INFO, &info);
	close(fd);
	if (ret)
		return TERN_ERROR_BACKEND;
	if (info.status == 0)
		return TERN_ERROR_NOT_READY;
	status = info.status > 0 ? TERN_SUCCESS : kbe_fence_error(-info.status);
	atomic_store(&fence->cached, (int)status + KBE_STATUS_BIAS);
	return status;
}

tern_status_t kbe_fence_import(struct tern_be_device *bdev,
			       struct tern_fence *bfence,
			       struct tern_fence **out)
{
	struct kbe_device *dev = kbe_device(bdev);
	struct kbe_fence *src = kbe_fence(bfence), *fence;
	tern_status_t status;
	int fd;

	if (src->dev == dev) {
		*out = tern_fence_get(bfence);
		return TERN_SUCCESS;
	}
	/* Another open file: carry the dma-fence over as a sync_file. */
	if (drmSyncobjExportSyncFile(src->dev->fd, src->syncobj, &fd))
		return kbe_errno_status(errno);
	status = kbe_fence_create(dev, &fence);
	if (status == TERN_SUCCESS) {
		if (drmSyncobjImportSyncFile(dev->fd, fence->syncobj, fd)) {
			status = kbe_errno_status(errno);
			tern_fence_put(&fence->base);
		}
	}
	close(fd);
	if (status == TERN_SUCCESS)
		*out = &fence->base;
	return status;
}
