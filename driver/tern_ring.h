/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tern user rings: queues whose jobs userspace writes into a buffer.
 */
#ifndef TERN_RING_H
#define TERN_RING_H

#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "tern_model.h"
#include "tern_engine.h"

struct drm_device;
struct drm_file;
struct drm_gem_object;
struct drm_tern_ring_ctl;
struct tern_engine;
struct tern_file;
struct tern_vm;

/**
 * struct tern_ring_job - the job a ring runs
 * @packets: the kernel's copy of the record's packets: room for the
 *	largest, made with the ring
 * @size: bytes of them
 * @model: how far the engine has run them
 * @fence_va: where the job's end is written, or 0
 * @fence_value: what is written there
 * @deadline_ns: when the job times out (CLOCK_MONOTONIC)
 */
struct tern_ring_job {
	void *packets;
	u32 size;
	struct tern_model_job model;
	u64 fence_va;
	u64 fence_value;
	u64 deadline_ns;
};

/**
 * struct tern_ring - a user ring of one file
 * @ref: held by the file's table until RING_DESTROY or close, by ioctls in
 *	progress, and by the engine while the ring is in its turns (@run
 *	linked); the last one frees the ring from @free_work
 * @tfile: the file; held
 * @id: the ring's id in &tern_file.rings
 * @engine: the engine its jobs run on
 * @run: the ring among its file's queues and rings on the engine
 * @vm: the file's address space; held
 * @obj: the ring's buffer; held, so its mapping lives as long as the ring,
 *	and marked as a ring's (&tern_bo.ring) until the ring is freed
 * @ctl: the buffer's first bytes, where userspace writes the tail
 * @data: the records, @size bytes after @ctl
 * @size: bytes of records, a power of two
 * @run_lock: whoever runs the ring's jobs holds it: an ioctl's caller
 *	(KICK) or the engine, never both
 * @runs: times @run_lock was taken to run the ring (under it)
 * @head: bytes of records taken (under @run_lock); @ctl only reports it
 * @done: jobs ended (under @run_lock); also read by RING_WAIT
 * @job: the job running, if @has_job (under @run_lock)
 * @has_job: a record has been taken and its job has not ended; cleared
 *	after @done counts the job
 * @error: 0, or why the ring stopped (-EINVAL, -EFAULT, -EIO); set
 *	under @run_lock
 * @destroyed: RING_DESTROY ran, or the file closed: out of the table
 *	(under its lock)
 * @closed: then set under @run_lock: no record is taken any more
 * @kicked: set by a KICK before it tries @run_lock; the engine keeps the
 *	ring in its turns while it is set, so a KICK that finds the lock
 *	taken loses nothing
 * @timeouts: its jobs that ran past the job timeout (under @run_lock)
 * @free_work: frees the ring, on the device's &tern_drm_device.free_wq
 * @onchip_work: takes a record that needs the file's on-chip memory made,
 *	which the engine's look may not do; on the same workqueue
 * @wait: RING_WAIT sleeps here; woken at every job's end and at a stop
 */
struct tern_ring {
	struct kref ref;
	struct tern_file *tfile;
	u32 id;
	struct tern_engine *engine;
	struct tern_runnable run;
	struct tern_vm *vm;
	struct drm_gem_object *obj;
	struct drm_tern_ring_ctl *ctl;
	const u8 *data;
	u32 size;
	struct mutex run_lock;		/* one runner at a time */
	u64 runs;
	u64 head;
	u64 done;
	struct tern_ring_job job;
	bool has_job;
	int error;
	bool destroyed;
	bool closed;
	atomic_t kicked;
	u32 timeouts;
	struct work_struct free_work;
	struct work_struct onchip_work;
	wait_queue_head_t wait;
};

void tern_ring_mem_init(unsigned int kb);
bool tern_ring_look(struct tern_runnable *run);
void tern_rings_close(struct tern_file *tfile);

int tern_ring_create_ioctl(struct drm_device *drm, void *data,
			   struct drm_file *file);
int tern_ring_destroy_ioctl(struct drm_device *drm, void *data,
			    struct drm_file *file);
int tern_ring_kick_ioctl(struct drm_device *drm, void *data,
			 struct drm_file *file);
int tern_ring_wait_ioctl(struct drm_device *drm, void *data,
			 struct drm_file *file);

#endif /* TERN_RING_H */
