// SPDX-License-Identifier: GPL-2.0
/*
 * Tern jobs: submission and the scheduler's side of a job's life.
 *
 * SUBMIT copies and checks the packet stream, resolves the syncobjs and
 * pushes the job to its queue's scheduler entity. The scheduler waits for
 * the job's dependencies, hands it to the engine (run_job), lets the
 * driver fail it when it runs past the job timeout (timedout_job), and
 * frees it (free_job), the only place the scheduler's reference goes: a
 * job that timed out goes back on the scheduler's pending list, since the
 * scheduler may still be using it (on 6.1 the timeout is armed before
 * run_job returns), unless it has already ended, when nothing else
 * would free it.
 *
 * SUBMIT also makes the file's on-chip memory the stream will use
 * (tern_onchip.c), which the engine cannot: -ENOMEM past the host memory
 * budget.
 *
 * Limits, so that no file holds more than its share: jobs and packet
 * bytes in flight per file (SUBMIT fails with -EBUSY beyond them; a job is
 * in flight from SUBMIT until it ends), and a banned queue takes no jobs
 * (-EIO). What a job allocates is charged to the submitter's memory
 * cgroup.
 */
#include <linux/delay.h>
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
#include "tern_job_fence.h"
#include "tern_job.h"
#include "tern_queue.h"
#include "tern_vm.h"

/*
 * Counts the job in its file's in-flight limits: -EBUSY if it would go
 * past either.
 */
static int tern_job_reserve(struct tern_job *job)
{
	int ret = tern_usage_reserve(&job->vm->usage, job->packets_size);

	job->in_flight = !ret;
	return ret;
}

/* The job has ended (or never will run): it leaves the limits. */
void tern_job_ended(struct tern_job *job)
{
	if (!job->in_flight)
		return;
	job->in_flight = false;
	tern_usage_release(&job->vm->usage, job->packets_size);
}

static void tern_job_release(struct kref *ref)
{
	struct tern_job *job = container_of(ref, struct tern_job, ref);
	atomic_t *live_jobs = &job->tdev->live_jobs;

	/* SUBMIT failed after reserving. */
	tern_job_ended(job);
	if (job->sched_ready)
		drm_sched_job_cleanup(&job->base);
	/* dma_fence_init() sets the ops when the job is pushed. */
	if (job->hw_fence->ops)
		dma_fence_put(job->hw_fence);
	else
		kfree(job->hw_fence);
	/* The queue may tear its entity down: before the device can go. */
	tern_queue_put(job->queue);
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

static struct tern_job *tern_job_alloc(struct tern_drm_device *tdev,
				       struct tern_queue *queue,
				       struct tern_vm *vm, u32 packets_size)
{
	struct tern_job *job;

	job = kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT);
	if (!job)
		return NULL;

	/* Allocated now: run_job must not allocate memory. */
	job->hw_fence = kzalloc(sizeof(*job->hw_fence), GFP_KERNEL_ACCOUNT);
	if (!job->hw_fence) {
		kfree(job);
		return NULL;
	}

	kref_init(&job->ref);
	atomic_inc(&tdev->live_jobs);
	job->tdev = tdev;
	job->engine = queue->engine;
	kref_get(&queue->ref);
	job->queue = queue;
	job->vm = tern_vm_get(vm);
	job->packets_size = packets_size;
	return job;
}

static int tern_job_copy_packets(struct tern_job *job,
				 const struct drm_tern_submit *args)
{
	job->packets = kvmalloc(args->packets_size, GFP_KERNEL_ACCOUNT);
	if (!job->packets)
		return -ENOMEM;

	if (copy_from_user(job->packets, u64_to_user_ptr(args->packets),
			   args->packets_size))
		return -EFAULT;

	if (tern_model_validate_on(job->packets, args->packets_size,
				   &job->engine->target, NULL))
		return -EINVAL;

	tern_model_job_init(&job->model, job->packets, args->packets_size);
	/* The engine must find them: it may not allocate. */
	return tern_onchip_prepare(&job->vm->onchip, &job->engine->target,
				   job->packets, args->packets_size, true);
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

	handles = kmalloc_array(args->in_syncobj_count, sizeof(*handles),
				GFP_KERNEL_ACCOUNT);
	if (!handles)
		return -ENOMEM;
	if (copy_from_user(handles, u64_to_user_ptr(args->in_syncobjs),
			   array_size(args->in_syncobj_count,
				      sizeof(*handles)))) {
		ret = -EFAULT;
		goto out;
	}

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
out:
	kfree(handles);
	return ret;
}

/*
 * From here on the job belongs to the scheduler and the engine. @fence,
 * if any, goes to @out_syncobj and signals when the job has ended.
 */
static void tern_job_push(struct tern_job *job, struct tern_queue *queue,
			  struct drm_syncobj *out_syncobj,
			  struct tern_job_fence *fence)
{
	u64 seqno;

	atomic64_inc(&job->vm->usage.jobs_submitted);

	/* Arm and push together, so fences follow submission order. */
	mutex_lock(&queue->submit_lock);
	drm_sched_job_arm(&job->base);
	seqno = ++queue->fence_seqno;
	tern_engine_fence_init(job->engine, job->hw_fence,
			       queue->fence_context, seqno);
	if (fence) {
		tern_job_fence_init(fence, job->engine->name,
				    queue->fence_context + 1, seqno);
		tern_job_fence_follow(fence, &job->base.s_fence->finished);
		drm_syncobj_replace_fence(out_syncobj, &fence->base);
		dma_fence_put(&fence->base);
	}
	drm_sched_entity_push_job(&job->base);
	mutex_unlock(&queue->submit_lock);
}

static int tern_submit_args_check(const struct drm_tern_submit *args)
{
	if (args->flags || args->pad || !args->packets_size ||
	    args->packets_size % 8 ||
	    args->packets_size > TERN_MODEL_MAX_SUBMIT_BYTES ||
	    args->in_syncobj_count > TERN_MODEL_MAX_IN_SYNCOBJS)
		return -EINVAL;
	return 0;
}

int tern_submit_ioctl(struct drm_device *drm, void *data,
		      struct drm_file *file)
{
	struct tern_drm_device *tdev = to_tern_drm_device(drm);
	struct tern_file *tfile = file->driver_priv;
	struct drm_tern_submit *args = data;
	struct drm_syncobj *out_syncobj = NULL;
	struct tern_job_fence *fence = NULL;
	struct tern_queue *queue;
	struct tern_job *job;
	int ret;

	ret = tern_submit_args_check(args);
	if (ret)
		return ret;

	queue = tern_queue_lookup(tfile, args->queue_id);
	if (!queue)
		return -ENOENT;

	if (READ_ONCE(queue->banned)) {
		ret = -EIO;
		goto out_put_queue;
	}

	job = tern_job_alloc(tdev, queue, tfile->vm, args->packets_size);
	if (!job) {
		ret = -ENOMEM;
		goto out_put_queue;
	}

	ret = tern_job_reserve(job);
	if (ret)
		goto out_put_job;

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
		fence = tern_job_fence_alloc();
		if (!fence) {
			ret = -ENOMEM;
			goto out_put_syncobj;
		}
	}

	tern_job_push(job, queue, out_syncobj, fence);
	if (out_syncobj)
		drm_syncobj_put(out_syncobj);
	tern_queue_put(queue);
	return 0;

out_put_syncobj:
	drm_syncobj_put(out_syncobj);
out_put_job:
	tern_job_put(job);
out_put_queue:
	tern_queue_put(queue);
	return ret;
}

static struct dma_fence *tern_job_run(struct drm_sched_job *sched_job)
{
	struct tern_job *job = to_tern_job(sched_job);
	struct dma_fence *hw_fence;
	unsigned int delay_ms;

	job->on_engine = true;
	hw_fence = tern_engine_push(job->engine, job);

	/* Fault injection: keeps the scheduler from using the job for now. */
	delay_ms = READ_ONCE(job->tdev->run_job_delay_ms);
	if (delay_ms)
		msleep(delay_ms);
	return hw_fence;
}

static void tern_job_free(struct drm_sched_job *sched_job)
{
	struct tern_job *job = to_tern_job(sched_job);

	/* Failed in its entity before it reached the engine. */
	if (!job->on_engine)
		tern_job_ended(job);
	tern_job_put(job);
}

/*
 * The scheduler takes the job off its pending list for this call, and
 * frees only what it finds first on that list with its finished fence
 * signalled, looking when a job ends. So the job goes back first, before
 * the reset can end it; and a job that ended while it was off the list
 * (of itself, or because this call was slow) was missed: it is freed here,
 * as the scheduler frees a guilty job that had signalled. Left on the
 * list, it would stay there for ever, and every later timeout would find
 * it instead of the job that is really stuck.
 */
static enum drm_gpu_sched_stat
tern_job_timedout(struct drm_sched_job *sched_job)
{
	struct tern_job *job = to_tern_job(sched_job);
	struct drm_gpu_scheduler *sched = sched_job->sched;
	unsigned int delay_ms;
	bool signalling, ended;

	/* Ours for this call: back on the list, the job may be freed at once. */
	kref_get(&job->ref);
	spin_lock(&sched->job_list_lock);
	list_add(&sched_job->list, &sched->pending_list);
	ended = dma_fence_is_signaled(&sched_job->s_fence->finished);
	if (ended)
		list_del_init(&sched_job->list);
	spin_unlock(&sched->job_list_lock);
	if (ended) {
		tern_job_free(sched_job);
		goto out;
	}

	/*
	 * Fences wait on this: no memory allocation, no lock that reclaim
	 * could hold. The annotation lets lockdep kernels check it.
	 */
	signalling = dma_fence_begin_signalling();
	/* A job that ended as the timeout fired is nobody's fault. */
	if (!dma_fence_is_signaled(job->hw_fence)) {
		WRITE_ONCE(job->timed_out, true);
		atomic64_inc(&job->engine->timeouts);
		tern_queue_count_timeout(job->queue);
		/* The reset ends the job, with -ETIMEDOUT. */
		tern_engine_reset(job->engine, &job->vm->usage);
	}
	dma_fence_end_signalling(signalling);

	delay_ms = READ_ONCE(job->tdev->timeout_delay_ms);
	if (delay_ms)
		msleep(delay_ms);
out:
	tern_job_put(job);
	return DRM_GPU_SCHED_STAT_NOMINAL;
}

const struct drm_sched_backend_ops tern_sched_ops = {
	.run_job = tern_job_run,
	.timedout_job = tern_job_timedout,
	.free_job = tern_job_free,
};
