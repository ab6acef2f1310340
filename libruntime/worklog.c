// SPDX-License-Identifier: MIT
/*
 * A stream's work log: the fences of its jobs not yet known complete, and
 * the jobs that failed.
 *
 * The stream's error is the first failure in the current epoch. An epoch
 * ends only when work is enqueued after its error has been reported (by a
 * synchronize or a query), so every thread that synchronizes after a
 * failure sees it, however many do, until someone enqueues more work.
 *
 * Jobs of one queue complete in submission order, so completed jobs are
 * always a prefix of the log; reaping pops that prefix and notes each
 * failure. Events keep the log alive (reference counted) to answer "did the
 * work I captured fail?" after the stream itself is gone.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Reap once this many jobs are logged, to bound the fences held. */
#define TERN_WORKLOG_REAP_AT	64
/* Failures remembered; the oldest are forgotten beyond this. */
#define TERN_WORKLOG_MAX_FAILURES	256

struct tern_failure {
	uint64_t seq;
	tern_status_t status;
};

struct tern_worklog {
	atomic_uint refs;
	const struct tern_backend_ops *ops;
	pthread_mutex_t lock;
	struct tern_fence **fences;	/* ring buffer of pending jobs */
	size_t head, count, cap;
	uint64_t head_seq;		/* sequence number of fences[head] */
	uint64_t epoch;			/* first job of the current epoch */
	bool reported;			/* its error has been reported */
	struct tern_failure failures[TERN_WORKLOG_MAX_FAILURES];
	size_t failure_count;
};

struct tern_worklog *tern_worklog_create(const struct tern_backend_ops *ops)
{
	struct tern_worklog *log = calloc(1, sizeof(*log));

	if (!log)
		return NULL;
	atomic_init(&log->refs, 1);
	log->ops = ops;
	pthread_mutex_init(&log->lock, NULL);
	log->head_seq = 1;
	log->epoch = 1;
	return log;
}

void tern_worklog_get(struct tern_worklog *log)
{
	atomic_fetch_add(&log->refs, 1);
}

void tern_worklog_put(struct tern_worklog *log)
{
	size_t i;

	if (!log || atomic_fetch_sub(&log->refs, 1) != 1)
		return;
	for (i = 0; i < log->count; i++)
		tern_fence_put(log->fences[(log->head + i) % log->cap]);
	free(log->fences);
	pthread_mutex_destroy(&log->lock);
	free(log);
}

static void tern_worklog_note_failure(struct tern_worklog *log, uint64_t seq,
				      tern_status_t status)
{
	if (log->failure_count == TERN_WORKLOG_MAX_FAILURES) {
		memmove(log->failures, log->failures + 1,
			sizeof(log->failures[0]) * (log->failure_count - 1));
		log->failure_count--;
	}
	log->failures[log->failure_count].seq = seq;
	log->failures[log->failure_count].status = status;
	log->failure_count++;
}

/* Pops completed jobs off the front of the log. Lock held. */
static void tern_worklog_reap_locked(struct tern_worklog *log)
{
	while (log->count) {
		struct tern_fence *fence = log->fences[log->head];
		tern_status_t status = log->ops->fence_status(fence);

		if (status == TERN_ERROR_NOT_READY)
			break;
		if (status != TERN_SUCCESS)
			tern_worklog_note_failure(log, log->head_seq, status);
		tern_fence_put(fence);
		log->head = (log->head + 1) % log->cap;
		log->count--;
		log->head_seq++;
	}
}

tern_status_t tern_worklog_reserve(struct tern_worklog *log)
{
	tern_status_t status = TERN_SUCCESS;
	struct tern_fence **bigger;
	size_t cap, i;

	pthread_mutex_lock(&log->lock);
	if (log->count >= TERN_WORKLOG_REAP_AT)
		tern_worklog_reap_locked(log);
	if (log->count < log->cap)
		goto out;
	cap = log->cap ? log->cap * 2 : 16;
	bigger = malloc(cap * sizeof(*bigger));
	if (!bigger) {
		status = TERN_ERROR_OUT_OF_MEMORY;
		goto out;
	}
	for (i = 0; i < log->count; i++)
		bigger[i] = log->fences[(log->head + i) % log->cap];
	free(log->fences);
	log->fences = bigger;
	log->cap = cap;
	log->head = 0;
out:
	pthread_mutex_unlock(&log->lock);
	return status;
}

uint64_t tern_worklog_append(struct tern_worklog *log, struct tern_fence *fence)
{
	uint64_t seq;

	pthread_mutex_lock(&log->lock);
	seq = log->head_seq + log->count;
	if (log->reported) {
		log->epoch = seq;	/* the error was seen: start afresh */
		log->reported = false;
	}
	log->fences[(log->head + log->count) % log->cap] = tern_fence_get(fence);
	log->count++;
	pthread_mutex_unlock(&log->lock);
	return seq;
}

uint64_t tern_worklog_epoch(struct tern_worklog *log)
{
	uint64_t epoch;

	pthread_mutex_lock(&log->lock);
	epoch = log->epoch;
	pthread_mutex_unlock(&log->lock);
	return epoch;
}

/* First failure numbered @from..@to. Lock held. */
static tern_status_t tern_worklog_failure_in(struct tern_worklog *log,
					     uint64_t from, uint64_t to)
{
	size_t i;

	for (i = 0; i < log->failure_count; i++) {
		if (log->failures[i].seq > to)
			break;
		if (log->failures[i].seq >= from)
			return log->failures[i].status;
	}
	return TERN_SUCCESS;
}

tern_status_t tern_worklog_stream_error(struct tern_worklog *log)
{
	tern_status_t status;

	pthread_mutex_lock(&log->lock);
	tern_worklog_reap_locked(log);
	/* Jobs still pending are not counted: they may yet succeed. */
	status = tern_worklog_failure_in(log, log->epoch, log->head_seq - 1);
	if (status)
		log->reported = true;
	pthread_mutex_unlock(&log->lock);
	return status;
}

tern_status_t tern_worklog_error_between(struct tern_worklog *log,
					 uint64_t from, uint64_t to)
{
	tern_status_t status;

	pthread_mutex_lock(&log->lock);
	tern_worklog_reap_locked(log);
	status = tern_worklog_failure_in(log, from, to);
	pthread_mutex_unlock(&log->lock);
	return status;
}
