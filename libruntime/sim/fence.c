// SPDX-License-Identifier: MIT
/*
 * Simulator fences: signalled once, with the job's status, by the engine
 * that ran the job. Host threads wait on a condition variable; engines
 * whose next job depends on a fence ask to be woken when it signals.
 */
#include <stdlib.h>
#include <time.h>

#include "sim.h"

static void sim_fence_release(struct tern_fence *bfence)
{
	struct sim_fence *fence =
		tern_container_of(bfence, struct sim_fence, base);

	free(fence->watchers);
	pthread_cond_destroy(&fence->cond);
	pthread_mutex_destroy(&fence->lock);
	free(fence);
}

struct sim_fence *sim_fence_create(void)
{
	struct sim_fence *fence = calloc(1, sizeof(*fence));
	pthread_condattr_t attr;

	if (!fence)
		return NULL;
	atomic_init(&fence->base.refs, 1);
	fence->base.release = sim_fence_release;
	pthread_mutex_init(&fence->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&fence->cond, &attr);
	pthread_condattr_destroy(&attr);
	return fence;
}

void sim_fence_signal(struct sim_fence *fence, tern_status_t status)
{
	struct sim_engine **watchers;
	uint32_t count, i;

	pthread_mutex_lock(&fence->lock);
	fence->signaled = true;
	fence->status = status;
	watchers = fence->watchers;
	count = fence->watcher_count;
	fence->watchers = NULL;
	fence->watcher_count = 0;
	fence->watcher_cap = 0;
	pthread_cond_broadcast(&fence->cond);
	pthread_mutex_unlock(&fence->lock);

	/* Engine locks are taken without the fence lock: see ready_or_watch. */
	for (i = 0; i < count; i++)
		sim_engine_kick(watchers[i]);
	free(watchers);
}

bool sim_fence_ready_or_watch(struct sim_fence *fence,
			      struct sim_engine *engine)
{
	bool ready;
	uint32_t i;

	/* Called with the engine lock held, so it nests engine -> fence. */
	pthread_mutex_lock(&fence->lock);
	ready = fence->signaled;
	if (ready)
		goto out;
	for (i = 0; i < fence->watcher_count; i++)
		if (fence->watchers[i] == engine)
			goto out;
	if (fence->watcher_count == fence->watcher_cap) {
		uint32_t cap = fence->watcher_cap ? fence->watcher_cap * 2 : 2;
		struct sim_engine **bigger =
			realloc(fence->watchers, cap * sizeof(*bigger));

		if (!bigger) {
			/* Cannot watch: the engine polls instead. */
			engine->poll = true;
			goto out;
		}
		fence->watchers = bigger;
		fence->watcher_cap = cap;
	}
	fence->watchers[fence->watcher_count++] = engine;
out:
	pthread_mutex_unlock(&fence->lock);
	return ready;
}

static struct sim_fence *sim_fence(struct tern_fence *bfence)
{
	return tern_container_of(bfence, struct sim_fence, base);
}

tern_status_t sim_fence_wait(struct tern_fence *bfence, int64_t timeout_ns)
{
	struct sim_fence *fence = sim_fence(bfence);
	struct timespec deadline;
	int ret = 0;

	if (timeout_ns != TERN_WAIT_FOREVER) {
		uint64_t end = sim_clock_ns() + (uint64_t)(timeout_ns > 0 ?
							    timeout_ns : 0);

		deadline.tv_sec = (time_t)(end / 1000000000ull);
		deadline.tv_nsec = (long)(end % 1000000000ull);
	}
	pthread_mutex_lock(&fence->lock);
	while (!fence->signaled && ret == 0) {
		if (timeout_ns == TERN_WAIT_FOREVER)
			pthread_cond_wait(&fence->cond, &fence->lock);
		else
			ret = pthread_cond_timedwait(&fence->cond, &fence->lock,
						     &deadline);
	}
	ret = fence->signaled;
	pthread_mutex_unlock(&fence->lock);
	return ret ? TERN_SUCCESS : TERN_ERROR_NOT_READY;
}

tern_status_t sim_fence_status(struct tern_fence *bfence)
{
	struct sim_fence *fence = sim_fence(bfence);
	tern_status_t status;

	pthread_mutex_lock(&fence->lock);
	status = fence->signaled ? fence->status : TERN_ERROR_NOT_READY;
	pthread_mutex_unlock(&fence->lock);
	return status;
}

tern_status_t sim_fence_import(struct tern_be_device *bdev,
			       struct tern_fence *bfence,
			       struct tern_fence **out)
{
	(void)bdev;	/* sim fences are process-wide */
	*out = tern_fence_get(bfence);
	return TERN_SUCCESS;
}
