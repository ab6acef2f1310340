/* SPDX-License-Identifier: MIT */
/*
 * What the files of fabric/ share among themselves, and no other part
 * needs: the tuner's rows and its plan, the terms of the cost model, the
 * torus's grid, the slots, and the ring jobs the torus runs by.
 */
#ifndef TERN_COLL_FABRIC_INTERNAL_H
#define TERN_COLL_FABRIC_INTERNAL_H

#include "coll/fabric/fabric.h"
#include "tern_timing.h"

/* A torus's all-reduce runs a part on each of the rings through a rank. */
#define COLL_TORUS_PARTS	(2 * COLL_TORUS_DIMS)

/* ---- the algorithms, each in its file; tune.c's table ---- */

/* One rank: a copy (local.c), the tuner's answer with nothing to weigh. */
extern const struct coll_algo coll_algo_local;
/* The rows of the tuner's table (coll_algo_ring in fabric.h). */
extern const struct coll_algo coll_algo_direct, coll_algo_torus,
	coll_algo_chain, coll_algo_pairwise;

/* The tuner's choice: an algorithm, on how many rings. */
struct coll_plan {
	const struct coll_algo *algo;
	int nch;
};

struct coll_plan coll_tune(const struct coll_call *call);
/* The copy of our own piece into our output, where the op has one. */
void coll_own_piece(struct coll_call *call);

/* Bytes of chunk @j of @bytes cut in COLL_CHUNK_BYTES. */
static inline uint64_t coll_chunk_len(uint64_t bytes, uint64_t j)
{
	uint64_t left = bytes - j * COLL_CHUNK_BYTES;

	return left < COLL_CHUNK_BYTES ? left : COLL_CHUNK_BYTES;
}

/* ---- cost.c: the terms each algorithm's estimate is made of ---- */

/* An engine's cost per packet, as the timing model charges it. */
#define COLL_COST_PACKET_NS	((double)TERN_TIMING_PACKET_NS)

/* The farthest any two ranks are, in ns (1 s where some pair is cut). */
double coll_cost_far_ns(const struct tern_comm *comm);
/* The slowest link between two ranks, bytes/s (1 where none). */
double coll_cost_link(const struct tern_comm *comm);
/* The fewest bytes/s a rank's links to the others carry (1 where none). */
double coll_cost_out(const struct tern_comm *comm);
/* The slowest hop of any of the comm's rings. */
double coll_ring_hop_ns(const struct tern_comm *comm);
/* @a / @b, rounded up to a whole number. */
double coll_div_up(double a, double b);
/*
 * A ring's blocks through @steps steps each, @overlap of them in flight:
 * the first block's @chain steps that send (each a hop, a chunk over the
 * link and the packets), then a block for every turn of the busiest
 * resource: the @steps/@overlap waves between one block's start and the
 * next's, the @sends chunks a block puts on one link, or the @local
 * chunks the steps of a block (on every ring) read and write in the
 * device's memory, the chunks its peers write there included.
 */
double coll_pipeline_ns(double chain, double steps, double overlap,
			double blocks, double chunk, double hop, double link,
			double sends, double local);
/*
 * Chunks a ring's block reads and writes here in @m steps of one half,
 * and those the rank before writes here.
 */
double coll_half_local(int m, bool gather);

/* ---- topo.c, prog.c: the torus and the slots ---- */

/*
 * The torus all-reduce's parts (torus.c), and the dimension part @p runs
 * along in phase @k (0 to dims-1: reduce-scatter along the first dims-1,
 * all-reduce along the last; the gathers mirror them).
 */
int coll_torus_parts(const struct tern_comm *comm);
int coll_torus_dim(const struct tern_comm *comm, int p, int k);
/*
 * The ranks of the grid's line along dimension @d through us, in its
 * order; returns how many.
 */
int coll_grid_line(const struct tern_comm *comm, int d, int *group);
/* Lays out every rank's scratch for the comm's rings (prog.c). */
void coll_plan_slots(struct tern_comm *comm);
/* Whether @sender has ring-chunk slots in @receiver's scratch. */
bool coll_wide_slots(const struct tern_comm *comm, int sender, int receiver);

/* ---- ring.c: ring jobs, which the torus runs phase by phase ---- */

enum coll_ring_kind { RING_ALL_REDUCE, RING_REDUCE_SCATTER, RING_ALL_GATHER };

/* The comm's rings, or a torus's one a part (torus.c). */
#define COLL_RING_JOB_CHANNELS	COLL_TORUS_PARTS

/* One ring of a job: its members, its share of the data, its steps. */
struct coll_ring_chan {
	const int *order;		/* ranks by position */
	int m, pos;			/* members, and our position */
	uint64_t send, recv;		/* device addresses of the data */
	uint64_t start, len;		/* elements: all-reduce's range; else per rank */
	int first, steps;		/* the kind's steps it runs */
	bool final;			/* its reduce-scatter completes the sums */
};

struct coll_ring_job {
	struct coll_call *call;
	enum coll_ring_kind kind;
	uint64_t count;			/* reduce-scatter, all-gather: per rank */
	uint64_t chunk;			/* elements: the most a segment holds */
	int overlap;			/* blocks in flight (topo.c) */
	int nch;
	/*
	 * All-reduce's pieces named by rank, not position: the shard of
	 * [0, count) a rank's host peers hold too (coll_ring_shards).
	 */
	bool shards;
	struct coll_ring_chan ch[COLL_RING_JOB_CHANNELS];
};

/* One phase of a torus's all-reduce, as many blocks in flight as it may. */
void coll_ring_phase(struct coll_ring_job *job);
/*
 * Whether @o blocks in flight keep a wave of a phase of @steps waves under
 * COLL_SLOTS chunks to a ring's next rank, for @share parts on a ring of
 * @m that run its steps @first to @first + @ring_steps.
 */
bool coll_phase_fits(int steps, int o, int m, int first, int ring_steps,
		     int share);

#endif /* TERN_COLL_FABRIC_INTERNAL_H */
