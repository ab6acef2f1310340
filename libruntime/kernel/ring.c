// SPDX-License-Identifier: MIT
/*
 * Kernel backend user rings (Documentation/uapi.rst, User rings): a
 * queue whose jobs this process writes into a buffer the engine reads.
 * A job is a record: its waits as SEM_WAIT packets on the fence words they
 * name, its packets, and its own fence word (fence.c). The tail is stored
 * after the record, and the ring kicked only when the engine says it will
 * not look again by itself: while it has work, a job costs no ioctl.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <xf86drm.h>

#include "kernel.h"
#include "packets.h"

/* Bytes of records: four of the largest jobs, and their waits. */
#define KBE_RING_SIZE		(1u << 20)
#define KBE_RING_HDR		((uint32_t)sizeof(struct drm_tern_ring_record))

static int64_t kbe_ring_now_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static void kbe_ring_free(struct kbe_ring *ring)
{
	struct drm_gem_close close_args = { .handle = ring->handle };

	if (ring->map)
		munmap(ring->map, ring->map_size);
	if (ring->handle)
		drmIoctl(ring->dev->fd, DRM_IOCTL_GEM_CLOSE, &close_args);
	pthread_mutex_destroy(&ring->lock);
	free(ring);
}

void kbe_ring_put(struct kbe_ring *ring)
{
	if (ring && atomic_fetch_sub_explicit(&ring->refs, 1,
					      memory_order_acq_rel) == 1)
		kbe_ring_free(ring);
}

tern_status_t kbe_ring_create(struct kbe_device *dev, uint32_t engine,
			      struct kbe_ring **out)
{
	struct drm_tern_bo_create bo = {
		.size = DRM_TERN_RING_DATA_OFFSET + KBE_RING_SIZE,
		.placement = DRM_TERN_PLACEMENT_HOST,
	};
	struct drm_tern_ring_create args = {
		.engine = engine, .size = KBE_RING_SIZE,
	};
	struct kbe_ring *ring = calloc(1, sizeof(*ring));
	int err = 0;

	if (!ring)
		return TERN_ERROR_OUT_OF_MEMORY;
	atomic_init(&ring->refs, 1);
	pthread_mutex_init(&ring->lock, NULL);
	ring->dev = dev;
	ring->size = KBE_RING_SIZE;
	if (drmIoctl(dev->fd, DRM_IOCTL_TERN_BO_CREATE, &bo)) {
		err = errno;
		goto fail;
	}
	ring->handle = bo.handle;
	ring->map_size = bo.size;
	ring->map = mmap(NULL, bo.size, PROT_READ | PROT_WRITE, MAP_SHARED,
			 dev->fd, (off_t)bo.mmap_offset);
	if (ring->map == MAP_FAILED) {
		ring->map = NULL;
		err = ENOMEM;
		goto fail;
	}
	ring->ctl = ring->map;
	ring->data = (uint8_t *)ring->map + DRM_TERN_RING_DATA_OFFSET;
	args.handle = bo.handle;
	if (drmIoctl(dev->fd, DRM_IOCTL_TERN_RING_CREATE, &args)) {
		err = errno;
		goto fail;
	}
	ring->id = args.ring_id;
	*out = ring;
	return TERN_SUCCESS;
fail:
	kbe_ring_free(ring);
	return kbe_errno_status(err);
}

tern_status_t kbe_ring_wait(struct kbe_ring *ring, uint64_t seqno,
			    int64_t deadline_ns)
{
	struct drm_tern_ring_wait args = {
		.ring_id = ring->id, .done = seqno, .timeout_ns = deadline_ns,
	};

	if (!drmIoctl(ring->dev->fd, DRM_IOCTL_TERN_RING_WAIT, &args))
		return TERN_SUCCESS;
	switch (errno) {
	case ETIME:
		return TERN_ERROR_NOT_READY;
	case EIO:	/* stopped: the fence says what became of its job */
	case ENOENT:	/* destroyed once its jobs had ended */
		return TERN_SUCCESS;
	default:
		return kbe_errno_status(errno);
	}
}

void kbe_ring_destroy(struct kbe_ring *ring)
{
	struct drm_tern_ring_destroy args = { .ring_id = ring->id };

	/* Records not yet taken would be dropped: let them all run first. */
	pthread_mutex_lock(&ring->lock);
	while (kbe_ring_wait(ring, ring->written, INT64_MAX) ==
	       TERN_ERROR_NOT_READY)
		;
	pthread_mutex_unlock(&ring->lock);
	if (drmIoctl(ring->dev->fd, DRM_IOCTL_TERN_RING_DESTROY, &args))
		tern_debug("RING_DESTROY %u: %s", ring->id, strerror(errno));
	kbe_ring_put(ring);
}

static void kbe_ring_kick(struct kbe_ring *ring)
{
	struct drm_tern_ring_kick args = { .ring_id = ring->id };

	/* EIO: stopped, which the job's fence will say. */
	if (drmIoctl(ring->dev->fd, DRM_IOCTL_TERN_RING_KICK, &args) &&
	    errno != EIO)
		tern_debug("RING_KICK %u: %s", ring->id, strerror(errno));
}

/*
 * Makes room for @bytes of records (a PAD included) behind what the engine
 * has not taken: a full ring waits for its jobs, as a full command ring
 * holds up a driver. Ring lock held.
 */
static tern_status_t kbe_ring_room(struct kbe_ring *ring, uint64_t bytes)
{
	while (ring->size - (ring->tail -
			     __atomic_load_n(&ring->ctl->head,
					     __ATOMIC_ACQUIRE)) < bytes) {
		uint64_t done = __atomic_load_n(&ring->ctl->done,
						__ATOMIC_ACQUIRE);
		tern_status_t status;

		if (__atomic_load_n(&ring->ctl->error, __ATOMIC_ACQUIRE))
			return TERN_ERROR_BACKEND;
		kbe_ring_kick(ring);
		status = kbe_ring_wait(ring, done + 1,
				       kbe_ring_now_ns() + 1000000000ll);
		if (status && status != TERN_ERROR_NOT_READY)
			return status;
	}
	return TERN_SUCCESS;
}

/* The record's header and waits at @at, then @size bytes of packets. */
static void kbe_ring_write(struct kbe_ring *ring, uint64_t at,
			   const struct drm_tern_ring_record *rec,
			   struct tern_fence *const *waits, uint32_t wait_count,
			   const void *packets, uint32_t size)
{
	uint8_t *p = ring->data + at % ring->size;
	struct tern_packet_builder b;

	memcpy(p, rec, KBE_RING_HDR);
	tern_packets_init(&b, p + KBE_RING_HDR, rec->size);
	for (uint32_t i = 0; i < wait_count; i++) {
		const struct kbe_fence *w = kbe_fence(waits[i]);

		tern_packet_sem_wait(&b, w->va, w->value, false);
	}
	memcpy(p + KBE_RING_HDR + b.size, packets, size);
}

tern_status_t kbe_ring_submit(struct kbe_ring *ring, const void *packets,
			      uint32_t size, struct tern_fence *const *waits,
			      uint32_t wait_count, struct kbe_fence *fence)
{
	const uint32_t body = size + wait_count * 24u;
	const uint64_t record = KBE_RING_HDR + body;
	struct drm_tern_ring_record rec = {
		.size = body, .fence_va = fence->va,
		.fence_value = fence->value,
	};
	uint64_t at, left;
	tern_status_t status;

	if (body > ring->dev->info.max_submit_bytes)
		return TERN_ERROR_INVALID_ARGUMENT;
	pthread_mutex_lock(&ring->lock);
	at = ring->tail % ring->size;
	left = ring->size - at;
	status = kbe_ring_room(ring, record + (record > left ? left : 0));
	if (status) {
		pthread_mutex_unlock(&ring->lock);
		return status;
	}
	if (record > left) {
		/* Fill the end; fewer bytes than a header are skipped bare. */
		if (left >= KBE_RING_HDR) {
			struct drm_tern_ring_record pad = {
				.size = (uint32_t)(left - KBE_RING_HDR),
				.flags = DRM_TERN_RING_RECORD_PAD,
			};

			memcpy(ring->data + at, &pad, KBE_RING_HDR);
		}
		ring->tail += left;
	}
	kbe_ring_write(ring, ring->tail, &rec, waits, wait_count, packets,
		       size);
	ring->tail += record;
	fence->seqno = ++ring->written;
	atomic_fetch_add_explicit(&ring->refs, 1, memory_order_relaxed);
	fence->ring = ring;
	/* The tail after the record, then the engine's word on kicking. */
	__atomic_store_n(&ring->ctl->tail, ring->tail, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&ring->ctl->kick, __ATOMIC_SEQ_CST))
		kbe_ring_kick(ring);
	pthread_mutex_unlock(&ring->lock);
	return TERN_SUCCESS;
}
