// SPDX-License-Identifier: MIT
/*
 * All-to-all in n-1 rounds of pairs: in round j every rank sends its
 * piece for rank + j and takes rank - j's, chunk by chunk through the
 * receiver's slots, so each pair's chunks come in one order and a rank's
 * wait in round j only needs sends of round j.
 */
#include "coll/fabric/internal.h"

static void coll_pairwise_run(struct coll_call *call, int nch)
{
	const struct coll_op *op = &call->op;
	const int n = call->comm->nranks, r = call->comm->rank;
	const uint64_t piece = op->count * call->esize;
	const uint64_t chunks = (piece + COLL_CHUNK_BYTES - 1) / COLL_CHUNK_BYTES;

	(void)nch;
	for (int j = 1; j < n; j++) {
		int to = coll_mod(r + j, n), from = coll_mod(r - j, n);

		for (uint64_t k = 0; k < chunks; k++) {
			uint64_t at = k * COLL_CHUNK_BYTES;
			uint64_t len = coll_chunk_len(piece, k);

			coll_send_copy(&call->prog, to,
				       op->send + (uint64_t)to * piece + at, len);
			coll_recv_copy(&call->prog, from,
				       op->recv + (uint64_t)from * piece + at, len);
		}
	}
}

static bool coll_pairwise_can_run(const struct tern_comm *comm,
				  enum coll_kind kind, uint64_t bytes)
{
	(void)comm;
	(void)bytes;
	return kind == COLL_ALL_TO_ALL;
}

/* n-1 rounds, each a piece to one peer. */
static double coll_pairwise_estimate(const struct tern_comm *comm,
				     enum coll_kind kind, uint64_t bytes)
{
	const double b = (double)bytes;
	const double blocks = coll_div_up(b, COLL_CHUNK_BYTES);

	(void)kind;
	return (comm->nranks - 1) *
	       (coll_cost_far_ns(comm) + b / coll_cost_link(comm) * 1e9 +
		3 * blocks * COLL_COST_PACKET_NS);
}

const struct coll_algo coll_algo_pairwise = {
	.name = "pairwise",
	.can_run = coll_pairwise_can_run,
	.estimate = coll_pairwise_estimate,
	.run = coll_pairwise_run,
};
