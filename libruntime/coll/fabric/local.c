// SPDX-License-Identifier: MIT
/*
 * The parts of a collective that stay on this rank: the whole of it on a
 * communicator of one rank, and the copy of our own piece into our output
 * that all-gather, all-to-all and a broadcast's root make whatever the
 * algorithm.
 */
#include "coll/fabric/internal.h"

void coll_local_run(struct coll_call *call)
{
	const struct coll_op *op = &call->op;

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
