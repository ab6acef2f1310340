// SPDX-License-Identifier: MIT
/*
 * Kernel backend queues and jobs: user rings (ring.c) with a word of the
 * fence table as each job's fence where the driver has them, else
 * QUEUE_CREATE/DESTROY and SUBMIT with a fresh syncobj (fence.c) as each
 * job's out-fence.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xf86drm.h>

#include "kernel.h"
#include "tern_model.h"

tern_status_t kbe_queue_create(struct tern_be_device *bdev,
			       uint32_t engine,
			       struct tern_be_queue **out)
{
	struct drm_tern_queue_create args = { .engine = engine };
	struct kbe_device *dev = kbe_device(bdev);
	struct kbe_queue *q = calloc(1, sizeof(*q));

	if (!q)
		return TERN_ERROR_OUT_OF_MEMORY;
	if (dev->rings) {
		tern_status_t status = kbe_ring_create(dev, engine, &q->ring);

		if (!status) {
			q->base.engine = engine;
			*out = &q->base;
			return TERN_SUCCESS;
		}
		/*
		 * Past the driver's ring limits (rings per file, ring memory):
		 * this queue submits its jobs instead, as without rings.
		 */
		q->ring = NULL;
		if (status != TERN_ERROR_OUT_OF_MEMORY) {
			free(q);
			return status;
		}
		tern_debug("no more rings: engine %u queue submits", engine);
	}
	if (drmIoctl(kbe_device(bdev)->fd, DRM_IOCTL_TERN_QUEUE_CREATE, &args)) {
		int err = errno;

		free(q);
		return kbe_errno_status(err);
	}
	q->base.engine = engine;
	q->id = args.queue_id;
	*out = &q->base;
	return TERN_SUCCESS;
}

void kbe_queue_destroy(struct tern_be_device *bdev,
		       struct tern_be_queue *bqueue)
{
	struct kbe_queue *q = kbe_queue(bqueue);
	struct drm_tern_queue_destroy args = { .queue_id = q->id };

	if (q->ring) {
		kbe_ring_destroy(q->ring);
		free(q);
		return;
	}
	if (drmIoctl(kbe_device(bdev)->fd, DRM_IOCTL_TERN_QUEUE_DESTROY, &args))
		tern_debug("QUEUE_DESTROY %u: %s", q->id, strerror(errno));
	free(q);
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

/*
 * A ring job: the waits still pending become SEM_WAIT packets on their
 * words, but another device file's, which this file's engine cannot
 * read, are waited for here; the job gets a fresh fence word.
 */
static tern_status_t kbe_ring_job(struct kbe_device *dev, struct kbe_ring *ring,
				  const void *packets, uint32_t size,
				  struct tern_fence *const *waits,
				  uint32_t wait_count, struct tern_fence **out)
{
	struct tern_fence *pending[TERN_MODEL_MAX_IN_SYNCOBJS];
	uint32_t n = 0, i;
	struct kbe_fence *fence;
	tern_status_t status;

	if (wait_count > TERN_MODEL_MAX_IN_SYNCOBJS)
		return TERN_ERROR_INVALID_ARGUMENT;
	for (i = 0; i < wait_count; i++) {
		struct kbe_fence *w = kbe_fence(waits[i]);

		if (kbe_fence_status(waits[i]) != TERN_ERROR_NOT_READY)
			continue;
		if (w->dev == dev && !w->syncobj)
			pending[n++] = waits[i];
		else
			kbe_fence_wait(waits[i], TERN_WAIT_FOREVER);
	}
	status = kbe_fence_create_word(dev, &fence);
	if (status)
		return status;
	status = kbe_ring_submit(ring, packets, size, pending, n, fence);
	if (status) {
		tern_fence_put(&fence->base);
		return status;
	}
	*out = &fence->base;
	return TERN_SUCCESS;
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

	if (kbe_queue(bqueue)->ring)
		return kbe_ring_job(dev, kbe_queue(bqueue)->ring, packets, size,
				    waits, wait_count, out);
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
