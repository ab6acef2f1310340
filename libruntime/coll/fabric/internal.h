/* SPDX-License-Identifier: MIT */
/*
 * What the files of fabric/ share among themselves, and no other part
 * needs.
 */
#ifndef TERN_COLL_FABRIC_INTERNAL_H
#define TERN_COLL_FABRIC_INTERNAL_H

#include "coll/fabric/fabric.h"

/* A torus's all-reduce runs a part on each of the rings through a rank. */
#define COLL_TORUS_PARTS	(2 * COLL_TORUS_DIMS)

/* ---- tune.c: the one place an algorithm is chosen ---- */

struct coll_plan {
	enum coll_algo algo;
	int nch;			/* rings used */
};

/* An algorithm that can run an operation, and what the model expects. */
struct coll_candidate {
	enum coll_algo algo;
	double ns;
};

struct coll_plan coll_tune(const struct coll_call *call);
/* The same choice for @kind over @bytes (the call's count, as bytes). */
struct coll_plan coll_tune_kind(const struct tern_comm *comm,
				enum coll_kind kind, uint64_t bytes);
/* Fills @out (COLL_ALGO_COUNT entries) with the candidates; their count. */
int coll_tune_candidates(const struct tern_comm *comm, enum coll_kind kind,
			 uint64_t bytes, struct coll_candidate *out);
const char *coll_algo_name(enum coll_algo algo);

/* ---- topo.c, prog.c: the torus and the slots ---- */

/*
 * The torus all-reduce's parts (coll_torus_run), and the dimension part
 * @p runs along in phase @k (0 to dims-1: reduce-scatter along the first
 * dims-1, all-reduce along the last; the gathers mirror them).
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

/* ---- the algorithms: each emits one rank's part of @call->op ---- */

void coll_local_run(struct coll_call *call);
/* The copy of our own piece into our output, where the op has one. */
void coll_own_piece(struct coll_call *call);
void coll_direct_run(struct coll_call *call);
void coll_ring_run(struct coll_call *call, int nch);
/* All-reduce by the torus's dimensions (comm->torus_chunk). */
void coll_torus_run(struct coll_call *call);
/* Whether a torus phase may run @o blocks in flight (ring.c). */
bool coll_phase_fits(int steps, int o, int m, int first, int ring_steps,
		     int share);
void coll_chain_run(struct coll_call *call, int nch);
void coll_pairwise_run(struct coll_call *call);

#endif /* TERN_COLL_FABRIC_INTERNAL_H */
