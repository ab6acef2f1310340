/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tern engines: the mock hardware that executes packet streams.
 */
#ifndef TERN_ENGINE_H
#define TERN_ENGINE_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/refcount.h>
#include <linux/uidgid.h>
#include <linux/list.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <drm/gpu_scheduler.h>

#include "tern_state.h"
#include "tern_tile.h"

struct dma_fence;
struct tern_drm_device;
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

/*
 * Jobs the scheduler may hand to one engine before it waits: every job
 * whose dependencies are met, so that the engine, not the scheduler's
 * order, shares its time (tern_engine.c).
 */
#define TERN_ENGINE_CREDITS	65536
/* Users served in one pass; more wait for the next. */
#define TERN_ENGINE_PASS_USERS	64
/* Queues and rings a user's turn looks at before it gives up the turn. */
#define TERN_ENGINE_LOOKS	8

struct tern_user;

/**
 * struct tern_engine_user - a user's share of one engine
 * @link: in &tern_engine.users while the user has work on the engine
 * @clients: the user's files with work on the engine (&tern_engine_client)
 * @runnables: their queues and rings with work on the engine
 * @owner: the user
 *
 * All under the engine's lock.
 */
struct tern_engine_user {
	struct list_head link;
	struct list_head clients;
	u32 runnables;
	struct tern_user *owner;
};

/**
 * struct tern_user - the files of one uid on one device
 * @link: in the device's list of users
 * @ref: held by each file of the user, and by the engine for a turn
 * @uid: the files' effective uid when they were opened
 * @tdev: the device
 * @engines: the user's share of each engine
 */
struct tern_user {
	struct list_head link;
	refcount_t ref;
	kuid_t uid;
	struct tern_drm_device *tdev;
	struct tern_engine_user engines[];
};

/**
 * struct tern_engine_client - a file's share of one engine
 * @link: in its user's &tern_engine_user.clients while it has work there
 * @runnables: its queues and rings with work on the engine
 * @user: its user's share of the engine
 */
struct tern_engine_client {
	struct list_head link;
	struct list_head runnables;
	struct tern_engine_user *user;
};

/**
 * struct tern_runnable - a queue or ring as the engine serves it
 * @link: in its file's &tern_engine_client.runnables while it has work
 *	(empty otherwise)
 * @client: its file's share of the engine
 * @ring: it is a ring's (tern_ring.c); otherwise a queue's
 */
struct tern_runnable {
	struct list_head link;
	struct tern_engine_client *client;
	bool ring;
};

/**
 * struct tern_engine - one engine of a device
 * @tdev: the device
 * @index: engine number, as userspace names it
 * @target: what the engine is to the device model: its type (enum
 *	drm_tern_engine_type), its core and the device's cores
 * @name: for the scheduler and its workers
 * @sched: orders the jobs of every queue on this engine
 * @wq: ordered: one pass at a time; a ring's KICK may also run its jobs
 *	on the caller's thread, beside it
 * @work: runs one pass: a turn for each user with work (tern_engine.c)
 * @retry: wakes @work again while every job looked at waits
 * @backoff_ns: current wait between two looks at those semaphores
 * @lock: protects @jobs, @users and what hangs off it, @queued, @hung,
 *	@guilty and the busy times
 * @jobs: jobs handed over by the scheduler, in that order
 * @users: users with work on the engine (&tern_engine_user), in the order
 *	of their next turns
 * @pass: the users of the current pass, each held (only @work uses it)
 * @queued: entries in @jobs, and jobs of user rings running on the engine
 *	(tern_ring.c)
 * @ring_jobs: those jobs of user rings
 * @hung: the engine makes no progress (fault injection) until it is reset
 * @busy_since_ns: when @queued last became non-zero
 * @busy_ns: total of the ended stretches during which @queued was non-zero
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
	struct tern_drm_device *tdev;
	unsigned int index;
	struct tern_model_target target;
	char name[24];
	struct drm_gpu_scheduler sched;
	struct workqueue_struct *wq;
	struct work_struct work;
	struct hrtimer retry;
	u64 backoff_ns;
	spinlock_t lock;		/* protects jobs, users, hung, ... */
	struct list_head jobs;
	struct list_head users;
	struct tern_engine_user *pass[TERN_ENGINE_PASS_USERS];
	u32 queued;
	u32 ring_jobs;
	bool hung;
	u64 busy_since_ns;
	u64 busy_ns;
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

struct tern_model_job;
struct tern_usage;

void tern_engine_state_read(struct tern_engine *engine,
			    struct tern_state_engine *state);
void tern_engine_hang(struct tern_engine *engine);
bool tern_engine_hung(struct tern_engine *engine);
void tern_engine_reset(struct tern_engine *engine,
		       const struct tern_usage *owner);
bool tern_engine_reset_hung(struct tern_engine *engine,
			    const struct tern_usage *owner);
int tern_engine_run(struct tern_engine *engine, struct tern_vm *vm,
		    struct tern_model_job *model);
void tern_engine_ring_job(struct tern_engine *engine, bool start);

int tern_engines_init(struct tern_drm_device *tdev, unsigned int dma_count,
		      const struct tern_core_shape *shape,
		      unsigned int timeout_ms);

struct tern_user *tern_user_get(struct tern_drm_device *tdev, kuid_t uid);
void tern_user_put(struct tern_user *user);
void tern_runnable_init(struct tern_runnable *run,
			struct tern_engine_client *client, bool ring);
bool tern_engine_link(struct tern_engine *engine, struct tern_runnable *run);
void tern_engine_unlink(struct tern_engine *engine, struct tern_runnable *run);
void tern_engine_fence_init(struct tern_engine *engine,
			    struct dma_fence *fence, u64 context, u64 seqno);
struct dma_fence *tern_engine_push(struct tern_engine *engine,
				   struct tern_job *job);
void tern_engine_kick(struct tern_engine *engine);

struct seq_file;
int tern_engines_show(struct seq_file *m, void *unused);
int tern_engine_steps_show(struct seq_file *m, void *unused);
void tern_engine_steps_reset(struct tern_drm_device *tdev);

#endif /* TERN_ENGINE_H */
