/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tern engines: the mock hardware that executes packet streams.
 */
#ifndef TERN_ENGINE_H
#define TERN_ENGINE_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <drm/gpu_scheduler.h>

struct dma_fence;
struct tern_device;
struct tern_job;
struct tern_vm;

/**
 * struct tern_engine_guilty - the owner of a job an engine reset failed
 * @client_id: its file's client id; events name it rather than a pid, as
 *	no pid number is right for listeners of every pid namespace
 * @comm: the command name of the process that opened the file
 */
struct tern_engine_guilty {
	u64 client_id;
	char comm[TASK_COMM_LEN];
};

/* A step longer than this counts in &tern_engine.steps_slow. */
#define TERN_ENGINE_STEP_SLOW_NS	(1 * NSEC_PER_MSEC)

/* Jobs the scheduler may hand to one engine before it waits. */
#define TERN_ENGINE_DEPTH	64

/**
 * struct tern_engine - one engine of a device
 * @tdev: the device
 * @index: engine number, as userspace names it
 * @name: for the scheduler and its workers
 * @sched: orders the jobs of every queue on this engine
 * @wq: ordered: one pass, or one ring's turn (tern_ring.c), at a time; a
 *	ring's KICK may also run its jobs on the caller's thread, beside it
 * @work: runs one pass: a step of the first job of each queue
 * @retry: wakes @work again while every such job waits on a semaphore
 * @backoff_ns: current wait between two looks at those semaphores
 * @lock: protects @jobs, @queued, @hung, @pass_count, @guilty and the
 *	busy times
 * @jobs: jobs handed over by the scheduler, in that order
 * @queued: entries in @jobs, and jobs of user rings running on the engine
 *	(tern_ring.c)
 * @ring_jobs: those jobs of user rings
 * @hung: the engine makes no progress (fault injection) until it is reset
 * @busy_since_ns: when @queued last became non-zero
 * @busy_ns: total of the ended stretches during which @queued was non-zero
 * @pass_count: passes made so far; names the current one
 * @pass: the jobs of the current pass (only @work uses it)
 * @jobs_completed: jobs that ended without error
 * @jobs_failed: jobs that ended with an error
 * @timeouts: jobs failed by the job timeout
 * @resets: times the engine was reset
 * @steps: steps run (tern_engine_run()), on the engine's workqueue or a
 *	ring's KICK
 * @step_max_ns: the longest of them, in nanoseconds
 * @steps_slow: those longer than TERN_ENGINE_STEP_SLOW_NS
 * @hang_resets: resets of the engine while it was hung (made no progress:
 *	injected here, a hardware hang on a chip); a job stalled on its own
 *	semaphore is timed out and reset but is no hang
 * @guilty: the owner of the job the last reset failed
 * @reset_work: announces the last reset and updates the device's health,
 *	outside the job timeout, which must not allocate or sleep on locks
 * @fence_lock: lock of the hardware fences
 * @timeout_ns: how long a job may run (module parameter job_timeout_ms)
 */
struct tern_engine {
	struct tern_device *tdev;
	unsigned int index;
	char name[24];
	struct drm_gpu_scheduler sched;
	struct workqueue_struct *wq;
	struct work_struct work;
	struct hrtimer retry;
	u64 backoff_ns;
	spinlock_t lock;		/* protects jobs, hung, guilty, ... */
	struct list_head jobs;
	u32 queued;
	u32 ring_jobs;
	bool hung;
	u64 busy_since_ns;
	u64 busy_ns;
	u64 pass_count;
	struct tern_job *pass[TERN_ENGINE_DEPTH];
	atomic64_t jobs_completed;
	atomic64_t jobs_failed;
	atomic64_t timeouts;
	atomic64_t resets;
	atomic64_t hang_resets;
	atomic64_t steps;
	atomic64_t step_max_ns;
	atomic64_t steps_slow;
	struct tern_engine_guilty guilty;
	struct work_struct reset_work;
	spinlock_t fence_lock;		/* of the hardware fences */
	u64 timeout_ns;
};

/**
 * struct tern_engine_stats - an engine's counters at one moment
 * @busy: it has a job
 * @hung: it is hung, awaiting a reset
 * @jobs_queued: jobs handed to it and not ended
 * @busy_ns: total time it had a job, the current stretch included
 * @jobs_completed: see &tern_engine
 * @jobs_failed: see &tern_engine
 * @timeouts: see &tern_engine
 * @resets: see &tern_engine
 * @hang_resets: see &tern_engine
 */
struct tern_engine_stats {
	bool busy;
	bool hung;
	u32 jobs_queued;
	u64 busy_ns;
	u64 jobs_completed;
	u64 jobs_failed;
	u64 timeouts;
	u64 resets;
	u64 hang_resets;
};

struct tern_model_job;
struct tern_usage;

void tern_engine_stats_read(struct tern_engine *engine,
			    struct tern_engine_stats *stats);
void tern_engine_hang(struct tern_engine *engine);
bool tern_engine_hung(struct tern_engine *engine);
void tern_engine_reset(struct tern_engine *engine,
		       const struct tern_usage *owner);
int tern_engine_run(struct tern_engine *engine, struct tern_vm *vm,
		    struct tern_model_job *model);
void tern_engine_ring_job(struct tern_engine *engine, bool start);

int tern_engines_init(struct tern_device *tdev, unsigned int count,
		      unsigned int timeout_ms);
void tern_engine_fence_init(struct tern_engine *engine,
			    struct dma_fence *fence, u64 context, u64 seqno);
struct dma_fence *tern_engine_push(struct tern_engine *engine,
				   struct tern_job *job);
void tern_engine_kick(struct tern_engine *engine);

struct seq_file;
int tern_engines_show(struct seq_file *m, void *unused);
int tern_engine_steps_show(struct seq_file *m, void *unused);
void tern_engine_steps_reset(struct tern_device *tdev);

#endif /* TERN_ENGINE_H */
