// SPDX-License-Identifier: MIT
/*
 * The tuner: which algorithm a collective runs, and on how many rings.
 * Every entry point comes through here, so this is the one place the
 * choice is made: among the rows of the table below that can run the
 * operation, the one whose estimate (by the cost model, cost.c) is least
 * on the comm's fabric. TERN_ALGO forces a row where it can run.
 *
 * - One rank: a local copy (local.c). Nothing to weigh.
 * - The rows: direct (one step, every piece straight to every rank that
 *   needs it; only while a rank's piece fits one slot), ring (all-reduce,
 *   reduce-scatter, all-gather), torus (on a torus, an all-reduce by its
 *   dimensions), chain (broadcast, reduce), the last two on all of the
 *   comm's rings, and pairwise rounds (all-to-all).
 * - Send and recv are no choice: the sends and recvs launched together
 *   are built together (p2p.c).
 *
 * Across hosts, the rail's tuner (hosts/tune.c) chooses for the network.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/fabric/internal.h"
#include "settings.h"

/*
 * The algorithms the tuner weighs, each described in its own file, in
 * the order it weighs them: the first of equals wins. A new algorithm is
 * a file and a row here (and its name in internal.h).
 */
static const struct coll_algo *const coll_algos[] = {
	&coll_algo_direct, &coll_algo_ring, &coll_algo_torus,
	&coll_algo_chain, &coll_algo_pairwise,
};

#define COLL_ALGOS	((int)(sizeof(coll_algos) / sizeof(coll_algos[0])))

/* TERN_ALGO's row of the table; its names are the setting's choices. */
tern_status_t coll_forced_algo(int *algo)
{
	const char *name = NULL;
	tern_status_t status = tern_setting_choice("TERN_ALGO", &name);

	*algo = -1;
	for (int a = 0; name && a < COLL_ALGOS; a++)
		if (strcmp(name, coll_algos[a]->name) == 0)
			*algo = a;
	return status;
}

bool coll_forced_fits(int algo)
{
	return algo >= -1 && algo < COLL_ALGOS;
}

/* An algorithm that can run an operation, and what the model expects. */
struct coll_candidate {
	const struct coll_algo *algo;
	double ns;
};

/*
 * Fills @out (COLL_ALGOS entries) with the rows that can run @kind over
 * @bytes (the call's count, as bytes), in the table's order; their count.
 */
static int coll_tune_candidates(const struct tern_comm *comm,
				enum coll_kind kind, uint64_t bytes,
				struct coll_candidate *out)
{
	int count = 0;

	for (int a = 0; a < COLL_ALGOS; a++) {
		if (!coll_algos[a]->can_run(comm, kind, bytes))
			continue;
		out[count].algo = coll_algos[a];
		out[count].ns = coll_algos[a]->estimate(comm, kind, bytes);
		count++;
	}
	return count;
}

/* The tuner's choice for @kind (a collective) over @bytes (the call's). */
static struct coll_plan coll_tune_kind(const struct tern_comm *comm,
				       enum coll_kind kind, uint64_t bytes)
{
	struct coll_candidate cand[COLL_ALGOS];
	struct coll_plan plan = { &coll_algo_local, 1 };
	int count, best = 0;

	if (coll_algo_local.can_run(comm, kind, bytes))
		return plan;
	count = coll_tune_candidates(comm, kind, bytes, cand);
	for (int i = 1; i < count; i++)
		if (cand[i].ns < cand[best].ns)
			best = i;
	for (int i = 0; i < count; i++)
		if (comm->forced_algo >= 0 &&
		    cand[i].algo == coll_algos[comm->forced_algo])
			best = i;
	plan.algo = cand[best].algo;
	if (plan.algo->rings)
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
	struct coll_candidate cand[COLL_ALGOS];
	struct coll_plan plan;
	uint64_t call_bytes = bytes;
	int n, first = 0;

	/* a call counts a rank's piece where nccl-tests counts the array */
	if (kind == COLL_ALL_GATHER || kind == COLL_REDUCE_SCATTER ||
	    kind == COLL_ALL_TO_ALL)
		call_bytes = bytes / (uint64_t)comm->nranks;
	plan = coll_tune_kind(comm, kind, call_bytes);
	if (plan.algo == &coll_algo_local) {
		cand[0].algo = plan.algo;
		cand[0].ns = plan.algo->estimate(comm, kind, call_bytes);
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
			 cand[from].algo->name);
		out[i].us = cand[from].ns / 1000.0;
	}
	return TERN_SUCCESS;
}

