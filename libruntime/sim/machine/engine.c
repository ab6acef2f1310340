// SPDX-License-Identifier: MIT
/*
 * The machine's engines: one thread per engine, running jobs with the
 * device model. Each queue's jobs run in submission order; among the
 * queues of an engine, the oldest job whose dependencies have all
 * signalled goes next, and runs to its end before the engine takes
 * another (as tern.ko's engines do). A job whose SEM_WAIT does not pass
 * sleeps on the semaphore until an engine writes it (or a bounded timeout,
 * for host writes). A job still unfinished at the job timeout fails with
 * TERN_ERROR_TIMEOUT and resets the engine; one that faults fails with
 * TERN_ERROR_DEVICE_FAULT, one that addresses a peer's memory no up link
 * reaches with TERN_ERROR_NO_ROUTE, one whose SEM_WAIT_ABORT finds its
 * abort word set with TERN_ERROR_CANCELLED (TERN_SEM_ABORT_CANCEL) or
 * TERN_ERROR_PEER_FAILED, one whose context is closing (its process went)
 * with TERN_ERROR_CANCELLED. A dependency's failure does not stop the jobs
 * waiting for it.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "machine.h"
#include "tern_model.h"

void machine_engine_kick(struct machine_engine *engine)
{
	pthread_mutex_lock(&engine->lock);
	__atomic_store_n(&engine->kicked, true, __ATOMIC_RELEASE);
	pthread_cond_signal(&engine->cond);
	pthread_mutex_unlock(&engine->lock);
}

static uint64_t machine_model_clock(void *ctx)
{
	(void)ctx;
	return machine_clock_ns();
}

static void machine_sleep_us(unsigned int us)
{
	struct timespec ts = { 0, (long)us * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * A stalled SEM_WAIT sleeps on its semaphore's low word (a futex, shared:
 * the memory is the processes' too) rather than polling: every short sleep
 * arms a timer, which is costly (most of all in a VM) and takes the CPU
 * from the engines with work. An engine wakes a semaphore's sleepers once
 * an 8-byte access (a SEM_SIGNAL's, or one that needs no wake) has landed,
 * i.e. at its next translate or at the end of the run. The timeout catches
 * semaphores a process writes through its mapping, SEM_WAIT_ABORT's abort
 * word, which nothing wakes, and a context that is closing: each is read
 * again at the next run, within one timeout (at most 16 ms).
 */
static atomic_int machine_sem_sleepers;
static __thread void *machine_sem_written;

/*
 * A thread that sleeps is woken by another CPU's interrupt, which on an
 * idle CPU costs tens of microseconds (most of all in a VM): more than the
 * work of a small collective. So a waiting engine first watches for a
 * while, when there are CPUs to spare: fewer engines running jobs than
 * CPUs online. With more, the CPU is better left to them.
 */
#define MACHINE_SPIN_NS		20000
static atomic_int machine_running;

static bool machine_may_spin(void)
{
	static int cpus;

	if (!cpus)
		cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	return atomic_load_explicit(&machine_running, memory_order_relaxed) <
	       cpus;
}

/* Watches @done(@arg) for MACHINE_SPIN_NS; whether it came true. */
static bool machine_spin(bool (*done)(const void *arg), const void *arg)
{
	uint64_t until;

	if (!machine_may_spin())
		return false;
	until = machine_clock_ns() + MACHINE_SPIN_NS;
	do {
		for (int i = 0; i < 64; i++) {
			if (done(arg))
				return true;
			tern_cpu_relax();
		}
	} while (machine_clock_ns() < until);
	return false;
}

struct machine_sem_watch {
	const uint64_t *word, *abort_word;
	uint64_t value;
	bool equal;
};

static bool machine_sem_moved(const void *arg)
{
	const struct machine_sem_watch *w = arg;
	uint64_t now = __atomic_load_n(w->word, __ATOMIC_ACQUIRE);

	if (w->abort_word && __atomic_load_n(w->abort_word, __ATOMIC_ACQUIRE))
		return true;
	return w->equal ? now == w->value : now >= w->value;
}

static bool machine_engine_kicked(const void *arg)
{
	const struct machine_engine *engine = arg;

	return __atomic_load_n(&engine->kicked, __ATOMIC_ACQUIRE);
}

static void machine_sem_wake(void)
{
	/*
	 * The model's store is a release store, which may pass the load of
	 * the sleeper count below; the fence keeps a sleeper that has just
	 * read the old value from being missed.
	 */
	atomic_thread_fence(memory_order_seq_cst);
	if (machine_sem_written && atomic_load(&machine_sem_sleepers))
		syscall(SYS_futex, machine_sem_written, FUTEX_WAKE, INT_MAX,
			NULL, NULL, 0);
	machine_sem_written = NULL;
}

static void *machine_translate_waking(void *ctx, uint64_t va, uint64_t len,
				      uint32_t *owner)
{
	void *ptr;

	machine_sem_wake();
	ptr = machine_translate(ctx, va, len, owner);
	if (len == sizeof(uint64_t) && ptr && !((uintptr_t)ptr & 3))
		machine_sem_written = ptr;
	return ptr;
}

/*
 * Sleeps until the stalled SEM_WAIT or SEM_WAIT_ABORT at @offset may pass,
 * or @timeout_us; not at all when a SEM_WAIT_ABORT's abort word is set.
 */
static void machine_sem_sleep(struct machine_context *ctx,
			      const struct machine_job *job, uint32_t offset,
			      unsigned int timeout_us)
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
		machine_sleep_us(timeout_us);
		return;
	}
	pthread_rwlock_rdlock(&ctx->va_lock);
	ptr = machine_translate(ctx, p->addr, sizeof(uint64_t), &owner);
	if (p->header.opcode == TERN_OP_SEM_WAIT_ABORT)
		abort_word = machine_translate(ctx, pa->abort,
					       sizeof(uint64_t), &owner);
	pthread_rwlock_unlock(&ctx->va_lock);
	if (!ptr || ((uintptr_t)ptr & 3)) {
		machine_sleep_us(timeout_us);
		return;
	}
	{
		struct machine_sem_watch w = {
			ptr, abort_word, p->value,
			p->header.flags & TERN_SEM_WAIT_EQ,
		};

		if (machine_spin(machine_sem_moved, &w))
			return;
	}
	atomic_fetch_add(&machine_sem_sleepers, 1);
	now = __atomic_load_n((uint64_t *)ptr, __ATOMIC_SEQ_CST);
	if ((!abort_word || !__atomic_load_n(abort_word, __ATOMIC_SEQ_CST)) &&
	    !((p->header.flags & TERN_SEM_WAIT_EQ) ? now == p->value :
						      now >= p->value))
		syscall(SYS_futex, ptr, FUTEX_WAIT, (uint32_t)now, &ts,
			NULL, 0);
	atomic_fetch_sub(&machine_sem_sleepers, 1);
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

static tern_status_t machine_job_run(struct machine_engine *engine,
				     struct machine_context *ctx,
				     struct machine_job *job)
{
	struct machine *m = ctx->dev->machine;
	const struct tern_model_mem mem = {
		.translate = machine_translate_waking,
		.clock = machine_model_clock,
		.ctx = ctx,
		.fabric = &m->fabric,
		.device = (u32)ctx->dev->index,
		.timing = m->timing,
		.engine = &engine->timing,
		.model_clock = ctx->model_clock,
		.skip_data = ctx->skip_data,
	};
	uint64_t deadline = machine_clock_ns() + m->job_timeout_ns;
	struct tern_model_job run;
	unsigned int backoff_us = 1000;
	uint64_t progress = 0;
	uint32_t offset = 0;
	int ret;

	if (job->early)
		return job->early;
	tern_model_job_init(&run, job->packets, job->size);
	for (;;) {
		if (atomic_load(&ctx->dead))
			return TERN_ERROR_CANCELLED;
		if (atomic_load(&engine->hung)) {
			/* engine_hang: nothing moves until the timeout. */
			ret = TERN_MODEL_STALLED;
			machine_sleep_us(1000);
		} else {
			pthread_rwlock_rdlock(&ctx->va_lock);
			ret = tern_model_run(&run, &mem);
			pthread_rwlock_unlock(&ctx->va_lock);
			machine_sem_wake();
		}
		if (ret != TERN_MODEL_STALLED && ret != TERN_MODEL_YIELD)
			return machine_status_of(ret);
		if (machine_clock_ns() >= deadline)
			return TERN_ERROR_TIMEOUT;
		if (run.offset != offset || run.progress != progress) {
			/* The stream moved on: the next wait is a new one. */
			offset = run.offset;
			progress = run.progress;
			backoff_us = 1000;
		}
		if (ret == TERN_MODEL_STALLED && !atomic_load(&engine->hung)) {
			machine_sem_sleep(ctx, job, run.offset, backoff_us);
			if (backoff_us < 16000)
				backoff_us *= 2;
		}
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

static bool machine_engine_idle(struct machine_engine *engine)
{
	struct machine_queue *q;

	for (q = engine->queues; q; q = q->next)
		if (q->head)
			return false;
	return true;
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

static void *machine_engine_main(void *arg)
{
	struct machine_engine *engine = arg;
	struct machine_guilty guilty;
	struct machine_context *ctx;
	struct machine_queue *q;
	struct machine_job *job;
	tern_status_t status;
	uint64_t start;
	bool spun = false;	/* watched for a kick since the last job */

	pthread_mutex_lock(&engine->lock);
	for (;;) {
		q = machine_engine_pick(engine);
		if (!q) {
			if (engine->stop && machine_engine_idle(engine))
				break;
			if (engine->poll) {
				engine->poll = false;
				pthread_mutex_unlock(&engine->lock);
				machine_sleep_us(1000);
				pthread_mutex_lock(&engine->lock);
			} else if (!machine_engine_kicked(engine)) {
				if (!spun) {
					/*
					 * Then everything again under the
					 * lock: a stop or kick while it was
					 * let go is not missed.
					 */
					spun = true;
					pthread_mutex_unlock(&engine->lock);
					machine_spin(machine_engine_kicked,
						     engine);
					pthread_mutex_lock(&engine->lock);
					continue;
				}
				pthread_cond_wait(&engine->cond, &engine->lock);
			}
			spun = false;
			__atomic_store_n(&engine->kicked, false, __ATOMIC_RELAXED);
			continue;
		}
		spun = false;
		job = q->head;
		q->head = job->next;
		if (!q->head)
			q->tail = NULL;
		ctx = q->ctx;
		engine->busy = ctx;
		pthread_mutex_unlock(&engine->lock);

		/* The queue stays until its last fence signals. */
		start = machine_clock_ns();
		machine_job_start_time(engine, job);
		atomic_fetch_add(&machine_running, 1);
		status = machine_job_run(engine, ctx, job);
		atomic_fetch_sub(&machine_running, 1);
		tern_timing_job_end(&engine->timing);

		pthread_mutex_lock(&engine->lock);
		engine->busy = NULL;
		machine_engine_account(engine, ctx, status,
				       machine_clock_ns() - start);
		if (status == TERN_ERROR_TIMEOUT)
			machine_engine_guilty(engine, ctx, &guilty);
		pthread_mutex_unlock(&engine->lock);
		machine_fence_signal(job->fence, status, engine->timing.now);
		machine_job_free(job);
		if (status == TERN_ERROR_TIMEOUT)
			machine_reset_event(engine, &guilty);
		pthread_mutex_lock(&engine->lock);
	}
	pthread_mutex_unlock(&engine->lock);
	return NULL;
}

tern_status_t machine_engines_start(struct machine_device *dev)
{
	unsigned int i;

	for (i = 0; i < MACHINE_ENGINES; i++) {
		struct machine_engine *engine = &dev->engines[i];

		engine->stop = false;
		__atomic_store_n(&engine->kicked, false, __ATOMIC_RELAXED);
		if (pthread_create(&engine->thread, NULL, machine_engine_main,
				   engine)) {
			machine_engines_stop(dev);
			return TERN_ERROR_OUT_OF_MEMORY;
		}
		engine->running = true;
	}
	return TERN_SUCCESS;
}

void machine_engines_stop(struct machine_device *dev)
{
	unsigned int i;

	for (i = 0; i < MACHINE_ENGINES; i++) {
		struct machine_engine *engine = &dev->engines[i];

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
	__atomic_store_n(&e->kicked, true, __ATOMIC_RELEASE);
	pthread_cond_signal(&e->cond);
	pthread_mutex_unlock(&e->lock);
}
