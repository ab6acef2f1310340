// SPDX-License-Identifier: MIT
/*
 * The tuner: which algorithm a collective runs, and on how many rings.
 * Every entry point comes through here, so this is the one place the
 * choice is made.
 *
 * - One rank: a local copy.
 * - Send and recv go chunk by chunk through the peer's slots; all-to-all
 *   runs n-1 rounds of pairs.
 * - A message whose per-rank piece fits one slot runs the direct
 *   algorithm: one step, every piece straight to every rank that needs it.
 *   It moves more bytes than a ring, which costs less than 2(n-1) steps
 *   while the message is small.
 * - Larger ones run pipelined rings (all-reduce, reduce-scatter,
 *   all-gather) or chains along the rings (broadcast, reduce), on all of
 *   the comm's rings (every link busy).
 */
#include "coll.h"

struct coll_plan coll_tune(const struct coll_call *call)
{
	const struct tern_comm *comm = call->comm;
	const struct coll_op *op = &call->op;
	const uint64_t bytes = op->count * call->esize;
	struct coll_plan plan = { COLL_ALGO_LOCAL, 1 };

	if (coll_kind_is_p2p(op->kind)) {
		plan.algo = COLL_ALGO_P2P;
		return plan;
	}
	if (comm->nranks == 1)
		return plan;
	if (op->kind == COLL_ALL_TO_ALL) {
		plan.algo = COLL_ALGO_PAIRWISE;
		return plan;
	}
	if (bytes <= COLL_CHUNK_BYTES) {
		plan.algo = COLL_ALGO_DIRECT;
		return plan;
	}
	plan.algo = op->kind == COLL_BROADCAST || op->kind == COLL_REDUCE ?
		    COLL_ALGO_CHAIN : COLL_ALGO_RING;
	plan.nch = comm->nchannels;
	return plan;
}

const char *coll_algo_name(enum coll_algo algo)
{
	static const char *const names[] = {
		[COLL_ALGO_LOCAL] = "local",
		[COLL_ALGO_DIRECT] = "direct",
		[COLL_ALGO_RING] = "ring",
		[COLL_ALGO_CHAIN] = "chain",
		[COLL_ALGO_PAIRWISE] = "pairwise",
		[COLL_ALGO_P2P] = "p2p",
	};

	return (unsigned int)algo < sizeof(names) / sizeof(names[0]) ?
	       names[algo] : "unknown";
}
