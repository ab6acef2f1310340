/* SPDX-License-Identifier: MIT */
/*
 * tern-fuzz: random and mutated ioctls on every Tern device node, from
 * several processes and threads, with SIGKILLs, fault injection and
 * netlink and sysfs readers racing them (Documentation/fuzzing.rst).
 *
 * A supervisor (main.c) forks worker processes (worker.c) and a racer
 * (racer.c). Each worker's threads draw calls from one table, on
 * resources remembered in the process's pool (pool.c), with arguments
 * that are mostly valid and sometimes boundary values or random bytes
 * (values.c); packet streams come from packets.c. Every call is counted
 * in shared memory with its errno (stats.c).
 */
#ifndef TERN_FUZZ_H
#define TERN_FUZZ_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tern_accel.h"

/* ---- random numbers (rng.c) ---- */

struct rng {
	uint64_t s[4];
};

void rng_seed(struct rng *rng, uint64_t seed);
uint64_t rng_next(struct rng *rng);
/* Uniform in [0, @n); 0 when @n is 0. */
uint64_t rng_below(struct rng *rng, uint64_t n);
/* True with probability @percent / 100. */
bool rng_chance(struct rng *rng, unsigned int percent);
void rng_fill(struct rng *rng, void *buf, size_t len);
/* The seed of thread @thread of worker @worker, from the master seed. */
uint64_t seed_derive(uint64_t master, uint64_t worker, uint64_t thread);

/* ---- what is counted (stats.c) ---- */

enum fuzz_call {
	CALL_TERN_GET_INFO,
	CALL_TERN_BO_CREATE_DEVICE,
	CALL_TERN_BO_CREATE_HOST,
	CALL_TERN_BO_INFO,
	CALL_TERN_QUEUE_CREATE,
	CALL_TERN_QUEUE_DESTROY,
	CALL_TERN_SUBMIT_VALID,
	CALL_TERN_SUBMIT_MUTATED,
	CALL_TERN_SUBMIT_STALL,
	CALL_TERN_TOPOLOGY,
	CALL_TERN_RING_CREATE,
	CALL_TERN_RING_DESTROY,
	CALL_TERN_RING_KICK,
	CALL_TERN_RING_WAIT,
	CALL_TERN_RING_MASS,
	CALL_TERN_RING_WAIT_DESTROY,
	CALL_TERN_RAW,
	CALL_GEM_CLOSE,
	CALL_PRIME_HANDLE_TO_FD,
	CALL_PRIME_FD_TO_HANDLE,
	CALL_SYNCOBJ_CREATE,
	CALL_SYNCOBJ_DESTROY,
	CALL_SYNCOBJ_WAIT,
	CALL_SYNCOBJ_RESET,
	CALL_SYNCOBJ_SIGNAL,
	CALL_SYNCOBJ_HANDLE_TO_FD,
	CALL_SYNCOBJ_FD_TO_HANDLE,
	CALL_SYNCOBJ_TIMELINE_WAIT,
	CALL_SYNCOBJ_QUERY,
	CALL_SYNCOBJ_TRANSFER,
	CALL_SYNCOBJ_TIMELINE_SIGNAL,
	CALL_GET_CAP,
	CALL_VERSION,
	CALL_SYNC_FILE_INFO,
	CALL_SYNC_FILE_MERGE,
	CALL_SYNC_FILE_POLL,
	CALL_MMAP,
	CALL_MUNMAP,
	CALL_TOUCH,
	CALL_OPEN,
	CALL_CLOSE,
	CALL_CLOSE_FD,
	/* rows that no worker draws: results seen along the way */
	CALL_FENCE_STATUS,
	/* the racer's */
	CALL_DEBUGFS_FABRIC_LINK,
	CALL_DEBUGFS_MEM_ERROR,
	CALL_DEBUGFS_ENGINE_HANG,
	CALL_DEBUGFS_READ,
	CALL_NETLINK_DEVICE_GET,
	CALL_NETLINK_LINK_GET,
	CALL_NETLINK_CLIENT_GET,
	CALL_NETLINK_OTHER,
	CALL_NETLINK_EVENT,
	CALL_SYSFS_READ,
	CALL_SYSFS_HEALTH_CLEAR,
	CALL_COUNT
};

/* Result bins: 0 success, 1..FUZZ_ERRNO_MAX an errno, then "other". */
#define FUZZ_ERRNO_MAX		133
#define FUZZ_BINS		(FUZZ_ERRNO_MAX + 2)

/* Shared by every process of a run (MAP_SHARED), updated atomically. */
struct fuzz_shared {
	atomic_int stop;		/* set by the supervisor at the end */
	atomic_uint_fast64_t calls[CALL_COUNT];
	atomic_uint_fast64_t results[CALL_COUNT][FUZZ_BINS];
};

const char *call_name(enum fuzz_call call);
/* The call named @name (case-insensitive), or CALL_COUNT. */
enum fuzz_call call_by_name(const char *name);
struct fuzz_shared *stats_create(void);
/* Counts @call with its result: 0 or a positive errno. */
void stats_record(struct fuzz_shared *shared, enum fuzz_call call, int err);
uint64_t stats_total(const struct fuzz_shared *shared);
/* "ok", the errno's name ("EINVAL"), or "other". */
const char *result_name(int err);
void stats_print(const struct fuzz_shared *shared, double seconds);

/* ---- options (options.c) ---- */

struct fuzz_options {
	uint64_t seed;
	unsigned int time_s;
	unsigned int procs;
	unsigned int threads;
	unsigned int kill_ms;		/* mean time between SIGKILLs; 0: none */
	bool faults;			/* racer writes the debugfs fault knobs */
	bool racer;
	bool verbose;			/* each worker's and thread's seed */
	bool trace;			/* every call, for replays */
	unsigned int second_uid;	/* odd workers' uid and gid; 0: none */
	bool skip[CALL_COUNT];		/* calls no worker draws */
};

/* Parses argv; exits 0 after --help, 2 on a bad option. */
void options_parse(struct fuzz_options *opt, int argc, char **argv);
/* The command line that repeats this run, for the log. */
void options_print_replay(const struct fuzz_options *opt);

/* ---- devices (devices.c) ---- */

#define FUZZ_MAX_DEVICES	64
#define FUZZ_NODE_LEN		64

struct fuzz_device {
	char node[FUZZ_NODE_LEN];
	struct drm_tern_info info;
};

struct fuzz_devices {
	unsigned int count;
	struct fuzz_device dev[FUZZ_MAX_DEVICES];
};

/* Every Tern node and its GET_INFO; returns the count. */
unsigned int devices_find(struct fuzz_devices *devices);

/* ---- the resources a worker remembers (pool.c) ---- */

/*
 * Every item starts with the serial of the file it belongs to (0: none),
 * so that picks can keep to one file and closing a file forgets its items.
 */
struct pool_file {
	uint32_t file;			/* its own serial */
	int fd;
	unsigned int device;
};

struct pool_bo {
	uint32_t file;
	uint32_t handle;
	uint64_t size;
	uint64_t va;
	uint64_t mmap_offset;
	uint32_t placement;
	bool import;			/* from a dma-buf */
};

struct pool_queue {
	uint32_t file;
	uint32_t id;
	uint32_t engine;		/* what its streams are built for */
};

/*
 * A user ring, with its buffer mapped: the ring's own, written only with
 * the pool locked and the ring still in it (pool_with()), and unmapped by
 * whoever takes the ring out, so that no thread writes into memory that
 * was unmapped meanwhile and perhaps reused.
 */
struct pool_ring {
	uint32_t file;
	uint32_t id;
	uint32_t handle;		/* of its buffer, when it was made */
	uint32_t engine;		/* what its records are built for */
	uint8_t *addr;			/* drm_tern_ring_ctl, then records */
	size_t len;			/* bytes mapped */
	uint32_t size;			/* bytes of records, a power of two */
	uint64_t tail;			/* bytes of records written, ever */
	uint64_t jobs;			/* records written as jobs, ever */
};

/* What tells rings apart: their file and id, the bytes before handle. */
#define POOL_RING_KEY_BYTES	offsetof(struct pool_ring, handle)
/* Rings remembered: each holds up to a MiB of buffer, 256 KiB in the kernel. */
#define FUZZ_POOL_RINGS		16

struct pool_syncobj {
	uint32_t file;
	uint32_t handle;
};

enum pool_fd_kind { FD_DMA_BUF, FD_SYNC_FILE, FD_SYNCOBJ };

struct pool_fd {
	uint32_t file;			/* always 0: outlives its file */
	int fd;
	enum pool_fd_kind kind;
};

struct pool_map {
	uint32_t file;			/* always 0: outlives its file */
	uint8_t *addr;
	size_t len;
	int prot;			/* as mapped: what touching may do */
};

enum pool_kind { POOL_FILE, POOL_BO, POOL_QUEUE, POOL_RING, POOL_SYNCOBJ,
		 POOL_FD, POOL_MAP, POOL_KINDS };

struct pool_set {
	void *items;
	size_t item_size;
	unsigned int count, capacity;
};

struct pool {
	pthread_mutex_t lock;
	uint32_t next_serial;
	struct pool_set set[POOL_KINDS];
};

void pool_init(struct pool *pool);
uint32_t pool_new_serial(struct pool *pool);
/*
 * Remembers @item. When the set is full a random item makes room: it is
 * copied to @evicted for the caller to release, and true is returned.
 */
bool pool_add(struct pool *pool, enum pool_kind kind, const void *item,
	      void *evicted, struct rng *rng);
/* A copy of a random item of file @file (0: of any file); false if none. */
bool pool_pick(struct pool *pool, enum pool_kind kind, struct rng *rng,
	       uint32_t file, void *out);
/* The same, and the item is forgotten. */
bool pool_take(struct pool *pool, enum pool_kind kind, struct rng *rng,
	       uint32_t file, void *out);
/* Forgets the item equal to @item's first @cmp_len bytes; false if none. */
bool pool_forget(struct pool *pool, enum pool_kind kind, const void *item,
		 size_t cmp_len);
/*
 * Runs @fn on the item equal to @item's first @cmp_len bytes with the pool
 * locked, so that no thread takes it meanwhile; @fn may change the item,
 * and must call no pool function. False if the item is not there.
 */
bool pool_with(struct pool *pool, enum pool_kind kind, const void *item,
	       size_t cmp_len, void (*fn)(void *item, void *ctx), void *ctx);
/* Copies up to @max items of file @file to @out; returns how many. */
unsigned int pool_collect(struct pool *pool, enum pool_kind kind,
			  uint32_t file, void *out, unsigned int max);
unsigned int pool_count(struct pool *pool, enum pool_kind kind);
/*
 * Forgets every buffer, queue, ring and syncobj of file @file, and unmaps
 * its rings' buffers.
 */
void pool_forget_file(struct pool *pool, uint32_t file);
/*
 * Runs @fn on a random mapping with the pool locked, so that no thread
 * unmaps it meanwhile; false if there is none.
 */
bool pool_with_map(struct pool *pool, struct rng *rng,
		   void (*fn)(const struct pool_map *map, void *ctx), void *ctx);
/* Host-placement bytes of the buffers remembered. */
uint64_t pool_host_bytes(struct pool *pool);

/* ---- workers (worker.c) ---- */

struct fuzz_worker {
	const struct fuzz_options *opt;
	const struct fuzz_devices *devices;
	struct fuzz_shared *shared;
	struct pool pool;
	unsigned int generation;	/* the how-manieth worker of the run */
};

struct fuzz_stream;

struct fuzz_thread {
	struct rng rng;
	struct fuzz_worker *worker;
	unsigned int index;
	uint64_t seq;			/* calls made, for traces */
	/* where the kernel may write: output arrays and strings */
	uint8_t *scratch;
	struct fuzz_stream *stream;
};

#define FUZZ_SCRATCH_BYTES	(64u << 10)

/* Runs a worker process's threads until the run stops; never returns. */
void worker_main(const struct fuzz_options *opt,
		 const struct fuzz_devices *devices,
		 struct fuzz_shared *shared, unsigned int generation);
/* Counts @call's result (0 or an errno), and traces it if asked. */
void fuzz_done(struct fuzz_thread *t, enum fuzz_call call, int err);
/* The ioctl through drmIoctl (which restarts on EINTR): 0 or errno. */
int fuzz_ioctl(int fd, unsigned long request, void *arg);
/* A remembered file, opening one when there is none; false if none. */
bool fuzz_file(struct fuzz_thread *t, struct pool_file *file);

/* ---- argument values (values.c) ---- */

/* An edge of some range: 0, 1, ~0, powers of two, page sizes +-1, ... */
uint64_t value_boundary(struct rng *rng);
/* @valid most of the time; otherwise a boundary value or random bits. */
uint64_t value_u64(struct rng *rng, uint64_t valid);
uint32_t value_u32(struct rng *rng, uint32_t valid);
/* Flags or pad: 0 most of the time, else stray bits. */
uint32_t value_flags(struct rng *rng, uint32_t valid);
/* A pointer the kernel only reads: @valid or anything at all. */
uint64_t value_read_ptr(struct rng *rng, const void *valid);
/*
 * A pointer the kernel writes through: @valid, or one it must refuse
 * (NULL, an inaccessible page, kernel and non-canonical addresses); never
 * random bits, which could land in the fuzzer's own memory.
 */
uint64_t value_write_ptr(struct rng *rng, void *valid);
/* CLOCK_MONOTONIC now, in nanoseconds: what syncobj timeouts count in. */
int64_t monotonic_ns(void);
/* An absolute CLOCK_MONOTONIC deadline a few milliseconds away at most. */
int64_t value_deadline(struct rng *rng);
/* An element count for core ioctls: small, see FUZZ_CORE_MAX_COUNT. */
uint32_t value_core_count(struct rng *rng, uint32_t valid);
/* A file descriptor: one remembered, one of ours, or none at all. */
int value_fd(struct fuzz_thread *t, int valid);

/*
 * DRM core ioctls that take an array (syncobj waits, resets, signals,
 * queries) get at most this many entries: a huge count_handles makes
 * 6.1's drm_syncobj_array_find() WARN in __alloc_pages, a DRM core bug
 * that would drown what this fuzzer is for, tern.ko.
 */
#define FUZZ_CORE_MAX_COUNT	16

/* ---- packet streams (packets.c) ---- */

enum stream_kind {
	STREAM_VALID,		/* packets that pass SUBMIT's checks */
	STREAM_MUTATED,		/* a valid stream, then damaged */
	STREAM_STALL,		/* valid, ending in a SEM_WAIT(_ABORT) that never passes */
};

/* A buffer packets may address: its device address in this file. */
struct fuzz_target {
	uint64_t va;
	uint64_t size;
};

/*
 * Room for the largest stream generated: max_submit_bytes as tern.ko
 * reports it today (256 KiB), plus a little to go past it.
 */
#define FUZZ_STREAM_BYTES	((256u << 10) + 64)
/* Words past the end that a packet's fixed fields may reach. */
#define FUZZ_STREAM_SLACK	8

struct fuzz_stream {
	uint32_t size;			/* bytes */
	uint32_t packets;
	uint32_t offset[256];		/* of the first packets */
	uint64_t words[FUZZ_STREAM_BYTES / 8 + FUZZ_STREAM_SLACK];
};

/*
 * Fills @s with a stream of @kind over @targets (may be none), for
 * engine @engine of the device (valid packets are those it runs).
 */
void stream_build(struct fuzz_thread *t, struct fuzz_stream *s,
		  const struct fuzz_target *targets, unsigned int count,
		  const struct drm_tern_info *info, uint32_t engine,
		  enum stream_kind kind);

/* ---- the calls (ops_*.c): each draws its arguments and counts itself ---- */

typedef void (*fuzz_op)(struct fuzz_thread *t);

void op_get_info(struct fuzz_thread *t);
void op_bo_create_device(struct fuzz_thread *t);
void op_bo_create_host(struct fuzz_thread *t);
void op_bo_info(struct fuzz_thread *t);
void op_queue_create(struct fuzz_thread *t);
void op_queue_destroy(struct fuzz_thread *t);
void op_submit_valid(struct fuzz_thread *t);
void op_submit_mutated(struct fuzz_thread *t);
void op_submit_stall(struct fuzz_thread *t);
void op_topology(struct fuzz_thread *t);
void op_tern_raw(struct fuzz_thread *t);

void op_ring_create(struct fuzz_thread *t);
void op_ring_destroy(struct fuzz_thread *t);
void op_ring_kick(struct fuzz_thread *t);
void op_ring_wait(struct fuzz_thread *t);
void op_ring_mass(struct fuzz_thread *t);
void op_ring_wait_destroy(struct fuzz_thread *t);

void op_gem_close(struct fuzz_thread *t);
void op_prime_handle_to_fd(struct fuzz_thread *t);
void op_prime_fd_to_handle(struct fuzz_thread *t);
void op_get_cap(struct fuzz_thread *t);
void op_version(struct fuzz_thread *t);

void op_syncobj_create(struct fuzz_thread *t);
void op_syncobj_destroy(struct fuzz_thread *t);
void op_syncobj_wait(struct fuzz_thread *t);
void op_syncobj_reset(struct fuzz_thread *t);
void op_syncobj_signal(struct fuzz_thread *t);
void op_syncobj_handle_to_fd(struct fuzz_thread *t);
void op_syncobj_fd_to_handle(struct fuzz_thread *t);
void op_syncobj_timeline_wait(struct fuzz_thread *t);
void op_syncobj_query(struct fuzz_thread *t);
void op_syncobj_transfer(struct fuzz_thread *t);
void op_syncobj_timeline_signal(struct fuzz_thread *t);
void op_sync_file_info(struct fuzz_thread *t);
void op_sync_file_merge(struct fuzz_thread *t);
void op_sync_file_poll(struct fuzz_thread *t);
/*
 * What happens to a job's fence after SUBMIT: waited for (bounded),
 * exported as a sync_file whose status is counted, or left alone.
 * @patient: a large job; always waited for, a little longer, so that
 * large streams cannot pile up in the kernel faster than engines run them.
 */
void fence_follow(struct fuzz_thread *t, int fd, uint32_t syncobj,
		  bool patient);

void op_mmap(struct fuzz_thread *t);
void op_munmap(struct fuzz_thread *t);
void op_touch(struct fuzz_thread *t);
void op_open(struct fuzz_thread *t);
void op_close(struct fuzz_thread *t);
void op_close_fd(struct fuzz_thread *t);
/* Opens device @device's node and remembers the file (copied to @out). */
bool file_open(struct fuzz_thread *t, unsigned int device, struct pool_file *out);
/* Releases what the pool let go of to make room. */
void release_fd(struct fuzz_thread *t, const struct pool_fd *fd);
void release_file(struct fuzz_thread *t, const struct pool_file *file);
void release_bo(struct fuzz_thread *t, const struct pool_bo *bo);
/* Catches SIGSEGV and SIGBUS on a mapping being touched (ops_mem.c). */
void touch_install_handler(void);
/*
 * Runs @fn, which touches mappings the kernel gave us: EFAULT if that
 * faulted (and @fn was cut short), else 0.
 */
int fault_guard(void (*fn)(void *ctx), void *ctx);

/* ---- the racer (racer.c) ---- */

/* Fault knobs, netlink dumps and sysfs reads until the run stops. */
void racer_main(const struct fuzz_options *opt, struct fuzz_shared *shared);

#endif /* TERN_FUZZ_H */
