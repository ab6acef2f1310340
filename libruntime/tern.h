/* SPDX-License-Identifier: MIT */
/*
 * libtern: the Tern runtime.
 *
 * Devices, buffers, streams and events over tern.ko (the "kernel" backend)
 * or over simulated devices built from the same device model, in a machine
 * every process of the user shares (the "sim" backend). Every call returns a tern_status_t; none prints or
 * aborts on bad arguments. Calls are thread-safe unless noted.
 *
 * Backend choice happens once per process, at the first call:
 *   TERN_BACKEND=kernel|sim forces one; otherwise the kernel backend is used
 *   when a Tern device node exists and the simulator when none does.
 *   TERN_SIM_TOPOLOGY=ring|torus:RxC|full|none|custom:A-B,... joins the
 *   simulated devices (default: torus:KxK when the count is K*K, else ring).
 *   TERN_SIM_DEVICES=N (default 4, 1..64) and TERN_SIM_MEM_MB=M (default
 *   256) size the simulator; TERN_SIM_JOB_TIMEOUT_MS (default 5000, as the
 *   driver's job_timeout_ms) bounds a simulated job. The simulated devices
 *   are a machine shared by every process of the user (tern-simd, started
 *   on first use; TERN_SIM_MACHINE names it): those settings size it when
 *   it starts. An unknown or out-of-range value, or a shape the running
 *   machine does not have, makes every call return
 *   TERN_ERROR_INVALID_ARGUMENT rather than silently picking something
 *   else; tern_get_last_error() says why.
 *
 * Output arguments are written only when a call succeeds (tern_device_count
 * also sets *count to 0 on failure). Handles are checked against the live
 * ones, so a freed handle is reported as TERN_ERROR_INVALID_ARGUMENT as long
 * as its memory has not been reused for a new handle of the same kind.
 *
 * The simulator's administration (faults, what tern-inspect reads of the
 * simulated machine, starting and stopping it) is for tools, in
 * tern_sim.h.
 */
#ifndef TERN_H
#define TERN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TERN_VERSION_MAJOR 0
#define TERN_VERSION_MINOR 6
#define TERN_VERSION_PATCH 0

typedef enum tern_status {
	TERN_SUCCESS = 0,
	TERN_ERROR_INVALID_ARGUMENT = 1,  /* NULL, freed or mismatched argument */
	TERN_ERROR_INVALID_DEVICE = 2,    /* device index out of range */
	TERN_ERROR_NO_DEVICE = 3,         /* backend has no devices */
	TERN_ERROR_OUT_OF_MEMORY = 4,     /* device (or host) memory exhausted */
	TERN_ERROR_NOT_READY = 5,         /* query: work still pending */
	TERN_ERROR_DEVICE_FAULT = 6,      /* a job addressed memory outside its buffers */
	TERN_ERROR_TIMEOUT = 7,           /* a job exceeded the job timeout */
	TERN_ERROR_CANCELLED = 8,         /* a job was dropped before it ran */
	TERN_ERROR_PERMISSION = 9,        /* no access: device node, or comm secret */
	TERN_ERROR_NOT_SUPPORTED = 10,    /* the device or backend cannot do this */
	TERN_ERROR_BACKEND = 11,          /* unexpected driver or OS error */
	TERN_ERROR_OUT_OF_RANGE = 12,     /* offset/size outside a buffer */
	TERN_ERROR_NO_ROUTE = 13,         /* a peer's memory is unreachable: links down */
	TERN_ERROR_PEER_FAILED = 14,      /* a peer of a collective failed or went away */
	TERN_ERROR_LIMIT = 15,            /* a limit on what one process may hold: see the error */
} tern_status_t;

/* A sentence describing @status; never NULL. */
const char *tern_status_string(tern_status_t status);
/* The enumerator's name, e.g. "TERN_ERROR_TIMEOUT"; never NULL. */
const char *tern_status_name(tern_status_t status);
/*
 * What libtern last found wrong with its backend, when a status alone
 * says too little: a refused TERN_* setting, a simulated machine of
 * another shape or version, one that went away. "" when nothing. The
 * string is the calling thread's until its next call of this.
 */
const char *tern_get_last_error(void);

typedef enum tern_backend {
	TERN_BACKEND_KERNEL = 1,
	TERN_BACKEND_SIM = 2,
} tern_backend_t;

/* Selects the backend (once) and reports it. */
tern_status_t tern_get_backend(tern_backend_t *backend);
/* "kernel" or "sim"; "unknown" for anything else. */
const char *tern_backend_name(tern_backend_t backend);

/* Why libtern chooses the backend it does. */
typedef enum tern_backend_reason {
	TERN_BACKEND_REASON_SETTING = 1,	/* TERN_BACKEND names it */
	TERN_BACKEND_REASON_NODE_FOUND = 2,	/* a Tern device node exists */
	TERN_BACKEND_REASON_NO_NODE = 3,	/* none does: the simulator */
} tern_backend_reason_t;

/*
 * The backend this process uses, or will, and why: the rule
 * tern_get_backend() applies, decided (once) without starting the backend,
 * so that no simulated machine is started by asking. For tools that say
 * which backend they show. TERN_ERROR_INVALID_ARGUMENT for a TERN_BACKEND
 * libtern does not know; a backend that then fails to start is
 * tern_get_backend()'s to report.
 */
tern_status_t tern_get_backend_reason(tern_backend_t *backend,
				      tern_backend_reason_t *reason);
/*
 * @reason in words, for @backend: "TERN_BACKEND=sim", "Tern device node
 * found", "no Tern device node found"; "unknown" for anything else.
 */
const char *tern_backend_reason_string(tern_backend_t backend,
				       tern_backend_reason_t reason);

/* ---- devices ---- */

typedef struct tern_device *tern_device_t;

#define TERN_DEVICE_CAP_MOCK        (1ull << 0)
#define TERN_DEVICE_CAP_HOST_MEMORY (1ull << 1)
#define TERN_DEVICE_CAP_SEMAPHORE   (1ull << 2)
#define TERN_DEVICE_CAP_TIMESTAMP   (1ull << 3)
#define TERN_DEVICE_CAP_FABRIC      (1ull << 4)
#define TERN_DEVICE_CAP_REDUCE      (1ull << 5)
#define TERN_DEVICE_CAP_PEER_MEMORY (1ull << 6)
/* Waits that a store into an abort word calls off: collectives abort at once. */
#define TERN_DEVICE_CAP_ABORTABLE_WAIT (1ull << 7)
/* REDUCE can divide its sum: TERN_AVG on more than one rank needs it. */
#define TERN_DEVICE_CAP_REDUCE_DIVIDE (1ull << 8)
/*
 * The device is a chip of cores with tensor, vector and scalar engines
 * and on-chip memories (Documentation/compute.rst).
 */
#define TERN_DEVICE_CAP_COMPUTE     (1ull << 10)
/*
 * Bits from 32 up are libtern's own, never the driver's. The engine clock
 * (TIMESTAMP, event times) is a timing model's, not the host's: the
 * simulator with TERN_SIM_CLOCK=model.
 */
#define TERN_DEVICE_CAP_MODELLED_CLOCK (1ull << 32)

typedef struct tern_device_properties {
	int index;
	char node[64];             /* "/dev/accel/accel0", "/dev/dri/renderD128", "sim:0" */
	uint64_t memory_bytes;     /* device memory */
	uint32_t engine_count;
	uint32_t fabric_port_count;
	uint64_t capabilities;     /* TERN_DEVICE_CAP_* */
	uint64_t clock_hz;         /* engine clock used by timestamps */
	int fabric_id;             /* this device's id on the fabric */
} tern_device_properties_t;

tern_status_t tern_device_count(int *count);
tern_status_t tern_device_open(int index, tern_device_t *device);
/* Waits for the device's streams, then frees everything opened through it. */
tern_status_t tern_device_close(tern_device_t device);
tern_status_t tern_device_get_properties(tern_device_t device,
					 tern_device_properties_t *props);
/* Device memory in use by every process (@used) and in all (@total). */
tern_status_t tern_device_memory_usage(tern_device_t device, uint64_t *used,
				       uint64_t *total);

/* ---- fabric ---- */

typedef enum tern_link_state {
	TERN_LINK_UNCONNECTED = 0,
	TERN_LINK_UP = 1,
	TERN_LINK_DOWN = 2,
} tern_link_state_t;

/* One fabric port; tx counts traffic leaving it, rx traffic arriving. */
typedef struct tern_port_info {
	uint32_t port;
	tern_link_state_t state;
	int peer_device;           /* fabric id at the other end; -1 if none */
	uint32_t peer_port;
	uint64_t bandwidth;        /* nominal bytes per second each way */
	uint32_t latency_ns;       /* nominal per hop */
	uint64_t tx_bytes, rx_bytes;
	uint64_t tx_packets, rx_packets;
	uint64_t errors;
} tern_port_info_t;

/*
 * Fills up to @capacity entries of @ports and sets *@count to the number of
 * ports the device has (call with capacity 0 to learn it).
 */
tern_status_t tern_device_get_ports(tern_device_t device,
				    tern_port_info_t *ports, uint32_t capacity,
				    uint32_t *count);

/* ---- buffers ---- */

typedef struct tern_buffer *tern_buffer_t;

typedef enum tern_memory_kind {
	TERN_MEMORY_DEVICE = 0,  /* the device's own memory */
	TERN_MEMORY_HOST = 1,    /* host memory the device reaches */
} tern_memory_kind_t;

tern_status_t tern_buffer_alloc(tern_device_t device, tern_memory_kind_t kind,
				size_t bytes, tern_buffer_t *buffer);
/* Frees @buffer; work still using it must have completed. */
tern_status_t tern_buffer_free(tern_buffer_t buffer);
/* A CPU pointer to the buffer's first byte, valid until it is freed. */
tern_status_t tern_buffer_map(tern_buffer_t buffer, void **ptr);
tern_status_t tern_buffer_size(tern_buffer_t buffer, size_t *bytes);
tern_status_t tern_buffer_device_address(tern_buffer_t buffer, uint64_t *va);
/*
 * Peer memory. Export gives a dma-buf file descriptor (the caller closes
 * it); import makes it a buffer of @device, addressable by @device's work
 * over the fabric. Importing on the exporting device gives the same memory.
 */
tern_status_t tern_buffer_export(tern_buffer_t buffer, int *fd);
tern_status_t tern_buffer_import(tern_device_t device, int fd,
				 tern_buffer_t *buffer);

/* ---- streams ---- */

typedef struct tern_stream *tern_stream_t;

tern_status_t tern_stream_create(tern_device_t device, tern_stream_t *stream);
/* Waits for the stream's work, then destroys it. */
tern_status_t tern_stream_destroy(tern_stream_t stream);
/*
 * Waits for all work enqueued so far; returns the stream's error or
 * TERN_SUCCESS.
 *
 * A stream's error is the first failure of its jobs since work was last
 * enqueued after an error had been reported. So once a job has failed,
 * every synchronize and query from any thread returns that error, until
 * new work is enqueued after one of them returned it; a failed job fails
 * only itself, and the stream runs the work enqueued after it.
 */
tern_status_t tern_stream_synchronize(tern_stream_t stream);
/*
 * The stream's error if a job has failed (even while others are pending),
 * else TERN_ERROR_NOT_READY while work is pending, else TERN_SUCCESS.
 */
tern_status_t tern_stream_query(tern_stream_t stream);

/*
 * Copies @bytes from @src at @src_offset to @dst at @dst_offset, in stream
 * order. Both buffers must be on the stream's device; ranges may overlap.
 */
tern_status_t tern_memcpy_async(tern_buffer_t dst, size_t dst_offset,
				tern_buffer_t src, size_t src_offset,
				size_t bytes, tern_stream_t stream);
/* Sets @bytes of @dst from @offset to @value, in stream order. */
tern_status_t tern_memset_async(tern_buffer_t dst, size_t offset,
				uint8_t value, size_t bytes,
				tern_stream_t stream);
/* Repeats the little-endian 32-bit @pattern from @offset, in stream order. */
tern_status_t tern_memset32_async(tern_buffer_t dst, size_t offset,
				  uint32_t pattern, size_t bytes,
				  tern_stream_t stream);

/* ---- events ---- */

typedef struct tern_event *tern_event_t;

tern_status_t tern_event_create(tern_device_t device, tern_event_t *event);
tern_status_t tern_event_destroy(tern_event_t event);
/* Captures the work enqueued on @stream so far, and the time it ends. */
tern_status_t tern_event_record(tern_event_t event, tern_stream_t stream);
/* Work enqueued on @stream after this call starts after @event completes. */
tern_status_t tern_stream_wait_event(tern_stream_t stream, tern_event_t event);
/*
 * Waits for @event; returns the error of the work it captured (the jobs
 * of the stream's current error epoch up to the record), if any, each
 * time it is asked.
 */
tern_status_t tern_event_synchronize(tern_event_t event);
/*
 * TERN_ERROR_NOT_READY while the captured work is pending; then, like
 * tern_event_synchronize, its error or TERN_SUCCESS (also when never
 * recorded).
 */
tern_status_t tern_event_query(tern_event_t event);
/*
 * Milliseconds of engine time between two completed events recorded on the
 * same device: on the simulator with TERN_SIM_CLOCK=model, modelled time
 * on the fabric, the same run after run. TERN_ERROR_NOT_READY if either
 * has not completed;
 * TERN_ERROR_INVALID_ARGUMENT if either was never recorded or they were
 * recorded on different devices.
 */
tern_status_t tern_event_elapsed_time(float *ms, tern_event_t start,
				      tern_event_t end);

/* ---- collectives ---- */

typedef enum tern_dtype {
	TERN_FLOAT32 = 0,
	TERN_FLOAT16 = 1,
	TERN_BFLOAT16 = 2,
	TERN_INT32 = 3,
	TERN_UINT32 = 4,
	TERN_INT8 = 5,
	TERN_UINT8 = 6,
	TERN_INT64 = 7,
	TERN_UINT64 = 8,
	/* OCP 8-bit floats: for compute and data movement; reductions refuse them. */
	TERN_FLOAT8_E4M3 = 9,
	TERN_FLOAT8_E5M2 = 10,
	TERN_DTYPE_COUNT
} tern_dtype_t;

typedef enum tern_redop {
	TERN_SUM = 0,
	TERN_PROD = 1,
	TERN_MIN = 2,
	TERN_MAX = 3,
	/* The sum divided by the rank count (integers: truncated toward 0). */
	TERN_AVG = 4,
	TERN_REDOP_COUNT
} tern_redop_t;

/* Bytes of one element of @dtype. */
tern_status_t tern_dtype_size(tern_dtype_t dtype, size_t *bytes);

/*
 * @dtype's name as torch and numpy spell it: "float32", "float16",
 * "bfloat16", "int32", "uint32", "int8", "uint8", "int64", "uint64",
 * "float8_e4m3fn", "float8_e5m2";
 * "unknown" for a value that is none of them. Never NULL.
 */
const char *tern_dtype_name(tern_dtype_t dtype);

/* A place in a buffer: collectives take these, like device pointers. */
typedef struct tern_ptr {
	tern_buffer_t buffer;
	size_t offset;
} tern_ptr_t;

static inline tern_ptr_t tern_ptr(tern_buffer_t buffer, size_t offset)
{
	tern_ptr_t ptr = { buffer, offset };

	return ptr;
}

typedef struct tern_comm *tern_comm_t;

#define TERN_UNIQUE_ID_BYTES 128
typedef struct tern_unique_id {
	char internal[TERN_UNIQUE_ID_BYTES];
} tern_unique_id_t;

/* One communicator per device, all in this process (like ncclCommInitAll). */
tern_status_t tern_comm_init_all(tern_comm_t *comms, int ndev,
				 const tern_device_t *devices);
/*
 * One rank per process (like ncclGetUniqueId + ncclCommInitRank). The id
 * carries the TCP address where the ranks meet rank 0 (TERN_SOCKET_IFNAME
 * chooses the interface); pass it to every rank as bytes, as it is.
 */
tern_status_t tern_get_unique_id(tern_unique_id_t *id);
/*
 * The id is a bearer secret: whoever holds it may join. Where it must
 * pass through what others can read (a c10d store), publish @pub instead:
 * @id without its secret. Every rank, rank 0 too, then joins with @pub,
 * and takes the secret from TERN_COMM_SECRET (32 to 64 hex digits, alike
 * on every rank) when that is set, or else from a file only this user can
 * read, on this host (so ranks on other hosts need TERN_COMM_SECRET).
 */
tern_status_t tern_unique_id_public(const tern_unique_id_t *id,
				    tern_unique_id_t *pub);
tern_status_t tern_comm_init_rank(tern_comm_t *comm, int nranks,
				  const tern_unique_id_t *id, int rank,
				  tern_device_t device);
/*
 * tern_comm_init_rank, waiting up to @timeout_ms (1 to
 * TERN_COMM_INIT_TIMEOUT_MAX_MS) for the other ranks instead of
 * TERN_COMM_INIT_TIMEOUT_MS, for a caller with a timeout of its own (a
 * framework's process group). A rank that does not come in time fails
 * the init with TERN_ERROR_PEER_FAILED; a timeout out of range is
 * TERN_ERROR_INVALID_ARGUMENT.
 */
#define TERN_COMM_INIT_TIMEOUT_MAX_MS 3600000
tern_status_t tern_comm_init_rank_timeout(tern_comm_t *comm, int nranks,
					  const tern_unique_id_t *id, int rank,
					  tern_device_t device, int timeout_ms);
/*
 * Waits for the communicator's work, then frees it. Returns the
 * communicator's error if it is in error (its work then ends at once).
 */
tern_status_t tern_comm_destroy(tern_comm_t comm);
/*
 * Cancels everything the communicator has in flight, on every stream:
 * those jobs fail (TERN_ERROR_CANCELLED) at their next wait, so threads
 * blocked in a synchronize on them return promptly. The peers are told:
 * their pending and later work on the communicator fails with
 * TERN_ERROR_PEER_FAILED. Frees the communicator (its memory once its jobs
 * have ended). Callable from any thread, at any time; never waits for the
 * job timeout.
 */
tern_status_t tern_comm_abort(tern_comm_t comm);
/*
 * The communicator's state, without waiting and without clearing it (like
 * ncclCommGetAsyncError): TERN_SUCCESS while it is healthy, else the error
 * that put it in error. Callable from any thread.
 */
tern_status_t tern_comm_get_async_error(tern_comm_t comm,
					tern_status_t *status);
/*
 * Like ncclCommSplit: every rank of @comm calls it; the ranks that give
 * one @color (>= 0) form a new communicator, ranked by @key (ties: by
 * rank in @comm), in *@newcomm; TERN_SPLIT_NOCOLOR gives NULL. Its rings
 * follow the fabric links between its own members (a row of a torus is a
 * ring). Ranks in one process meet in the call (from a thread each, or
 * from one thread inside a group: the split then happens at
 * tern_group_end); a rank that does not come within
 * TERN_COMM_INIT_TIMEOUT_MS fails the others' with
 * TERN_ERROR_PEER_FAILED. @comm stays as it was.
 */
#define TERN_SPLIT_NOCOLOR (-1)
tern_status_t tern_comm_split(tern_comm_t comm, int color, int key,
			      tern_comm_t *newcomm);
tern_status_t tern_comm_count(tern_comm_t comm, int *count);
tern_status_t tern_comm_rank(tern_comm_t comm, int *rank);

/* The collectives, for the calls that describe rather than run them. */
typedef enum tern_collective {
	TERN_COLL_ALL_REDUCE = 0,
	TERN_COLL_REDUCE_SCATTER = 1,
	TERN_COLL_ALL_GATHER = 2,
	TERN_COLL_BROADCAST = 3,
	TERN_COLL_REDUCE = 4,
	TERN_COLL_ALL_TO_ALL = 5,
} tern_collective_t;

/*
 * The least time, in microseconds, that any schedule of @coll over @bytes
 * can take on @comm's fabric: the bytes the busiest rank must send over
 * its links' nominal bandwidth, plus the latency between the farthest
 * ranks (from @root, for broadcast and reduce; @root is ignored by the
 * others), from each port's figures (tern_port_info_t). @bytes is the
 * message as nccl-tests counts it: each rank's buffer, the gathered array
 * for all-gather and reduce-scatter, a rank's send buffer for all-to-all.
 * 0 for one rank or no bytes; TERN_ERROR_NO_ROUTE if a rank has no link to
 * the others; TERN_ERROR_INVALID_ARGUMENT for a bad comm, collective, root
 * or NULL @us.
 */
tern_status_t tern_comm_lower_bound(tern_comm_t comm, tern_collective_t coll,
				    size_t bytes, int root, double *us);

/* An algorithm libtern can run a collective with, and its expected time. */
typedef struct tern_algo_estimate {
	char name[16];		/* "direct", "ring", "chain", "pairwise", "local";
				 * across hosts "rail-ring", "rail-halving",
				 * "rail-doubling" */
	double us;		/* what the cost model expects on @comm's fabric */
} tern_algo_estimate_t;

/*
 * The algorithms that can run @coll over @bytes (counted as for
 * tern_comm_lower_bound) on @comm, the one the tuner runs first: the one
 * its cost model expects to finish first, or the one TERN_ALGO forces
 * where it can run. Fills up to @capacity entries; *@count receives how
 * many there are. TERN_ERROR_INVALID_ARGUMENT for a bad comm or
 * collective, NULL @count, or NULL @out with a capacity.
 */
tern_status_t tern_comm_algorithms(tern_comm_t comm, tern_collective_t coll,
				   size_t bytes, tern_algo_estimate_t *out,
				   uint32_t capacity, uint32_t *count);

/*
 * Collectives are enqueued on @stream (of the communicator's device) like
 * any other work and complete through the same events; send and recv may
 * be the same place (in place). Counts are elements.
 *
 * Order: the operations of one communicator run in the order they were
 * enqueued, whichever of the device's streams they are on: each waits for
 * the one enqueued before it, as if through an event. Every rank must
 * enqueue a communicator's operations in the same order.
 *
 * Errors: once an operation of a communicator fails (a job timed out, a
 * peer's link went down, a peer failed or aborted, ...), the communicator
 * is in error, for good: its later operations and every call on it return
 * that error without enqueueing anything, its work still in flight fails
 * at its next wait, and its peers learn of it, their own work failing with
 * TERN_ERROR_PEER_FAILED, within about one detection interval
 * (TERN_COMM_DETECT_MS, default 50, 1..60000) rather than at the job
 * timeout. Create a new communicator to go on.
 */
tern_status_t tern_all_reduce(tern_ptr_t send, tern_ptr_t recv, size_t count,
			      tern_dtype_t dtype, tern_redop_t op,
			      tern_comm_t comm, tern_stream_t stream);
tern_status_t tern_all_gather(tern_ptr_t send, tern_ptr_t recv,
			      size_t send_count, tern_dtype_t dtype,
			      tern_comm_t comm, tern_stream_t stream);
tern_status_t tern_reduce_scatter(tern_ptr_t send, tern_ptr_t recv,
				  size_t recv_count, tern_dtype_t dtype,
				  tern_redop_t op, tern_comm_t comm,
				  tern_stream_t stream);
tern_status_t tern_broadcast(tern_ptr_t send, tern_ptr_t recv, size_t count,
			     tern_dtype_t dtype, int root, tern_comm_t comm,
			     tern_stream_t stream);
tern_status_t tern_reduce(tern_ptr_t send, tern_ptr_t recv, size_t count,
			  tern_dtype_t dtype, tern_redop_t op, int root,
			  tern_comm_t comm, tern_stream_t stream);
tern_status_t tern_all_to_all(tern_ptr_t send, tern_ptr_t recv,
			      size_t count_per_rank, tern_dtype_t dtype,
			      tern_comm_t comm, tern_stream_t stream);
/*
 * Point to point. Outside a group, a send waits for its matching recv on
 * the peer as it goes (through a few slots), so one stream cannot send
 * and receive large messages to and from the same peer at once: put both
 * in a group. Inside a group a rank may also send to and receive from
 * itself (a local copy, paired in order with equal sizes).
 */
tern_status_t tern_send(tern_ptr_t send, size_t count, tern_dtype_t dtype,
			int peer, tern_comm_t comm, tern_stream_t stream);
tern_status_t tern_recv(tern_ptr_t recv, size_t count, tern_dtype_t dtype,
			int peer, tern_comm_t comm, tern_stream_t stream);

/*
 * Groups (like ncclGroupStart/End): the collectives the calling thread
 * enqueues between tern_group_start() and the matching tern_group_end()
 * return TERN_SUCCESS once their arguments are checked, and are launched
 * together at the outermost end: one program per communicator, its sends
 * and recvs interleaved so that any matching set of them completes (a
 * pair exchanging both ways, an all-to-allv as a send and a recv per
 * peer). The operations of one communicator in a group must be on one
 * stream (else TERN_ERROR_INVALID_ARGUMENT). tern_group_end() returns the
 * first error of the launch. Groups nest up to TERN_GROUP_MAX_DEPTH;
 * tern_group_end() without a start is TERN_ERROR_INVALID_ARGUMENT.
 */
#define TERN_GROUP_MAX_DEPTH 16
tern_status_t tern_group_start(void);
tern_status_t tern_group_end(void);

#ifdef __cplusplus
}
#endif

#endif /* TERN_H */
