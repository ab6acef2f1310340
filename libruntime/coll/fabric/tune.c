// SPDX-License-Identifier: MIT
/*
 * The tuner: which algorithm a collective runs, and on how many rings.
 * Every entry point comes through here, so this is the one place the
 * choice is made: among the algorithms that can run the operation, the
 * one the cost model (cost.c) expects to finish first on the comm's
 * fabric. TERN_ALGO forces one where it can run.
 *
 * - One rank: a local copy; send and recv: chunks through the peer's
 *   slots. Nothing to choose.
 * - The candidates: direct (one step, every piece straight to every rank
 *   that needs it; only while a rank's piece fits one slot), rings
 *   (all-reduce, reduce-scatter, all-gather), on a torus an all-reduce
 *   by its dimensions, or chains along the rings
 *   (broadcast, reduce) on all of the comm's rings, and pairwise rounds
 *   (all-to-all).
 *
 * Across hosts, the rail's tuner (hosts/tune.c) chooses for the network.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/fabric/internal.h"

static const char *const coll_algo_names[] = {
	[COLL_ALGO_LOCAL] = "local",
	[COLL_ALGO_DIRECT] = "direct",
	[COLL_ALGO_RING] = "ring",
	[COLL_ALGO_TORUS] = "torus",
	[COLL_ALGO_CHAIN] = "chain",
	[COLL_ALGO_PAIRWISE] = "pairwise",
	[COLL_ALGO_P2P] = "p2p",
};

const char *coll_algo_name(enum coll_algo algo)
{
	return (unsigned int)algo < sizeof(coll_algo_names) /
				    sizeof(coll_algo_names[0]) ?
	       coll_algo_names[algo] : "unknown";
}

tern_status_t coll_forced_algo(int *algo)
{
	const char *name = getenv("TERN_ALGO");

	*algo = -1;
	if (!name || !*name)
		return TERN_SUCCESS;
	for (int a = COLL_ALGO_DIRECT; a <= COLL_ALGO_PAIRWISE; a++) {
		if (strcmp(name, coll_algo_names[a]) == 0) {
			*algo = a;
			return TERN_SUCCESS;
		}
	}
	tern_set_last_error("TERN_ALGO=\"%s\" is none of direct, ring, torus, chain or pairwise",
			    name);
	return TERN_ERROR_INVALID_ARGUMENT;
}

/* Whether @algo can run @kind over @bytes (the call's count, as bytes). */
static bool coll_algo_fits(const struct tern_comm *comm, enum coll_algo algo,
			   enum coll_kind kind, uint64_t bytes)
{
	bool rooted = kind == COLL_BROADCAST || kind == COLL_REDUCE;

	switch (algo) {
	case COLL_ALGO_DIRECT:
		return kind != COLL_ALL_TO_ALL && bytes <= COLL_CHUNK_BYTES;
	case COLL_ALGO_RING:
		return kind != COLL_ALL_TO_ALL && !rooted;
	case COLL_ALGO_TORUS:
		return kind == COLL_ALL_REDUCE && comm->torus_chunk;
	case COLL_ALGO_CHAIN:
		return rooted;
	case COLL_ALGO_PAIRWISE:
		return kind == COLL_ALL_TO_ALL;
	default:
		return false;
	}
}

int coll_tune_candidates(const struct tern_comm *comm, enum coll_kind kind,
			 uint64_t bytes, struct coll_candidate *out)
{
	int count = 0;

	for (int a = COLL_ALGO_DIRECT; a <= COLL_ALGO_PAIRWISE; a++) {
		if (!coll_algo_fits(comm, (enum coll_algo)a, kind, bytes))
			continue;
		out[count].algo = (enum coll_algo)a;
		out[count].ns = coll_cost_estimate(comm, kind,
						   (enum coll_algo)a, bytes);
		count++;
	}
	return count;
}

struct coll_plan coll_tune_kind(const struct tern_comm *comm,
				enum coll_kind kind, uint64_t bytes)
{
	struct coll_candidate cand[COLL_ALGO_COUNT];
	struct coll_plan plan = { COLL_ALGO_LOCAL, 1 };
	int count, best = 0;

	if (coll_kind_is_p2p(kind)) {
		plan.algo = COLL_ALGO_P2P;
		return plan;
	}
	if (comm->nranks == 1)
		return plan;
	count = coll_tune_candidates(comm, kind, bytes, cand);
	for (int i = 1; i < count; i++)
		if (cand[i].ns < cand[best].ns)
			best = i;
	for (int i = 0; i < count; i++)
		if ((int)cand[i].algo == comm->forced_algo)
			best = i;
	plan.algo = cand[best].algo;
	if (plan.algo == COLL_ALGO_RING || plan.algo == COLL_ALGO_CHAIN)
		plan.nch = comm->nchannels;
	return plan;
}

struct coll_plan coll_tune(const struct coll_call *call)
{
	return coll_tune_kind(call->comm, call->op.kind,
			      call->op.count * call->esize);
}

/* tern.h's collectives as the tuner knows them, and their call's bytes. */
static const enum coll_kind coll_public_kinds[] = {
	[TERN_COLL_ALL_REDUCE] = COLL_ALL_REDUCE,
	[TERN_COLL_REDUCE_SCATTER] = COLL_REDUCE_SCATTER,
	[TERN_COLL_ALL_GATHER] = COLL_ALL_GATHER,
	[TERN_COLL_BROADCAST] = COLL_BROADCAST,
	[TERN_COLL_REDUCE] = COLL_REDUCE,
	[TERN_COLL_ALL_TO_ALL] = COLL_ALL_TO_ALL,
};

bool coll_public_kind(tern_collective_t coll, enum coll_kind *kind)
{
	if ((unsigned int)coll >= sizeof(coll_public_kinds) /
				  sizeof(coll_public_kinds[0]))
		return false;
	*kind = coll_public_kinds[coll];
	return true;
}

tern_status_t coll_fabric_algorithms(const struct tern_comm *comm,
				     enum coll_kind kind, uint64_t bytes,
				     tern_algo_estimate_t *out,
				     uint32_t capacity, uint32_t *count)
{
	struct coll_candidate cand[COLL_ALGO_COUNT];
	struct coll_plan plan;
	uint64_t call_bytes = bytes;
	int n, first = 0;

	/* a call counts a rank's piece where nccl-tests counts the array */
	if (kind == COLL_ALL_GATHER || kind == COLL_REDUCE_SCATTER ||
	    kind == COLL_ALL_TO_ALL)
		call_bytes = bytes / (uint64_t)comm->nranks;
	plan = coll_tune_kind(comm, kind, call_bytes);
	if (plan.algo == COLL_ALGO_LOCAL) {
		cand[0].algo = COLL_ALGO_LOCAL;
		cand[0].ns = 0;
		n = 1;
	} else {
		n = coll_tune_candidates(comm, kind, call_bytes, cand);
	}
	for (int i = 0; i < n; i++)
		if (cand[i].algo == plan.algo)
			first = i;
	*count = (uint32_t)n;
	for (int i = 0; i < n && (uint32_t)i < capacity; i++) {
		/* the chosen first, the others in their order */
		int from = i == 0 ? first : (i <= first ? i - 1 : i);

		snprintf(out[i].name, sizeof(out[i].name), "%s",
			 coll_algo_name(cand[from].algo));
		out[i].us = cand[from].ns / 1000.0;
	}
	return TERN_SUCCESS;
}

