// SPDX-License-Identifier: MIT
/*
 * The machine's engines: their queues, and what an engine does with its
 * jobs when a worker (sched.c) gives it a turn. Each queue's jobs run in
 * submission order, one started at a time; queues do not wait for one
 * another, as tern.ko's do not. A turn is made of passes: in each, every
 * process with a job that can move on the engine gets one step (the
 * model's, bounded by its work budget) for the queue it moved least
 * lately, choosing first among its contexts, then among their queues; a
 * step that finds its SEM_WAIT still waiting costs nothing and lets the
 * process try its next queue. So a job waiting on a semaphore never
 * holds the engine from anyone's other jobs, and no number of queues or
 * contexts gives a process more than its share of the engine's steps.
 * When no job moved in a whole pass, the engine parks until one of the
 * semaphores its jobs wait on is written (or a bounded look, for host
 * writes).
 *
 * A job still unfinished at the job timeout fails with TERN_ERROR_TIMEOUT
 * and resets the engine; one that faults fails with
 * TERN_ERROR_DEVICE_FAULT, one that addresses a peer's memory no up link
 * reaches with TERN_ERROR_NO_ROUTE, one whose SEM_WAIT_ABORT finds its
 * abort word set with TERN_ERROR_CANCELLED (DRM_TERN_SEM_ABORT_CANCEL) or
 * TERN_ERROR_PEER_FAILED, one whose context is closing (its process went)
 * with TERN_ERROR_CANCELLED. A dependency's failure does not stop the
 * jobs waiting for it. A destroyed queue's jobs still run; the queue goes
 * once they have, and nothing here waits for them.
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

/*
 * Whether @q has a job that can move: one started, or a head job whose
 * dependencies have all signalled (a closing context's, whatever they
 * wait for: it ends now). Engine lock held.
 */
static bool machine_queue_can_run(struct machine_engine *engine,
				  struct machine_queue *q)
{
	if (q->run.job)
		return true;
	if (!q->head)
		return false;
	return atomic_load(&q->ctx->dead) || machine_job_ready(engine, q->head);
}

/* The engine's slot in a process's record of when it last moved. */
static unsigned int machine_engine_slot(const struct machine_engine *engine)
{
	return (unsigned int)engine->dev->index * MACHINE_MAX_ENGINES +
	       engine->index;
}

/*
 * Whether @a has its step before @b: the process that moved on the
 * engine least lately first, then, within it, the context, then the
 * queue. Engine lock held.
 */
static bool machine_queue_before(const struct machine_engine *engine,
				  const struct machine_queue *a,
				  const struct machine_queue *b)
{
	unsigned int slot = machine_engine_slot(engine), e = engine->index;
	uint64_t pa = a->ctx->client->moved[slot];
	uint64_t pb = b->ctx->client->moved[slot];

	if (pa != pb)
		return pa < pb;
	if (a->ctx->moved[e] != b->ctx->moved[e])
		return a->ctx->moved[e] < b->ctx->moved[e];
	return a->moved < b->moved;
}

/*
 * The queue whose job has the next step of this pass, or NULL when the
 * pass is over: one not tried in it, of a process that has not moved in
 * it, with a job that can move. Engine lock held.
 */
static struct machine_queue *machine_engine_pick(struct machine_engine *engine,
						 uint64_t pass_start)
{
	unsigned int slot = machine_engine_slot(engine);
	struct machine_queue *q, *best = NULL;

	for (q = engine->queues; q; q = q->next) {
		if (q->tried == engine->pass ||
		    q->ctx->client->moved[slot] > pass_start)
			continue;
		if ((!best || machine_queue_before(engine, q, best)) &&
		    machine_queue_can_run(engine, q))
			best = q;
	}
	return best;
}

/*
 * Charges a step of @dt ns to the engine and @q's context; one that
 * moved also stamps @q, its context and its process as the latest to
 * move. Engine lock held.
 */
static void machine_queue_charge(struct machine_engine *engine,
				 struct machine_queue *q, uint64_t dt,
				 bool moved)
{
	engine->stats.busy_ns += dt;
	engine->stats.steps++;
	if (dt > engine->stats.longest_step_ns)
		engine->stats.longest_step_ns = dt;
	atomic_fetch_add(&q->ctx->busy_ns, dt);
	if (!moved)
		return;
	engine->stamp++;
	q->moved = engine->stamp;
	q->ctx->moved[engine->index] = engine->stamp;
	q->ctx->client->moved[machine_engine_slot(engine)] = engine->stamp;
}

/* Counts a job's end on its engine and its context. Engine lock held. */
static void machine_engine_account(struct machine_engine *engine,
				   struct machine_context *ctx,
				   tern_status_t status)
{
	struct machine_engine_stats *stats = &engine->stats;

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
static void machine_engine_guilty(struct machine_context *ctx,
				  struct machine_guilty *guilty)
{
	guilty->client_id = ctx->id;
	guilty->pid = ctx->client->pid;
	memcpy(guilty->comm, ctx->client->comm, sizeof(guilty->comm));
	guilty->comm[sizeof(guilty->comm) - 1] = '\0';
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

	if (p->header.opcode != DRM_TERN_OP_SEM_WAIT &&
	    p->header.opcode != DRM_TERN_OP_SEM_WAIT_ABORT)
		return NULL;
	pthread_rwlock_rdlock(&ctx->va_lock);
	ptr = machine_translate(ctx, p->addr, sizeof(uint64_t), &owner);
	pthread_rwlock_unlock(&ctx->va_lock);
	return ptr;
}

/* Starts @q's head job. Engine lock held. */
static void machine_queue_start(struct machine_engine *engine,
				struct machine_queue *q)
{
	struct machine_run *run = &q->run;
	struct machine_job *job = q->head;

	q->head = job->next;
	if (!q->head)
		q->tail = NULL;
	engine->running++;
	run->job = job;
	run->start_ns = machine_clock_ns();
	run->deadline_ns = run->start_ns +
			   engine->dev->machine->job_timeout_ns;
	run->offset = 0;
	run->progress = 0;
	run->backoff_us = MACHINE_LOOK_MIN_US;
	tern_model_job_init(&run->model, job->packets, job->size);
	machine_job_start_time(engine, job);
}

/*
 * Ends @q's job with @status, charging its last step of @dt ns; the
 * fence goes last. The engine lock taken here is the worker's last touch
 * of @q and its context: whoever frees them takes that lock first and
 * finds the job gone.
 */
static void machine_queue_finish(struct machine_engine *engine,
				 struct machine_queue *q, tern_status_t status,
				 uint64_t dt)
{
	struct machine_job *job = q->run.job;
	struct machine_guilty guilty;

	tern_timing_job_end(&engine->timing);
	pthread_mutex_lock(&engine->lock);
	machine_queue_charge(engine, q, dt, true);
	machine_engine_account(engine, q->ctx, status);
	if (status == TERN_ERROR_TIMEOUT)	/* the reset counted */
		machine_engine_guilty(q->ctx, &guilty);
	machine_client_job_end(q->ctx->client, job->size);
	engine->running--;
	q->run.job = NULL;
	pthread_mutex_unlock(&engine->lock);
	machine_fence_signal(job->fence, status, engine->timing.now);
	machine_job_free(job);
	if (status == TERN_ERROR_TIMEOUT)
		machine_reset_event(engine, &guilty);
}

/*
 * Runs @q's job from where it stopped: TERN_MODEL_STALLED or
 * TERN_MODEL_YIELD when it must run again, else 0 or the model's error.
 */
static int machine_queue_step(struct machine_engine *engine,
			      struct machine_queue *q)
{
	struct machine_context *ctx = q->ctx;
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
		.target = &engine->target,
		.onchip = machine_context_onchip,
	};
	int ret;

	if (atomic_load(&ctx->dead))
		return -ECANCELED;
	/* engine_hang: nothing moves until the timeout. */
	if (atomic_load(&engine->hung))
		return TERN_MODEL_STALLED;
	machine_written_sched = &m->sched;
	pthread_rwlock_rdlock(&ctx->va_lock);
	ret = tern_model_run(&q->run.model, &mem);
	pthread_rwlock_unlock(&ctx->va_lock);
	machine_written_flush();
	return ret;
}

/* Adds where @q's stalled job waits to @park. */
static void machine_park_add(struct machine_park *park,
			     struct machine_queue *q, uint64_t now)
{
	struct machine_run *run = &q->run;
	uint64_t look = now + run->backoff_us * 1000ull;
	const void *word;
	unsigned int i;

	if (look > run->deadline_ns)
		look = run->deadline_ns;
	if (look < park->look_ns)
		park->look_ns = look;
	if (run->backoff_us < MACHINE_LOOK_MAX_US)
		run->backoff_us *= 2;
	word = atomic_load(&q->engine->hung) ? NULL :
	       machine_wait_word(q->ctx, run->job, run->model.offset);
	if (!word)
		return;		/* its look alone brings it back */
	for (i = 0; i < park->word_count; i++)
		if (park->words[i] == word)
			return;
	/* No room: its look brings it back, if later than a write would. */
	if (park->word_count < MACHINE_PARK_WORDS)
		park->words[park->word_count++] = word;
}

/* What one step did to a queue's job. */
enum machine_step {
	MACHINE_STEP_MOVED,	/* ran packets, or ended */
	MACHINE_STEP_WAITS,	/* its SEM_WAIT still does not pass */
};

/* Gives @q's job one step; a job that waits adds itself to @park. */
static enum machine_step machine_queue_turn(struct machine_engine *engine,
					    struct machine_queue *q,
					    struct machine_park *park)
{
	struct machine_run *run = &q->run;
	uint64_t start = machine_clock_ns(), now;
	bool moved;
	int ret;

	if (run->job->early) {
		machine_queue_finish(engine, q, run->job->early, 0);
		return MACHINE_STEP_MOVED;
	}
	ret = machine_queue_step(engine, q);
	now = machine_clock_ns();
	if (ret != TERN_MODEL_YIELD && ret != TERN_MODEL_STALLED) {
		machine_queue_finish(engine, q, machine_status_of(ret),
				     now - start);
		return MACHINE_STEP_MOVED;
	}
	if (ret == TERN_MODEL_STALLED && now >= run->deadline_ns) {
		machine_queue_finish(engine, q, TERN_ERROR_TIMEOUT,
				     now - start);
		return MACHINE_STEP_MOVED;
	}
	moved = ret == TERN_MODEL_YIELD ||
		run->model.offset != run->offset ||
		run->model.progress != run->progress;
	if (moved) {
		/* The stream moved on: its next wait is a new one. */
		run->offset = run->model.offset;
		run->progress = run->model.progress;
		run->backoff_us = MACHINE_LOOK_MIN_US;
	} else {
		machine_park_add(park, q, now);
	}
	pthread_mutex_lock(&engine->lock);
	machine_queue_charge(engine, q, now - start, moved);
	pthread_mutex_unlock(&engine->lock);
	return moved ? MACHINE_STEP_MOVED : MACHINE_STEP_WAITS;
}

/*
 * One pass over the engine's queues: a step for each process with a job
 * that can move, given to its queue that moved least lately (a process
 * whose step waited tries its next queue). *@tried: some job was given
 * a step. Returns whether any job moved.
 */
static bool machine_engine_pass(struct machine_engine *engine,
				struct machine_park *park, bool *tried)
{
	struct machine_queue *q;
	uint64_t pass_start;
	bool moved = false;

	pthread_mutex_lock(&engine->lock);
	pass_start = engine->stamp;
	engine->pass++;
	while ((q = machine_engine_pick(engine, pass_start))) {
		q->tried = engine->pass;
		if (!q->run.job)
			machine_queue_start(engine, q);
		pthread_mutex_unlock(&engine->lock);
		*tried = true;
		if (machine_queue_turn(engine, q, park) == MACHINE_STEP_MOVED)
			moved = true;
		pthread_mutex_lock(&engine->lock);
	}
	pthread_mutex_unlock(&engine->lock);
	return moved;
}

enum machine_turn machine_engine_turn(struct machine_engine *engine,
				      struct machine_park *park)
{
	struct machine_sched *s = &engine->dev->machine->sched;
	bool tried, poll;

	for (;;) {
		park->word_count = 0;
		park->look_ns = UINT64_MAX;
		machine_sched_writes(s, park);
		tried = false;
		if (machine_engine_pass(engine, park, &tried)) {
			if (machine_sched_contended(s))
				return MACHINE_TURN_YIELD;
			continue;
		}
		if (tried)
			return MACHINE_TURN_PARK;
		pthread_mutex_lock(&engine->lock);
		poll = engine->poll;
		engine->poll = false;
		pthread_mutex_unlock(&engine->lock);
		if (!poll)
			return MACHINE_TURN_IDLE;
		/* A dependency it could not watch: look in 1 ms. */
		park->look_ns = machine_clock_ns() +
				MACHINE_LOOK_MIN_US * 1000ull;
		return MACHINE_TURN_PARK;
	}
}

tern_status_t machine_queue_create(struct machine_context *ctx,
				   uint32_t engine,
				   struct machine_queue **out)
{
	struct machine_engine *e;
	struct machine_queue *q;

	if (engine >= ctx->dev->engine_count)
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
		if (q->id == id && !q->destroyed)
			return q;
	return NULL;
}

void machine_queues_reap(struct machine_context *ctx)
{
	struct machine_queue **link = &ctx->queues, *q;

	while ((q = *link)) {
		struct machine_engine *e = q->engine;
		struct machine_queue **on;
		bool done;

		if (!q->destroyed) {
			link = &q->ctx_next;
			continue;
		}
		pthread_mutex_lock(&e->lock);
		done = !q->head && !q->run.job;
		for (on = &e->queues; done && *on; on = &(*on)->next) {
			if (*on == q) {
				*on = q->next;
				break;
			}
		}
		pthread_mutex_unlock(&e->lock);
		if (!done) {
			link = &q->ctx_next;
			continue;
		}
		*link = q->ctx_next;
		if (q->last)
			machine_fence_put(q->last);
		free(q);
	}
}

void machine_queue_destroy(struct machine_queue *q)
{
	struct machine_context *ctx = q->ctx;

	/* Its jobs still run; the queue goes once they have. */
	pthread_mutex_lock(&q->engine->lock);
	q->destroyed = true;
	pthread_mutex_unlock(&q->engine->lock);
	machine_queues_reap(ctx);
}

void machine_job_queue(struct machine_queue *q, struct machine_job *job)
{
	struct machine_engine *e = q->engine;

	atomic_fetch_add(&q->ctx->jobs_submitted, 1);
	atomic_fetch_add(&q->ctx->jobs_active, 1);
	pthread_mutex_lock(&e->lock);
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
