// SPDX-License-Identifier: MIT
/*
 * Simulator engines: one thread per engine, running jobs with the device
 * model. Each queue's jobs run in submission order; among the queues of
 * an engine, the oldest job whose dependencies have all signalled goes
 * next, and runs to its end before the engine takes another (as tern.ko's
 * engines do). A job whose SEM_WAIT does not pass sleeps on the semaphore
 * until an engine writes it (or a bounded timeout, for host writes); a job still unfinished at the job timeout fails with
 * TERN_ERROR_TIMEOUT, one that faults with TERN_ERROR_DEVICE_FAULT, one that
 * addresses a peer's memory no up link reaches with TERN_ERROR_NO_ROUTE,
 * one whose SEM_WAIT_ABORT finds its abort word set with
 * TERN_ERROR_CANCELLED (TERN_SEM_ABORT_CANCEL) or TERN_ERROR_PEER_FAILED. A
 * dependency's failure does not stop the jobs waiting for it.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sim.h"
#include "tern_model.h"

static struct sim_context *sim_context(struct tern_be_device *bdev)
{
	return tern_container_of(bdev, struct sim_context, base);
}

static struct sim_queue *sim_queue(struct tern_be_queue *bqueue)
{
	return tern_container_of(bqueue, struct sim_queue, base);
}

void sim_engine_kick(struct sim_engine *engine)
{
	pthread_mutex_lock(&engine->lock);
	engine->kicked = true;
	pthread_cond_signal(&engine->cond);
	pthread_mutex_unlock(&engine->lock);
}

static uint64_t sim_model_clock(void *ctx)
{
	(void)ctx;
	return sim_clock_ns();
}

static void sim_sleep_us(unsigned int us)
{
	struct timespec ts = { 0, (long)us * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * A stalled SEM_WAIT sleeps on its semaphore's low word (a futex) rather
 * than polling: every short sleep arms a timer, which is costly (most of
 * all in a VM) and takes the CPU from the engines with work. An engine
 * wakes a semaphore's sleepers once an 8-byte access (a SEM_SIGNAL's, or
 * one that needs no wake) has landed, i.e. at its next translate or at the
 * end of the run. The timeout catches semaphores the host writes, and
 * SEM_WAIT_ABORT's abort word, which nothing wakes: it is read before the
 * sleep, and again at the next run, so that a store into it is seen
 * within one timeout (at most 16 ms).
 */
static atomic_int sim_sem_sleepers;
static __thread void *sim_sem_written;

static void sim_sem_wake(void)
{
	/*
	 * The model's store is a release store, which may pass the load of
	 * the sleeper count below; the fence keeps a sleeper that has just
	 * read the old value from being missed.
	 */
	atomic_thread_fence(memory_order_seq_cst);
	if (sim_sem_written && atomic_load(&sim_sem_sleepers))
		syscall(SYS_futex, sim_sem_written, FUTEX_WAKE, INT_MAX,
			NULL, NULL, 0);
	sim_sem_written = NULL;
}

static void *sim_translate_waking(void *ctx, uint64_t va, uint64_t len,
				  uint32_t *owner)
{
	void *ptr;

	sim_sem_wake();
	ptr = sim_translate(ctx, va, len, owner);
	if (len == sizeof(uint64_t) && ptr && !((uintptr_t)ptr & 3))
		sim_sem_written = ptr;
	return ptr;
}

/*
 * Sleeps until the stalled SEM_WAIT or SEM_WAIT_ABORT at @offset may pass,
 * or @timeout_us; not at all when a SEM_WAIT_ABORT's abort word is set.
 */
static void sim_sem_sleep(struct sim_context *ctx, const struct sim_job *job,
			  uint32_t offset, unsigned int timeout_us)
{
	/* SEM_WAIT_ABORT begins as SEM_WAIT does: header, addr, value */
	const struct drm_tern_packet_sem_wait *p =
		(const void *)((const uint8_t *)job->packets + offset);
	const struct drm_tern_packet_sem_wait_abort *pa = (const void *)p;
	struct timespec ts = { timeout_us / 1000000,
			       (long)(timeout_us % 1000000) * 1000 };
	uint64_t *abort_word = NULL;
	uint32_t owner;
	uint64_t now;
	void *ptr;

	if (p->header.opcode != TERN_OP_SEM_WAIT &&
	    p->header.opcode != TERN_OP_SEM_WAIT_ABORT) {
		sim_sleep_us(timeout_us);
		return;
	}
	pthread_rwlock_rdlock(&ctx->va_lock);
	ptr = sim_translate(ctx, p->addr, sizeof(uint64_t), &owner);
	if (p->header.opcode == TERN_OP_SEM_WAIT_ABORT)
		abort_word = sim_translate(ctx, pa->abort, sizeof(uint64_t),
					   &owner);
	pthread_rwlock_unlock(&ctx->va_lock);
	if (!ptr || ((uintptr_t)ptr & 3)) {
		sim_sleep_us(timeout_us);
		return;
	}
	atomic_fetch_add(&sim_sem_sleepers, 1);
	now = __atomic_load_n((uint64_t *)ptr, __ATOMIC_SEQ_CST);
	if ((!abort_word || !__atomic_load_n(abort_word, __ATOMIC_SEQ_CST)) &&
	    !((p->header.flags & TERN_SEM_WAIT_EQ) ? now == p->value :
						      now >= p->value))
		syscall(SYS_futex, ptr, FUTEX_WAIT, (uint32_t)now, &ts,
			NULL, 0);
	atomic_fetch_sub(&sim_sem_sleepers, 1);
}

static tern_status_t sim_job_run(struct sim_context *ctx, struct sim_job *job)
{
	const struct tern_model_mem mem = {
		.translate = sim_translate_waking,
		.clock = sim_model_clock,
		.ctx = ctx,
		.fabric = &sim_fabric,
		.device = (u32)ctx->dev->index,
	};
	uint64_t deadline = sim_clock_ns() + sim_job_timeout_ns;
	struct tern_model_job run;
	unsigned int backoff_us = 1000;
	uint64_t progress = 0;
	uint32_t offset = 0;
	int ret;

	tern_model_job_init(&run, job->packets, job->size);
	for (;;) {
		pthread_rwlock_rdlock(&ctx->va_lock);
		ret = tern_model_run(&run, &mem);
		pthread_rwlock_unlock(&ctx->va_lock);
		sim_sem_wake();
		if (ret == 0)
			return TERN_SUCCESS;
		if (ret == -EFAULT)
			return TERN_ERROR_DEVICE_FAULT;
		if (ret == -ENOLINK)
			return TERN_ERROR_NO_ROUTE;
		if (ret == -ECANCELED)
			return TERN_ERROR_CANCELLED;
		if (ret == -ECONNRESET)
			return TERN_ERROR_PEER_FAILED;
		if (ret != TERN_MODEL_STALLED && ret != TERN_MODEL_YIELD)
			return TERN_ERROR_BACKEND;
		if (sim_clock_ns() >= deadline)
			return TERN_ERROR_TIMEOUT;
		if (run.offset != offset || run.progress != progress) {
			/* The stream moved on: the next wait is a new one. */
			offset = run.offset;
			progress = run.progress;
			backoff_us = 1000;
		}
		if (ret == TERN_MODEL_STALLED) {
			sim_sem_sleep(ctx, job, run.offset, backoff_us);
			if (backoff_us < 16000)
				backoff_us *= 2;
		}
	}
}

static void sim_job_free(struct sim_job *job)
{
	uint32_t i;

	for (i = 0; i < job->dep_count; i++)
		tern_fence_put(&job->deps[i]->base);
	free(job->deps);
	tern_fence_put(&job->fence->base);
	free(job);
}

static bool sim_job_ready(struct sim_engine *engine, struct sim_job *job)
{
	bool ready = true;
	uint32_t i;

	/* Watch every pending dependency, not just the first. */
	for (i = 0; i < job->dep_count; i++)
		if (!sim_fence_ready_or_watch(job->deps[i], engine))
			ready = false;
	return ready;
}

/* The queue whose head job should run next, or NULL. Engine lock held. */
static struct sim_queue *sim_engine_pick(struct sim_engine *engine)
{
	struct sim_queue *q, *best = NULL;

	for (q = engine->queues; q; q = q->next) {
		if (!q->head || (best && best->head->seq < q->head->seq))
			continue;
		if (sim_job_ready(engine, q->head))
			best = q;
	}
	return best;
}

static bool sim_engine_idle(struct sim_engine *engine)
{
	struct sim_queue *q;

	for (q = engine->queues; q; q = q->next)
		if (q->head)
			return false;
	return true;
}

static void *sim_engine_main(void *arg)
{
	struct sim_engine *engine = arg;
	struct sim_queue *q;
	struct sim_job *job;
	tern_status_t status;

	pthread_mutex_lock(&engine->lock);
	for (;;) {
		q = sim_engine_pick(engine);
		if (!q) {
			if (engine->stop && sim_engine_idle(engine))
				break;
			if (engine->poll) {
				engine->poll = false;
				pthread_mutex_unlock(&engine->lock);
				sim_sleep_us(1000);
				pthread_mutex_lock(&engine->lock);
			} else if (!engine->kicked) {
				pthread_cond_wait(&engine->cond, &engine->lock);
			}
			engine->kicked = false;
			continue;
		}
		job = q->head;
		q->head = job->next;
		if (!q->head)
			q->tail = NULL;
		pthread_mutex_unlock(&engine->lock);

		/* The queue stays until its last fence signals. */
		status = sim_job_run(q->ctx, job);
		sim_fence_signal(job->fence, status);
		sim_job_free(job);

		pthread_mutex_lock(&engine->lock);
	}
	pthread_mutex_unlock(&engine->lock);
	return NULL;
}

tern_status_t sim_engines_start(struct sim_device *dev)
{
	unsigned int i;

	for (i = 0; i < SIM_ENGINES; i++) {
		struct sim_engine *engine = &dev->engines[i];

		engine->stop = false;
		engine->kicked = false;
		if (pthread_create(&engine->thread, NULL, sim_engine_main,
				   engine)) {
			sim_engines_stop(dev);
			return TERN_ERROR_OUT_OF_MEMORY;
		}
		engine->running = true;
	}
	return TERN_SUCCESS;
}

void sim_engines_stop(struct sim_device *dev)
{
	unsigned int i;

	for (i = 0; i < SIM_ENGINES; i++) {
		struct sim_engine *engine = &dev->engines[i];

		if (!engine->running)
			continue;
		pthread_mutex_lock(&engine->lock);
		engine->stop = true;
		pthread_cond_signal(&engine->cond);
		pthread_mutex_unlock(&engine->lock);
		pthread_join(engine->thread, NULL);
		engine->running = false;
	}
}

tern_status_t sim_queue_create(struct tern_be_device *bdev, uint32_t engine,
			       struct tern_be_queue **out)
{
	struct sim_context *ctx = sim_context(bdev);
	struct sim_queue *q;
	struct sim_engine *e;

	if (engine >= SIM_ENGINES)
		return TERN_ERROR_INVALID_ARGUMENT;
	q = calloc(1, sizeof(*q));
	if (!q)
		return TERN_ERROR_OUT_OF_MEMORY;
	e = &ctx->dev->engines[engine];
	q->base.engine = engine;
	q->ctx = ctx;
	q->engine = e;
	pthread_mutex_lock(&e->lock);
	q->next = e->queues;
	e->queues = q;
	pthread_mutex_unlock(&e->lock);
	*out = &q->base;
	return TERN_SUCCESS;
}

void sim_queue_destroy(struct tern_be_device *bdev,
		       struct tern_be_queue *bqueue)
{
	struct sim_queue *q = sim_queue(bqueue), **link;
	struct sim_engine *e = q->engine;
	struct sim_fence *last;

	(void)bdev;
	/* Submitted jobs still run: wait for the newest, then unlink. */
	pthread_mutex_lock(&e->lock);
	last = q->last;
	q->last = NULL;
	pthread_mutex_unlock(&e->lock);
	if (last) {
		sim_fence_wait(&last->base, TERN_WAIT_FOREVER);
		tern_fence_put(&last->base);
	}
	pthread_mutex_lock(&e->lock);
	for (link = &e->queues; *link; link = &(*link)->next) {
		if (*link == q) {
			*link = q->next;
			break;
		}
	}
	pthread_mutex_unlock(&e->lock);
	free(q);
}

tern_status_t sim_submit(struct tern_be_device *bdev,
			 struct tern_be_queue *bqueue, const void *packets,
			 uint32_t size, struct tern_fence *const *waits,
			 uint32_t wait_count, struct tern_fence **out)
{
	struct sim_queue *q = sim_queue(bqueue);
	struct sim_engine *e = q->engine;
	struct sim_job *job;
	uint32_t i;

	(void)bdev;
	if (tern_model_validate(packets, size, NULL) ||
	    wait_count > TERN_MODEL_MAX_IN_SYNCOBJS)
		return TERN_ERROR_INVALID_ARGUMENT;
	job = calloc(1, sizeof(*job) + size);
	if (!job)
		return TERN_ERROR_OUT_OF_MEMORY;
	memcpy(job->packets, packets, size);
	job->size = size;
	if (wait_count) {
		job->deps = calloc(wait_count, sizeof(*job->deps));
		if (!job->deps)
			goto err_job;
	}
	job->fence = sim_fence_create();
	if (!job->fence)
		goto err_job;
	for (i = 0; i < wait_count; i++)
		job->deps[i] = tern_container_of(tern_fence_get(waits[i]),
						 struct sim_fence, base);
	job->dep_count = wait_count;

	*out = tern_fence_get(&job->fence->base);
	pthread_mutex_lock(&e->lock);
	job->seq = e->next_seq++;
	if (q->tail)
		q->tail->next = job;
	else
		q->head = job;
	q->tail = job;
	if (q->last)
		tern_fence_put(&q->last->base);
	q->last = job->fence;
	tern_fence_get(&job->fence->base);
	e->kicked = true;
	pthread_cond_signal(&e->cond);
	pthread_mutex_unlock(&e->lock);
	return TERN_SUCCESS;

err_job:
	free(job->deps);
	free(job);
	return TERN_ERROR_OUT_OF_MEMORY;
}
