// SPDX-License-Identifier: GPL-2.0
/*
 * Tern jobs: submission and the scheduler's side of a job's life.
 *
 * SUBMIT copies and checks the packet stream, resolves the syncobjs and
 * pushes the job to its queue's scheduler entity. The scheduler waits for
 * the job's dependencies, hands it to the engine (run_job), fails it when
 * it runs past the job timeout (timedout_job), which resets the engine as
 * a chip's driver would, and frees it (free_job).
 */
#include <linux/dma-fence.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait_bit.h>

#include <drm/drm_file.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>

#include "tern_accel.h"
#include "tern_compat.h"
#include "tern_drv.h"
#include "tern_engine.h"
#include "tern_job.h"
#include "tern_queue.h"
#include "tern_vm.h"

static void tern_job_release(struct kref *ref)
{
	struct tern_job *job = container_of(ref, struct tern_job, ref);
	atomic_t *live_jobs = &job->tdev->live_jobs;

	if (job->sched_ready)
		drm_sched_job_cleanup(&job->base);
	/* dma_fence_init() sets the ops when the engine takes the job. */
	if (job->hw_fence->ops)
		dma_fence_put(job->hw_fence);
	else
		kfree(job->hw_fence);
	tern_vm_put(job->vm);
	kvfree(job->packets);
	kfree(job);

	/* Device teardown waits for this; @tdev may go once it is zero. */
	if (atomic_dec_and_test(live_jobs))
		wake_up_var(live_jobs);
}

void tern_job_put(struct tern_job *job)
{
	kref_put(&job->ref, tern_job_release);
}

static struct tern_job *tern_job_alloc(struct tern_device *tdev,
				       struct tern_queue *queue,
				       struct tern_vm *vm)
{
	struct tern_job *job;

	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return NULL;

	/* Allocated now: run_job must not allocate memory. */
	job->hw_fence = kzalloc(sizeof(*job->hw_fence), GFP_KERNEL);
	if (!job->hw_fence) {
		kfree(job);
		return NULL;
	}

	kref_init(&job->ref);
	atomic_inc(&tdev->live_jobs);
	job->tdev = tdev;
	job->engine = queue->engine;
	job->vm = tern_vm_get(vm);
	return job;
}

static int tern_job_copy_packets(struct tern_job *job,
				 const struct drm_tern_submit *args)
{
	job->packets = kvmalloc(args->packets_size, GFP_KERNEL);
	if (!job->packets)
		return -ENOMEM;

	if (copy_from_user(job->packets, u64_to_user_ptr(args->packets),
			   args->packets_size))
		return -EFAULT;

	if (tern_model_validate(job->packets, args->packets_size, NULL))
		return -EINVAL;

	tern_model_job_init(&job->model, job->packets, args->packets_size);
	return 0;
}

static int tern_job_add_in_syncobjs(struct tern_job *job,
				    struct drm_file *file,
				    const struct drm_tern_submit *args)
{
	u32 *handles;
	u32 i;
	int ret = 0;

	if (!args->in_syncobj_count)
		return 0;

	handles = memdup_user(u64_to_user_ptr(args->in_syncobjs),
			      array_size(args->in_syncobj_count,
					 sizeof(*handles)));
	if (IS_ERR(handles))
		return PTR_ERR(handles);

	for (i = 0; i < args->in_syncobj_count; i++) {
		struct drm_syncobj *syncobj;
		struct dma_fence *fence;

		syncobj = drm_syncobj_find(file, handles[i]);
		if (!syncobj) {
			ret = -ENOENT;
			break;
		}
		/* A syncobj that holds no fence has nothing to wait for. */
		fence = drm_syncobj_fence_get(syncobj);
		drm_syncobj_put(syncobj);
		if (!fence)
			continue;

		ret = drm_sched_job_add_dependency(&job->base, fence);
		if (ret)
			break;
	}

	kfree(handles);
	return ret;
}

/* From here on the job belongs to the scheduler and the engine. */
static void tern_job_push(struct tern_job *job, struct tern_queue *queue,
			  struct drm_syncobj *out_syncobj)
{
	/*
	 * The engine's reference is taken now, not in run_job: the scheduler
	 * starts the job's timeout before it calls run_job, so timedout_job
	 * may drop the scheduler's reference first.
	 */
	kref_get(&job->ref);
	atomic64_inc(&job->vm->usage.jobs_submitted);
	atomic_inc(&job->vm->usage.jobs_active);

	/* Arm and push together, so fences follow submission order. */
	mutex_lock(&queue->submit_lock);
	drm_sched_job_arm(&job->base);
	if (out_syncobj)
		drm_syncobj_replace_fence(out_syncobj,
					  &job->base.s_fence->finished);
	drm_sched_entity_push_job(&job->base);
	mutex_unlock(&queue->submit_lock);
}

int tern_submit_ioctl(struct drm_device *drm, void *data,
		      struct drm_file *file)
{
	struct tern_device *tdev = to_tern_device(drm);
	struct tern_file *tfile = file->driver_priv;
	struct drm_tern_submit *args = data;
	struct drm_syncobj *out_syncobj = NULL;
	struct tern_queue *queue;
	struct tern_job *job;
	int ret;

	if (args->flags || args->pad || !args->packets_size ||
	    args->packets_size % 8 ||
	    args->packets_size > TERN_MODEL_MAX_SUBMIT_BYTES ||
	    args->in_syncobj_count > TERN_MODEL_MAX_IN_SYNCOBJS)
		return -EINVAL;

	queue = tern_queue_lookup(tfile, args->queue_id);
	if (!queue)
		return -ENOENT;

	job = tern_job_alloc(tdev, queue, tfile->vm);
	if (!job) {
		ret = -ENOMEM;
		goto out_put_queue;
	}

	ret = tern_job_copy_packets(job, args);
	if (ret)
		goto out_put_job;

	ret = tern_sched_job_init(&job->base, &queue->entity, file, NULL);
	if (ret)
		goto out_put_job;
	job->sched_ready = true;

	ret = tern_job_add_in_syncobjs(job, file, args);
	if (ret)
		goto out_put_job;

	if (args->out_syncobj) {
		out_syncobj = drm_syncobj_find(file, args->out_syncobj);
		if (!out_syncobj) {
			ret = -ENOENT;
			goto out_put_job;
		}
	}

	tern_job_push(job, queue, out_syncobj);
	if (out_syncobj)
		drm_syncobj_put(out_syncobj);
	tern_queue_put(queue);
	return 0;

out_put_job:
	tern_job_put(job);
out_put_queue:
	tern_queue_put(queue);
	return ret;
}

static struct dma_fence *tern_job_run(struct drm_sched_job *sched_job)
{
	struct tern_job *job = to_tern_job(sched_job);

	job->on_engine = true;
	return tern_engine_push(job->engine, job);
}

static enum drm_gpu_sched_stat
tern_job_timedout(struct drm_sched_job *sched_job)
{
	struct tern_job *job = to_tern_job(sched_job);
	bool signalling;

	/*
	 * Fences wait on this: no memory allocation, no lock that reclaim
	 * could hold. The annotation lets lockdep kernels check it.
	 */
	signalling = dma_fence_begin_signalling();
	drm_dbg_driver(&job->tdev->drm, "%s: job %llu timed out\n",
		       job->engine->name, sched_job->id);
	WRITE_ONCE(job->timed_out, true);
	atomic64_inc(&job->engine->timeouts);
	/* Every timeout resets the engine; the reset ends the job. */
	tern_engine_reset(job->engine, job);
	dma_fence_end_signalling(signalling);

	/*
	 * The scheduler has taken the job off its pending list for good and
	 * will not call free_job for it: drop its reference here. The engine
	 * keeps its own until it has failed the job with -ETIMEDOUT.
	 */
	tern_job_put(job);
	return DRM_GPU_SCHED_STAT_NOMINAL;
}

static void tern_job_free(struct drm_sched_job *sched_job)
{
	struct tern_job *job = to_tern_job(sched_job);

	/* Dropped before it reached the engine (its file was killed). */
	if (!job->on_engine) {
		atomic_dec(&job->vm->usage.jobs_active);
		tern_job_put(job);
	}
	tern_job_put(job);
}

const struct drm_sched_backend_ops tern_sched_ops = {
	.run_job = tern_job_run,
	.timedout_job = tern_job_timedout,
	.free_job = tern_job_free,
};
