// SPDX-License-Identifier: GPL-2.0
/*
 * Tern queues.
 *
 * A queue is a drm_sched entity on one engine's scheduler: the jobs of one
 * queue run in submission order, and the scheduler interleaves queues.
 *
 * Every job holds its queue, so the entity outlives whatever the scheduler
 * does with the queue's last job (on 6.1 it still touches the entity after
 * popping that job, while drm_sched_entity_fini() only waits for it when
 * jobs are left). The entity is torn down only when the queue is freed,
 * idle by then: tearing down an entity the scheduler may be popping races
 * it (on 6.12 a pop can put a killed entity back in the run queue's tree).
 * A closing file only lets its queues go: their jobs reach the engine and
 * end at once with -ECANCELED, its address space being closed.
 *
 * QUEUE_DESTROY returns at once: the jobs already submitted still run and
 * signal their fences, and the queue goes when they have ended. Its id
 * stays taken until then (ids go round a 32-bit space; only queues not
 * destroyed count against DRM_TERN_MAX_QUEUES_PER_FILE). A queue whose
 * jobs ran past the job timeout queue_ban_timeouts times is banned:
 * SUBMIT to it fails with -EIO and its jobs not yet ended fail with -EIO
 * (tern_engine.c).
 */
#include <linux/dma-fence.h>
#include <linux/pid.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include "tern_accel.h"
#include "tern_drv.h"
#include "tern_engine.h"
#include "tern_queue.h"
#include "tern_vm.h"

static void tern_queue_release(struct kref *ref)
{
	struct tern_queue *queue = container_of(ref, struct tern_queue, ref);
	struct tern_file *tfile = queue->tfile;

	/* Every job of the queue is freed: the entity is idle. */
	drm_sched_entity_fini(&queue->entity);
	xa_erase(&tfile->queues, queue->id);
	mutex_destroy(&queue->submit_lock);
	kfree(queue);
	tern_file_put(tfile);
}

void tern_queue_put(struct tern_queue *queue)
{
	kref_put(&queue->ref, tern_queue_release);
}

/* The queue @id of @tfile, held, or NULL if there is none (or destroyed). */
struct tern_queue *tern_queue_lookup(struct tern_file *tfile, u32 id)
{
	struct tern_queue *queue;

	xa_lock(&tfile->queues);
	queue = xa_load(&tfile->queues, id);
	if (queue && !queue->destroyed)
		kref_get(&queue->ref);
	else
		queue = NULL;
	xa_unlock(&tfile->queues);
	return queue;
}

/*
 * Counts a job of @queue that ran past the job timeout, and bans the
 * queue at the queue_ban_timeouts-th. Called from the job timeout.
 */
void tern_queue_count_timeout(struct tern_queue *queue)
{
	const struct tern_usage *owner = &queue->tfile->vm->usage;

	if (atomic_inc_return(&queue->timeouts) != tern_queue_ban_timeouts)
		return;

	WRITE_ONCE(queue->banned, true);
	dev_notice_ratelimited(queue->engine->tdev->drm.dev,
			       "%s: queue %u of %s[%d] banned after %u timeouts\n",
			       queue->engine->name, queue->id, owner->comm,
			       pid_nr(owner->pid), tern_queue_ban_timeouts);
}

/* Drops the file table's reference, unless QUEUE_DESTROY already did. */
static void tern_queue_unlist(struct tern_queue *queue)
{
	struct tern_file *tfile = queue->tfile;
	bool destroyed;

	xa_lock(&tfile->queues);
	destroyed = queue->destroyed;
	queue->destroyed = true;
	xa_unlock(&tfile->queues);
	if (destroyed)
		return;

	atomic_dec(&tfile->vm->usage.queues);
	tern_queue_put(queue);
}

/* The next queue of @tfile from *@index on, held; NULL after the last. */
static struct tern_queue *tern_queue_next(struct tern_file *tfile,
					  unsigned long *index)
{
	struct tern_queue *queue;

	xa_lock(&tfile->queues);
	while ((queue = xa_find(&tfile->queues, index, ULONG_MAX,
				XA_PRESENT))) {
		/* At zero it is being freed: its jobs are gone already. */
		if (kref_get_unless_zero(&queue->ref))
			break;
		(*index)++;
	}
	xa_unlock(&tfile->queues);
	return queue;
}

/*
 * The file is closing: lets every queue of it go. Those with jobs left go
 * when the last ends, which is soon: the engines cancel the jobs of a
 * closed address space at their first look.
 */
void tern_queues_close(struct tern_file *tfile)
{
	struct tern_queue *queue;
	unsigned long index = 0;

	while ((queue = tern_queue_next(tfile, &index))) {
		tern_queue_unlist(queue);
		tern_queue_put(queue);
		index++;
	}
}

int tern_queue_create_ioctl(struct drm_device *drm, void *data,
			    struct drm_file *file)
{
	struct tern_drm_device *tdev = to_tern_drm_device(drm);
	struct tern_file *tfile = file->driver_priv;
	struct drm_tern_queue_create *args = data;
	struct drm_gpu_scheduler *sched;
	struct tern_queue *queue;
	int ret;

	if (args->flags || args->pad || args->engine >= tdev->engine_count)
		return -EINVAL;

	queue = kzalloc(sizeof(*queue), GFP_KERNEL_ACCOUNT);
	if (!queue)
		return -ENOMEM;

	kref_init(&queue->ref);
	mutex_init(&queue->submit_lock);
	queue->engine = &tdev->engines[args->engine];
	INIT_LIST_HEAD(&queue->engine_jobs);
	tern_runnable_init(&queue->run, &tfile->clients[args->engine], false);
	queue->fence_context = dma_fence_context_alloc(2);
	sched = &queue->engine->sched;
	ret = drm_sched_entity_init(&queue->entity, DRM_SCHED_PRIORITY_NORMAL,
				    &sched, 1, NULL);
	if (ret)
		goto err_free_queue;

	queue->tfile = tern_file_get(tfile);
	/* Destroyed queues still draining do not count. */
	if (atomic_inc_return(&tfile->vm->usage.queues) >
	    DRM_TERN_MAX_QUEUES_PER_FILE) {
		ret = -ENOSPC;
		goto err_put_file;
	}
	/*
	 * Visible to the file's other threads from xa_alloc_cyclic() on,
	 * which sets the id first, under the same lock lookups take; they
	 * may destroy it at once, so the ioctl holds it until it has
	 * answered. Ids go round, so a stale one rarely names a new queue.
	 */
	kref_get(&queue->ref);
	ret = xa_alloc_cyclic(&tfile->queues, &queue->id, queue, XA_LIMIT(1, U32_MAX),
			      &tfile->next_queue_id, GFP_KERNEL_ACCOUNT);
	/* Never visible: freed below, whatever its count says. */
	if (ret < 0)
		goto err_put_file;

	args->queue_id = queue->id;
	tern_queue_put(queue);
	return 0;

err_put_file:
	/* -EBUSY from xa_alloc_cyclic(): 2^32 queues alive at once. */
	if (ret == -EBUSY)
		ret = -ENOSPC;
	atomic_dec(&tfile->vm->usage.queues);
	tern_file_put(tfile);
	drm_sched_entity_fini(&queue->entity);
err_free_queue:
	mutex_destroy(&queue->submit_lock);
	kfree(queue);
	return ret;
}

int tern_queue_destroy_ioctl(struct drm_device *drm, void *data,
			     struct drm_file *file)
{
	struct tern_file *tfile = file->driver_priv;
	struct drm_tern_queue_destroy *args = data;
	struct tern_queue *queue;

	if (args->flags)
		return -EINVAL;

	xa_lock(&tfile->queues);
	queue = xa_load(&tfile->queues, args->queue_id);
	if (queue && !queue->destroyed)
		queue->destroyed = true;
	else
		queue = NULL;
	xa_unlock(&tfile->queues);
	if (!queue)
		return -ENOENT;

	atomic_dec(&tfile->vm->usage.queues);
	/* Freed now if idle, else when its last job is. */
	tern_queue_put(queue);
	return 0;
}
