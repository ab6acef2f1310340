// SPDX-License-Identifier: GPL-2.0
/*
 * Tern mock engines.
 *
 * The scheduler hands each engine every job whose dependencies are met
 * (run_job); the engine executes them with the device model on an ordered
 * workqueue, in passes, sharing its time among users, then files, then
 * queues and rings (Documentation/driver.rst, "Sharing an engine"):
 *
 * - a user (the files of one uid) with work on the engine gets one turn
 *   per pass; the users' order goes round, so that with more than
 *   TERN_ENGINE_PASS_USERS of them the rest come first in the next pass;
 * - a turn looks at the user's files in turn, and at each file's queues
 *   (the first job of each) and rings in turn, and runs one step of the
 *   first that can move, looking at no more than TERN_ENGINE_LOOKS of
 *   them: a job waiting on a semaphore is looked at and passed over;
 * - a step runs the model until the stream ends, fails, waits on a
 *   semaphore or has done TERN_MODEL_BUDGET of work.
 *
 * So a user with many files, queues or rings gets no more turns than a
 * user with one, a step is bounded, and no job that waits holds the
 * engine. A pass in which some job moved is followed at once by the next;
 * when none did, the engine looks again after a short, growing pause.
 * When a job ends the engine counts it and signals its hardware fence,
 * with the job's error.
 *
 * Queues do not wait for one another, so a job may only count on another
 * job's end. The scheduler, seeing a dependency on a job of the same
 * engine, would only wait for its start; but the fences userspace holds
 * and depends on are struct tern_job_fence (tern_job_fence.c), never the
 * scheduler's, so it waits for the end.
 *
 * A hung engine (fault injection) runs no step until it is reset; the
 * scheduler's job timeout finds the oldest job it holds and resets the
 * engine (tern_job.c), after which that job fails with -ETIMEDOUT and the
 * others run. A job stalled on a semaphore that never passes is timed out
 * and reset the same way, but the engine was not hung: only resets of a
 * hung engine count as hang resets, which make the device unhealthy. A
 * job of a banned queue fails with -EIO at its first look.
 *
 * The reset runs in the job timeout, on the path that signals fences
 * (memory reclaim may wait for it): it only takes the engine's spinlock
 * and counts. Announcing it (netlink allocates) and updating the device's
 * health (a mutex) are left to a work item.
 *
 * Busy time: the engine is busy while it has jobs; each job's file is
 * charged for the time its steps run.
 */
#include <linux/dma-fence.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/pid.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait_bit.h>

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "tern_compat.h"
#include "tern_drv.h"
#include "tern_engine.h"
#include "tern_health.h"
#include "tern_job.h"
#include "tern_netlink.h"
#include "tern_queue.h"
#include "tern_ring.h"
#include "tern_vm.h"

/* Pause between two looks at a semaphore that has not passed. */
#define TERN_ENGINE_BACKOFF_MIN_NS	(100 * NSEC_PER_USEC)
#define TERN_ENGINE_BACKOFF_MAX_NS	(1 * NSEC_PER_MSEC)

/* How often a device's teardown says what it is still waiting for. */
#define TERN_TEARDOWN_REPORT_JIFFIES	(10 * HZ)

static const char *tern_hw_fence_driver_name(struct dma_fence *fence)
{
	return TERN_DRIVER_NAME;
}

static const char *tern_hw_fence_timeline_name(struct dma_fence *fence)
{
	return "tern-engine";
}

static const struct dma_fence_ops tern_hw_fence_ops = {
	.get_driver_name = tern_hw_fence_driver_name,
	.get_timeline_name = tern_hw_fence_timeline_name,
};

static u64 tern_engine_clock(void *ctx)
{
	return ktime_get_ns();
}

/* Counts a step of @ns nanoseconds; steps run on several threads at once. */
static void tern_engine_count_step(struct tern_engine *engine, u64 ns)
{
	s64 max = atomic64_read(&engine->step_max_ns);

	atomic64_inc(&engine->steps);
	if (ns > TERN_ENGINE_STEP_SLOW_NS)
		atomic64_inc(&engine->steps_slow);
	while ((u64)max < ns) {
		s64 seen = atomic64_cmpxchg(&engine->step_max_ns, max, ns);

		if (seen == max)
			break;
		max = seen;
	}
}

/*
 * Runs @model, a stream of @vm's, for one step on @engine: 0 when it is
 * done, TERN_MODEL_YIELD or TERN_MODEL_STALLED when it must run again,
 * or the error that ends it. The file is charged for the time. Shared by
 * the scheduler's jobs and the rings' (tern_ring.c).
 */
int tern_engine_run(struct tern_engine *engine, struct tern_vm *vm,
		    struct tern_model_job *model)
{
	const struct tern_model_mem mem = {
		.translate = tern_vm_translate,
		.clock = tern_engine_clock,
		.ctx = vm,
		.fabric = engine->tdev->fabric,
		.device = engine->tdev->fabric_id,
		.target = &engine->target,
		.onchip = tern_vm_onchip,
	};
	u64 start, elapsed;
	int ret, idx;

	if (!drm_dev_enter(&engine->tdev->drm, &idx))
		return -ENODEV;

	if (tern_vm_begin_run(vm)) {
		start = ktime_get_ns();
		ret = tern_model_run(model, &mem);
		elapsed = ktime_get_ns() - start;
		tern_vm_end_run(vm);
		tern_engine_count_step(engine, elapsed);
		atomic64_add(elapsed, &vm->usage.engine_busy_ns[engine->index]);
	} else {
		ret = -ECANCELED;
	}

	drm_dev_exit(idx);
	return ret;
}

/* Runs the job for one step: as tern_engine_run(). */
static int tern_engine_step(struct tern_engine *engine, struct tern_job *job)
{
	int error;

	/* The scheduler may have failed the job before handing it over. */
	error = READ_ONCE(job->base.s_fence->finished.error);
	if (error)
		return error;
	if (READ_ONCE(job->timed_out))
		return -ETIMEDOUT;
	if (READ_ONCE(job->queue->banned))
		return -EIO;
	/* A hung engine runs nothing until it is reset. */
	if (READ_ONCE(engine->hung))
		return TERN_MODEL_STALLED;
	return tern_engine_run(engine, job->vm, &job->model);
}

/*
 * The users' share of each engine, for the device's files: one per uid
 * that has a file open, found by the files that open. Users are few, so a
 * list will do.
 */
struct tern_user *tern_user_get(struct tern_drm_device *tdev, kuid_t uid)
{
	struct tern_user *user, *fresh;
	unsigned int i;

	fresh = kzalloc(struct_size(fresh, engines, tdev->engine_count),
			GFP_KERNEL);
	if (!fresh)
		return NULL;
	spin_lock(&tdev->users_lock);
	list_for_each_entry(user, &tdev->users, link) {
		if (uid_eq(user->uid, uid)) {
			refcount_inc(&user->ref);
			spin_unlock(&tdev->users_lock);
			kfree(fresh);
			return user;
		}
	}
	refcount_set(&fresh->ref, 1);
	fresh->uid = uid;
	fresh->tdev = tdev;
	for (i = 0; i < tdev->engine_count; i++) {
		INIT_LIST_HEAD(&fresh->engines[i].link);
		INIT_LIST_HEAD(&fresh->engines[i].clients);
		fresh->engines[i].owner = fresh;
	}
	list_add(&fresh->link, &tdev->users);
	spin_unlock(&tdev->users_lock);
	return fresh;
}

/* May be the engine's pass: takes a spinlock and frees, nothing else. */
void tern_user_put(struct tern_user *user)
{
	struct tern_drm_device *tdev = user->tdev;

	if (!refcount_dec_and_lock(&user->ref, &tdev->users_lock))
		return;
	list_del(&user->link);
	spin_unlock(&tdev->users_lock);
	kfree(user);
}

void tern_runnable_init(struct tern_runnable *run,
			struct tern_engine_client *client, bool ring)
{
	INIT_LIST_HEAD(&run->link);
	run->client = client;
	run->ring = ring;
}

/*
 * @run has work on @engine: its file and user join the engine's turns if
 * they were not in them. True if @run was not linked.
 */
bool tern_engine_link(struct tern_engine *engine, struct tern_runnable *run)
{
	struct tern_engine_client *client = run->client;
	struct tern_engine_user *user = client->user;

	lockdep_assert_held(&engine->lock);
	if (!list_empty(&run->link))
		return false;
	list_add_tail(&run->link, &client->runnables);
	user->runnables++;
	if (list_empty(&client->link))
		list_add_tail(&client->link, &user->clients);
	if (list_empty(&user->link))
		list_add_tail(&user->link, &engine->users);
	return true;
}

/* @run has no more work on @engine. */
void tern_engine_unlink(struct tern_engine *engine, struct tern_runnable *run)
{
	struct tern_engine_client *client = run->client;
	struct tern_engine_user *user = client->user;

	lockdep_assert_held(&engine->lock);
	if (list_empty(&run->link))
		return;
	list_del_init(&run->link);
	user->runnables--;
	if (!list_empty(&client->runnables))
		return;
	list_del_init(&client->link);
	if (list_empty(&user->clients))
		list_del_init(&user->link);
}

/* Takes @job off the engine, counts it and signals its hardware fence. */
static void tern_engine_end(struct tern_engine *engine, struct tern_job *job,
			    int error)
{
	struct dma_fence *finished = &job->base.s_fence->finished;
	struct tern_queue *queue = job->queue;

	spin_lock(&engine->lock);
	list_del(&job->engine_link);
	list_del(&job->queue_link);
	if (list_empty(&queue->engine_jobs))
		tern_engine_unlink(engine, &queue->run);
	if (!--engine->queued)
		engine->busy_ns += ktime_get_ns() - engine->busy_since_ns;
	spin_unlock(&engine->lock);

	/* Counted before the fence signals: whoever waited sees the count. */
	atomic64_inc(error ? &engine->jobs_failed : &engine->jobs_completed);
	tern_job_ended(job);

	if (error) {
		dma_fence_set_error(job->hw_fence, error);
		/*
		 * drm_sched before 6.4 does not copy the hardware fence's
		 * error to the finished fence, which is what userspace's
		 * fence follows. The finished fence only signals after the
		 * hardware fence.
		 */
		if (!finished->error)
			dma_fence_set_error(finished, error);
	}
	dma_fence_signal(job->hw_fence);
	tern_job_put(job);
}

/*
 * One look at @run: a step of its queue's first job, or of its ring.
 * True if the step moved. Only the engine's work unlinks what it serves,
 * so @run stays linked, and held, until this returns.
 */
static bool tern_engine_look(struct tern_engine *engine,
			     struct tern_runnable *run, struct tern_job *job)
{
	int ret;

	if (run->ring)
		return tern_ring_look(run);
	ret = tern_engine_step(engine, job);
	if (ret == TERN_MODEL_STALLED)
		return false;
	if (ret != TERN_MODEL_YIELD)
		tern_engine_end(engine, job, ret);
	return true;
}

/*
 * A user's turn: the next of its files, and the next queue or ring of
 * that file, until one moves; TERN_ENGINE_LOOKS looks at most, and none
 * twice. True if one moved.
 */
static bool tern_engine_turn(struct tern_engine *engine,
			     struct tern_engine_user *user)
{
	unsigned int look;

	for (look = 0; look < TERN_ENGINE_LOOKS; look++) {
		struct tern_engine_client *client;
		struct tern_runnable *run;
		struct tern_job *job = NULL;

		spin_lock(&engine->lock);
		if (list_empty(&user->clients) || look >= user->runnables) {
			spin_unlock(&engine->lock);
			break;
		}
		client = list_first_entry(&user->clients,
					  struct tern_engine_client, link);
		run = list_first_entry(&client->runnables, struct tern_runnable,
				       link);
		list_move_tail(&run->link, &client->runnables);
		list_move_tail(&client->link, &user->clients);
		if (!run->ring)
			job = list_first_entry(&container_of(run, struct tern_queue,
							     run)->engine_jobs,
					       struct tern_job, queue_link);
		spin_unlock(&engine->lock);

		if (tern_engine_look(engine, run, job))
			return true;
	}
	return false;
}

static void tern_engine_work(struct work_struct *work)
{
	struct tern_engine *engine = container_of(work, struct tern_engine,
						  work);
	bool moved = false, signalling;
	struct tern_engine_user *user;
	unsigned int i, count = 0;

	/* The users of this pass, each held; the next pass starts after. */
	spin_lock(&engine->lock);
	list_for_each_entry(user, &engine->users, link) {
		refcount_inc(&user->owner->ref);
		engine->pass[count++] = user;
		if (count == ARRAY_SIZE(engine->pass))
			break;
	}
	for (i = 0; i < count; i++)
		list_move_tail(&engine->pass[i]->link, &engine->users);
	spin_unlock(&engine->lock);
	if (!count) {
		engine->backoff_ns = 0;
		return;
	}

	/* Ending jobs signals fences: allocate nothing from here. */
	signalling = dma_fence_begin_signalling();
	for (i = 0; i < count; i++) {
		moved |= tern_engine_turn(engine, engine->pass[i]);
		tern_user_put(engine->pass[i]->owner);
	}
	dma_fence_end_signalling(signalling);

	if (moved) {
		engine->backoff_ns = 0;
		queue_work(engine->wq, work);
		return;
	}
	engine->backoff_ns = clamp(engine->backoff_ns * 2,
				   TERN_ENGINE_BACKOFF_MIN_NS,
				   TERN_ENGINE_BACKOFF_MAX_NS);
	hrtimer_start(&engine->retry, ns_to_ktime(engine->backoff_ns),
		      HRTIMER_MODE_REL);
}

static enum hrtimer_restart tern_engine_retry(struct hrtimer *timer)
{
	struct tern_engine *engine = container_of(timer, struct tern_engine,
						  retry);

	queue_work(engine->wq, &engine->work);
	return HRTIMER_NORESTART;
}

/*
 * The hardware fence of a job of a queue whose timeline is @context: its
 * jobs end in order, whatever other queues do.
 */
void tern_engine_fence_init(struct tern_engine *engine,
			    struct dma_fence *fence, u64 context, u64 seqno)
{
	dma_fence_init(fence, &tern_hw_fence_ops, &engine->fence_lock, context,
		       seqno);
}

/*
 * Takes @job from the scheduler (run_job), with a reference for the
 * engine until the job ends. Returns its hardware fence, with a reference
 * for the scheduler.
 */
struct dma_fence *tern_engine_push(struct tern_engine *engine,
				   struct tern_job *job)
{
	struct tern_queue *queue = job->queue;

	kref_get(&job->ref);
	spin_lock(&engine->lock);
	if (!engine->queued++)
		engine->busy_since_ns = ktime_get_ns();
	list_add_tail(&job->engine_link, &engine->jobs);
	list_add_tail(&job->queue_link, &queue->engine_jobs);
	tern_engine_link(engine, &queue->run);
	spin_unlock(&engine->lock);

	queue_work(engine->wq, &engine->work);
	return dma_fence_get(job->hw_fence);
}

/*
 * A ring's job starts (@start) or ends on the engine: it counts in the
 * engine's jobs and busy time as the scheduler's do.
 */
void tern_engine_ring_job(struct tern_engine *engine, bool start)
{
	spin_lock(&engine->lock);
	engine->ring_jobs += start ? 1 : -1;
	if (start && !engine->queued++)
		engine->busy_since_ns = ktime_get_ns();
	else if (!start && !--engine->queued)
		engine->busy_ns += ktime_get_ns() - engine->busy_since_ns;
	spin_unlock(&engine->lock);
}

/* Makes the engine make a pass now. */
void tern_engine_kick(struct tern_engine *engine)
{
	queue_work(engine->wq, &engine->work);
}

/* @engine's values of its netlink nest (model/tern_state_list.h), now. */
void tern_engine_state_read(struct tern_engine *engine,
			    struct tern_state_engine *state)
{
	memset(state, 0, sizeof(*state));
	state->index = engine->index;
	tern_state_engine_target(state, &engine->target);
	spin_lock(&engine->lock);
	state->busy = engine->queued > 0;
	state->hung = engine->hung;
	state->jobs_queued = engine->queued;
	state->busy_ns = engine->busy_ns;
	if (state->busy)
		state->busy_ns += ktime_get_ns() - engine->busy_since_ns;
	/* With @hung: a reset ends the hang and counts it at once. */
	state->hang_resets = atomic64_read(&engine->hang_resets);
	spin_unlock(&engine->lock);

	state->jobs_completed = atomic64_read(&engine->jobs_completed);
	state->jobs_failed = atomic64_read(&engine->jobs_failed);
	state->timeouts = atomic64_read(&engine->timeouts);
	state->resets = atomic64_read(&engine->resets);
	state->steps = atomic64_read(&engine->steps);
	state->step_max_ns = atomic64_read(&engine->step_max_ns);
}

/* Whether the engine is hung (fault injection) and awaits a reset. */
bool tern_engine_hung(struct tern_engine *engine)
{
	bool hung;

	spin_lock(&engine->lock);
	hung = engine->hung;
	spin_unlock(&engine->lock);
	return hung;
}

/* Fault injection: the engine stops before its next step, until a reset. */
void tern_engine_hang(struct tern_engine *engine)
{
	spin_lock(&engine->lock);
	engine->hung = true;
	spin_unlock(&engine->lock);
	drm_notice(&engine->tdev->drm, "%s: hung (injected)\n", engine->name);
	tern_health_update(engine->tdev);
}

/* Resets the engine, if @only_hung only a hung one; whether it did. */
static bool tern_engine_do_reset(struct tern_engine *engine,
				 const struct tern_usage *owner, bool only_hung)
{
	bool was_hung;

	spin_lock(&engine->lock);
	was_hung = engine->hung;
	if (only_hung && !was_hung) {
		spin_unlock(&engine->lock);
		return false;
	}
	if (was_hung)
		atomic64_inc(&engine->hang_resets);
	engine->hung = false;
	engine->guilty.client_id = owner->client_id;
	memcpy(engine->guilty.comm, owner->comm, sizeof(engine->guilty.comm));
	spin_unlock(&engine->lock);
	atomic64_inc(&engine->resets);
	/* Any user can make its jobs time out: keep the log readable. */
	dev_notice_ratelimited(engine->tdev->drm.dev,
			       "%s: job of %s[%d] timed out, engine reset%s\n",
			       engine->name, owner->comm, pid_nr(owner->pid),
			       was_hung ? " (hung)" : "");
	tern_engine_kick(engine);
	queue_work(system_wq, &engine->reset_work);
	return true;
}

/*
 * Resets the engine after a job of @owner's ran past the job timeout: the
 * engine makes progress again and the job (already marked timed out)
 * fails with -ETIMEDOUT; the other jobs go on. A reset of a hung engine is
 * also a hang reset. Called from the scheduler's job timeout: allocates
 * nothing and takes only the engine's spinlock; the announcement follows
 * from a work item. The caller holds a reference to the job, and so to
 * @owner.
 */
void tern_engine_reset(struct tern_engine *engine,
		       const struct tern_usage *owner)
{
	tern_engine_do_reset(engine, owner, false);
}

/*
 * As tern_engine_reset(), for a ring's job past the job timeout, which
 * resets a hung engine only: the hang is why the job did not end, and
 * with no scheduler's job on the engine nothing else would end it. A
 * ring's job that waited on a semaphore holds no one else up, and fails
 * alone. True if it reset the engine.
 */
bool tern_engine_reset_hung(struct tern_engine *engine,
			    const struct tern_usage *owner)
{
	return tern_engine_do_reset(engine, owner, true);
}

/*
 * Announces the engine's last reset, with the owner of the job it failed,
 * and updates the device's health. Resets in quick succession may make
 * one announcement, naming the last owner; the counters tell them all.
 */
static void tern_engine_reset_work(struct work_struct *work)
{
	struct tern_engine *engine = container_of(work, struct tern_engine,
						  reset_work);
	struct tern_engine_guilty guilty;

	spin_lock(&engine->lock);
	guilty = engine->guilty;
	spin_unlock(&engine->lock);

	tern_netlink_engine_reset(engine, &guilty);
	tern_health_update(engine->tdev);
}

static int tern_engine_init(struct tern_engine *engine,
			    struct tern_drm_device *tdev, unsigned int index,
			    unsigned int timeout_ms)
{
	int ret;

	engine->tdev = tdev;
	engine->index = index;
	tern_model_engine_target(tdev->dma_engine_count, index, &tdev->shape,
				 &engine->target);
	engine->timeout_ns = (u64)timeout_ms * NSEC_PER_MSEC;
	snprintf(engine->name, sizeof(engine->name), "tern%u-e%u",
		 tdev->index, index);
	spin_lock_init(&engine->lock);
	spin_lock_init(&engine->fence_lock);
	INIT_LIST_HEAD(&engine->jobs);
	INIT_LIST_HEAD(&engine->users);
	INIT_WORK(&engine->work, tern_engine_work);
	INIT_WORK(&engine->reset_work, tern_engine_reset_work);
	tern_hrtimer_setup(&engine->retry, tern_engine_retry);

	/* Ending jobs is what frees memory: keep going under pressure. */
	engine->wq = alloc_ordered_workqueue("%s", WQ_MEM_RECLAIM,
					     engine->name);
	if (!engine->wq)
		return -ENOMEM;

	ret = tern_sched_init(&engine->sched, &tern_sched_ops,
			      TERN_ENGINE_CREDITS, msecs_to_jiffies(timeout_ms),
			      engine->name, tdev->drm.dev);
	if (ret) {
		destroy_workqueue(engine->wq);
		return ret;
	}
	return 0;
}

static void tern_engine_fini(struct tern_engine *engine)
{
	drm_sched_fini(&engine->sched);
	/* No timeout runs any more: nothing queues the announcement. */
	cancel_work_sync(&engine->reset_work);
	hrtimer_cancel(&engine->retry);
	destroy_workqueue(engine->wq);
	drm_WARN_ON(&engine->tdev->drm, !list_empty(&engine->jobs));
	drm_WARN_ON(&engine->tdev->drm, !list_empty(&engine->users));
}

static void tern_engines_fini(struct drm_device *drm, void *arg)
{
	struct tern_drm_device *tdev = arg;
	unsigned int i;

	/*
	 * Every file is closed, but jobs of closed files may still be
	 * ending, or waiting for dependencies; the schedulers must outlive
	 * them. A hung engine would hold its jobs until their timeout: let
	 * it go, the device is unplugged and ends them with -ENODEV at their
	 * next step, which also signals what the others wait for, so this
	 * takes a pass or two. Said aloud, should it ever take longer.
	 */
	for (i = 0; i < tdev->engine_count; i++) {
		struct tern_engine *engine = &tdev->engines[i];

		spin_lock(&engine->lock);
		engine->hung = false;
		spin_unlock(&engine->lock);
		tern_engine_kick(engine);
	}
	while (!wait_var_event_timeout(&tdev->live_jobs,
				       !atomic_read(&tdev->live_jobs),
				       TERN_TEARDOWN_REPORT_JIFFIES))
		drm_err(&tdev->drm, "teardown: %d jobs still ending\n",
			atomic_read(&tdev->live_jobs));
	/* A ring's free may still be returning from its last line. */
	destroy_workqueue(tdev->free_wq);

	for (i = 0; i < tdev->engine_count; i++)
		tern_engine_fini(&tdev->engines[i]);
}

/* One job, as the engines file shows it. */
static void tern_engine_show_job(struct seq_file *m, const char *where,
				 struct tern_job *job)
{
	struct dma_fence *finished = &job->base.s_fence->finished;

	seq_printf(m, "  %s: queue %u seqno %llu client %llu offset %u/%u%s%s%s\n",
		   where, job->queue->id, finished->seqno,
		   job->vm->usage.client_id, job->model.offset, job->model.size,
		   READ_ONCE(job->timed_out) ? " timed-out" : "",
		   dma_fence_is_signaled(job->hw_fence) ? " hw-signalled" : "",
		   dma_fence_is_signaled(finished) ? " finished" : "");
}

/*
 * debugfs "engines": each engine's state, the jobs it runs and the jobs
 * the scheduler counts as running (its pending list, whose head the job
 * timeout watches). What a maintainer reads when a job does not end.
 */
int tern_engines_show(struct seq_file *m, void *unused)
{
	struct tern_drm_device *tdev = m->private;
	unsigned int i;

	for (i = 0; i < tdev->engine_count; i++) {
		struct tern_engine *engine = &tdev->engines[i];
		struct drm_gpu_scheduler *sched = &engine->sched;
		struct drm_sched_job *s_job;
		struct tern_job *job;

		spin_lock(&engine->lock);
		seq_printf(m, "%s: queued %u (of user rings %u)%s, timeout %s\n",
			   engine->name, engine->queued, engine->ring_jobs,
			   engine->hung ? " hung" : "",
			   delayed_work_pending(&sched->work_tdr) ?
			   "armed" : "idle");
		list_for_each_entry(job, &engine->jobs, engine_link)
			tern_engine_show_job(m, "engine", job);
		spin_unlock(&engine->lock);

		spin_lock(&sched->job_list_lock);
		list_for_each_entry(s_job, &sched->pending_list, list)
			tern_engine_show_job(m, "pending", to_tern_job(s_job));
		spin_unlock(&sched->job_list_lock);
	}
	return 0;
}

/*
 * debugfs "steps": per engine, the steps run, the longest in nanoseconds
 * and those longer than TERN_ENGINE_STEP_SLOW_NS. What bounds how long
 * an engine's other users wait (Documentation/driver.rst).
 */
int tern_engine_steps_show(struct seq_file *m, void *unused)
{
	struct tern_drm_device *tdev = m->private;
	unsigned int i;

	seq_puts(m, "engine steps max_ns slow\n");
	for (i = 0; i < tdev->engine_count; i++) {
		struct tern_engine *engine = &tdev->engines[i];

		seq_printf(m, "%u %lld %lld %lld\n", i,
			   atomic64_read(&engine->steps),
			   atomic64_read(&engine->step_max_ns),
			   atomic64_read(&engine->steps_slow));
	}
	return 0;
}

/* Writing 0 to "steps" starts the counts again. */
void tern_engine_steps_reset(struct tern_drm_device *tdev)
{
	unsigned int i;

	for (i = 0; i < tdev->engine_count; i++) {
		atomic64_set(&tdev->engines[i].steps, 0);
		atomic64_set(&tdev->engines[i].step_max_ns, 0);
		atomic64_set(&tdev->engines[i].steps_slow, 0);
	}
}

int tern_engines_init(struct tern_drm_device *tdev, unsigned int dma_count,
		      const struct tern_core_shape *shape,
		      unsigned int timeout_ms)
{
	unsigned int count = dma_count + shape->cores * TERN_CORE_ENGINES;
	unsigned int i;
	int ret;

	tdev->dma_engine_count = dma_count;
	tdev->shape = *shape;
	tdev->engines = drmm_kcalloc(&tdev->drm, count, sizeof(*tdev->engines),
				     GFP_KERNEL);
	if (!tdev->engines)
		return -ENOMEM;
	INIT_LIST_HEAD(&tdev->users);
	spin_lock_init(&tdev->users_lock);
	/* Rings' own work (tern_ring.c); flushed once every ring is freed. */
	tdev->free_wq = alloc_workqueue("tern%u-free", 0, 0, tdev->index);
	if (!tdev->free_wq)
		return -ENOMEM;

	for (i = 0; i < count; i++) {
		ret = tern_engine_init(&tdev->engines[i], tdev, i, timeout_ms);
		if (ret)
			goto err_fini_engines;
		tdev->engine_count++;
	}
	return drmm_add_action_or_reset(&tdev->drm, tern_engines_fini, tdev);

err_fini_engines:
	while (tdev->engine_count)
		tern_engine_fini(&tdev->engines[--tdev->engine_count]);
	destroy_workqueue(tdev->free_wq);
	return ret;
}
