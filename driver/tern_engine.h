/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tern engines: the mock hardware that executes packet streams.
 */
#ifndef TERN_ENGINE_H
#define TERN_ENGINE_H

#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <drm/gpu_scheduler.h>

struct dma_fence;
struct tern_device;
struct tern_job;

/**
 * struct tern_engine - one engine of a device
 * @tdev: the device
 * @index: engine number, as userspace names it
 * @name: for the scheduler and its workers
 * @sched: orders the jobs of every queue on this engine
 * @wq: ordered: the engine runs one job at a time
 * @work: runs one step of the first job
 * @retry: wakes @work again while the first job waits on a semaphore
 * @backoff_ns: current wait between two looks at that semaphore
 * @lock: protects @jobs
 * @jobs: jobs handed over by the scheduler, first one executing
 * @fence_lock: lock of the hardware fences
 * @fence_context: timeline of the hardware fences
 * @fence_seqno: last hardware fence number handed out
 */
struct tern_engine {
	struct tern_device *tdev;
	unsigned int index;
	char name[24];
	struct drm_gpu_scheduler sched;
	struct workqueue_struct *wq;
	struct work_struct work;
	struct hrtimer retry;
	u64 backoff_ns;
	spinlock_t lock;		/* protects jobs */
	struct list_head jobs;
	spinlock_t fence_lock;		/* of the hardware fences */
	u64 fence_context;
	u64 fence_seqno;
};

int tern_engines_init(struct tern_device *tdev, unsigned int count,
		      unsigned int timeout_ms);
struct dma_fence *tern_engine_push(struct tern_engine *engine,
				   struct tern_job *job);
void tern_engine_kick(struct tern_engine *engine);

#endif /* TERN_ENGINE_H */
