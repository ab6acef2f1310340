/* SPDX-License-Identifier: MIT */
/*
 * What fabric/ gives the rest of the collectives: the collectives of one
 * host, over its chips' fabric. An operation (struct coll_op) of a call
 * (struct coll_call) is built into one rank's packet program (prog.c)
 * by the algorithm the tuner chooses (build.c, tune.c: a row of its
 * table, each in a file of its own), on the rings the planner found in
 * the ranks' fabric ports (topo.c), by the figures of the cost model
 * (cost.c). The hierarchy across hosts (hosts/) builds its fabric's part
 * with the same.
 */
#ifndef TERN_COLL_FABRIC_FABRIC_H
#define TERN_COLL_FABRIC_FABRIC_H

#include "coll/comm/comm.h"

/*
 * Bytes of one slot: the unit a send moves, and the most the one-step
 * path takes.
 */
#define COLL_CHUNK_BYTES	(256u << 10)
/*
 * A ring step's chunk, in the wider slots a rank keeps for its previous
 * rank on each ring. It must keep a link busy past the packets around it
 * and, with two blocks in flight, cover a hop's latency and the step's
 * own packets: 512 KiB is 2 us on a 256 GB/s link, against 1.5 us a hop
 * and 0.3 us of packets.
 */
#define COLL_RING_CHUNK_BYTES	(512u << 10)
/* Slots per sender: how far a sender may run ahead of its receiver. */
#define COLL_SLOTS		4u

/* What a collective call asks for, once its arguments are checked. */
enum coll_kind {
	COLL_ALL_REDUCE,
	COLL_REDUCE_SCATTER,
	COLL_ALL_GATHER,
	COLL_BROADCAST,
	COLL_REDUCE,
	COLL_ALL_TO_ALL,
	COLL_SEND,
	COLL_RECV,
};

struct coll_op {
	enum coll_kind kind;
	tern_dtype_t dtype;
	tern_redop_t redop;
	uint64_t send, recv;		/* device addresses; 0 where unused */
	uint64_t count;			/* elements, as the public call counts */
	int root;			/* broadcast, reduce: root; send, recv: peer */
};

static inline bool coll_kind_is_p2p(enum coll_kind kind)
{
	return kind == COLL_SEND || kind == COLL_RECV;
}

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

/* ---- topo.c, cost.c: planning a new comm ---- */

/* What a rank's devices look like to the others: its fabric id, ports. */
struct coll_node {
	int fabric_id;
	uint32_t port_count;
	int neighbour[16];		/* fabric id on each port, -1 if none */
	uint32_t latency_ns[16];	/* each port's link: ns per hop */
	uint64_t bandwidth[16];		/* and bytes/s each way; 0: down */
	int algo;			/* its TERN_ALGO: all ranks must agree */
};

/* What the ring planner needs from @dev: its fabric id and neighbours. */
tern_status_t coll_describe(struct tern_device *dev, struct coll_node *node);
/*
 * Fills comm->nchannels and comm->ring[][] for @nodes (one per rank): the
 * physical ring both ways on a ring, four snakes (row and column, both
 * ways) on a complete 2D torus, else a walk over direct links where it can
 * and jumps where it cannot, both ways; then the ring blocks in flight and
 * where each sender's slots lie (coll_plan_slots), and the torus.
 */
void coll_plan_rings(struct tern_comm *comm, const struct coll_node *nodes);
/* Fills comm->fabric from @nodes (one per rank). */
void coll_measure_fabric(struct tern_comm *comm, const struct coll_node *nodes);
/*
 * Bytes of a comm's scratch (prog.c): COLL_SLOTS slots for each sender,
 * the wide ones of a ring's previous rank for at most COLL_MAX_CHANNELS
 * of them; a lone rank's nobody sends to.
 */
size_t coll_scratch_bytes(int nranks);

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
/* The reduction that completes an element: where TERN_AVG divides. */
void coll_emit_reduce_last(struct coll_prog *p, uint64_t dst, uint64_t src0,
			   uint64_t src1, uint64_t count, tern_dtype_t dtype,
			   tern_redop_t op);

/* Sets the u64 at @addr to @value. */
void coll_emit_signal(struct coll_prog *p, uint64_t addr, uint64_t value);
/* Waits for the u64 at @addr to reach @value, or the comm's abort. */
void coll_emit_wait(struct coll_prog *p, uint64_t addr, uint64_t value);

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
/* The next chunk from @peer, @bytes of it copied to @dst. */
void coll_recv_copy(struct coll_prog *p, int peer, uint64_t dst,
		    uint64_t bytes);
/* A slot of our own scratch that nobody sends into: for staging. */
uint64_t coll_self_slot(struct coll_prog *p);

/*
 * Submits the program on @stream as one or more jobs (split at packet
 * boundaries to fit the device's submission limit), each gated on the
 * comm's job before it and the first one ordered after the comm's newest
 * job on any stream. *@submitted counts the jobs that went in. Comm lock
 * held.
 */
tern_status_t coll_prog_submit(struct coll_prog *p, struct tern_stream *stream,
			       uint32_t *submitted);

/* Host bookkeeping to restore if a program is dropped before submission. */
struct coll_seq_snapshot {
	uint64_t sent[COLL_MAX_RANKS], received[COLL_MAX_RANKS];
};

void coll_seq_save(const struct tern_comm *comm, struct coll_seq_snapshot *s);
void coll_seq_restore(struct tern_comm *comm,
		      const struct coll_seq_snapshot *s);

/* ---- build.c and the algorithms: one call's program ---- */

/* One program being built for a comm, and the operation it is at. */
struct coll_call {
	struct tern_comm *comm;
	struct tern_stream *stream;
	struct coll_op op;
	size_t esize;			/* bytes per element */
	size_t chunk_elems;		/* elements per ring chunk */
	struct coll_prog prog;
};

/* Emits @call->op (a collective, not send or recv) by the tuner's choice. */
void coll_build(struct coll_call *call);
/* Send and recv ops, interleaved chunk by chunk (chunk k of every op in turn). */
void coll_p2p_run(struct coll_call *call, const struct coll_op *ops, size_t n);
/*
 * Half an all-reduce round the comm's first @nch rings: the reduce-scatter
 * that leaves each rank the (unfinished: an average not yet divided) sums
 * of its shard, coll_split(count, nranks, rank), in recv; or, @gather, the
 * all-gather of every rank's shard from recv.
 */
void coll_ring_shards(struct coll_call *call, int nch, bool gather);

/* ---- the algorithms, and the tuner that weighs them (tune.c) ---- */

/*
 * An algorithm of one host, described once, in its own file. The tuner
 * runs, among the rows of its table (tune.c) that can run an operation,
 * the one whose estimate is least; on a comm of one rank, the local copy.
 */
struct coll_algo {
	/* As TERN_ALGO and tern_comm_algorithms() name it. */
	const char *name;
	/*
	 * Whether it can run @kind (a collective) over @bytes (the call's
	 * count, as bytes) on @comm.
	 */
	bool (*can_run)(const struct tern_comm *comm, enum coll_kind kind,
			uint64_t bytes);
	/* The ns the cost model (cost.c) expects it to take for that. */
	double (*estimate)(const struct tern_comm *comm, enum coll_kind kind,
			   uint64_t bytes);
	/*
	 * Emits our rank's part of @call->op, our own piece of the output
	 * already in place where it can run, on the comm's first @nch rings.
	 */
	void (*run)(struct coll_call *call, int nch);
	/* It spreads the message over all the comm's rings (else @nch 1). */
	bool rings;
};

/* The ring, whose estimate the tuner across hosts builds on. */
extern const struct coll_algo coll_algo_ring;

/* tern.h's @coll as the tuner's kind; false if it is none. */
bool coll_public_kind(tern_collective_t coll, enum coll_kind *kind);
/*
 * TERN_ALGO: the row of the tuner's table it forces, -1 for none, or
 * INVALID_ARGUMENT where it is none of the setting's choices.
 */
tern_status_t coll_forced_algo(int *algo);
/* Whether @algo is a TERN_ALGO a rank may have: -1, or a row. */
bool coll_forced_fits(int algo);
/*
 * tern_comm_algorithms() on one host: every algorithm that can run
 * @kind over @bytes (the whole message, as tern-bench counts it) and
 * what the model expects of it, the tuner's choice first.
 */
tern_status_t coll_fabric_algorithms(const struct tern_comm *comm,
				     enum coll_kind kind, uint64_t bytes,
				     tern_algo_estimate_t *out,
				     uint32_t capacity, uint32_t *count);

#endif /* TERN_COLL_FABRIC_FABRIC_H */
