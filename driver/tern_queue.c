// SPDX-License-Identifier: GPL-2.0
/*
 * Tern queues.
 *
 * A queue is a drm_sched entity on one engine's scheduler: the jobs of one
 * queue run in submission order, and the scheduler interleaves queues.
 * Destroying a queue lets the jobs already submitted to it finish.
 */
#include <linux/slab.h>
#include <linux/xarray.h>

#include <drm/drm_file.h>

#include "tern_accel.h"
#include "tern_drv.h"
#include "tern_engine.h"
#include "tern_queue.h"
#include "tern_vm.h"

static void tern_queue_release(struct kref *ref)
{
	struct tern_queue *queue = container_of(ref, struct tern_queue, ref);

	/* Waits until the scheduler has taken every job of the queue. */
	drm_sched_entity_destroy(&queue->entity);
	mutex_destroy(&queue->submit_lock);
	kfree(queue);
}

void tern_queue_put(struct tern_queue *queue)
{
	kref_put(&queue->ref, tern_queue_release);
}

struct tern_queue *tern_queue_lookup(struct tern_file *tfile, u32 id)
{
	struct tern_queue *queue;

	xa_lock(&tfile->queues);
	queue = xa_load(&tfile->queues, id);
	if (queue)
		kref_get(&queue->ref);
	xa_unlock(&tfile->queues);
	return queue;
}

/* Destroys every queue of a file that is closing. */
void tern_queues_destroy(struct tern_file *tfile)
{
	struct tern_queue *queue;
	unsigned long id;

	xa_for_each(&tfile->queues, id, queue) {
		xa_erase(&tfile->queues, id);
		atomic_dec(&tfile->vm->usage.queues);
		tern_queue_put(queue);
	}
	xa_destroy(&tfile->queues);
}

int tern_queue_create_ioctl(struct drm_device *drm, void *data,
			    struct drm_file *file)
{
	struct tern_device *tdev = to_tern_device(drm);
	struct tern_file *tfile = file->driver_priv;
	struct drm_tern_queue_create *args = data;
	struct drm_gpu_scheduler *sched;
	struct tern_queue *queue;
	u32 id;
	int ret;

	if (args->flags || args->pad || args->engine >= tdev->engine_count)
		return -EINVAL;

	queue = kzalloc(sizeof(*queue), GFP_KERNEL);
	if (!queue)
		return -ENOMEM;

	kref_init(&queue->ref);
	mutex_init(&queue->submit_lock);
	queue->engine = &tdev->engines[args->engine];
	sched = &queue->engine->sched;
	ret = drm_sched_entity_init(&queue->entity, DRM_SCHED_PRIORITY_NORMAL,
				    &sched, 1, NULL);
	if (ret)
		goto err_free_queue;

	ret = xa_alloc(&tfile->queues, &id, queue,
		       XA_LIMIT(1, TERN_MAX_QUEUES_PER_FILE), GFP_KERNEL);
	if (ret) {
		/* xa_alloc() says -EBUSY when every id is taken. */
		if (ret == -EBUSY)
			ret = -ENOSPC;
		goto err_destroy_entity;
	}

	atomic_inc(&tfile->vm->usage.queues);
	args->queue_id = id;
	return 0;

err_destroy_entity:
	drm_sched_entity_destroy(&queue->entity);
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

	if (args->pad)
		return -EINVAL;

	queue = xa_erase(&tfile->queues, args->queue_id);
	if (!queue)
		return -ENOENT;

	atomic_dec(&tfile->vm->usage.queues);
	tern_queue_put(queue);
	return 0;
}
