// SPDX-License-Identifier: MIT
/*
 * From a checked operation to jobs on a stream: the communicator's error
 * refuses it, a group defers it, else the tuner's algorithm builds the
 * program and prog.c submits it in the communicator's order.
 */
#include "coll.h"

tern_status_t coll_launch(struct tern_comm *comm, struct tern_stream *stream,
			  const struct coll_op *op)
{
	tern_status_t status = coll_comm_error(comm);

	if (status)
		return status;
	if (coll_group_depth())
		return coll_group_add(comm, stream, op);
	pthread_mutex_lock(&comm->lock);
	status = coll_run_locked(comm, stream, op, 1);
	pthread_mutex_unlock(&comm->lock);
	return status;
}

/* A rank's sends to itself and recvs from itself pair up, sizes equal. */
static bool coll_self_matched(const struct tern_comm *comm,
			      const struct coll_op *ops, size_t n)
{
	size_t s = 0, r = 0;

	for (;;) {
		while (s < n && !(ops[s].kind == COLL_SEND &&
				  ops[s].root == comm->rank))
			s++;
		while (r < n && !(ops[r].kind == COLL_RECV &&
				  ops[r].root == comm->rank))
			r++;
		if (s == n || r == n)
			return s == n && r == n;
		if (ops[s].count * tern_dtype_bytes(ops[s].dtype) !=
		    ops[r].count * tern_dtype_bytes(ops[r].dtype))
			return false;
		s++;
		r++;
	}
}

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

tern_status_t coll_run_locked(struct tern_comm *comm, struct tern_stream *stream,
			      const struct coll_op *ops, size_t n)
{
	struct coll_call call = { .comm = comm, .stream = stream };
	struct coll_seq_snapshot snap;
	tern_status_t status;
	uint32_t submitted = 0;
	bool p2p = false;

	coll_inflight_reap(comm);
	status = coll_comm_error(comm);
	if (status)
		return status;
	if (!coll_self_matched(comm, ops, n))
		return TERN_ERROR_INVALID_ARGUMENT;
	if (comm->hosts)
		return coll_hier_run_locked(comm, stream, ops, n);
	coll_prog_init(&call.prog, comm);
	coll_seq_save(comm, &snap);
	for (size_t i = 0; i < n; i++) {
		if (coll_kind_is_p2p(ops[i].kind)) {
			p2p = true;
			continue;
		}
		call.op = ops[i];
		call.esize = tern_dtype_bytes(call.op.dtype);
		call.chunk_elems = COLL_RING_CHUNK_BYTES / call.esize;
		if (call.op.count)
			coll_build(&call);
	}
	if (p2p)
		coll_p2p_run(&call, ops, n);
	status = coll_prog_submit(&call.prog, stream, &submitted);
	if (status && submitted == 0)
		coll_seq_restore(comm, &snap);
	else if (status)
		coll_comm_fail(comm, status, false);	/* half of it went */
	coll_prog_free(&call.prog);
	return status;
}
