/* SPDX-License-Identifier: MIT */
/*
 * The kernel backend's objects, shared by its files: device.c (finding
 * and opening devices, the ops), memory.c (buffers), submit.c (queues and
 * jobs), ring.c (user rings), fence.c (fence words and syncobjs) and
 * share.c (PRIME, handles, the fabric).
 *
 * Where the driver has user rings (DRM_TERN_CAP_USER_RING), every queue is a
 * ring and every fence a word of the device's fence table that the job's
 * record names: submitting and waiting cost no system call while the
 * engine has work. Without them, queues are QUEUE_CREATE's and fences are
 * syncobjs.
 */
#ifndef TERN_KERNEL_H
#define TERN_KERNEL_H

#include "internal.h"
#include "tern_accel.h"
#include "tern_model.h"

#define KBE_SPARE_SYNCOBJS	256
/* Fence words in a device's table (8 bytes each): fences held at once. */
#define KBE_FENCE_SLOTS		(1u << 17)

/*
 * A device file's fence table: a host buffer of KBE_FENCE_SLOTS words. A
 * ring job's record names a slot, whose word the engine sets to the fence's
 * value when the job ends (drm_tern_ring_record). A slot's values only
 * grow: each use takes the next generation, so a SEM_WAIT for a value
 * cannot pass on an older use's.
 */
struct kbe_fence_table {
	pthread_mutex_t lock;		/* the slot allocator */
	uint32_t handle;
	uint64_t va;			/* in the device file */
	uint64_t *words;		/* mapped */
	uint64_t *gens;			/* by slot */
	uint32_t *free_slots, free_count, next_slot;
	uint32_t *lingering, lingering_count;	/* let go, jobs not ended */
};

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
	bool rings;			/* the driver has user rings */
	struct kbe_fence_table fences;	/* with rings: the fence words */
};

struct kbe_bo {
	struct tern_be_buffer base;
	uint32_t handle;
	uint64_t mmap_offset;
	void *cpu;			/* mapped on first use */
};

/*
 * A user ring (ring.c): its buffer, mapped, and how far this process has
 * written. Held by its queue and by each fence of its jobs, so that a
 * fence can read why the ring stopped after the queue has gone.
 */
struct kbe_ring {
	atomic_uint refs;
	struct kbe_device *dev;
	uint32_t id;
	uint32_t handle;
	void *map;
	uint64_t map_size;
	struct drm_tern_ring_ctl *ctl;
	uint8_t *data;
	uint32_t size;
	pthread_mutex_t lock;		/* one writer at a time */
	uint64_t tail;
	uint64_t written;		/* jobs written; the last one's number */
};

struct kbe_queue {
	struct tern_be_queue base;
	uint32_t id;			/* QUEUE_CREATE's, without rings */
	struct kbe_ring *ring;		/* with rings */
};

/*
 * A job's completion: a syncobj (SUBMIT's), or a word of its device
 * file's fence table (a ring job's) with the value the word reaches when
 * the job ends.
 */
struct kbe_fence {
	struct tern_fence base;
	struct kbe_device *dev;
	uint32_t syncobj;
	struct kbe_ring *ring;		/* a ring job's, held */
	uint64_t seqno;			/* the job's number in its ring */
	uint32_t slot;			/* in its file's fence table */
	uint64_t value;
	const uint64_t *word;
	uint64_t va;			/* the word, as @dev addresses it */
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

/* ring.c */
tern_status_t kbe_ring_create(struct kbe_device *dev, uint32_t engine,
			      struct kbe_ring **out);
/* Waits for the ring's jobs to end, destroys it, lets the queue's go. */
void kbe_ring_destroy(struct kbe_ring *ring);
void kbe_ring_put(struct kbe_ring *ring);
/*
 * Writes a job of @packets, after a SEM_WAIT for each of @waits (word
 * fences of the ring's device file), ending in @fence's word, and kicks
 * the engine if it asks; @fence gets the job's number.
 */
tern_status_t kbe_ring_submit(struct kbe_ring *ring, const void *packets,
			      uint32_t size, struct tern_fence *const *waits,
			      uint32_t wait_count, struct kbe_fence *fence);
/* Sleeps until the ring has ended @seqno jobs, or @deadline_ns. */
tern_status_t kbe_ring_wait(struct kbe_ring *ring, uint64_t seqno,
			    int64_t deadline_ns);
/* Bytes a ring job's waits add in front of its packets, at most. */
#define KBE_RING_WAIT_BYTES	(TERN_MODEL_MAX_IN_SYNCOBJS * 24u)

/* fence.c */
/* A fence object around a new empty syncobj of @dev. */
tern_status_t kbe_fence_create(struct kbe_device *dev, struct kbe_fence **out);
/* With rings: @dev's fence table, and a fence in a free slot of it. */
tern_status_t kbe_fence_table_init(struct kbe_device *dev);
void kbe_fence_table_fini(struct kbe_device *dev);
tern_status_t kbe_fence_create_word(struct kbe_device *dev,
				    struct kbe_fence **out);
tern_status_t kbe_fence_wait(struct tern_fence *bfence, int64_t timeout_ns);
tern_status_t kbe_fence_status(struct tern_fence *bfence);
tern_status_t kbe_fence_import(struct tern_be_device *bdev,
			       struct tern_fence *bfence,
			       struct tern_fence **out);

#endif /* TERN_KERNEL_H */
