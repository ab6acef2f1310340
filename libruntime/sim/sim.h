/* SPDX-License-Identifier: MIT */
/*
 * The simulator backend: Tern devices inside this process, executing
 * packets with the same device model tern.ko's mock hardware uses.
 *
 * A sim_device is the chip (memory, engines); a sim_context is one
 * tern_device_open() of it, the counterpart of an open DRM file (its own
 * device address space and queues). Engines are threads.
 */
#ifndef TERN_SIM_H
#define TERN_SIM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "internal.h"
#include "tern_accel.h"
#include "tern_fabric.h"

#define SIM_MAX_DEVICES		64
#define SIM_DEFAULT_DEVICES	4
#define SIM_DEFAULT_MEM_MB	256
#define SIM_DEFAULT_TIMEOUT_MS	5000	/* tern.ko's job_timeout_ms default */
#define SIM_ENGINES		4
#define SIM_PAGE_SIZE		4096ull
/* The driver's per-file device address space. */
#define SIM_VA_BASE		(4ull << 30)
#define SIM_VA_SIZE		(TERN_VA_LIMIT - SIM_VA_BASE)

struct sim_engine;

struct sim_fence {
	struct tern_fence base;
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* host waiters */
	bool signaled;
	tern_status_t status;
	struct sim_engine **watchers;	/* engines to wake on signal */
	uint32_t watcher_count, watcher_cap;
};

struct sim_job {
	struct sim_job *next;
	uint64_t seq;			/* engine-wide submission order */
	struct sim_fence *fence;
	struct sim_fence **deps;
	uint32_t dep_count;
	uint32_t size;
	uint64_t packets[];
};

struct sim_context;

struct sim_queue {
	struct tern_be_queue base;
	struct sim_context *ctx;
	struct sim_engine *engine;
	struct sim_queue *next;		/* the engine's queues */
	struct sim_job *head, *tail;	/* not yet started */
	struct sim_fence *last;		/* newest job's fence, or NULL */
};

struct sim_engine {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool running, stop, kicked;
	bool poll;			/* a dependency could not be watched */
	struct sim_queue *queues;
	uint64_t next_seq;
};

struct sim_device {
	int index;
	uint64_t mem_total;
	pthread_mutex_t lock;		/* mem_used, open_count, engine threads */
	uint64_t mem_used;
	unsigned int open_count;
	struct sim_engine engines[SIM_ENGINES];
};

/*
 * The pages of one buffer, shared by the buffer and its imports: they stay
 * until the last of them is freed. @refs and @token are protected by the
 * export table's lock (share.c).
 */
struct sim_memory {
	struct sim_device *dev;		/* the device whose memory it is */
	tern_memory_kind_t kind;
	uint64_t size;			/* page-rounded */
	void *cpu;
	unsigned int refs;
	int token;			/* memfd naming it once exported, or -1 */
	uint64_t token_dev, token_ino;	/* the token's identity */
};

struct sim_bo {
	struct tern_be_buffer base;
	struct sim_memory *memory;
};

struct sim_context {
	struct tern_be_device base;
	struct sim_device *dev;
	pthread_rwlock_t va_lock;	/* engines read, alloc/free write */
	struct sim_bo **bos;		/* sorted by address */
	size_t bo_count, bo_cap;
};

/* device.c */
extern uint64_t sim_job_timeout_ns;
/* The simulated machine's fabric; fabric id = device index. */
extern struct tern_fabric sim_fabric;
uint64_t sim_clock_ns(void);

/* memory.c */
tern_status_t sim_buffer_create(struct tern_be_device *bdev,
				tern_memory_kind_t kind, uint64_t bytes,
				struct tern_be_buffer **out);
tern_status_t sim_buffer_map(struct tern_be_device *bdev,
			     struct tern_be_buffer *bbuf, void **ptr);
void sim_buffer_free(struct tern_be_device *bdev, struct tern_be_buffer *bbuf);
/*
 * CPU pointer to [va, va + len) inside one buffer of @ctx, else NULL;
 * *@owner receives the fabric id of the device whose memory it is.
 */
void *sim_translate(void *ctx, uint64_t va, uint64_t len, uint32_t *owner);
/* Maps @memory (one reference taken by the caller) into @ctx. */
tern_status_t sim_bo_create(struct sim_context *ctx, struct sim_memory *memory,
			    struct sim_bo **out);

/* Pages of @size bytes, charged to @dev for device placement, zeroed. */
tern_status_t sim_pages_alloc(struct sim_device *dev, tern_memory_kind_t kind,
			      uint64_t size, void **cpu);
void sim_pages_free(struct sim_device *dev, tern_memory_kind_t kind,
		    uint64_t size, void *cpu);

/* share.c: export and import within this process */
/* Memory of @bytes (page-rounded) on @dev, one reference, zeroed. */
tern_status_t sim_memory_create(struct sim_device *dev, tern_memory_kind_t kind,
				uint64_t size, struct sim_memory **out);
void sim_memory_put(struct sim_memory *memory);
tern_status_t sim_buffer_export(struct tern_be_device *bdev,
				struct tern_be_buffer *bbuf, int *fd);
tern_status_t sim_buffer_import(struct tern_be_device *bdev, int fd,
				struct tern_be_buffer **out,
				tern_memory_kind_t *kind);

/* fence.c */
struct sim_fence *sim_fence_create(void);
void sim_fence_signal(struct sim_fence *fence, tern_status_t status);
/* True if signalled; otherwise @engine is woken when it is. */
bool sim_fence_ready_or_watch(struct sim_fence *fence,
			      struct sim_engine *engine);
tern_status_t sim_fence_wait(struct tern_fence *bfence, int64_t timeout_ns);
tern_status_t sim_fence_status(struct tern_fence *bfence);
tern_status_t sim_fence_import(struct tern_be_device *bdev,
			       struct tern_fence *bfence,
			       struct tern_fence **out);

/* submit.c: the engines, their queues, submission */
tern_status_t sim_engines_start(struct sim_device *dev);
void sim_engines_stop(struct sim_device *dev);
void sim_engine_kick(struct sim_engine *engine);
tern_status_t sim_queue_create(struct tern_be_device *bdev, uint32_t engine,
			       struct tern_be_queue **out);
void sim_queue_destroy(struct tern_be_device *bdev,
		       struct tern_be_queue *bqueue);
tern_status_t sim_submit(struct tern_be_device *bdev,
			 struct tern_be_queue *bqueue, const void *packets,
			 uint32_t size, struct tern_fence *const *waits,
			 uint32_t wait_count, struct tern_fence **out);

#endif /* TERN_SIM_H */
