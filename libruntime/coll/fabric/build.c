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
		   (unsigned long long)call->op.count, plan.algo->name,
		   plan.nch);
	if (plan.algo != &coll_algo_local)
		coll_own_piece(call);
	plan.algo->run(call, plan.nch);
}
