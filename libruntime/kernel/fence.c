// SPDX-License-Identifier: MIT
/*
 * Kernel backend fences, of two kinds.
 *
 * With user rings, a fence is a word of the device file's fence table
 * that the job's record names (ring.c): the engine sets it to the fence's
 * value, with the job's error in bits 0-15, when the job ends. Its status
 * is a load; a wait watches the word, then sleeps in RING_WAIT. A slot is
 * used again only once its last job has ended, so its word only grows.
 *
 * Otherwise every submission gets a fresh syncobj as its out-fence
 * (submit.c); it never holds anything else, so sharing one reference
 * counted fence between a stream and its events is safe. A job's error is
 * the status of its dma-fence, read through a sync_file export.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/sync_file.h>
#include <xf86drm.h>

#include "kernel.h"

#define KBE_STATUS_UNKNOWN	0
#define KBE_STATUS_BIAS		1	/* cached = status + bias */

/* Whether a word fence's job has ended. */
static bool kbe_word_done(const struct kbe_fence *fence)
{
	uint64_t word = __atomic_load_n(fence->word, __ATOMIC_ACQUIRE);

	return (word & ~DRM_TERN_RING_FENCE_ERROR_MASK) >= fence->value;
}

/* On failure the caller still calls kbe_fence_table_fini(). */
tern_status_t kbe_fence_table_init(struct kbe_device *dev)
{
	struct kbe_fence_table *t = &dev->fences;
	struct drm_tern_bo_create bo = {
		.size = (uint64_t)KBE_FENCE_SLOTS * 8,
		.placement = DRM_TERN_PLACEMENT_HOST,
	};
	void *map;

	pthread_mutex_init(&t->lock, NULL);
	if (drmIoctl(dev->fd, DRM_IOCTL_TERN_BO_CREATE, &bo))
		return kbe_errno_status(errno);
	t->handle = bo.handle;
	t->va = bo.device_va;
	map = mmap(NULL, bo.size, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd,
		   (off_t)bo.mmap_offset);
	t->gens = calloc(KBE_FENCE_SLOTS, sizeof(*t->gens));
	t->free_slots = malloc(KBE_FENCE_SLOTS * sizeof(*t->free_slots));
	t->lingering = malloc(KBE_FENCE_SLOTS * sizeof(*t->lingering));
	if (map != MAP_FAILED)
		t->words = map;
	/* On failure, closing the device undoes what was done. */
	if (!t->words || !t->gens || !t->free_slots || !t->lingering)
		return TERN_ERROR_OUT_OF_MEMORY;
	return TERN_SUCCESS;
}

void kbe_fence_table_fini(struct kbe_device *dev)
{
	struct kbe_fence_table *t = &dev->fences;
	struct drm_gem_close close_args = { .handle = t->handle };

	if (t->words)
		munmap(t->words, (size_t)KBE_FENCE_SLOTS * 8);
	if (t->handle)
		drmIoctl(dev->fd, DRM_IOCTL_GEM_CLOSE, &close_args);
	free(t->gens);
	free(t->free_slots);
	free(t->lingering);
	t->words = NULL;
	t->gens = NULL;
	t->free_slots = NULL;
	t->lingering = NULL;
	t->handle = 0;
	pthread_mutex_destroy(&t->lock);
}

/*
 * The slot goes back to the table. One whose job still runs (its fence let
 * go early, as a stream lets its last fence go at each submission) waits
 * among the lingering until the job has ended, so that a later use's
 * value is never followed by this one's.
 */
static void kbe_word_release(struct kbe_fence *fence)
{
	struct kbe_fence_table *t = &fence->dev->fences;
	bool ended = !fence->seqno || kbe_word_done(fence);

	pthread_mutex_lock(&t->lock);
	if (ended)
		t->free_slots[t->free_count++] = fence->slot;
	else
		t->lingering[t->lingering_count++] = fence->slot;
	pthread_mutex_unlock(&t->lock);
	kbe_ring_put(fence->ring);
	free(fence);
}

/* Frees the lingering slots whose jobs have ended. Table lock held. */
static void kbe_word_reclaim(struct kbe_fence_table *t)
{
	for (uint32_t i = 0; i < t->lingering_count;) {
		uint32_t slot = t->lingering[i];
		uint64_t word = __atomic_load_n(&t->words[slot],
						__ATOMIC_ACQUIRE);

		if ((word & ~DRM_TERN_RING_FENCE_ERROR_MASK) < t->gens[slot] << 16) {
			i++;
			continue;
		}
		t->free_slots[t->free_count++] = slot;
		t->lingering[i] = t->lingering[--t->lingering_count];
	}
}

/* Nobody holds the fence: its syncobj is kept for another, or destroyed. */
static void kbe_fence_release(struct tern_fence *bfence)
{
	struct kbe_fence *fence = kbe_fence(bfence);
	struct kbe_device *dev = fence->dev;
	bool kept = false;

	if (!fence->syncobj) {
		kbe_word_release(fence);
		return;
	}
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

tern_status_t kbe_fence_create_word(struct kbe_device *dev,
				    struct kbe_fence **out)
{
	struct kbe_fence_table *t = &dev->fences;
	struct kbe_fence *fence = calloc(1, sizeof(*fence));
	uint32_t slot = UINT32_MAX;

	if (!fence)
		return TERN_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&t->lock);
	if (!t->free_count && (t->lingering_count > KBE_FENCE_SLOTS / 64 ||
				t->next_slot == KBE_FENCE_SLOTS))
		kbe_word_reclaim(t);
	if (t->free_count)
		slot = t->free_slots[--t->free_count];
	else if (t->next_slot < KBE_FENCE_SLOTS)
		slot = t->next_slot++;
	if (slot != UINT32_MAX)
		fence->value = ++t->gens[slot] << 16;
	pthread_mutex_unlock(&t->lock);
	if (slot == UINT32_MAX) {
		free(fence);
		return TERN_ERROR_OUT_OF_MEMORY;
	}
	atomic_init(&fence->base.refs, 1);
	fence->base.release = kbe_fence_release;
	fence->dev = dev;
	fence->slot = slot;
	fence->word = &t->words[slot];
	fence->va = t->va + (uint64_t)slot * 8;
	*out = fence;
	return TERN_SUCCESS;
}

static int64_t kbe_deadline(int64_t timeout_ns)
{
	struct timespec now;

	if (timeout_ns == TERN_WAIT_FOREVER)
		return INT64_MAX;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec +
	       (timeout_ns > 0 ? timeout_ns : 0);
}

/*
 * Watches a word fence a while before sleeping: a job that ends within
 * that time costs no system call, and on a busy engine a sleep costs more
 * than the job.
 */
#define KBE_WORD_SPIN_NS	20000ll

static tern_status_t kbe_word_wait(struct kbe_fence *fence,
				   int64_t timeout_ns)
{
	int64_t deadline = kbe_deadline(timeout_ns), spin;
	tern_status_t status;

	spin = kbe_deadline(timeout_ns < KBE_WORD_SPIN_NS ? timeout_ns :
			    KBE_WORD_SPIN_NS);
	do {
		for (int i = 0; i < 64; i++) {
			if (kbe_word_done(fence))
				return TERN_SUCCESS;
			tern_cpu_relax();
		}
	} while (kbe_deadline(0) < spin);
	status = kbe_ring_wait(fence->ring, fence->seqno, deadline);
	if (status == TERN_ERROR_NOT_READY && kbe_word_done(fence))
		return TERN_SUCCESS;
	return status;
}

tern_status_t kbe_fence_wait(struct tern_fence *bfence, int64_t timeout_ns)
{
	struct kbe_fence *fence = kbe_fence(bfence);
	int64_t deadline;
	int ret;

	if (!fence->syncobj)
		return kbe_word_wait(fence, timeout_ns);
	deadline = kbe_deadline(timeout_ns);
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

/* Why a stopped ring's job will never end. */
static tern_status_t kbe_ring_error(int err)
{
	/* -EIO: banned after its jobs timed out, as a queue is. */
	return err == -EIO ? TERN_ERROR_TIMEOUT : TERN_ERROR_BACKEND;
}

static tern_status_t kbe_word_status(struct kbe_fence *fence)
{
	uint64_t word = __atomic_load_n(fence->word, __ATOMIC_ACQUIRE);
	int err;

	if ((word & ~DRM_TERN_RING_FENCE_ERROR_MASK) >= fence->value) {
		err = (int)(word & DRM_TERN_RING_FENCE_ERROR_MASK);
		return err ? kbe_fence_error(err) : TERN_SUCCESS;
	}
	err = __atomic_load_n(&fence->ring->ctl->error, __ATOMIC_ACQUIRE);
	/* Stopped: pending only while the kernel says its job may still end. */
	if (err && kbe_ring_wait(fence->ring, fence->seqno, 0) ==
	    TERN_SUCCESS && !kbe_word_done(fence))
		return kbe_ring_error(err);
	return kbe_word_done(fence) ? kbe_word_status(fence) :
				      TERN_ERROR_NOT_READY;
}

tern_status_t kbe_fence_status(struct tern_fence *bfence)
{
	struct kbe_fence *fence = kbe_fence(bfence);
	struct sync_file_info info = { 0 };
	tern_status_t status;
	int cached = atomic_load(&fence->cached), fd, ret;

	if (cached != KBE_STATUS_UNKNOWN)
		return (tern_status_t)(cached - KBE_STATUS_BIAS);
	if (!fence->syncobj)
		return kbe_word_status(fence);
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

	/*
	 * A word fence serves every device as it is: another file's queue
	 * cannot read the word, so submit.c waits for it on the host.
	 */
	if (src->dev == dev || !src->syncobj) {
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
