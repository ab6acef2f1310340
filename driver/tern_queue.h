/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tern queues: ordered streams of jobs on one engine.
 */
#ifndef TERN_QUEUE_H
#define TERN_QUEUE_H

#include <linux/kref.h>
#include <linux/mutex.h>

#include <drm/gpu_scheduler.h>

struct drm_device;
struct drm_file;
struct tern_engine;
struct tern_file;

/**
 * struct tern_queue - a queue of one file
 * @ref: held by the file's table and by submissions in progress
 * @engine: the engine the queue's jobs run on
 * @entity: the queue as the engine's scheduler sees it
 * @submit_lock: keeps arming and pushing a job together
 */
struct tern_queue {
	struct kref ref;
	struct tern_engine *engine;
	struct drm_sched_entity entity;
	struct mutex submit_lock;	/* arm and push together */
};

struct tern_queue *tern_queue_lookup(struct tern_file *tfile, u32 id);
void tern_queue_put(struct tern_queue *queue);
void tern_queues_destroy(struct tern_file *tfile);

int tern_queue_create_ioctl(struct drm_device *drm, void *data,
			    struct drm_file *file);
int tern_queue_destroy_ioctl(struct drm_device *drm, void *data,
			     struct drm_file *file);

#endif /* TERN_QUEUE_H */
