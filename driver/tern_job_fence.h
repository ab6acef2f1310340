/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tern job fences: what userspace waits on for a job.
 */
#ifndef TERN_JOB_FENCE_H
#define TERN_JOB_FENCE_H

#include <linux/dma-fence.h>
#include <linux/spinlock.h>

/**
 * struct tern_job_fence - the fence a job's out-syncobj receives
 * @base: the fence
 * @lock: its own lock, so that it needs no device
 * @timeline: the engine's name, copied: the fence may outlive the device
 * @cb: follows the scheduler's finished fence
 *
 * Self-contained: it points to nothing of a device, and each one keeps
 * tern.ko loaded until it is freed, so that a sync_file kept open across
 * an unbind or rmmod never reaches freed memory or unloaded code.
 */
struct tern_job_fence {
	struct dma_fence base;
	spinlock_t lock;	/* of @base */
	char timeline[24];
	struct dma_fence_cb cb;
};

struct tern_job_fence *tern_job_fence_alloc(void);
void tern_job_fence_init(struct tern_job_fence *fence, const char *timeline,
			 u64 context, u64 seqno);
void tern_job_fence_follow(struct tern_job_fence *fence, struct dma_fence *finished);
void tern_job_fence_fini(void);

#endif /* TERN_JOB_FENCE_H */
