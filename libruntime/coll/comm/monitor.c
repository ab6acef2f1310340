// SPDX-License-Identifier: MIT
/*
 * The watchdog: one thread per process that, every detection interval
 * (TERN_COMM_DETECT_MS, default 50), looks at the jobs every communicator
 * has in flight and at its connections to ranks in other processes. The
 * first failed job puts its comm in error, which stops the comm's later
 * jobs and reaches its peers (comm.c); a peer that says it failed, or
 * whose process is gone, does the same from the other side (link.c). So a
 * collective whose peer is gone fails on every rank within about one
 * interval of the failure, not at the job timeout.
 *
 * It also frees aborted comms whose jobs were still ending when
 * tern_comm_abort() returned.
 */
#include <stdlib.h>
#include <time.h>

#include "coll/comm/comm.h"
#include "settings.h"

static pthread_mutex_t coll_monitor_lock = PTHREAD_MUTEX_INITIALIZER;
/* Waits on CLOCK_MONOTONIC (coll_monitor_cond_init), as the interval does. */
static pthread_cond_t coll_monitor_cond;
static bool coll_monitor_running;
static tern_status_t coll_monitor_config = TERN_ERROR_NOT_READY;
static int64_t coll_interval_ns;
static struct tern_comm *coll_orphans;	/* aborted, jobs still ending */

int64_t coll_monitor_interval_ns(void)
{
	return coll_interval_ns;
}

void coll_inflight_reap(struct tern_comm *comm)
{
	struct coll_inflight *q = &comm->inflight;

	if (comm->local) {
		pthread_mutex_lock(&comm->local->lock);
		coll_inflight_reap(comm->local);
		pthread_mutex_unlock(&comm->local->lock);
	}

	while (q->count) {
		struct tern_fence *fence = q->fences[q->head];
		tern_status_t status = comm->ops->fence_status(fence);

		if (status == TERN_ERROR_NOT_READY)
			break;
		coll_comm_fail(comm, status, false);
		tern_fence_put(fence);
		q->head = (q->head + 1) % q->cap;
		q->count--;
	}
}

void coll_inflight_push(struct tern_comm *comm, struct tern_fence *fence)
{
	struct coll_inflight *q = &comm->inflight;

	coll_inflight_reap(comm);
	if (q->count == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 16;
		struct tern_fence **bigger = malloc(cap * sizeof(*bigger));

		if (!bigger) {
			/* Cannot keep it: wait for it rather than lose it. */
			comm->ops->fence_wait(fence, TERN_WAIT_FOREVER);
			coll_comm_fail(comm, comm->ops->fence_status(fence),
				       false);
			tern_fence_put(fence);
			return;
		}
		for (size_t i = 0; i < q->count; i++)
			bigger[i] = q->fences[(q->head + i) % q->cap];
		free(q->fences);
		q->fences = bigger;
		q->cap = cap;
		q->head = 0;
	}
	q->fences[(q->head + q->count) % q->cap] = fence;
	q->count++;
}

static int64_t coll_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

bool coll_inflight_drain(struct tern_comm *comm, int64_t timeout_ns)
{
	int64_t deadline = timeout_ns == TERN_WAIT_FOREVER ? INT64_MAX :
			   coll_now_ns() + timeout_ns;
	bool done;

	pthread_mutex_lock(&comm->lock);
	for (;;) {
		struct coll_inflight *q = &comm->inflight;
		struct tern_fence *fence;
		int64_t left;

		coll_inflight_reap(comm);
		if (!q->count)
			break;
		fence = tern_fence_get(q->fences[q->head]);
		pthread_mutex_unlock(&comm->lock);
		left = deadline == INT64_MAX ? TERN_WAIT_FOREVER :
		       deadline - coll_now_ns();
		if (left < 0)
			left = 0;
		comm->ops->fence_wait(fence, left);
		tern_fence_put(fence);
		pthread_mutex_lock(&comm->lock);
		if (deadline != INT64_MAX && coll_now_ns() >= deadline) {
			coll_inflight_reap(comm);
			break;
		}
	}
	done = comm->inflight.count == 0;
	pthread_mutex_unlock(&comm->lock);
	if (comm->local && done)
		done = coll_inflight_drain(comm->local, timeout_ns ==
					   TERN_WAIT_FOREVER ? TERN_WAIT_FOREVER :
					   deadline - coll_now_ns() > 0 ?
					   deadline - coll_now_ns() : 0);
	return done;
}

static void coll_monitor_check(struct tern_comm *comm)
{
	pthread_mutex_lock(&comm->lock);
	coll_inflight_reap(comm);
	coll_link_poll(comm);
	pthread_mutex_unlock(&comm->lock);
}

/* Frees the orphans whose jobs have ended. Monitor lock held. */
static void coll_orphans_reap(void)
{
	struct tern_comm **link = &coll_orphans;

	while (*link) {
		struct tern_comm *comm = *link;

		if (coll_inflight_drain(comm, 0)) {
			*link = comm->next;
			coll_comm_free(comm);
		} else {
			link = &comm->next;
		}
	}
}

static void *coll_monitor_main(void *arg)
{
	(void)arg;
	for (;;) {
		bool busy = coll_registry_visit(coll_monitor_check);
		struct timespec ts;

		pthread_mutex_lock(&coll_monitor_lock);
		coll_orphans_reap();
		busy |= coll_orphans != NULL;
		if (busy) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			ts.tv_nsec += coll_interval_ns % 1000000000;
			ts.tv_sec += coll_interval_ns / 1000000000 +
				     ts.tv_nsec / 1000000000;
			ts.tv_nsec %= 1000000000;
			pthread_cond_timedwait(&coll_monitor_cond,
					       &coll_monitor_lock, &ts);
		} else {
			pthread_cond_wait(&coll_monitor_cond,
					  &coll_monitor_lock);
		}
		pthread_mutex_unlock(&coll_monitor_lock);
	}
	return NULL;
}

static void coll_monitor_cond_init(void)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&coll_monitor_cond, &attr);
	pthread_condattr_destroy(&attr);
}

/* A forked child has no watchdog thread: it starts its own when needed. */
static void coll_monitor_atfork_child(void)
{
	pthread_mutex_init(&coll_monitor_lock, NULL);
	coll_monitor_cond_init();
	coll_monitor_running = false;
	coll_orphans = NULL;
}

static tern_status_t coll_monitor_read_config(void)
{
	int64_t ms = 0;

	if (tern_setting_number("TERN_COMM_DETECT_MS", &ms))
		return TERN_ERROR_INVALID_ARGUMENT;
	coll_interval_ns = ms * 1000000;
	return TERN_SUCCESS;
}

tern_status_t coll_monitor_start(void)
{
	static pthread_once_t cond_once = PTHREAD_ONCE_INIT;
	tern_status_t status;
	pthread_attr_t attr;
	pthread_t thread;

	pthread_once(&cond_once, coll_monitor_cond_init);
	pthread_mutex_lock(&coll_monitor_lock);
	if (coll_monitor_config == TERN_ERROR_NOT_READY) {
		coll_monitor_config = coll_monitor_read_config();
		pthread_atfork(NULL, NULL, coll_monitor_atfork_child);
	}
	status = coll_monitor_config;
	if (status == TERN_SUCCESS && !coll_monitor_running) {
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&thread, &attr, coll_monitor_main, NULL))
			status = TERN_ERROR_OUT_OF_MEMORY;
		else
			coll_monitor_running = true;
		pthread_attr_destroy(&attr);
	}
	pthread_mutex_unlock(&coll_monitor_lock);
	return status;
}

void coll_monitor_wake(void)
{
	pthread_mutex_lock(&coll_monitor_lock);
	pthread_cond_signal(&coll_monitor_cond);
	pthread_mutex_unlock(&coll_monitor_lock);
}

void coll_monitor_adopt(struct tern_comm *comm)
{
	pthread_mutex_lock(&coll_monitor_lock);
	comm->next = coll_orphans;
	coll_orphans = comm;
	pthread_cond_signal(&coll_monitor_cond);
	pthread_mutex_unlock(&coll_monitor_lock);
}
