/* SPDX-License-Identifier: MIT */
/*
 * What libtern's simulator backend and the simulated machine (tern-simd,
 * simd/) say to each other over the machine's Unix socket.
 *
 * One connection per process, the counterpart of the open files of
 * tern.ko: when it closes (the process exits or dies), the machine frees
 * everything it held. Every message is a header and a payload; file
 * descriptors travel with it (SCM_RIGHTS). A request gets exactly one
 * reply, except SUBMIT, FENCE_PUT and DOORBELL, which get none: a job's
 * result is written into the process's fence table, shared memory the
 * process waits on with a futex. SUBMIT and FENCE_PUT usually go not on
 * the socket but into the process's submission ring, also shared memory,
 * which the machine's workers watch while they have work, so that the
 * hot path makes no system call at all. After EVENTS and its reply, the
 * machine sends that connection an EVENT for each event and serves it
 * nothing more.
 *
 * The machine and the library must be the same build (version and
 * SIM_WIRE_VERSION): HELLO refuses anything else.
 */
#ifndef TERN_SIM_WIRE_H
#define TERN_SIM_WIRE_H

#include <stdbool.h>
#include <stdint.h>

#include "tern.h"
#include "tern_sim.h"
#include "tern_model.h"

#define SIM_WIRE_MAGIC		"ternsim"
#define SIM_WIRE_VERSION	11
/* The largest payload: a SUBMIT with every wait and the most packets. */
#define SIM_WIRE_MAX_PAYLOAD	(TERN_MODEL_MAX_SUBMIT_BYTES + 4096)
#define SIM_WIRE_MAX_FDS	2

/*
 * The fence table: SIM_FENCE_SLOTS 64-bit words in a sealed memfd the
 * process makes and hands over in HELLO. Word layout: bits 0-31 the
 * futex word, (generation << 2) | sleeping << 1 | done; bits 32-63 the
 * job's tern_status_t once done. A process about to sleep on a pending
 * slot sets its sleeping bit first; the machine ends a fence with a
 * compare-and-swap from pending (either way) to the done value, so a slot
 * the process has reused for a newer generation is never overwritten,
 * and wakes the futex only if someone sleeps on it. After the
 * SIM_FENCE_SLOTS words, as many more: word SIM_FENCE_SLOTS + slot holds
 * the modelled time the job ended at (tern_timing.h), written before the
 * slot is marked done.
 */
#define SIM_FENCE_SLOTS		(1u << 20)
#define SIM_FENCE_TABLE_BYTES	((uint64_t)SIM_FENCE_SLOTS * 16)
#define SIM_FENCE_GEN_MASK	0x3fffffffu
#define SIM_FENCE_SLEEPING	2u

static inline uint64_t sim_fence_word_pending(uint32_t gen)
{
	return (uint64_t)((gen & SIM_FENCE_GEN_MASK) << 2);
}

static inline uint64_t sim_fence_word_done(uint32_t gen, tern_status_t status)
{
	return ((uint64_t)(uint32_t)status << 32) |
	       ((gen & SIM_FENCE_GEN_MASK) << 2) | 1u;
}

/*
 * The submission ring: a sealed memfd of SIM_RING_MAP_BYTES the process
 * makes and hands over in HELLO beside the fence table. Its first page
 * is struct sim_ring_ctl; SIM_RING_BYTES of records follow, each a struct
 * sim_msg_header and its payload as on the socket (SUBMIT, FENCE_PUT, or
 * RING_PAD, which fills the ring's end when the next record would not
 * fit before it), padded to 8 bytes, never wrapping. The process writes
 * records and then @tail; the machine copies each record out before it
 * reads it, and then moves @head.
 *
 * The process's order holds across the ring and the socket. The machine
 * takes every record in the ring before it serves a message from the
 * socket, then counts the message in @served (all but HELLO and
 * DOORBELL). A record goes on the socket instead of the ring when it is
 * too large for it, finds it full, or when the machine has not yet served
 * every message the process sent: a record in the ring must not overtake
 * them.
 *
 * @doorbell: set by the machine when no worker is watching the rings:
 * then a process that wrote records wakes a worker through the machine's
 * doorbell page (struct sim_doorbell), once for each value the machine
 * sets (an even number, new each time its workers go to sleep). It is
 * SIM_RING_BELL_SOCKET for a ring the workers do not watch: then every
 * record is followed by DOORBELL on the socket. A process that lies
 * about @tail or writes garbage breaks only its own connection: the
 * machine closes it.
 */
#define SIM_RING_BYTES		(1u << 20)
#define SIM_RING_DATA		4096u
#define SIM_RING_MAP_BYTES	((uint64_t)SIM_RING_DATA + SIM_RING_BYTES)
/* The largest record that goes into the ring. */
#define SIM_RING_RECORD_MAX	(64u << 10)

#define SIM_RING_BELL_SOCKET	1u

struct sim_ring_ctl {
	uint64_t tail;			/* the process's: bytes written */
	uint64_t pad0[7];		/* a cache line each */
	uint64_t head;			/* the machine's: bytes taken */
	uint64_t served;		/* the machine's: socket messages */
	uint32_t doorbell;		/* the machine's: ring the bell */
	uint32_t pad1[11];
};

enum sim_msg_type {
	SIM_MSG_HELLO = 1,
	SIM_MSG_CTX_OPEN,
	SIM_MSG_CTX_CLOSE,
	SIM_MSG_QUERY,
	SIM_MSG_MEM_USAGE,
	SIM_MSG_PORTS,
	SIM_MSG_FAULT,
	SIM_MSG_BO_CREATE,
	SIM_MSG_BO_FREE,
	SIM_MSG_BO_IMPORT,
	SIM_MSG_QUEUE_CREATE,
	SIM_MSG_QUEUE_DESTROY,
	SIM_MSG_SUBMIT,		/* no reply */
	SIM_MSG_FENCE_PUT,	/* no reply */
	SIM_MSG_STOP,
	SIM_MSG_DUMP,		/* what a dump of tern.ko's netlink family says */
	SIM_MSG_EVENTS,		/* the connection follows the events from now */
	SIM_MSG_DOORBELL,	/* no reply: records wait in the ring */
	SIM_MSG_RING_PAD,	/* in the ring only: skip to its end */
	SIM_MSG_BO_FD,		/* a buffer's memfd again (sim_bo_free's shape) */
	SIM_MSG_TYPE_COUNT,
	SIM_MSG_REPLY = 0x100,
	SIM_MSG_EVENT = 0x200,	/* machine to follower, unasked: struct sim_event */
};

struct sim_msg_header {
	uint32_t type;
	uint32_t size;		/* payload bytes that follow */
};

/*
 * The machine's doorbell page: a sealed memfd of SIM_DOORBELL_BYTES the
 * machine hands every process in HELLO's reply. Its workers sleep on
 * @seq (a futex); whoever wants one awake adds 1 to it and wakes it. A
 * process that wrote, through a mapping, a word a job may wait on adds 1
 * to @host_writes first: the machine's parked engines then look again
 * at once, not at their next bounded look. The page holds nothing else
 * the machine relies on: a process that writes it can only wake workers
 * and engines for nothing, as its user could anyway.
 */
#define SIM_DOORBELL_BYTES	4096u

struct sim_doorbell {
	uint32_t seq;
	uint32_t host_writes;
};

/* What a machine is: fixed when it starts. */
struct sim_shape {
	uint32_t devices;
	uint32_t mem_mb;
	uint32_t job_timeout_ms;
	uint32_t cores;		/* of each chip: 0 = no compute */
	uint32_t sbuf_kb, psum_kb;	/* of each partition of a core */
	char topology[128];	/* as tern_fabric_init() takes it; "" = auto */
};

/* Which fields of the shape a process asks for (the rest: any). */
#define SIM_WANT_DEVICES	(1u << 0)
#define SIM_WANT_MEM_MB		(1u << 1)
#define SIM_WANT_TIMEOUT	(1u << 2)
#define SIM_WANT_TOPOLOGY	(1u << 3)
#define SIM_WANT_CORES		(1u << 4)	/* cores, SBUF and PSUM */

/*
 * HELLO's flags. GIVE_WAY: a machine of another shape that no other
 * process uses, that has served one before and was not started to stay
 * (--persistent) ends for this process, which then starts its own: the
 * process named no machine, so the one it asks for is whichever fits.
 * Any other flag, or a pad not zero, is refused (INVALID_ARGUMENT).
 */
#define SIM_HELLO_GIVE_WAY	(1u << 0)

/*
 * HELLO, with the fence table's memfd and the submission ring's; its
 * reply carries the doorbell page's. A reply of TERN_ERROR_NOT_READY
 * says the machine is going (stopped, or giving way): try again.
 */
struct sim_hello {
	char magic[8];
	uint32_t wire_version;
	uint32_t want;		/* SIM_WANT_* */
	char lib_version[16];
	struct sim_shape shape;
	uint32_t flags;		/* SIM_HELLO_* */
	uint32_t pad;
};

struct sim_hello_reply {
	int32_t status;
	uint32_t wire_version;
	char lib_version[16];
	int32_t pid;		/* the machine's */
	uint32_t persistent;	/* started with --persistent */
	struct sim_shape shape;
	uint64_t started_ns;	/* CLOCK_REALTIME */
	uint32_t processes;	/* attached before this one */
	uint32_t idle_ms;	/* how long it stays with none */
	char reason[256];	/* why status is not TERN_SUCCESS */
};

/* Every other reply begins with this. */
struct sim_reply {
	int32_t status;
	uint32_t pad;
};

/*
 * SIM_CTX_MODEL_CLOCK: its TIMESTAMPs read the timing model's clock.
 * SIM_CTX_SKIP_DATA: its jobs move no bytes (tern_model_mem.skip_data).
 */
#define SIM_CTX_MODEL_CLOCK	1u
#define SIM_CTX_SKIP_DATA	2u
#define SIM_CTX_FLAGS		(SIM_CTX_MODEL_CLOCK | SIM_CTX_SKIP_DATA)
struct sim_ctx_open { uint32_t device; uint32_t flags; };
struct sim_ctx_open_reply { struct sim_reply r; uint64_t ctx; };
struct sim_ctx_ref { uint64_t ctx; };	/* CTX_CLOSE, QUERY, MEM_USAGE */

struct sim_query_reply {
	struct sim_reply r;
	char node[64];
	uint64_t memory_bytes;
	uint64_t capabilities;	/* TERN_DEVICE_CAP_* */
	uint64_t clock_hz;
	uint32_t engine_count;
	uint32_t fabric_port_count;
	uint32_t max_submit_bytes;
	uint32_t max_waits;
	int32_t fabric_id;
	uint32_t dma_engine_count;	/* then 3 per core */
	uint32_t cores;
	uint32_t sbuf_partition_bytes, psum_partition_bytes;
};

struct sim_mem_usage_reply { struct sim_reply r; uint64_t used, total; };

#define SIM_MAX_PORTS		64
struct sim_ports { uint32_t device; uint32_t pad; };
struct sim_ports_reply {
	struct sim_reply r;
	uint32_t count;
	uint32_t pad;
	tern_port_info_t ports[SIM_MAX_PORTS];
};

/*
 * FAULT: the same words tern.ko's debugfs takes, file by file:
 * "fabric_link" ("<port> down|up|error"), "mem_error"
 * ("correctable|uncorrectable [OFFSET]"), "engine_hang" ("<engine>").
 */
struct sim_fault {
	uint32_t device;
	uint32_t pad;
	char file[32];
	char line[96];
};
/*
 * DUMP: what tern.ko's "tern" netlink family answers dump @cmd
 * (DRM_TERN_CMD_DEVICE_GET, _LINK_GET or _CLIENT_GET), of @device or of
 * all (SIM_DUMP_ALL; links are only all). The reply is struct sim_reply
 * and the messages (netlink.h), as many as fit in SIM_WIRE_MAX_PAYLOAD:
 * a device and the links always do (libtern asks for the devices one at
 * a time, as 64 chips of 16 cores do not fit); clients past that are left
 * out, and the devices' client counts still count them.
 */
#define SIM_DUMP_ALL	0xffffffffu
struct sim_dump { uint32_t cmd; uint32_t device; };

/*
 * EVENT: this, then one message as tern.ko's "events" group sends it, of
 * at most SIM_EVENT_MAX bytes. @lost: events this follower missed before
 * it, for reading too slowly.
 */
#define SIM_EVENT_MAX	((uint32_t)TERN_SIM_EVENT_MAX_BYTES)
struct sim_event { uint64_t lost; };

/* FAULT's and STOP's reply: why it was refused. */
struct sim_reason_reply { struct sim_reply r; char reason[160]; };

struct sim_bo_create { uint64_t ctx; uint32_t kind; uint32_t pad; uint64_t bytes; };
/* BO_CREATE's reply carries the memory's memfd; BO_IMPORT's none. */
struct sim_bo_reply {
	struct sim_reply r;
	uint64_t va;		/* also the buffer's name in BO_FREE */
	uint64_t size;
	uint32_t kind;
	uint32_t pad;
};
struct sim_bo_free { uint64_t ctx; uint64_t va; };
struct sim_bo_import { uint64_t ctx; };	/* with the exported memfd */

struct sim_queue_create { uint64_t ctx; uint32_t engine; uint32_t pad; };
struct sim_queue_reply { struct sim_reply r; uint64_t queue; };
struct sim_queue_destroy { uint64_t ctx; uint64_t queue; };

struct sim_fence_ref { uint32_t slot, gen; };

/*
 * SUBMIT: this, @wait_count fence refs, then @size bytes of packets.
 * @host_ns: the modelled time the process has seen, the latest end of
 * the jobs it waited for; the job starts no earlier.
 */
struct sim_submit {
	uint64_t ctx;
	uint64_t queue;
	struct sim_fence_ref fence;
	uint32_t size;
	uint32_t wait_count;
	uint64_t host_ns;
};

struct sim_stop { uint32_t force; uint32_t pad; };

/*
 * Sends one message: header, @len bytes of @payload (and @extra, @extra_len
 * bytes more, when not NULL) and @nfds descriptors. 0 or -errno.
 */
int sim_wire_send(int sock, uint32_t type, const void *payload, uint32_t len,
		  const void *extra, uint32_t extra_len, const int *fds,
		  int nfds);

/*
 * Receives one message into @buf (@cap bytes): its type, payload length
 * and up to SIM_WIRE_MAX_FDS descriptors (-1 for those not sent; the
 * caller owns and closes the others). 0, -EPIPE when the peer closed
 * cleanly before a message, -EPROTO for a malformed one, or -errno.
 */
int sim_wire_recv(int sock, uint32_t *type, void *buf, uint32_t cap,
		  uint32_t *len, int fds[SIM_WIRE_MAX_FDS]);

/* Copies @src into @dst of @size bytes, always terminated. */
void sim_wire_strcpy(char *dst, const char *src, unsigned long size);

#endif /* TERN_SIM_WIRE_H */
