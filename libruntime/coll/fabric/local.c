// SPDX-License-Identifier: MIT
/*
 * The parts of a collective that stay on this rank: the whole of it on a
 * communicator of one rank, and the copy of our own piece into our output
 * that all-gather, all-to-all and a broadcast's root make whatever the
 * algorithm.
 */
#include "coll/fabric/internal.h"

static void coll_local_run(struct coll_call *call, int nch)
{
	const struct coll_op *op = &call->op;

	(void)nch;
	if (op->kind == COLL_ALL_GATHER || op->kind == COLL_ALL_TO_ALL)
		coll_own_piece(call);
	else
		coll_emit_copy(&call->prog, op->recv, op->send,
			       op->count * call->esize);
}

void coll_own_piece(struct coll_call *call)
{
	const struct coll_op *op = &call->op;
	const uint64_t piece = op->count * call->esize;
	const uint64_t at = (uint64_t)call->comm->rank * piece;

	switch (op->kind) {
	case COLL_ALL_GATHER:
		coll_emit_copy(&call->prog, op->recv + at, op->send, piece);
		break;
	case COLL_ALL_TO_ALL:
		coll_emit_copy(&call->prog, op->recv + at, op->send + at, piece);
		break;
	case COLL_BROADCAST:
		if (call->comm->rank == op->root)
			coll_emit_copy(&call->prog, op->recv, op->send, piece);
		break;
	default:
		break;
	}
}

static bool coll_local_can_run(const struct tern_comm *comm,
			       enum coll_kind kind, uint64_t bytes)
{
	(void)kind;
	(void)bytes;
	return comm->nranks == 1;
}

/* A copy on the device, which the model does not charge. */
static double coll_local_estimate(const struct tern_comm *comm,
				  enum coll_kind kind, uint64_t bytes)
{
	(void)comm;
	(void)kind;
	(void)bytes;
	return 0;
}

const struct coll_algo coll_algo_local = {
	.name = "local",
	.can_run = coll_local_can_run,
	.estimate = coll_local_estimate,
	.run = coll_local_run,
};
