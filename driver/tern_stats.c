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

/* @tdev's values of its netlink message (model/tern_state_list.h), now. */
void tern_device_state_read(struct tern_drm_device *tdev,
			    struct tern_state_device *state)
{
	unsigned int i;

	memset(state, 0, sizeof(*state));
	state->index = tdev->index;
	state->fabric_id = tdev->fabric_id;
	state->capabilities = tdev->capabilities;
	state->engine_count = tdev->engine_count;
	state->port_count = tern_device_port_count(tdev);
	for (i = 0; i < tdev->engine_count; i++) {
		struct tern_state_engine engine;

		tern_engine_state_read(&tdev->engines[i], &engine);
		tern_state_device_add_engine(state, &engine);
	}
	state->memory_total_bytes = tdev->mem_size;
	state->memory_used_bytes = tern_devmem_used(tdev);
	state->memory_host_used_bytes = atomic64_read(&tdev->mem_host_used);
	state->mem_errors_corrected =
		atomic64_read(&tdev->mem_errors_corrected);
	state->mem_errors_uncorrected =
		atomic64_read(&tdev->mem_errors_uncorrected);
	state->buffers = atomic_read(&tdev->buffer_count);
	state->client_count = atomic_read(&tdev->client_count);
	state->health_reasons = tern_device_health_reasons(tdev);
	state->health = tern_health_of(state->health_reasons);
}

/* Engine time of @usage's file on engine @index: its jobs' steps. */
u64 tern_client_engine_busy_ns(struct tern_drm_device *tdev,
			       const struct tern_usage *usage,
			       unsigned int index)
{
	return atomic64_read(&usage->engine_busy_ns[index]);
}

/* @usage's values of its netlink message, and its command in @comm. */
void tern_client_state_read(struct tern_drm_device *tdev,
			    const struct tern_usage *usage,
			    struct tern_state_client *state,
			    char comm[TASK_COMM_LEN])
{
	unsigned int i;

	memset(state, 0, sizeof(*state));
	state->device = tdev->index;
	state->id = usage->client_id;
	/* 0 when the opener is not in the reader's pid namespace. */
	state->pid = pid_vnr(usage->pid);
	memcpy(comm, usage->comm, TASK_COMM_LEN);
	state->memory_device_bytes = atomic64_read(&usage->mem_device);
	state->memory_host_bytes = atomic64_read(&usage->mem_host);
	state->jobs_submitted = atomic64_read(&usage->jobs_submitted);
	state->buffers = atomic_read(&usage->buffers);
	state->queues = atomic_read(&usage->queues);
	state->jobs_active = atomic_read(&usage->jobs_active);
	for (i = 0; i < tdev->engine_count; i++)
		state->busy_ns += tern_client_engine_busy_ns(tdev, usage, i);
}
