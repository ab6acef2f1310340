// SPDX-License-Identifier: MIT
/*
 * One collective's program on one host: the tuner's algorithm emits our
 * rank's part of it. Below both launch.c (a comm of one host) and
 * hosts/hier.c (the fabric's part of a collective across hosts), so that
 * both build the same way.
 */
#include "coll/fabric/internal.h"

void coll_build(struct coll_call *call)
{
	struct coll_plan plan = coll_tune(call);

	tern_debug("coll: rank %d/%d: kind %d, %llu elements: %s on %d ring(s)",
		   call->comm->rank, call->comm->nranks, (int)call->op.kind,
		   (unsigned long long)call->op.count,
		   coll_algo_name(plan.algo), plan.nch);
	if (plan.algo != COLL_ALGO_LOCAL)
		coll_own_piece(call);
	switch (plan.algo) {
	case COLL_ALGO_LOCAL:
		coll_local_run(call);
		break;
	case COLL_ALGO_DIRECT:
		coll_direct_run(call);
		break;
	case COLL_ALGO_RING:
		coll_ring_run(call, plan.nch);
		break;
	case COLL_ALGO_TORUS:
		coll_torus_run(call);
		break;
	case COLL_ALGO_CHAIN:
		coll_chain_run(call, plan.nch);
		break;
	case COLL_ALGO_PAIRWISE:
		coll_pairwise_run(call);
		break;
	case COLL_ALGO_P2P:
	case COLL_ALGO_COUNT:
		break;		/* built together, below; not an algorithm */
	}
}
