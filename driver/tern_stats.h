/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tern counters of a device and of a client, as netlink and sysfs report
 * them.
 */
#ifndef TERN_STATS_H
#define TERN_STATS_H

#include <linux/sched.h>
#include <linux/types.h>

struct tern_drm_device;
struct tern_usage;

/**
 * struct tern_device_stats - a device's counters at one moment
 * @mem_used: bytes of device memory held by buffers
 * @mem_host_used: bytes of host-placement buffers of the device
 * @mem_errors_corrected: correctable memory errors
 * @mem_errors_uncorrected: uncorrectable memory errors
 * @jobs_completed: jobs ended without error, all engines
 * @jobs_failed: jobs ended with an error, all engines
 * @job_timeouts: jobs failed by the job timeout, all engines
 * @engine_resets: engine resets, all engines
 * @engine_hang_resets: resets of hung engines, all engines
 * @buffers: buffers (GEM objects) of the device
 * @clients: open files of the device
 * @engines_busy: engines that have a job
 * @health: enum tern_health
 * @health_reasons: DRM_TERN_HEALTH_REASON_* bits
 */
struct tern_device_stats {
	u64 mem_used;
	u64 mem_host_used;
	u64 mem_errors_corrected;
	u64 mem_errors_uncorrected;
	u64 jobs_completed;
	u64 jobs_failed;
	u64 job_timeouts;
	u64 engine_resets;
	u64 engine_hang_resets;
	u32 buffers;
	u32 clients;
	u32 engines_busy;
	u32 health;
	u32 health_reasons;
};

/**
 * struct tern_client_stats - an open file's identity and usage at one moment
 * @id: unique among the module's clients
 * @pid: thread group that opened the file, in the reading task's pid
 *	namespace; 0 if it is not visible there
 * @comm: its command name
 * @mem_device: bytes of device-placement buffers it has handles to
 * @mem_host: bytes of host-placement buffers it has handles to
 * @jobs_submitted: jobs it submitted
 * @busy_ns: engine time its jobs' steps used
 * @buffers: buffer handles
 * @queues: queues
 * @jobs_active: its jobs not ended yet
 */
struct tern_client_stats {
	u64 id;
	u32 pid;
	char comm[TASK_COMM_LEN];
	u64 mem_device;
	u64 mem_host;
	u64 jobs_submitted;
	u64 busy_ns;
	u32 buffers;
	u32 queues;
	u32 jobs_active;
};

void tern_device_stats_read(struct tern_drm_device *tdev,
			    struct tern_device_stats *stats);
u64 tern_client_engine_busy_ns(struct tern_drm_device *tdev,
			       const struct tern_usage *usage,
			       unsigned int index);
void tern_client_stats_read(struct tern_drm_device *tdev,
			    const struct tern_usage *usage,
			    struct tern_client_stats *stats);

#endif /* TERN_STATS_H */
