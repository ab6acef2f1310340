/* SPDX-License-Identifier: MIT */
/*
 * The backend seam: what libtern needs from whatever runs its packets.
 *
 * Two implementations, each a folder with the same files (device.c,
 * memory.c, submit.c, fence.c, share.c): kernel/ (tern.ko through libdrm)
 * and sim/ (the simulated machine's devices, over its socket). The rest of
 * the library only builds packet streams and keeps bookkeeping; everything
 * device-specific goes through struct tern_backend_ops.
 */
#ifndef TERN_BACKEND_H
#define TERN_BACKEND_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "tern.h"
#include "tern_tile.h"

/*
 * Backend objects. Each backend embeds these bases in its own structures
 * and recovers them with container_of; the library reads only the fields
 * here.
 */
struct tern_be_device {
	int index;
};

struct tern_be_buffer {
	uint64_t size;		/* page-rounded size */
	uint64_t va;		/* device virtual address in the owning device file */
};

/*
 * @target: what @engine is (its type and core, the chip's cores), set by
 * libtern when it makes the queue (tern_device_target()), for checking
 * streams before they are sent.
 */
struct tern_be_queue {
	uint32_t engine;
	struct tern_model_target target;
};

/*
 * The completion of one submitted job. Reference counted: the library and
 * the backend each hold references; the last put releases it. A fence can
 * be waited on by queues of its own backend device only; fence_import
 * makes a fence usable on another device.
 */
struct tern_fence {
	atomic_uint refs;
	void (*release)(struct tern_fence *fence);
};

static inline struct tern_fence *tern_fence_get(struct tern_fence *fence)
{
	atomic_fetch_add_explicit(&fence->refs, 1, memory_order_relaxed);
	return fence;
}

static inline void tern_fence_put(struct tern_fence *fence)
{
	if (fence && atomic_fetch_sub_explicit(&fence->refs, 1,
					      memory_order_acq_rel) == 1)
		fence->release(fence);
}

/* What a device is; filled by device_query. */
struct tern_be_info {
	char node[64];
	uint64_t memory_bytes;
	uint64_t capabilities;		/* TERN_DEVICE_CAP_* */
	uint64_t clock_hz;
	uint32_t engine_count;		/* all of them */
	uint32_t dma_engine_count;	/* the first ones; then 3 per core */
	struct tern_core_shape cores;	/* cores 0: no compute */
	uint32_t fabric_port_count;
	uint32_t max_submit_bytes;
	uint32_t max_waits;		/* wait fences per submission */
	int fabric_id;			/* -1 when the device has no fabric */
};

/* Timeout value for fence_wait meaning "forever". */
#define TERN_WAIT_FOREVER	INT64_MAX

struct tern_backend_ops {
	tern_backend_t kind;

	/* Finds devices; called once per process. */
	tern_status_t (*init)(void);
	/*
	 * Number of devices; TERN_ERROR_NO_DEVICE (or _PERMISSION when the
	 * only devices found could not be opened) with *count = 0.
	 */
	tern_status_t (*device_count)(int *count);
	/* Opens a fresh device context (its own address space and queues). */
	tern_status_t (*device_open)(int index, struct tern_be_device **dev);
	/* Everything created through @dev has been released already. */
	void (*device_close)(struct tern_be_device *dev);
	tern_status_t (*device_query)(struct tern_be_device *dev,
				      struct tern_be_info *info);
	/*
	 * Names, in @buf, the machine whose devices this process uses, where
	 * one host may hold several (simulated machines): processes whose
	 * names differ share no memory. NULL where the host is the machine.
	 */
	void (*machine_name)(char *buf, size_t len);
	/*
	 * The host wrote, through a mapping, a word a job may wait on: the
	 * device's waiting jobs look again now. NULL where they look often
	 * enough by themselves.
	 */
	void (*host_wrote)(struct tern_be_device *dev);
	tern_status_t (*memory_usage)(struct tern_be_device *dev,
				      uint64_t *used, uint64_t *total);

	tern_status_t (*buffer_create)(struct tern_be_device *dev,
				       tern_memory_kind_t kind, uint64_t bytes,
				       struct tern_be_buffer **buf);
	tern_status_t (*buffer_map)(struct tern_be_device *dev,
				    struct tern_be_buffer *buf, void **ptr);
	void (*buffer_free)(struct tern_be_device *dev,
			    struct tern_be_buffer *buf);
	/* A new file descriptor naming @buf's memory (dma-buf on tern.ko). */
	tern_status_t (*buffer_export)(struct tern_be_device *dev,
				       struct tern_be_buffer *buf, int *fd);
	/*
	 * A buffer of @dev over the memory @fd names (any device's); the
	 * memory stays until both it and the exporter's buffer are freed.
	 * TERN_ERROR_INVALID_ARGUMENT for an fd that names no Tern buffer.
	 */
	tern_status_t (*buffer_import)(struct tern_be_device *dev, int fd,
				       struct tern_be_buffer **buf,
				       tern_memory_kind_t *kind);

	/* Up to @capacity ports of @dev; *@count gets how many it has. */
	tern_status_t (*ports)(struct tern_be_device *dev,
			       tern_port_info_t *ports, uint32_t capacity,
			       uint32_t *count);
	tern_status_t (*queue_create)(struct tern_be_device *dev,
				      uint32_t engine,
				      struct tern_be_queue **queue);
	/* Jobs already submitted to @queue complete before it goes. */
	void (*queue_destroy)(struct tern_be_device *dev,
			      struct tern_be_queue *queue);

	/*
	 * Runs @packets (already well formed) on @queue after every fence in
	 * @waits (all usable on @dev) has signalled; *@out receives the job's
	 * fence with one reference for the caller.
	 */
	tern_status_t (*submit)(struct tern_be_device *dev,
				struct tern_be_queue *queue,
				const void *packets, uint32_t size,
				struct tern_fence *const *waits,
				uint32_t wait_count, struct tern_fence **out);

	/*
	 * TERN_SUCCESS once @fence has signalled (whatever its job's result),
	 * TERN_ERROR_NOT_READY if @timeout_ns (relative) passed first.
	 */
	tern_status_t (*fence_wait)(struct tern_fence *fence, int64_t timeout_ns);
	/* TERN_ERROR_NOT_READY, TERN_SUCCESS or the job's error. */
	tern_status_t (*fence_status)(struct tern_fence *fence);
	/*
	 * The application has seen @fence end (a stream or event it
	 * synchronized or queried): in modelled time, what it submits next
	 * starts after that job. NULL where time is the host's own.
	 */
	void (*fence_seen)(struct tern_fence *fence);
	/*
	 * A reference to a fence equivalent to @fence that queues of @dev can
	 * wait for (@fence itself when it already belongs to @dev).
	 */
	tern_status_t (*fence_import)(struct tern_be_device *dev,
				      struct tern_fence *fence,
				      struct tern_fence **out);
};

extern const struct tern_backend_ops tern_kernel_backend;
extern const struct tern_backend_ops tern_sim_backend;

/*
 * The backend chosen for this process, or the configuration error that
 * prevents choosing one (then *@ops is NULL).
 */
tern_status_t tern_backend_ops_get(const struct tern_backend_ops **ops);

#endif /* TERN_BACKEND_H */
