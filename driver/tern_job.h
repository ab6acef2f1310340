/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tern jobs: packet streams submitted to a queue.
 */
#ifndef TERN_JOB_H
#define TERN_JOB_H

#include <linux/kref.h>
#include <linux/list.h>

#include <drm/gpu_scheduler.h>

#include "tern_model.h"

struct dma_fence;
struct drm_device;
struct drm_file;
struct tern_drm_device;
struct tern_engine;
struct tern_queue;
struct tern_vm;

/**
 * struct tern_job - one submission
 * @base: the scheduler's part
 * @ref: held by the scheduler until free_job and, from run_job until the
 *	job ends, by the engine
 * @tdev: the device
 * @engine: the engine of the job's queue
 * @queue: the job's queue; the job holds a reference
 * @vm: the submitting file's address space; the job holds a reference
 * @packets: the job's copy of the packet stream
 * @packets_size: bytes in @packets
 * @model: how far the engine has run the stream
 * @hw_fence: signalled by the engine when the job ends; initialized when
 *	the job is pushed, on its queue's timeline
 * @engine_link: entry in &tern_engine.jobs
 * @queue_link: entry in &tern_queue.engine_jobs
 * @timed_out: the job ran past the job timeout: the engine fails it
 * @sched_ready: drm_sched_job_init() succeeded
 * @on_engine: run_job handed the job to the engine
 * @in_flight: the job counts in its file's in-flight limits
 */
struct tern_job {
	struct drm_sched_job base;
	struct kref ref;
	struct tern_drm_device *tdev;
	struct tern_engine *engine;
	struct tern_queue *queue;
	struct tern_vm *vm;
	void *packets;
	u32 packets_size;
	struct tern_model_job model;
	struct dma_fence *hw_fence;
	struct list_head engine_link;
	struct list_head queue_link;
	bool timed_out;
	bool sched_ready;
	bool on_engine;
	bool in_flight;
};

static inline struct tern_job *to_tern_job(struct drm_sched_job *sched_job)
{
	return container_of(sched_job, struct tern_job, base);
}

void tern_job_put(struct tern_job *job);
void tern_job_ended(struct tern_job *job);

extern const struct drm_sched_backend_ops tern_sched_ops;

int tern_submit_ioctl(struct drm_device *drm, void *data,
		      struct drm_file *file);

#endif /* TERN_JOB_H */
