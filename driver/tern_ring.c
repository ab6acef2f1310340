// SPDX-License-Identifier: GPL-2.0
/*
 * Tern user rings.
 *
 * A ring is a queue whose jobs userspace writes into a buffer of its own,
 * as a chip's command ring is written, instead of passing each through
 * SUBMIT and the scheduler: no ioctl per job while the engine has work,
 * no wake-up of the scheduler's thread, and a job that does not wait runs
 * on the thread that kicked the ring, before the KICK returns.
 *
 * The ring runs one job at a time, in the order of its records: it takes
 * a record (copied out, then checked as SUBMIT checks a stream), runs it
 * with the device model, writes its fence word and counts it done, then
 * takes the next. Whoever holds @run_lock runs it: a KICK's caller, on
 * its own thread beside the engine's work, for about 200 us, or the
 * engine, one step at a time, in the same turns as the file's queues
 * (tern_engine.c): a ring is one more of its file's queues to the engine,
 * and no number of rings gets a user more of it. A ring with something to
 * do is in the engine's turns (linked), and leaves them when the engine
 * finds it idle. A job past the job timeout fails, whether it waits or
 * keeps moving; that fails the job alone and resets nothing.
 *
 * Nothing in the buffer is trusted: the kernel keeps its own head and
 * done count, and reads only the tail and the records. A record that
 * fails a check stops the ring for good (ctl->error): that record and all
 * after it never run; so does a fence word outside the device's memory in
 * the file's buffers, and queue_ban_timeouts jobs past the job timeout. A
 * job taken counts in the file's in-flight limits until it ends; a record
 * past them waits in the ring, in the file's memory. A record that needs
 * on-chip memory the file has not made (tern_onchip.c) is taken where
 * memory may be allocated: by a KICK or, when the engine comes to it
 * first, by a work item (tern_ring_onchip_work()). A closed file's jobs
 * end with -ECANCELED, the ring takes no more, and it goes once its job
 * has.
 *
 * What a ring holds in the kernel (its packet buffer above all) is
 * charged to a budget of all rings (ring_mem_kb) from RING_CREATE until
 * the ring is freed; a file has at most DRM_TERN_MAX_RINGS_PER_FILE rings
 * until then, and a buffer at most one. The engine holds a reference
 * while the ring is in its turns; the last reference frees it on the
 * device's free workqueue, which the device's teardown flushes after it
 * waited for every ring (they count in its live jobs).
 */
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>

#include "tern_accel.h"
#include "tern_compat.h"
#include "tern_drv.h"
#include "tern_engine.h"
#include "tern_gem.h"
#include "tern_ring.h"
#include "tern_vm.h"

/* How long a KICK runs the ring on its caller's thread, about. */
#define TERN_RING_INLINE_NS		(200 * NSEC_PER_USEC)
/*
 * What each ring holds of the ring memory budget: its packet buffer and
 * its bookkeeping (struct tern_ring, well under a page).
 */
#define TERN_RING_CHARGE	(TERN_MODEL_MAX_SUBMIT_BYTES + PAGE_SIZE)

/* What a step of the ring did. */
enum tern_ring_state {
	TERN_RING_MOVED,	/* it ran, or ended, a job */
	TERN_RING_WAITING,	/* its job waits, or the file's limits */
	TERN_RING_IDLE,		/* no job and no record: a kick brings more */
};

/* Bytes all rings may charge (ring_mem_kb), and bytes they charge now. */
static u64 tern_ring_mem_limit;
static atomic64_t tern_ring_mem_used = ATOMIC64_INIT(0);

void tern_ring_mem_init(unsigned int kb)
{
	tern_ring_mem_limit = (u64)kb << 10;
}

/*
 * The last reference went, perhaps on the engine's workqueue, where
 * memory reclaim may wait and nothing may block on what frees memory:
 * the buffer, the address space and the file go on the device's free
 * workqueue, which outlives every ring (tern_engines_fini()).
 */
static void tern_ring_free(struct work_struct *work)
{
	struct tern_ring *ring = container_of(work, struct tern_ring,
					      free_work);
	struct tern_drm_device *tdev = to_tern_drm_device(ring->obj->dev);
	struct tern_file *tfile = ring->tfile;

	drm_WARN_ON(&tdev->drm, ring->has_job);
	drm_WARN_ON(&tdev->drm, !list_empty(&ring->run.link));
	xa_erase(&tfile->rings, ring->id);
	atomic_dec(&tfile->ring_count);
	kvfree(ring->job.packets);
	atomic64_sub(TERN_RING_CHARGE, &tern_ring_mem_used);
	mutex_lock(&to_tern_bo(ring->obj)->lock);
	to_tern_bo(ring->obj)->ring = false;
	mutex_unlock(&to_tern_bo(ring->obj)->lock);
	drm_gem_object_put(ring->obj);
	tern_vm_put(ring->vm);
	mutex_destroy(&ring->run_lock);
	kfree(ring);
	tern_file_put(tfile);
	/* Device teardown waits for this; @tdev may go once it is zero. */
	if (atomic_dec_and_test(&tdev->live_jobs))
		wake_up_var(&tdev->live_jobs);
}

static void tern_ring_release(struct kref *ref)
{
	struct tern_ring *ring = container_of(ref, struct tern_ring, ref);

	INIT_WORK(&ring->free_work, tern_ring_free);
	queue_work(to_tern_drm_device(ring->obj->dev)->free_wq, &ring->free_work);
}

static void tern_ring_put(struct tern_ring *ring)
{
	kref_put(&ring->ref, tern_ring_release);
}

/* The ring @id of @tfile, held, or NULL if there is none (or destroyed). */
static struct tern_ring *tern_ring_lookup(struct tern_file *tfile, u32 id)
{
	struct tern_ring *ring;

	xa_lock(&tfile->rings);
	ring = xa_load(&tfile->rings, id);
	if (ring && !ring->destroyed)
		kref_get(&ring->ref);
	else
		ring = NULL;
	xa_unlock(&tfile->rings);
	return ring;
}

/*
 * Puts the ring in its engine's turns, if it is not in them, and has the
 * engine look. The turns hold a reference.
 */
static void tern_ring_want(struct tern_ring *ring)
{
	struct tern_engine *engine = ring->engine;
	bool linked;

	kref_get(&ring->ref);
	spin_lock(&engine->lock);
	linked = tern_engine_link(engine, &ring->run);
	spin_unlock(&engine->lock);
	if (!linked)
		tern_ring_put(ring);	/* in them already: never the last */
	tern_engine_kick(engine);
}

/* Stops the ring for good with @error. */
static void tern_ring_stop(struct tern_ring *ring, int error)
{
	lockdep_assert_held(&ring->run_lock);
	if (!ring->error) {
		/* After has_job's store: RING_WAIT reads them in turn. */
		smp_store_release(&ring->error, error);
		WRITE_ONCE(ring->ctl->error, error);
	}
	wake_up_all(&ring->wait);
}

/* Whether @rec is a job record the engine may take. */
static bool tern_ring_record_ok(const struct drm_tern_ring_record *rec)
{
	return !rec->flags && rec->size && !(rec->size % 8) &&
	       rec->size <= TERN_MODEL_MAX_SUBMIT_BYTES &&
	       !(rec->fence_va % 8) &&
	       !(rec->fence_value & DRM_TERN_RING_FENCE_ERROR_MASK);
}

/*
 * Has the ring's next record taken where memory may be allocated: the
 * file's on-chip memory it needs (tern_onchip.c), which the engine cannot
 * make. The work holds a reference.
 */
static void tern_ring_make_onchip(struct tern_ring *ring)
{
	struct tern_drm_device *tdev = to_tern_drm_device(ring->obj->dev);

	kref_get(&ring->ref);
	if (!queue_work(tdev->free_wq, &ring->onchip_work))
		tern_ring_put(ring);	/* queued already: never the last */
}

/*
 * Takes the next record as the ring's job: 1 when it did, 0 when there is
 * none (or the ring is stopped), -EBUSY when the file's limits are
 * reached, or when the record needs on-chip memory the file has not made
 * yet and !@may_alloc (the engine's look): a work item takes it then.
 * When there is none it asks for a kick, then looks once more, so a
 * record written meanwhile is either seen here or kicked for.
 */
static int tern_ring_take(struct tern_ring *ring, bool may_alloc)
{
	const size_t hdr = sizeof(struct drm_tern_ring_record);
	struct drm_tern_ring_record rec;
	u64 tail, at, left;

	lockdep_assert_held(&ring->run_lock);
	for (;;) {
		if (ring->error || ring->closed)
			return 0;
		/* The tail, then the records it covers. */
		tail = smp_load_acquire(&ring->ctl->tail);
		if (tail == ring->head) {
			WRITE_ONCE(ring->ctl->kick, 1);
			smp_mb();	/* the kick asked for, then the tail */
			tail = smp_load_acquire(&ring->ctl->tail);	/* as above */
			if (tail == ring->head)
				return 0;
		}
		WRITE_ONCE(ring->ctl->kick, 0);
		if (tail - ring->head > ring->size || (tail - ring->head) % 8)
			goto bad;
		at = ring->head & (ring->size - 1);
		left = ring->size - at;
		/* No room for a header before the end: the ring wraps. */
		if (left < hdr) {
			if (tail - ring->head < left)
				goto bad;
			ring->head += left;
			continue;
		}
		if (tail - ring->head < hdr)
			goto bad;
		memcpy(&rec, ring->data + at, hdr);
		if (rec.flags == DRM_TERN_RING_RECORD_PAD) {
			if (rec.size != left - hdr || tail - ring->head < left)
				goto bad;
			ring->head += left;
			continue;
		}
		if (!tern_ring_record_ok(&rec) || hdr + rec.size > left ||
		    hdr + rec.size > tail - ring->head)
			goto bad;
		if (tern_usage_reserve(&ring->vm->usage, rec.size))
			return -EBUSY;
		memcpy(ring->job.packets, ring->data + at + hdr, rec.size);
		if (tern_model_validate_on(ring->job.packets, rec.size,
					   &ring->engine->target, NULL)) {
			tern_usage_release(&ring->vm->usage, rec.size);
			goto bad;
		}
		/* Made, or -ENOMEM: then the job fails with it as it runs. */
		if (tern_onchip_prepare(&ring->vm->onchip, &ring->engine->target,
					ring->job.packets, rec.size,
					may_alloc) == -EAGAIN) {
			tern_usage_release(&ring->vm->usage, rec.size);
			tern_ring_make_onchip(ring);
			return -EBUSY;
		}
		ring->job.size = rec.size;
		ring->job.fence_va = rec.fence_va;
		ring->job.fence_value = rec.fence_value;
		ring->job.deadline_ns = ktime_get_ns() +
					ring->engine->timeout_ns;
		tern_model_job_init(&ring->job.model, ring->job.packets,
				    rec.size);
		WRITE_ONCE(ring->has_job, true);
		tern_engine_ring_job(ring->engine, true);
		ring->head += hdr + rec.size;
		WRITE_ONCE(ring->ctl->head, ring->head);
		atomic64_inc(&ring->vm->usage.jobs_submitted);
		return 1;
	}
bad:
	tern_ring_stop(ring, -EINVAL);
	return 0;
}

/*
 * Writes the job's fence word, @error folded in, through the file's own
 * address space. It must be the device's own memory: a word outside the
 * file's buffers, or in another device's (an import, which only the
 * fabric reaches), stops the ring. A closed file's job writes nothing:
 * nobody is left to read it.
 */
static void tern_ring_fence(struct tern_ring *ring, int error)
{
	struct tern_ring_job *job = &ring->job;
	u64 value = job->fence_value;
	u32 owner;
	u64 *word;

	lockdep_assert_held(&ring->run_lock);
	if (!job->fence_va)
		return;
	if (error)
		value |= (u64)-error & DRM_TERN_RING_FENCE_ERROR_MASK;
	if (!tern_vm_begin_run(ring->vm))
		return;
	word = tern_vm_translate(ring->vm, job->fence_va, sizeof(*word),
				 &owner);
	if (word && owner != ring->engine->tdev->fabric_id)
		word = NULL;
	if (word)
		WRITE_ONCE(*word, value);
	tern_vm_end_run(ring->vm);
	if (!word)
		tern_ring_stop(ring, -EFAULT);
}

/* Ends the ring's job with @error: its fence, its count, its waiters. */
static void tern_ring_end(struct tern_ring *ring, int error)
{
	struct tern_engine *engine = ring->engine;

	lockdep_assert_held(&ring->run_lock);
	tern_ring_fence(ring, error);
	atomic64_inc(error ? &engine->jobs_failed : &engine->jobs_completed);
	tern_usage_release(&ring->vm->usage, ring->job.size);
	tern_engine_ring_job(engine, false);
	/*
	 * The fence word before the count that says it is written, and the
	 * count before "no job": RING_WAIT that sees no job sees the count.
	 */
	smp_store_release(&ring->done, ring->done + 1);	/* the fence word first */
	WRITE_ONCE(ring->ctl->done, ring->done);
	smp_store_release(&ring->has_job, false);	/* the count first */
	wake_up_all(&ring->wait);
}

/*
 * The job ran past the job timeout: it fails with -ETIMEDOUT, and that is
 * all: the engine is not reset (a hang stays for the scheduler's timeout
 * to find), and only the job timeout is counted. The ring is banned at its
 * queue_ban_timeouts-th.
 */
static void tern_ring_timeout(struct tern_ring *ring)
{
	struct tern_engine *engine = ring->engine;
	const struct tern_usage *owner = &ring->vm->usage;

	lockdep_assert_held(&ring->run_lock);
	atomic64_inc(&engine->timeouts);
	/* A hung engine is reset; a job that waited fails alone. */
	if (!tern_engine_reset_hung(engine, owner))
		/* Any user can make its jobs time out: keep the log readable. */
		dev_notice_ratelimited(engine->tdev->drm.dev,
				       "%s: job of ring %u of %s[%d] timed out\n",
				       engine->name, ring->id, owner->comm,
				       pid_nr(owner->pid));
	tern_ring_end(ring, -ETIMEDOUT);
	if (++ring->timeouts == tern_queue_ban_timeouts) {
		dev_notice_ratelimited(engine->tdev->drm.dev,
				       "%s: ring %u of %s[%d] banned after %u timeouts\n",
				       engine->name, ring->id, owner->comm,
				       pid_nr(owner->pid),
				       tern_queue_ban_timeouts);
		tern_ring_stop(ring, -EIO);
	}
}

/*
 * One step of the ring: takes a record if it has no job, then runs its
 * job for one step of the model, ending it when it is done or past the
 * job timeout. @may_alloc: not the engine's look, which may not allocate.
 */
static enum tern_ring_state tern_ring_step(struct tern_ring *ring,
					   bool may_alloc)
{
	int ret;

	lockdep_assert_held(&ring->run_lock);
	if (!ring->has_job) {
		ret = tern_ring_take(ring, may_alloc);
		if (ret == -EBUSY)
			return TERN_RING_WAITING;
		if (!ret)
			return TERN_RING_IDLE;
	}
	/* A hung engine runs nothing until it is reset. */
	if (READ_ONCE(ring->engine->hung))
		ret = TERN_MODEL_STALLED;
	else
		ret = tern_engine_run(ring->engine, ring->vm, &ring->job.model);
	if (ret != TERN_MODEL_STALLED && ret != TERN_MODEL_YIELD) {
		tern_ring_end(ring, ret);
		return TERN_RING_MOVED;
	}
	if (ktime_get_ns() >= ring->job.deadline_ns) {
		tern_ring_timeout(ring);
		return TERN_RING_MOVED;
	}
	return ret == TERN_MODEL_STALLED ? TERN_RING_WAITING : TERN_RING_MOVED;
}

/*
 * The engine's look at a ring in its turns (tern_engine.c): one step,
 * unless a KICK runs the ring now. A ring found idle leaves the turns,
 * unless a KICK wanted it, or ran it, since the look: that one saw the
 * ring in the turns, or will put it back. True if the step moved.
 */
bool tern_ring_look(struct tern_runnable *run)
{
	struct tern_ring *ring = container_of(run, struct tern_ring, run);
	struct tern_engine *engine = ring->engine;
	enum tern_ring_state state;
	bool unlinked = false;
	u64 runs;

	if (!mutex_trylock(&ring->run_lock))
		return false;
	atomic_set(&ring->kicked, 0);
	runs = ++ring->runs;
	state = tern_ring_step(ring, false);
	mutex_unlock(&ring->run_lock);
	if (state != TERN_RING_IDLE)
		return state == TERN_RING_MOVED;

	smp_mb();	/* the run lock let go, then the flag */
	spin_lock(&engine->lock);
	if (!atomic_read(&ring->kicked) && READ_ONCE(ring->runs) == runs) {
		tern_engine_unlink(engine, run);
		unlinked = true;
	}
	spin_unlock(&engine->lock);
	if (unlinked)
		tern_ring_put(ring);	/* the turns' */
	return false;
}

/*
 * The ring joins its engine's turns, and runs on the caller's thread for
 * about @ns, as far as its jobs move; unless the engine runs it now and
 * !@wait, when it is left to the engine. What is left stays in the turns.
 */
static void tern_ring_run_here(struct tern_ring *ring, u64 ns, bool wait)
{
	u64 until = ktime_get_ns() + ns;
	enum tern_ring_state state;

	atomic_set(&ring->kicked, 1);
	smp_mb();	/* the flag, then the turns and the run lock */
	tern_ring_want(ring);
	if (wait)
		mutex_lock(&ring->run_lock);
	else if (!mutex_trylock(&ring->run_lock))
		return;
	atomic_set(&ring->kicked, 0);
	ring->runs++;
	do
		state = tern_ring_step(ring, true);
	while (state == TERN_RING_MOVED && ktime_get_ns() < until);
	mutex_unlock(&ring->run_lock);
	/* The engine may have found it idle meanwhile and let it go. */
	if (state != TERN_RING_IDLE)
		tern_ring_want(ring);
}

/* KICK: as long as TERN_RING_INLINE_NS on the caller's thread. */
static void tern_ring_kick(struct tern_ring *ring)
{
	tern_ring_run_here(ring, TERN_RING_INLINE_NS, false);
}

/*
 * The engine found a record that needs on-chip memory the file has not
 * made: one step here takes it, making the memory; the engine, which
 * looks at the ring meanwhile, runs the rest.
 */
static void tern_ring_onchip_work(struct work_struct *work)
{
	struct tern_ring *ring = container_of(work, struct tern_ring,
					      onchip_work);

	tern_ring_run_here(ring, 0, true);
	tern_ring_put(ring);
}

static int tern_ring_args_check(struct tern_drm_device *tdev,
				const struct drm_tern_ring_create *args)
{
	if (args->flags || args->pad || args->engine >= tdev->engine_count ||
	    !is_power_of_2(args->size) || args->size < DRM_TERN_RING_MIN_SIZE ||
	    args->size > DRM_TERN_RING_MAX_SIZE)
		return -EINVAL;
	return 0;
}

int tern_ring_create_ioctl(struct drm_device *drm, void *data,
			   struct drm_file *file)
{
	struct tern_drm_device *tdev = to_tern_drm_device(drm);
	struct tern_file *tfile = file->driver_priv;
	struct drm_tern_ring_create *args = data;
	struct drm_gem_object *obj;
	struct tern_ring *ring;
	int ret;

	ret = tern_ring_args_check(tdev, args);
	if (ret)
		return ret;
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	/* The device's own memory, mapped for the ring's life. */
	if (obj->size < (size_t)DRM_TERN_RING_DATA_OFFSET + args->size ||
	    !to_tern_bo(obj)->vaddr || to_tern_bo(obj)->peer) {
		ret = -EINVAL;
		goto err_put_obj;
	}
	/* One ring per buffer: two would write each other's head and done. */
	mutex_lock(&to_tern_bo(obj)->lock);
	ret = to_tern_bo(obj)->ring ? -EBUSY : 0;
	to_tern_bo(obj)->ring = true;
	mutex_unlock(&to_tern_bo(obj)->lock);
	if (ret)
		goto err_put_obj;
	if (atomic_inc_return(&tfile->ring_count) > DRM_TERN_MAX_RINGS_PER_FILE) {
		ret = -ENOSPC;
		goto err_uncount;
	}
	if (atomic64_add_return(TERN_RING_CHARGE, &tern_ring_mem_used) >
	    tern_ring_mem_limit) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	ring = kzalloc(sizeof(*ring), GFP_KERNEL_ACCOUNT);
	if (!ring) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	/*
	 * Room for any job's packets, now: the ring's work runs where memory
	 * reclaim may wait for the engine, and must not allocate.
	 */
	ring->job.packets = kvmalloc(TERN_MODEL_MAX_SUBMIT_BYTES,
				     GFP_KERNEL_ACCOUNT);
	if (!ring->job.packets) {
		ret = -ENOMEM;
		goto err_free_ring;
	}
	/* Rings count as queues. */
	if (atomic_inc_return(&tfile->vm->usage.queues) >
	    DRM_TERN_MAX_QUEUES_PER_FILE) {
		ret = -ENOSPC;
		goto err_unqueue;
	}

	kref_init(&ring->ref);
	mutex_init(&ring->run_lock);
	init_waitqueue_head(&ring->wait);
	INIT_WORK(&ring->onchip_work, tern_ring_onchip_work);
	ring->engine = &tdev->engines[args->engine];
	tern_runnable_init(&ring->run, &tfile->clients[args->engine], true);
	ring->vm = tern_vm_get(tfile->vm);
	ring->obj = obj;
	ring->ctl = to_tern_bo(obj)->vaddr;
	ring->data = (const u8 *)ring->ctl + DRM_TERN_RING_DATA_OFFSET;
	ring->size = args->size;
	/* Whatever the buffer held, the ring starts empty. */
	WRITE_ONCE(ring->ctl->tail, 0);
	WRITE_ONCE(ring->ctl->head, 0);
	WRITE_ONCE(ring->ctl->done, 0);
	WRITE_ONCE(ring->ctl->error, 0);
	WRITE_ONCE(ring->ctl->kick, 1);
	ring->tfile = tern_file_get(tfile);
	atomic_inc(&tdev->live_jobs);

	/* Visible from here: held until the ioctl has answered. */
	kref_get(&ring->ref);
	ret = xa_alloc_cyclic(&tfile->rings, &ring->id, ring,
			      XA_LIMIT(1, U32_MAX), &tfile->next_ring_id,
			      GFP_KERNEL_ACCOUNT);
	if (ret < 0) {
		/* Never visible: both references go; release frees it. */
		atomic_dec(&tfile->vm->usage.queues);
		ring->id = 0;
		tern_ring_put(ring);
		tern_ring_put(ring);
		return ret == -EBUSY ? -ENOSPC : ret;
	}
	args->ring_id = ring->id;
	tern_ring_put(ring);
	return 0;

err_unqueue:
	atomic_dec(&tfile->vm->usage.queues);
err_free_ring:
	kvfree(ring->job.packets);
	kfree(ring);
err_uncharge:
	atomic64_sub(TERN_RING_CHARGE, &tern_ring_mem_used);
err_uncount:
	atomic_dec(&tfile->ring_count);
	mutex_lock(&to_tern_bo(obj)->lock);
	to_tern_bo(obj)->ring = false;
	mutex_unlock(&to_tern_bo(obj)->lock);
err_put_obj:
	drm_gem_object_put(obj);
	return ret;
}

/*
 * Closes @ring, which the caller took out of the table (destroyed): once
 * a job being taken is taken, no other will be, so RING_WAIT can tell
 * that the ring's count will not move past its job. Drops the table's
 * reference.
 */
static void tern_ring_close(struct tern_ring *ring)
{
	atomic_dec(&ring->tfile->vm->usage.queues);
	mutex_lock(&ring->run_lock);
	smp_store_release(&ring->closed, true);	/* as ring->error */
	mutex_unlock(&ring->run_lock);
	wake_up_all(&ring->wait);
	/* In the engine's turns: it finds the ring idle, or its job's end. */
	tern_engine_kick(ring->engine);
	tern_ring_put(ring);
}

int tern_ring_destroy_ioctl(struct drm_device *drm, void *data,
			    struct drm_file *file)
{
	struct tern_file *tfile = file->driver_priv;
	struct drm_tern_ring_destroy *args = data;
	struct tern_ring *ring;

	if (args->flags)
		return -EINVAL;
	/* Taken out of the table at once: a second DESTROY finds nothing. */
	xa_lock(&tfile->rings);
	ring = xa_load(&tfile->rings, args->ring_id);
	if (ring && !ring->destroyed)
		ring->destroyed = true;
	else
		ring = NULL;
	xa_unlock(&tfile->rings);
	if (!ring)
		return -ENOENT;
	tern_ring_close(ring);
	return 0;
}

/*
 * The file is closing: lets every ring go. A job still running ends with
 * -ECANCELED at the engine's next look (the address space is closed),
 * within a millisecond even when every job waits. Postclose:
 * no ioctl of the file runs any more.
 */
void tern_rings_close(struct tern_file *tfile)
{
	struct tern_ring *ring;
	unsigned long index;

	xa_lock(&tfile->rings);
	xa_for_each(&tfile->rings, index, ring) {
		if (ring->destroyed)
			continue;
		ring->destroyed = true;
		xa_unlock(&tfile->rings);
		tern_ring_close(ring);
		xa_lock(&tfile->rings);
	}
	xa_unlock(&tfile->rings);
}

int tern_ring_kick_ioctl(struct drm_device *drm, void *data,
			 struct drm_file *file)
{
	struct tern_file *tfile = file->driver_priv;
	struct drm_tern_ring_kick *args = data;
	struct tern_ring *ring;
	int ret = 0;

	if (args->flags)
		return -EINVAL;
	ring = tern_ring_lookup(tfile, args->ring_id);
	if (!ring)
		return -ENOENT;
	tern_ring_kick(ring);
	if (READ_ONCE(ring->error))
		ret = -EIO;
	tern_ring_put(ring);
	return ret;
}

/*
 * What RING_WAIT for @done has come to: 0 nothing yet, 1 the count is
 * there, -EIO it never will be (the ring stopped, or was destroyed, and
 * has no job running). Either of the last two ends the wait.
 */
static int tern_ring_waited(struct tern_ring *ring, u64 done)
{
	bool stopped;

	if (smp_load_acquire(&ring->done) >= done)	/* then the fence word */
		return 1;
	/* Stopped first: a job taken before the stop is seen below. */
	stopped = smp_load_acquire(&ring->error);
	/* As ring->error: tern_ring_close() stores it with release. */
	stopped = stopped || smp_load_acquire(&ring->closed);
	/* Then the job, whose end stored its count first. */
	if (!stopped || smp_load_acquire(&ring->has_job))
		return 0;
	/* No job: its end, if it just ended, has been counted (tern_ring_end). */
	return READ_ONCE(ring->done) >= done ? 1 : -EIO;
}

int tern_ring_wait_ioctl(struct drm_device *drm, void *data,
			 struct drm_file *file)
{
	struct tern_file *tfile = file->driver_priv;
	struct drm_tern_ring_wait *args = data;
	struct tern_ring *ring;
	s64 now = ktime_get_ns(), left = 0;
	int ret;

	if (args->flags || args->pad)
		return -EINVAL;
	ring = tern_ring_lookup(tfile, args->ring_id);
	if (!ring)
		return -ENOENT;
	/* Compared first: a deadline far in the past must not wrap round. */
	if (args->timeout_ns > now)
		left = args->timeout_ns - now;
	ret = wait_event_interruptible_hrtimeout(ring->wait,
						 tern_ring_waited(ring,
								  args->done),
						 ns_to_ktime(left));
	if (!ret)
		ret = min(tern_ring_waited(ring, args->done), 0);
	tern_ring_put(ring);
	return ret;
}
