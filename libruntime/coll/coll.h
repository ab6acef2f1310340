/* SPDX-License-Identifier: MIT */
/*
 * Collectives inside libtern (not installed): communicators, the ring
 * orders chosen from the topology, and the packet programs a collective
 * enqueues on one rank's stream.
 *
 * Every rank owns a scratch area (device memory) holding, for each peer, a
 * few chunk-sized slots the peer writes into, and a semaphore area with two
 * u64 counters per peer: "ready" (chunks the peer has put into our slots)
 * and "credit" (chunks of ours the peer has consumed). Every rank imports
 * every peer's two areas, so a send is a remote COPY or REDUCE into the
 * peer's slot followed by a remote SEM_SIGNAL, and a receive is a local
 * SEM_WAIT followed by a remote credit SEM_SIGNAL once the slot is used.
 * Counters only grow, so nothing is reset between collectives.
 */
#ifndef TERN_COLL_H
#define TERN_COLL_H

#include <stdbool.h>
#include <stdint.h>

#include "internal.h"

/* Bytes of one slot: the unit that flows through a ring step. */
#define COLL_CHUNK_BYTES	(64u << 10)
/* Slots per sender: how far a sender may run ahead of its receiver. */
#define COLL_SLOTS		4u
#define COLL_MAX_RANKS		64
/* A torus runs four rings (two cycles or snakes, both directions). */
#define COLL_MAX_CHANNELS	4

struct coll_peer {
	tern_buffer_t scratch;		/* the peer's scratch, imported; NULL for self */
	tern_buffer_t sem;		/* the peer's semaphores, imported */
	uint64_t sent;			/* chunks we have sent it */
	uint64_t received;		/* chunks we have taken from it */
};

struct coll_stream_fence {
	const struct tern_stream *stream;	/* only compared, never used */
	struct tern_fence *fence;
};

struct tern_comm {
	struct tern_comm *next;		/* the registry of live communicators */
	pthread_mutex_t lock;		/* enqueueing and everything below */
	int rank, nranks;
	struct tern_device *dev;
	tern_buffer_t scratch, sem;
	struct coll_peer *peers;	/* nranks entries */
	/* Ring orders (ranks by position); pos[c] is our position in ring c. */
	int nchannels;
	int ring[COLL_MAX_CHANNELS][COLL_MAX_RANKS];
	int pos[COLL_MAX_CHANNELS];
	/* The newest job enqueued through the comm on each stream used. */
	struct coll_stream_fence *lasts;
	int last_count, last_cap;
	const struct tern_backend_ops *ops;	/* outlives a closed device */
};

/* ---- comm.c ---- */

struct coll_node;

bool coll_comm_valid(const struct tern_comm *comm);
/* A communicator with its own areas allocated, peers not yet imported. */
tern_status_t coll_comm_create(struct tern_device *dev, int rank, int nranks,
			       struct tern_comm **out);
/* Frees a communicator that is not (or no longer) registered. */
void coll_comm_free(struct tern_comm *comm);
void coll_register(struct tern_comm *comm);
/* What the ring planner needs from @dev: its fabric id and neighbours. */
tern_status_t coll_describe(struct tern_device *dev, struct coll_node *node);

/* ---- topo.c ---- */

/* What the ring planner needs to know about one rank's device. */
struct coll_node {
	int fabric_id;
	uint32_t port_count;
	int neighbour[16];		/* fabric id on each port, -1 if none */
};

/*
 * Fills comm->nchannels and comm->ring[][] for @nodes (one per rank): the
 * physical ring both ways on a ring, four snakes (row and column, both
 * ways) on a complete 2D torus, else a walk over direct links where it can
 * and jumps where it cannot, both ways.
 */
void coll_plan_rings(struct tern_comm *comm, const struct coll_node *nodes);

/* ---- prog.c: one rank's packet program ---- */

struct coll_prog {
	struct tern_comm *comm;
	uint8_t *buf;
	size_t size, capacity;
	bool failed;			/* out of memory while building */
	uint64_t scratch_va, sem_va;	/* ours, as our device sees them */
};

void coll_prog_init(struct coll_prog *p, struct tern_comm *comm);
void coll_prog_free(struct coll_prog *p);

void coll_emit_copy(struct coll_prog *p, uint64_t dst, uint64_t src,
		    uint64_t bytes);
void coll_emit_reduce(struct coll_prog *p, uint64_t dst, uint64_t src0,
		      uint64_t src1, uint64_t count, tern_dtype_t dtype,
		      tern_redop_t op);

/*
 * A send of one chunk (<= COLL_CHUNK_BYTES) to rank @peer: waits for a free
 * slot there, COPYs @bytes from @src into it (or, with coll_send_reduce,
 * REDUCEs @src0 and @src1 into it), then signals the peer.
 */
void coll_send_copy(struct coll_prog *p, int peer, uint64_t src,
		    uint64_t bytes);
void coll_send_reduce(struct coll_prog *p, int peer, uint64_t src0,
		      uint64_t src1, uint64_t count, tern_dtype_t dtype,
		      tern_redop_t op);
/*
 * A receive of the next chunk from @peer: waits until it is there and
 * returns its address; coll_recv_done() hands the slot back once the
 * packets that read it have been emitted.
 */
uint64_t coll_recv_wait(struct coll_prog *p, int peer);
void coll_recv_done(struct coll_prog *p, int peer);
/* A slot of our own scratch that nobody sends into: for staging. */
uint64_t coll_self_slot(struct coll_prog *p);

/*
 * Submits the program on @stream as one or more jobs (split at packet
 * boundaries to fit the device's submission limit) and remembers the last
 * job's fence in the comm. Comm lock held.
 */
tern_status_t coll_prog_submit(struct coll_prog *p, struct tern_stream *stream);

/* Host bookkeeping to restore if a program is dropped before submission. */
struct coll_seq_snapshot {
	uint64_t sent[COLL_MAX_RANKS], received[COLL_MAX_RANKS];
};

void coll_seq_save(const struct tern_comm *comm, struct coll_seq_snapshot *s);
void coll_seq_restore(struct tern_comm *comm,
		      const struct coll_seq_snapshot *s);

/* ---- call.c: what every collective call does first and last ---- */

/* Below this many bytes a collective runs on one ring: fewer steps. */
#define COLL_MULTI_CHANNEL_MIN	(64u << 10)

struct coll_call {
	struct tern_comm *comm;
	struct tern_stream *stream;
	tern_dtype_t dtype;
	tern_redop_t op;
	size_t esize;			/* bytes per element */
	size_t chunk_elems;		/* elements per slot */
	struct coll_prog prog;
	struct coll_seq_snapshot snap;
};

/*
 * Checks the communicator, the stream (the comm's device), the type and,
 * if @reduces, the operation; then locks the comm and starts a program.
 */
tern_status_t coll_call_begin(struct coll_call *call, tern_comm_t comm,
			      tern_stream_t stream, tern_dtype_t dtype,
			      bool reduces, tern_redop_t op);
/*
 * Checks that @ptr holds @count elements (scaled by @times) on the comm's
 * device, aligned to the element size, and gives its device address. A
 * NULL buffer is accepted for zero bytes.
 */
tern_status_t coll_call_ptr(struct coll_call *call, tern_ptr_t ptr,
			    size_t count, size_t times, uint64_t *va);
/* Submits the program if @status is TERN_SUCCESS; unlocks; returns it. */
tern_status_t coll_call_end(struct coll_call *call, tern_status_t status);

/* ---- direct.c: one-step algorithms for messages of one slot ---- */

/*
 * Every rank sends its piece straight to every rank that needs it and
 * reduces what it receives in rank order (the same order on every rank,
 * so every rank gets the same bits). @count is as in the public call;
 * false if the message is too big for one slot.
 */
bool coll_direct_all_reduce(struct coll_call *call, uint64_t send,
			    uint64_t recv, uint64_t count);
bool coll_direct_reduce_scatter(struct coll_call *call, uint64_t send,
				uint64_t recv, uint64_t count);
bool coll_direct_all_gather(struct coll_call *call, uint64_t send,
			    uint64_t recv, uint64_t count);
bool coll_direct_rooted(struct coll_call *call, bool reduce, int root,
			uint64_t send, uint64_t recv, uint64_t count);

/* The channels a message of @bytes uses. */
int coll_channels_for(const struct coll_call *call, uint64_t bytes);

/* Part @i of @parts of @total, as even as can be. */
static inline void coll_split(uint64_t total, uint64_t parts, uint64_t i,
			      uint64_t *start, uint64_t *len)
{
	uint64_t base = total / parts, rem = total % parts;

	*start = i * base + (i < rem ? i : rem);
	*len = base + (i < rem ? 1 : 0);
}

static inline int coll_mod(int a, int n)
{
	return ((a % n) + n) % n;
}

#endif /* TERN_COLL_H */
