/* SPDX-License-Identifier: MIT */
/*
 * The simulated machine: Tern devices in a process of their own
 * (tern-simd), shared by every process of one user, executing packets with
 * the device model tern.ko's mock hardware uses.
 *
 * Its objects follow the driver's: a machine_device is the chip (memory,
 * engines, counters); a machine_client is one process's connection, the
 * counterpart of the files a process has open; a machine_context is one
 * tern_device_open() of a device (its own address space and queues), the
 * counterpart of one open file. Engines are threads. A client that goes
 * away (its socket closes) takes everything it held with it.
 */
#ifndef TERN_MACHINE_H
#define TERN_MACHINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "wire.h"
#include "tern_accel.h"
#include "tern_fabric.h"
#include "tern_state.h"
#include "tern_timing.h"

#define MACHINE_MAX_DEVICES	64
/*
 * DMA engines of each device, then a tensor, vector and scalar per core.
 * A chip without cores has 4 DMA engines; one with cores two per core
 * (Trainium2 has 16 a core, 128 a chip), so that each core's programs
 * have a DMA engine of their own, as on the chip, and no core waits
 * behind another's semaphores.
 */
#define MACHINE_DMA_ENGINES	4
#define MACHINE_DMA_PER_CORE	2
#define MACHINE_MAX_CORES	16
#define MACHINE_MAX_ENGINES	(MACHINE_DMA_PER_CORE * MACHINE_MAX_CORES + \
				 TERN_CORE_ENGINES * MACHINE_MAX_CORES)
#define MACHINE_PAGE_SIZE	4096ull
/* Semaphores a parked engine watches; its jobs' others are looked at. */
#define MACHINE_PARK_WORDS	8
/* The driver's per-file device address space. */
#define MACHINE_VA_BASE		(4ull << 30)
#define MACHINE_VA_SIZE		(DRM_TERN_VA_LIMIT - MACHINE_VA_BASE)

struct machine_engine;
struct machine_client;

/*
 * A process's fence table, mapped. Its fences hold it too: an engine may
 * signal a fence after the process has gone, and must not write into a
 * table already unmapped.
 */
struct machine_fence_table {
	atomic_uint refs;
	uint64_t *words;
};

/* A job's completion, inside the machine. */
struct machine_fence {
	atomic_uint refs;
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* waiters inside the machine */
	bool signaled;
	tern_status_t status;
	uint64_t end_ns;		/* modelled time its job ended */
	struct machine_engine **watchers;	/* engines to wake on signal */
	uint32_t watcher_count, watcher_cap;
	/* Where the client learns of it: its fence table's slot. */
	struct machine_fence_table *table;
	uint32_t slot, gen;
};

struct machine_context;

struct machine_job {
	struct machine_job *next;
	struct machine_fence *fence;
	struct machine_fence **deps;
	uint32_t dep_count;
	tern_status_t early;		/* set: fail at once with this */
	uint64_t host_ns;		/* modelled: starts no earlier */
	uint32_t size;
	uint64_t packets[];
};

/* The job a queue has started: its engine's worker's alone. */
struct machine_run {
	struct machine_job *job;	/* NULL: none started (engine lock) */
	struct tern_model_job model;
	uint64_t start_ns, deadline_ns;
	uint32_t offset;		/* where it last stalled */
	uint64_t progress;
	unsigned int backoff_us;	/* next look at a semaphore no one wrote */
};

struct machine_queue {
	uint64_t id;
	struct machine_context *ctx;
	struct machine_engine *engine;
	struct machine_queue *next;		/* the engine's queues */
	struct machine_queue *ctx_next;		/* the context's queues */
	struct machine_job *head, *tail;	/* not yet started */
	struct machine_fence *last;		/* newest job's fence, or NULL */
	struct machine_run run;
	bool destroyed;		/* QUEUE_DESTROY: goes once its jobs have */
	/* The engine's, under its lock: see machine_engine_pass. */
	uint64_t moved;		/* the engine's stamp when it last moved */
	uint64_t tried;		/* the pass that last gave it a step */
};

struct machine_engine_stats {
	uint64_t busy_ns;
	uint64_t jobs_completed, jobs_failed, timeouts, resets, hang_resets;
	uint64_t steps, longest_step_ns;	/* of jobs' steps */
};

/*
 * Where an engine is, for the workers (sched.c) that run every engine:
 * engines are not threads, so that a job waiting on a semaphore holds no
 * thread and no CPU, and a write wakes its waiter without a context switch.
 */
enum machine_engine_state {
	MACHINE_ENGINE_IDLE,	/* nothing to run: a kick queues it */
	MACHINE_ENGINE_QUEUED,	/* in the run queue */
	MACHINE_ENGINE_RUNNING,	/* a worker has it */
	MACHINE_ENGINE_PARKED,	/* its job waits: a write or its look queues it */
};

struct machine_engine {
	struct machine_device *dev;
	uint32_t index;
	struct tern_model_target target;	/* its type, core, the chip */
	pthread_mutex_t lock;		/* queues, running, poll, stats */
	bool poll;			/* a dependency could not be watched */
	struct machine_queue *queues;
	unsigned int running;		/* jobs started, not ended */
	uint64_t stamp;			/* steps that moved a job, so far */
	uint64_t pass;			/* passes over its queues, so far */
	atomic_bool hung;		/* engine_hang: no progress */
	struct machine_engine_stats stats;	/* engine lock */
	struct tern_timing_engine timing;	/* its worker's */
	/* The scheduler's, under its lock. */
	enum machine_engine_state state;
	bool again;			/* kicked while a worker had it */
	struct machine_engine *run_next;
	const void *waits_on[MACHINE_PARK_WORDS];	/* parked: words */
	unsigned int wait_count;
	uint64_t look_ns;		/* parked: look again then */
	unsigned int parked_at;		/* parked: index in sched.parked */
};

struct machine_device {
	struct machine *machine;
	int index;
	uint64_t mem_total;
	pthread_mutex_t lock;	/* memory, errors */
	uint64_t mem_used, mem_host_used;
	uint32_t buffer_count;
	uint64_t mem_errors_corrected, mem_errors_uncorrected;
	atomic_uint health_reasons;	/* as last announced (event.c) */
	unsigned int engine_count;	/* DMA, then 3 per core */
	unsigned int dma_engine_count;
	struct machine_engine engines[MACHINE_MAX_ENGINES];
};

/*
 * The pages of one buffer: a sealed memfd that the machine maps and hands
 * to the owning process, shared by the buffer and its imports; they stay
 * until the last of them is freed. @refs is the share table's (share.c).
 */
struct machine_memory {
	struct machine_device *dev;	/* the device whose memory it is */
	tern_memory_kind_t kind;
	uint64_t size;			/* page-rounded */
	void *cpu;
	int fd;
	uint64_t st_dev, st_ino;	/* the memfd's identity */
	unsigned int refs;
};

struct machine_bo {
	uint64_t va, size;
	struct machine_memory *memory;
	bool imported;		/* another buffer's memory: not charged here */
};

struct machine_context {
	uint64_t id;
	struct machine_device *dev;
	struct machine_client *client;
	struct machine_context *next;	/* the client's contexts */
	atomic_bool dead;		/* closing: its jobs end now */
	bool model_clock;		/* SIM_CTX_MODEL_CLOCK */
	bool skip_data;			/* SIM_CTX_SKIP_DATA */
	uint64_t moved[MACHINE_MAX_ENGINES];	/* engine lock: its stamp */
	pthread_rwlock_t va_lock;	/* engines read, alloc/free write */
	/* SBUF and PSUM by core, made on first use (context.c): atomic. */
	uint8_t *_Atomic onchip[MACHINE_MAX_CORES][2];
	struct machine_bo **bos;	/* sorted by address */
	size_t bo_count, bo_cap;
	struct machine_queue *queues;	/* the client thread's alone */
	/* What tern-inspect shows of it (counters: atomics). */
	uint64_t mem_device, mem_host;	/* va_lock */
	atomic_uint_fast64_t jobs_submitted, jobs_active, busy_ns;
};

/* A fence the client holds, by slot: its generation and the fence. */
struct machine_fence_entry {
	uint32_t gen;
	struct machine_fence *fence;
};

/* A process's submission ring (ring.c), mapped. */
struct machine_ring {
	struct sim_ring_ctl *ctl;	/* NULL: the process has none */
	const uint8_t *data;
	atomic_uint_fast64_t head;	/* taken: the shared copy is only told */
	uint64_t served;		/* socket messages served */
	atomic_bool broken;		/* it wrote nonsense: never read again */
	atomic_bool full;		/* its next job waits for room */
	uint32_t full_size;		/* that job's packet bytes */
	void *buf;			/* the record being taken, copied out */
	/* The scheduler's, under its lock. */
	unsigned int users;		/* workers about to take it */
	int slot;			/* in sched.rings, or -1 */
};

/*
 * What one process may hold, and the host budget (limits.c): settings of
 * tern-simd, 0 for the default.
 */
struct machine_limits {
	uint64_t host_bytes;		/* host buffers of every process */
	uint64_t client_host_bytes;	/* host buffers of one process */
	uint64_t client_job_bytes;	/* packets of its jobs not ended */
	uint32_t client_jobs;		/* its jobs not ended */
	uint32_t client_buffers;	/* its buffers and imports */
	uint32_t clients;		/* processes attached at once */
	uint32_t descriptors;		/* the machine's descriptor limit */
};

#define MACHINE_CLIENT_JOBS		16384
#define MACHINE_CLIENT_JOB_BYTES	(256ull << 20)

/* What one process holds against its limits. */
struct machine_usage {
	uint64_t host_bytes;		/* the client's thread's */
	uint32_t buffers;		/* the client's thread's */
	atomic_uint jobs;		/* ended by the engines */
	atomic_uint_fast64_t job_bytes;
	atomic_bool waiting;		/* its thread waits for room */
	int room_fd;			/* eventfd: a job ended meanwhile */
};

struct machine_client {
	struct machine *machine;
	struct machine_usage usage;
	uint64_t id;
	/*
	 * Held by the client's thread except while it waits for a message,
	 * so that workers taking its ring (which need it too) never find
	 * its contexts, queues or fences half changed.
	 */
	pthread_mutex_t lock;
	struct machine_ring ring;
	bool serving;			/* a message not yet counted served */
	int sock;
	int32_t pid;
	uint32_t uid;
	char comm[32];
	pthread_t thread;
	struct machine_client *next;	/* the machine's clients */
	struct machine_fence_table *fences;
	struct machine_fence_entry *held;	/* by slot */
	uint32_t held_cap;
	struct machine_context *contexts;
	/* When it last moved on each engine (that engine's lock). */
	uint64_t moved[MACHINE_MAX_DEVICES * MACHINE_MAX_ENGINES];
	/* Follows the events (machine lock): sent nothing else. */
	bool following;
	uint64_t events_lost;		/* since the last it got */
};

#define MACHINE_MAX_WORKERS	64
#define MACHINE_PARK_HASH	256
/* Processes with a submission ring; the others use the socket alone. */
#define MACHINE_MAX_RINGS	1024

/*
 * The workers: a thread per CPU, each taking the next engine with work
 * and running its job until it ends, waits or has had its share.
 */
struct machine_sched {
	pthread_mutex_t lock;
	/* Workers with nothing to run sleep on its seq (wire.h). */
	struct sim_doorbell *bell;
	int bell_fd;			/* handed to every process */
	struct machine_engine *run_head, *run_tail;
	/* Changed under the lock, also read without it (machine_share). */
	atomic_uint queued;		/* engines in the run queue */
	atomic_uint_fast64_t waiting_since;	/* when the queue last filled */
	atomic_uint_fast64_t shared_for;	/* the backlog a worker was woken for */
	uint64_t parallel_at;		/* when two workers last ran engines */
	struct machine_engine *parked[MACHINE_MAX_DEVICES * MACHINE_MAX_ENGINES];
	atomic_uint parked_count;
	/* Parked engines by their word's hash: a writer looks only there. */
	atomic_uint parked_on[MACHINE_PARK_HASH];
	atomic_uint_fast64_t writes;	/* 8-byte writes landed: see park */
	uint64_t next_look;		/* the earliest parked look */
	unsigned int active;		/* workers running an engine */
	atomic_uint sleepers, spinners;
	/* The processes' submission rings: NULL slots are free. */
	struct machine_client *rings[MACHINE_MAX_RINGS];
	unsigned int ring_slots;	/* slots ever used */
	uint32_t doorbell;		/* the rings' bell: 0, or even */
	uint32_t host_writes;		/* the bell page's, last acted on */
	uint32_t bell_last;		/* the last bell set */
	unsigned int cpus, workers;
	pthread_t threads[MACHINE_MAX_WORKERS];
};

struct machine {
	struct sim_shape shape;
	bool persistent;		/* stays with no client */
	uint64_t idle_ns;		/* else exits after that long without */
	uint64_t started_ns;		/* CLOCK_REALTIME */
	uint64_t job_timeout_ns;
	struct tern_fabric fabric;	/* fabric id = device index */
	struct tern_timing *timing;	/* the fabric's timing model */
	struct tern_core_shape cores;	/* of each chip */
	bool has_reduce;		/* the model knows REDUCE */
	int device_count;
	struct machine_device devices[MACHINE_MAX_DEVICES];
	struct machine_sched sched;
	struct machine_limits limits;
	atomic_uint_fast64_t host_used;	/* host buffers' bytes, all devices */

	pthread_mutex_t lock;		/* clients, ids, stopping */
	pthread_cond_t cond;		/* a client went */
	struct machine_client *clients;
	unsigned int client_count;
	uint64_t next_id;
	uint64_t idle_since_ns;		/* CLOCK_MONOTONIC; 0 while clients */
	bool served;			/* a process was greeted */
	bool stopping;
};

/* machine.c */
uint64_t machine_clock_ns(void);
/*
 * Sets @m up for @shape (checked here: a bad shape gets a sentence in
 * @reason). 0 or -EINVAL.
 */
int machine_init(struct machine *m, const struct sim_shape *shape,
		 char *reason, size_t reason_len);
uint64_t machine_next_id(struct machine *m);
/* Serves @sock, a connected client, on a thread of its own. */
int machine_client_start(struct machine *m, int sock);
/*
 * Waits while clients remain (STOP without force) or until @m is to go
 * (STOP, or idle too long); returns when it should exit.
 */
void machine_wait_until_done(struct machine *m);

/* client.c: one process's connection */
void *machine_client_main(void *arg);

/*
 * A record that needs no reply (SUBMIT, FENCE_PUT), from the ring or the
 * socket. Client lock held. 0; MACHINE_POST_FULL: a job the process has
 * no room for yet, not taken (ring.full_size says its size); or -1: the
 * process broke the protocol.
 */
#define MACHINE_POST_FULL	1
int machine_client_post(struct machine_client *client, uint32_t type,
			const void *payload, uint32_t len);

/* ring.c: a process's submission ring */
/* Maps @fd, a sealed memfd of the size wire.h sets; -1 if it is not. */
int machine_ring_map(struct machine_ring *ring, int fd);
void machine_ring_unmap(struct machine_ring *ring);
/* Whether records wait in @ring (a hint: taking them needs the lock). */
bool machine_ring_pending(struct machine_ring *ring);
/* A message from the socket was served: the ring may take records again. */
void machine_ring_served(struct machine_ring *ring);
/*
 * Takes every record written. Client lock held. 0; 1: it stopped at a
 * job the process has no room for (ring.full); or -1: broken.
 */
int machine_ring_drain(struct machine_client *client);

/* context.c: opening and closing a device */
int machine_context_open(struct machine_client *client, uint32_t device,
			 uint32_t flags, struct machine_context **out);
/* Ends @ctx's jobs now: those not started, and any running at its next step. */
void machine_context_kill(struct machine_context *ctx);
/* The model's onchip() for a context (tern_model_mem). */
u8 *machine_context_onchip(void *ctx, u32 core, u32 space);
void machine_context_close(struct machine_context *ctx);
struct machine_context *machine_context_find(struct machine_client *client,
					     uint64_t id);
void machine_context_query(struct machine_context *ctx,
			   struct sim_query_reply *reply);
/* TERN_DEVICE_CAP_* of device @index, whoever opens it. */
uint64_t machine_device_caps(struct machine *m, int index);
void machine_ports(struct machine *m, uint32_t device,
		   struct sim_ports_reply *reply);

/*
 * inspect.c: what tern-inspect sees, in the structs of the model's state
 * lists and in tern.ko's netlink messages (netlink.h)
 */
struct sim_nl;
struct machine_guilty;
void machine_device_state(struct machine *m, struct machine_device *dev,
			  struct tern_state_device *state);
void machine_engine_state(struct machine_engine *engine,
			  struct tern_state_engine *state);
/* One DRM_TERN_A_DEV_ENGINE nest; with @guilty, whose job a reset failed. */
void machine_put_engine(struct sim_nl *nl, struct machine_engine *engine,
			const struct machine_guilty *guilty);
/* Starts a @cmd message of link @link; the caller ends it. */
void machine_link_message(struct sim_nl *nl, struct machine *m, uint32_t link,
			  uint8_t cmd);
/* DUMP: the messages tern.ko's dump @req->cmd would send, those that fit. */
tern_status_t machine_dump(struct machine *m, const struct sim_dump *req,
			   struct sim_nl *nl);

/* memory.c */
tern_status_t machine_bo_create(struct machine_context *ctx,
				tern_memory_kind_t kind, uint64_t bytes,
				struct machine_bo **out);
/* Maps @memory (one reference taken by the caller) into @ctx. */
tern_status_t machine_bo_map(struct machine_context *ctx,
			     struct machine_memory *memory,
			     struct machine_bo **out);
tern_status_t machine_bo_free(struct machine_context *ctx, uint64_t va);
/* A new descriptor of the memory of @ctx's buffer at @va; -1 if none. */
int machine_bo_fd(struct machine_context *ctx, uint64_t va);
void *machine_translate(void *ctx, uint64_t va, uint64_t len, uint32_t *owner);
/* Pages of @size bytes, charged to @dev for device placement, zeroed. */
tern_status_t machine_pages_alloc(struct machine_device *dev,
				  tern_memory_kind_t kind, uint64_t size,
				  struct machine_memory *memory);
void machine_pages_free(struct machine_memory *memory);

/* share.c: every buffer's memory, found again by its memfd */
tern_status_t machine_memory_create(struct machine_device *dev,
				    tern_memory_kind_t kind, uint64_t size,
				    struct machine_memory **out);
void machine_memory_put(struct machine_memory *memory);
/* The memory @fd names, with a reference, or NULL. */
struct machine_memory *machine_memory_lookup(int fd);

/* fence.c */
/* Maps @fd, a sealed memfd of the size wire.h sets; NULL if it is not. */
struct machine_fence_table *machine_fence_table_map(int fd);
void machine_fence_table_put(struct machine_fence_table *table);
struct machine_fence *machine_fence_create(struct machine_fence_table *table,
					   uint32_t slot, uint32_t gen);
struct machine_fence *machine_fence_get(struct machine_fence *fence);
void machine_fence_put(struct machine_fence *fence);
/* Ends @fence with @status; its job ended at modelled time @end_ns. */
void machine_fence_signal(struct machine_fence *fence, tern_status_t status,
			  uint64_t end_ns);
/* True if signalled; otherwise @engine is woken when it is. */
bool machine_fence_ready_or_watch(struct machine_fence *fence,
				  struct machine_engine *engine);
void machine_fence_wait(struct machine_fence *fence);

/* engine.c: the engines, their queues, jobs */
tern_status_t machine_queue_create(struct machine_context *ctx,
				   uint32_t engine,
				   struct machine_queue **out);
/*
 * QUEUE_DESTROY: @q's jobs still run (or end at once if its context is
 * dead); it goes once they have, never waiting here.
 */
void machine_queue_destroy(struct machine_queue *q);
/* Frees @ctx's destroyed queues whose jobs have all ended. */
void machine_queues_reap(struct machine_context *ctx);
struct machine_queue *machine_queue_find(struct machine_context *ctx,
					 uint64_t id);
/* Queues @job (its fence and dependencies set) behind @q's others. */
void machine_job_queue(struct machine_queue *q, struct machine_job *job);

/* How a worker's turn on an engine ended. */
enum machine_turn {
	MACHINE_TURN_IDLE,	/* no job ready */
	MACHINE_TURN_YIELD,	/* more to do, after the others' turns */
	MACHINE_TURN_PARK,	/* its job waits: see struct machine_park */
};

/*
 * A parked engine runs again when an engine writes one of @words (the
 * semaphores its jobs wait on) or at @look_ns, whichever comes first.
 * @writes is the scheduler's count of writes when its jobs last read
 * their semaphores, @own the worker's own part of it: a write by another
 * since then means it must look again at once.
 */
struct machine_park {
	const void *words[MACHINE_PARK_WORDS];
	unsigned int word_count;
	uint64_t look_ns;
	uint64_t writes, own;
};

/*
 * Runs @engine's jobs in passes (engine.c) until none can move, all
 * wait (*@park says on what) or other engines should have their turn.
 */
enum machine_turn machine_engine_turn(struct machine_engine *engine,
				      struct machine_park *park);

/* sched.c: the workers that run the engines */
int machine_sched_start(struct machine *m);
/* @engine may have work: a job queued, a dependency or a context ended. */
void machine_engine_kick(struct machine_engine *engine);
/* Counts the 8-byte writes landed so far into @park. */
void machine_sched_writes(struct machine_sched *s, struct machine_park *park);
/* An engine's 8-byte write to @word landed: its waiters run again. */
void machine_sched_written(struct machine_sched *s, const void *word);
/* Whether other engines are waiting for a worker. */
bool machine_sched_contended(struct machine_sched *s);
/*
 * Called now and then during a turn: wakes another worker if engines have
 * waited long for one. No lock held.
 */
void machine_sched_share(struct machine_sched *s);
/* The workers watch @client's ring from now; false if there is no room. */
bool machine_sched_ring_add(struct machine_sched *s,
			    struct machine_client *client);
/* ... and no longer: none is taking it once this returns. */
void machine_sched_ring_remove(struct machine_sched *s,
			       struct machine_client *client);

/* event.c: events and health, as tern.ko announces them */
/* Whose job an engine reset failed. */
struct machine_guilty {
	uint64_t client_id;
	int32_t pid;
	char comm[32];
};
uint32_t machine_health_reasons(struct machine *m, struct machine_device *dev);
/* Announces HEALTH if @dev's reasons changed. No lock held. */
void machine_health_update(struct machine *m, struct machine_device *dev);
/*
 * The link on @device's @port changed state or counted an error: @cmd is
 * DRM_TERN_CMD_LINK_STATE_NTF or _LINK_ERROR_NTF.
 */
void machine_link_event(struct machine *m, uint32_t device, uint32_t port,
			uint8_t cmd);
void machine_mem_error_event(struct machine_device *dev, bool uncorrectable,
			     uint64_t offset);
void machine_reset_event(struct machine_engine *engine,
			 const struct machine_guilty *guilty);

/* limits.c: what one process may hold */
/* Sets @m's limits from @asked (0: the default), raising its descriptors. */
void machine_limits_init(struct machine *m, const struct machine_limits *asked);
/* Host memory against the machine's budget: OUT_OF_MEMORY past it. */
tern_status_t machine_host_charge(struct machine *m, uint64_t size);
void machine_host_uncharge(struct machine *m, uint64_t size);
/*
 * A buffer (@imported: an import) of @client's: TERN_ERROR_LIMIT past its
 * buffers, OUT_OF_MEMORY past its host memory. Client's thread.
 */
tern_status_t machine_client_hold(struct machine_client *client,
				  tern_memory_kind_t kind, uint64_t size,
				  bool imported);
void machine_client_unhold(struct machine_client *client,
			   tern_memory_kind_t kind, uint64_t size,
			   bool imported);
/* Whether a job of @size packet bytes fits @client's caps now. */
bool machine_client_job_fits(struct machine_client *client, uint32_t size);
void machine_client_job_add(struct machine_client *client, uint32_t size);
/* A job of @client's ended: its thread, if it waits for room, looks. */
void machine_client_job_end(struct machine_client *client, uint32_t size);
/* Waits until a job of @size fits; -1 if the process went first. */
int machine_client_wait_room(struct machine_client *client, uint32_t size);
int machine_usage_init(struct machine_usage *u);
void machine_usage_fini(struct machine_usage *u);

/* fault.c */
tern_status_t machine_fault(struct machine *m, const struct sim_fault *req,
			    char *reason, size_t reason_len);

#endif /* TERN_MACHINE_H */
