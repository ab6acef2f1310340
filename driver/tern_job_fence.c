// SPDX-License-Identifier: GPL-2.0
/*
 * Tern job fences.
 *
 * Userspace never sees the scheduler's own fences: their timeline name is
 * the scheduler's, which lives in the device, and their callbacks reach
 * the driver. A job's out-syncobj gets a struct tern_job_fence instead, which
 * follows the job's finished fence (same error, signalled right after it)
 * and depends on nothing else. Each one holds a reference to tern.ko from
 * its creation until it is freed after an RCU grace period; module exit
 * waits for those callbacks (tern_job_fence_fini()), so the module reference
 * is dropped only by code that is still there. A sync_file kept open
 * across an unbind or rmmod thus stays valid, and rmmod waits for it to
 * be closed ("module is in use").
 *
 * The scheduler's fences stay inside the driver: jobs, entities and the
 * dependencies of other jobs, all gone before a device is.
 */
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "tern_drv.h"
#include "tern_job_fence.h"

static const char *tern_fence_driver_name(struct dma_fence *base)
{
	return TERN_DRIVER_NAME;
}

static const char *tern_fence_timeline_name(struct dma_fence *base)
{
	return container_of(base, struct tern_job_fence, base)->timeline;
}

static void tern_fence_free_rcu(struct rcu_head *rcu)
{
	struct dma_fence *base = container_of(rcu, struct dma_fence, rcu);

	kfree(container_of(base, struct tern_job_fence, base));
	/* tern_job_fence_fini() waits for this callback to return. */
	module_put(THIS_MODULE);
}

static void tern_fence_release(struct dma_fence *base)
{
	/* Readers may still look at it under RCU (dma_fence_get_rcu()). */
	call_rcu(&base->rcu, tern_fence_free_rcu);
}

static const struct dma_fence_ops tern_fence_ops = {
	.get_driver_name = tern_fence_driver_name,
	.get_timeline_name = tern_fence_timeline_name,
	.release = tern_fence_release,
};

/* Allocated by SUBMIT, charged to the caller, before anything is pushed. */
struct tern_job_fence *tern_job_fence_alloc(void)
{
	return kzalloc(sizeof(struct tern_job_fence), GFP_KERNEL_ACCOUNT);
}

void tern_job_fence_init(struct tern_job_fence *fence, const char *timeline,
			 u64 context, u64 seqno)
{
	/* Called from an ioctl of ours: the module is live. */
	__module_get(THIS_MODULE);
	spin_lock_init(&fence->lock);
	strscpy(fence->timeline, timeline, sizeof(fence->timeline));
	dma_fence_init(&fence->base, &tern_fence_ops, &fence->lock, context,
		       seqno);
}

static void tern_fence_signal(struct dma_fence *finished,
			      struct dma_fence_cb *cb)
{
	struct tern_job_fence *fence = container_of(cb, struct tern_job_fence, cb);

	if (finished->error)
		dma_fence_set_error(&fence->base, finished->error);
	dma_fence_signal(&fence->base);
	dma_fence_put(&fence->base);
}

/* Signals @fence, with @finished's error, once @finished has signalled. */
void tern_job_fence_follow(struct tern_job_fence *fence, struct dma_fence *finished)
{
	/* The callback's reference. */
	dma_fence_get(&fence->base);
	if (dma_fence_add_callback(finished, &fence->cb, tern_fence_signal))
		tern_fence_signal(finished, &fence->cb);
}

/* Module exit: every tern_fence_free_rcu() has returned. */
void tern_job_fence_fini(void)
{
	rcu_barrier();
}
