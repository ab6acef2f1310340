/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tern queues: ordered streams of jobs on one engine.
 */
#ifndef TERN_QUEUE_H
#define TERN_QUEUE_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/mutex.h>

#include <drm/gpu_scheduler.h>

#include "tern_engine.h"

struct drm_device;
struct drm_file;
struct tern_engine;
struct tern_file;

/**
 * struct tern_queue - a queue of one file
 * @ref: held by the file's table until QUEUE_DESTROY or close, by
 *	submissions in progress and by each of its jobs until it is freed
 * @tfile: the file; the queue holds a reference, and its id stays taken
 *	in &tern_file.queues until the queue is freed
 * @id: the queue's id in @tfile
 * @engine: the engine the queue's jobs run on
 * @entity: the queue as the engine's scheduler sees it
 * @submit_lock: keeps arming and pushing a job together, and guards
 *	@fence_seqno
 * @fence_context: timeline of its jobs' hardware fences; the next one is
 *	that of the fences userspace waits on (struct tern_job_fence)
 * @fence_seqno: last fence number handed out on both
 * @timeouts: its jobs that ran past the job timeout
 * @banned: @timeouts reached the ban threshold: SUBMIT fails with -EIO
 *	and its jobs not yet ended fail with -EIO at once
 * @destroyed: QUEUE_DESTROY ran, or the file closed; under
 *	&tern_file.queues' lock
 * @run: the queue among its file's queues and rings on the engine
 * @engine_jobs: its jobs the engine has, in order (engine's lock)
 */
struct tern_queue {
	struct kref ref;
	struct tern_file *tfile;
	u32 id;
	struct tern_engine *engine;
	struct drm_sched_entity entity;
	struct mutex submit_lock;	/* arm and push together */
	u64 fence_context;
	u64 fence_seqno;
	atomic_t timeouts;
	bool banned;
	bool destroyed;
	struct tern_runnable run;
	struct list_head engine_jobs;
};

struct tern_queue *tern_queue_lookup(struct tern_file *tfile, u32 id);
void tern_queue_put(struct tern_queue *queue);
void tern_queue_count_timeout(struct tern_queue *queue);
void tern_queues_close(struct tern_file *tfile);

int tern_queue_create_ioctl(struct drm_device *drm, void *data,
			    struct drm_file *file);
int tern_queue_destroy_ioctl(struct drm_device *drm, void *data,
			     struct drm_file *file);

#endif /* TERN_QUEUE_H */
