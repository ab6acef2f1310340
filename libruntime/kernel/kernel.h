/* SPDX-License-Identifier: MIT */
/*
 * The kernel backend's objects, shared by its files: device.c (finding
 * and opening devices, the ops), memory.c (buffers), submit.c (queues and
 * jobs), fence.c (syncobjs) and share.c (PRIME, handles, the fabric).
 */
#ifndef TERN_KERNEL_H
#define TERN_KERNEL_H

#include "internal.h"
#include "tern_accel.h"

#define KBE_SPARE_SYNCOBJS	256

struct kbe_device {
	struct tern_be_device base;
	int fd;				/* this context's open file */
	char node[64];
	struct drm_tern_info info;	/* as of open */
	int fabric_id;			/* -1 without DRM_TERN_TOPOLOGY */
	/*
	 * Buffers per GEM handle, indexed by handle (the kernel hands out
	 * small ones): importing a dma-buf into the file that exported it
	 * gives back the same handle, which must stay open until the last
	 * buffer over it is freed.
	 */
	pthread_mutex_t handles_lock;
	uint32_t *handle_refs;
	uint32_t handle_cap;
	/*
	 * Syncobjs whose fences were let go, kept for the next submissions:
	 * a SUBMIT replaces a syncobj's fence, so one can serve again, and
	 * each submission then costs one ioctl instead of three.
	 */
	pthread_mutex_t syncobjs_lock;
	uint32_t spare_syncobjs[KBE_SPARE_SYNCOBJS];
	uint32_t spare_count;
};

struct kbe_bo {
	struct tern_be_buffer base;
	uint32_t handle;
	uint64_t mmap_offset;
	void *cpu;			/* mapped on first use */
};

struct kbe_queue {
	struct tern_be_queue base;
	uint32_t id;
};

struct kbe_fence {
	struct tern_fence base;
	struct kbe_device *dev;
	uint32_t syncobj;
	/* Final status once known (fences only signal once), else 0. */
	_Atomic int cached;
};

static inline struct kbe_fence *kbe_fence(struct tern_fence *bfence)
{
	return tern_container_of(bfence, struct kbe_fence, base);
}

static inline struct kbe_device *kbe_device(struct tern_be_device *bdev)
{
	return tern_container_of(bdev, struct kbe_device, base);
}

static inline struct kbe_bo *kbe_bo(struct tern_be_buffer *bbuf)
{
	return tern_container_of(bbuf, struct kbe_bo, base);
}

static inline struct kbe_queue *kbe_queue(struct tern_be_queue *bqueue)
{
	return tern_container_of(bqueue, struct kbe_queue, base);
}

/* The status for an errno from an ioctl or open. */
tern_status_t kbe_errno_status(int err);

/* memory.c */
tern_status_t kbe_buffer_create(struct tern_be_device *bdev,
				tern_memory_kind_t kind, uint64_t bytes,
				struct tern_be_buffer **out);
tern_status_t kbe_buffer_map(struct tern_be_device *bdev,
			     struct tern_be_buffer *bbuf, void **ptr);
void kbe_buffer_free(struct tern_be_device *bdev, struct tern_be_buffer *bbuf);

/* share.c */
tern_status_t kbe_buffer_export(struct tern_be_device *bdev,
				struct tern_be_buffer *bbuf, int *fd);
tern_status_t kbe_buffer_import(struct tern_be_device *bdev, int fd,
				struct tern_be_buffer **out,
				tern_memory_kind_t *kind);
/* Counts one more buffer over @handle; on failure the caller closes it. */
tern_status_t kbe_handle_get(struct kbe_device *dev, uint32_t handle);
/* Closes @handle unless another buffer of @dev still uses it. */
void kbe_handle_put(struct kbe_device *dev, uint32_t handle);
tern_status_t kbe_ports(struct tern_be_device *bdev, tern_port_info_t *ports,
			uint32_t capacity, uint32_t *count);
/* This device's fabric id, or -1 if the driver has no DRM_TERN_TOPOLOGY. */
int kbe_fabric_id(int fd);

/* submit.c */
tern_status_t kbe_queue_create(struct tern_be_device *bdev, uint32_t engine,
			       struct tern_be_queue **out);
void kbe_queue_destroy(struct tern_be_device *bdev,
		       struct tern_be_queue *bqueue);
tern_status_t kbe_submit(struct tern_be_device *bdev,
			 struct tern_be_queue *bqueue, const void *packets,
			 uint32_t size, struct tern_fence *const *waits,
			 uint32_t wait_count, struct tern_fence **out);

/* fence.c */
/* A fence object around a new empty syncobj of @dev. */
tern_status_t kbe_fence_create(struct kbe_device *dev, struct kbe_fence **out);
tern_status_t kbe_fence_wait(struct tern_fence *bfence, int64_t timeout_ns);
tern_status_t kbe_fence_status(struct tern_fence *bfence);
tern_status_t kbe_fence_import(struct tern_be_device *bdev,
			       struct tern_fence *bfence,
			       struct tern_fence **out);

#endif /* TERN_KERNEL_H */
