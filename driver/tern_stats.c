// SPDX-License-Identifier: GPL-2.0
/*
 * Tern counters: a device's and a client's, read without stopping anyone.
 *
 * Counters are atomics updated where things happen (buffers, files, jobs,
 * engines, memory errors); a reader adds them up. Engines' busy time takes
 * the engine's spinlock for an instant. Each
 * value is exact; a set of values is not one snapshot.
 */
#include <linux/atomic.h>
#include <linux/pid.h>
#include <linux/string.h>

#include "tern_drv.h"
#include "tern_engine.h"
#include "tern_gem.h"
#include "tern_health.h"
#include "tern_stats.h"
#include "tern_vm.h"

void tern_device_stats_read(struct tern_drm_device *tdev,
			    struct tern_device_stats *stats)
{
	unsigned int i;

	memset(stats, 0, sizeof(*stats));
	for (i = 0; i < tdev->engine_count; i++) {
		struct tern_engine_stats engine;

		tern_engine_stats_read(&tdev->engines[i], &engine);
		stats->jobs_completed += engine.jobs_completed;
		stats->jobs_failed += engine.jobs_failed;
		stats->job_timeouts += engine.timeouts;
		stats->engine_resets += engine.resets;
		stats->engine_hang_resets += engine.hang_resets;
		stats->engines_busy += engine.busy;
	}
	stats->mem_used = tern_devmem_used(tdev);
	stats->mem_host_used = atomic64_read(&tdev->mem_host_used);
	stats->mem_errors_corrected =
		atomic64_read(&tdev->mem_errors_corrected);
	stats->mem_errors_uncorrected =
		atomic64_read(&tdev->mem_errors_uncorrected);
	stats->buffers = atomic_read(&tdev->buffer_count);
	stats->clients = atomic_read(&tdev->client_count);
	stats->health_reasons = tern_health_reasons(tdev);
	stats->health = tern_health_of(stats->health_reasons);
}

/* Engine time of @usage's file on engine @index: its jobs' steps. */
u64 tern_client_engine_busy_ns(struct tern_drm_device *tdev,
			       const struct tern_usage *usage,
			       unsigned int index)
{
	return atomic64_read(&usage->engine_busy_ns[index]);
}

void tern_client_stats_read(struct tern_drm_device *tdev,
			    const struct tern_usage *usage,
			    struct tern_client_stats *stats)
{
	unsigned int i;

	stats->id = usage->client_id;
	/* 0 when the opener is not in the reader's pid namespace. */
	stats->pid = pid_vnr(usage->pid);
	memcpy(stats->comm, usage->comm, sizeof(stats->comm));
	stats->mem_device = atomic64_read(&usage->mem_device);
	stats->mem_host = atomic64_read(&usage->mem_host);
	stats->jobs_submitted = atomic64_read(&usage->jobs_submitted);
	stats->buffers = atomic_read(&usage->buffers);
	stats->queues = atomic_read(&usage->queues);
	stats->jobs_active = atomic_read(&usage->jobs_active);
	stats->busy_ns = 0;
	for (i = 0; i < tdev->engine_count; i++)
		stats->busy_ns += tern_client_engine_busy_ns(tdev, usage, i);
}
