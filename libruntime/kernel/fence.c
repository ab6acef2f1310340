// SPDX-License-Identifier: MIT
/*
 * Kernel backend fences. Every submission gets a fresh syncobj as its
 * out-fence (submit.c); it never holds anything else, so sharing one reference
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

#define KBE_STATUS_UNKNOWN	0
#define KBE_STATUS_BIAS		1	/* cached = status + bias */

/* Nobody holds the fence: its syncobj is kept for another, or destroyed. */
static void kbe_fence_release(struct tern_fence *bfence)
{
	struct kbe_fence *fence = kbe_fence(bfence);
	struct kbe_device *dev = fence->dev;
	bool kept = false;

	pthread_mutex_lock(&dev->syncobjs_lock);
	if (dev->spare_count < KBE_SPARE_SYNCOBJS) {
		dev->spare_syncobjs[dev->spare_count++] = fence->syncobj;
		kept = true;
	}
	pthread_mutex_unlock(&dev->syncobjs_lock);
	if (!kept)
		drmSyncobjDestroy(dev->fd, fence->syncobj);
	free(fence);
}

/*
 * A fence whose syncobj will get its dma-fence from the SUBMIT (or the
 * import) that follows: a spare one if there is one. It may still hold
 * its last job's fence, signalled, which nobody can see any more.
 */
tern_status_t kbe_fence_create(struct kbe_device *dev, struct kbe_fence **out)
{
	struct kbe_fence *fence = calloc(1, sizeof(*fence));
	int ret = 0;

	if (!fence)
		return TERN_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&dev->syncobjs_lock);
	if (dev->spare_count)
		fence->syncobj = dev->spare_syncobjs[--dev->spare_count];
	pthread_mutex_unlock(&dev->syncobjs_lock);
	if (!fence->syncobj)
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
	/*
	 * Pending is the common answer, and a wait that does not wait says it
	 * in one ioctl; only an ended job's result needs its sync file.
	 */
	ret = drmSyncobjWait(fence->dev->fd, &fence->syncobj, 1, 0, 0, NULL);
	if (ret == -ETIME)
		return TERN_ERROR_NOT_READY;
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
