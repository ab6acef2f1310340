// SPDX-License-Identifier: MIT
/*
 * The machine's engines: their queues, and what an engine does with its
 * jobs when a worker (sched.c) gives it a turn. Each queue's jobs run in
 * submission order; among the queues of an engine, the oldest job whose
 * dependencies have all signalled goes next, and runs to its end before
 * the engine takes another (as tern.ko's engines do). A job whose SEM_WAIT
 * does not pass parks its engine until an engine writes the semaphore (or
 * a bounded look, for host writes). A job still unfinished at the job
 * timeout fails with TERN_ERROR_TIMEOUT and resets the engine; one that
 * faults fails with TERN_ERROR_DEVICE_FAULT, one that addresses a peer's
 * memory no up link reaches with TERN_ERROR_NO_ROUTE, one whose
 * SEM_WAIT_ABORT finds its abort word set with TERN_ERROR_CANCELLED
 * (TERN_SEM_ABORT_CANCEL) or TERN_ERROR_PEER_FAILED, one whose context is
 * closing (its process went) with TERN_ERROR_CANCELLED. A dependency's
 * failure does not stop the jobs waiting for it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "machine.h"
#include "tern_model.h"

/* Looks at a semaphore no engine wrote: 1 ms, doubling to 16 ms. */
#define MACHINE_LOOK_MIN_US	1000
#define MACHINE_LOOK_MAX_US	16000

static uint64_t machine_model_clock(void *ctx)
{
	(void)ctx;
	return machine_clock_ns();
}

/*
 * The word an 8-byte access wrote: its waiters are woken once it has
 * landed, at the engine's next access or the end of its run. The worker
 * runs one engine at a time, so the thread's own record serves.
 */
static __thread void *machine_written;
static __thread struct machine_sched *machine_written_sched;

static void machine_written_flush(void)
{
	if (machine_written)
		machine_sched_written(machine_written_sched, machine_written);
	machine_written = NULL;
}

static void *machine_translate_watched(void *ctx, uint64_t va, uint64_t len,
				       uint32_t *owner)
{
	void *ptr;

	machine_written_flush();
	/* Between packets: a long turn shares the engines it holds up. */
	machine_sched_share(machine_written_sched);
	ptr = machine_translate(ctx, va, len, owner);
	if (len == sizeof(uint64_t) && ptr && !((uintptr_t)ptr & 3))
		machine_written = ptr;
	return ptr;
}

static tern_status_t machine_status_of(int ret)
{
	switch (ret) {
	case 0:
		return TERN_SUCCESS;
	case -EFAULT:
		return TERN_ERROR_DEVICE_FAULT;
	case -ENOLINK:
		return TERN_ERROR_NO_ROUTE;
	case -ECANCELED:
		return TERN_ERROR_CANCELLED;
	case -ECONNRESET:
		return TERN_ERROR_PEER_FAILED;
	default:
		return TERN_ERROR_BACKEND;
	}
}

/*
 * In modelled time a job starts once its engine is free, the process
 * had submitted it (after the jobs it had waited for) and the jobs it
 * depends on have ended: as the host and a chip would order it.
 */
static void machine_job_start_time(struct machine_engine *engine,
				   const struct machine_job *job)
{
	struct tern_timing_engine *t = &engine->timing;
	uint32_t i;

	if (t->now < job->host_ns)
		t->now = job->host_ns;
	for (i = 0; i < job->dep_count; i++)
		if (t->now < job->deps[i]->end_ns)
			t->now = job->deps[i]->end_ns;
}

static void machine_job_free(struct machine_job *job)
{
	uint32_t i;

	for (i = 0; i < job->dep_count; i++)
		machine_fence_put(job->deps[i]);
	free(job->deps);
	machine_fence_put(job->fence);
	free(job);
}

static bool machine_job_ready(struct machine_engine *engine,
			      struct machine_job *job)
{
	bool ready = true;
	uint32_t i;

	/* Watch every pending dependency, not just the first. */
	for (i = 0; i < job->dep_count; i++)
		if (!machine_fence_ready_or_watch(job->deps[i], engine))
			ready = false;
	return ready;
}

/* The queue whose head job should run next, or NULL. Engine lock held. */
static struct machine_queue *machine_engine_pick(struct machine_engine *engine)
{
	struct machine_queue *q, *best = NULL;

	for (q = engine->queues; q; q = q->next) {
		if (!q->head || (best && best->head->seq < q->head->seq))
			continue;
		/* A closing context's jobs end now, whatever they wait for. */
		if (atomic_load(&q->ctx->dead) ||
		    machine_job_ready(engine, q->head))
			best = q;
	}
	return best;
}

/* Counts a job's end on its engine and its context. Engine lock held. */
static void machine_engine_account(struct machine_engine *engine,
				   struct machine_context *ctx,
				   tern_status_t status, uint64_t busy_ns)
{
	struct machine_engine_stats *stats = &engine->stats;

	stats->busy_ns += busy_ns;
	atomic_fetch_add(&ctx->busy_ns, busy_ns);
	atomic_fetch_sub(&ctx->jobs_active, 1);
	if (status == TERN_SUCCESS)
		stats->jobs_completed++;
	else
		stats->jobs_failed++;
	if (status == TERN_ERROR_TIMEOUT) {
		/* As tern.ko: a timeout resets the engine, ending a hang. */
		stats->timeouts++;
		stats->resets++;
		if (atomic_exchange(&engine->hung, false))
			stats->hang_resets++;
	}
}

/* Who a reset failed, to announce once the engine lock is let go. */
static void machine_engine_guilty(struct machine_engine *engine,
				  struct machine_context *ctx,
				  struct machine_guilty *guilty)
{
	guilty->client_id = ctx->id;
	guilty->pid = ctx->client->pid;
	memcpy(guilty->comm, ctx->client->comm, sizeof(guilty->comm));
	guilty->comm[sizeof(guilty->comm) - 1] = '\0';
	guilty->resets = engine->stats.resets;
}

/*
 * The word the stalled SEM_WAIT or SEM_WAIT_ABORT at @offset waits on, or
 * NULL. Nothing wakes a SEM_WAIT_ABORT for a store into its abort word:
 * that is seen at the next look.
 */
static const void *machine_wait_word(struct machine_context *ctx,
				     const struct machine_job *job,
				     uint32_t offset)
{
	/* SEM_WAIT_ABORT begins as SEM_WAIT does: header, addr, value */
	const struct drm_tern_packet_sem_wait *p =
		(const void *)((const uint8_t *)job->packets + offset);
	uint32_t owner;
	void *ptr;

	if (p->header.opcode != TERN_OP_SEM_WAIT &&
	    p->header.opcode != TERN_OP_SEM_WAIT_ABORT)
		return NULL;
	pthread_rwlock_rdlock(&ctx->va_lock);
	ptr = machine_translate(ctx, p->addr, sizeof(uint64_t), &owner);
	pthread_rwlock_unlock(&ctx->va_lock);
	return ptr;
}

/* Takes the next ready job; false if none (*@poll: look again soon). */
static bool machine_engine_start(struct machine_engine *engine, bool *poll)
{
	struct machine_run *run = &engine->run;
	struct machine_queue *q;
	struct machine_job *job;

	pthread_mutex_lock(&engine->lock);
	q = machine_engine_pick(engine);
	if (!q) {
		*poll = engine->poll;
		engine->poll = false;
		pthread_mutex_unlock(&engine->lock);
		return false;
	}
	job = q->head;
	q->head = job->next;
	if (!q->head)
		q->tail = NULL;
	run->ctx = q->ctx;
	engine->busy = q->ctx;
	pthread_mutex_unlock(&engine->lock);

	/* The queue stays until its last fence signals. */
	run->job = job;
	run->start_ns = machine_clock_ns();
	run->deadline_ns = run->start_ns +
			   engine->dev->machine->job_timeout_ns;
	run->offset = 0;
	run->progress = 0;
	run->backoff_us = MACHINE_LOOK_MIN_US;
	tern_model_job_init(&run->model, job->packets, job->size);
	machine_job_start_time(engine, job);
	return true;
}

/* Ends the engine's job with @status; the fence goes last. */
static void machine_engine_finish(struct machine_engine *engine,
				  tern_status_t status)
{
	struct machine_run *run = &engine->run;
	struct machine_context *ctx = run->ctx;
	struct machine_job *job = run->job;
	struct machine_guilty guilty;

	tern_timing_job_end(&engine->timing);
	pthread_mutex_lock(&engine->lock);
	engine->busy = NULL;
	machine_engine_account(engine, ctx, status,
			       machine_clock_ns() - run->start_ns);
	if (status == TERN_ERROR_TIMEOUT)
		machine_engine_guilty(engine, ctx, &guilty);
	pthread_mutex_unlock(&engine->lock);
	run->job = NULL;
	run->ctx = NULL;
	machine_fence_signal(job->fence, status, engine->timing.now);
	machine_job_free(job);
	if (status == TERN_ERROR_TIMEOUT)
		machine_reset_event(engine, &guilty);
}

/*
 * Runs the engine's job from where it stopped: TERN_MODEL_STALLED or
 * TERN_MODEL_YIELD when it must run again, else 0 or the model's error.
 */
static int machine_engine_step(struct machine_engine *engine)
{
	struct machine_run *run = &engine->run;
	struct machine_context *ctx = run->ctx;
	struct machine *m = ctx->dev->machine;
	const struct tern_model_mem mem = {
		.translate = machine_translate_watched,
		.clock = machine_model_clock,
		.ctx = ctx,
		.fabric = &m->fabric,
		.device = (u32)ctx->dev->index,
		.timing = m->timing,
		.engine = &engine->timing,
		.model_clock = ctx->model_clock,
		.skip_data = ctx->skip_data,
	};
	int ret;

	if (atomic_load(&ctx->dead))
		return -ECANCELED;
	/* engine_hang: nothing moves until the timeout. */
	if (atomic_load(&engine->hung))
		return TERN_MODEL_STALLED;
	machine_written_sched = &m->sched;
	pthread_rwlock_rdlock(&ctx->va_lock);
	ret = tern_model_run(&run->model, &mem);
	pthread_rwlock_unlock(&ctx->va_lock);
	machine_written_flush();
	return ret;
}

/* The job waits: where to park, or false once it has timed out. */
static bool machine_engine_stalled(struct machine_engine *engine,
				   struct machine_park *park)
{
	struct machine_run *run = &engine->run;
	uint64_t now = machine_clock_ns(), look;

	if (now >= run->deadline_ns)
		return false;
	if (run->model.offset != run->offset ||
	    run->model.progress != run->progress) {
		/* The stream moved on: the next wait is a new one. */
		run->offset = run->model.offset;
		run->progress = run->model.progress;
		run->backoff_us = MACHINE_LOOK_MIN_US;
	}
	look = now + run->backoff_us * 1000ull;
	park->look_ns = look < run->deadline_ns ? look : run->deadline_ns;
	park->word = atomic_load(&engine->hung) ? NULL :
		     machine_wait_word(run->ctx, run->job, run->model.offset);
	if (run->backoff_us < MACHINE_LOOK_MAX_US)
		run->backoff_us *= 2;
	return true;
}

enum machine_turn machine_engine_turn(struct machine_engine *engine,
				      struct machine_park *park)
{
	struct machine_sched *s = &engine->dev->machine->sched;
	struct machine_run *run = &engine->run;
	bool poll = false;
	int ret;

	for (;;) {
		if (!run->job && !machine_engine_start(engine, &poll)) {
			if (!poll)
				return MACHINE_TURN_IDLE;
			/* A dependency it could not watch: look in 1 ms. */
			park->word = NULL;
			park->look_ns = machine_clock_ns() +
					MACHINE_LOOK_MIN_US * 1000ull;
			machine_sched_writes(s, park);
			return MACHINE_TURN_PARK;
		}
		if (run->job->early) {
			machine_engine_finish(engine, run->job->early);
			continue;
		}
		machine_sched_writes(s, park);
		ret = machine_engine_step(engine);
		if (ret == TERN_MODEL_YIELD)
			return MACHINE_TURN_YIELD;
		if (ret != TERN_MODEL_STALLED)
			machine_engine_finish(engine, machine_status_of(ret));
		else if (machine_engine_stalled(engine, park))
			return MACHINE_TURN_PARK;
		else
			machine_engine_finish(engine, TERN_ERROR_TIMEOUT);
		if (machine_sched_contended(s))
			return MACHINE_TURN_YIELD;
	}
}

tern_status_t machine_queue_create(struct machine_context *ctx,
				   uint32_t engine,
				   struct machine_queue **out)
{
	struct machine_engine *e;
	struct machine_queue *q;

	if (engine >= MACHINE_ENGINES)
		return TERN_ERROR_INVALID_ARGUMENT;
	q = calloc(1, sizeof(*q));
	if (!q)
		return TERN_ERROR_OUT_OF_MEMORY;
	e = &ctx->dev->engines[engine];
	q->id = machine_next_id(ctx->dev->machine);
	q->ctx = ctx;
	q->engine = e;
	q->ctx_next = ctx->queues;
	ctx->queues = q;
	pthread_mutex_lock(&e->lock);
	q->next = e->queues;
	e->queues = q;
	pthread_mutex_unlock(&e->lock);
	*out = q;
	return TERN_SUCCESS;
}

struct machine_queue *machine_queue_find(struct machine_context *ctx,
					 uint64_t id)
{
	struct machine_queue *q;

	for (q = ctx->queues; q; q = q->ctx_next)
		if (q->id == id)
			return q;
	return NULL;
}

void machine_queue_destroy(struct machine_queue *q)
{
	struct machine_engine *e = q->engine;
	struct machine_queue **link;
	struct machine_fence *last;

	/* Submitted jobs still run: wait for the newest, then unlink. */
	pthread_mutex_lock(&e->lock);
	last = q->last;
	q->last = NULL;
	pthread_mutex_unlock(&e->lock);
	if (last) {
		machine_fence_wait(last);
		machine_fence_put(last);
	}
	pthread_mutex_lock(&e->lock);
	for (link = &e->queues; *link; link = &(*link)->next) {
		if (*link == q) {
			*link = q->next;
			break;
		}
	}
	pthread_mutex_unlock(&e->lock);
	for (link = &q->ctx->queues; *link; link = &(*link)->ctx_next) {
		if (*link == q) {
			*link = q->ctx_next;
			break;
		}
	}
	free(q);
}

void machine_job_queue(struct machine_queue *q, struct machine_job *job)
{
	struct machine_engine *e = q->engine;

	atomic_fetch_add(&q->ctx->jobs_submitted, 1);
	atomic_fetch_add(&q->ctx->jobs_active, 1);
	pthread_mutex_lock(&e->lock);
	job->seq = e->next_seq++;
	if (q->tail)
		q->tail->next = job;
	else
		q->head = job;
	q->tail = job;
	if (q->last)
		machine_fence_put(q->last);
	q->last = machine_fence_get(job->fence);
	pthread_mutex_unlock(&e->lock);
	machine_engine_kick(e);
}
