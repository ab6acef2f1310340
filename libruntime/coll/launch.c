// SPDX-License-Identifier: MIT
/*
 * Where a comm's operations go: on one host, to the fabric's algorithms
 * (fabric/build.c), whose programs fabric/prog.c submits in the comm's
 * order; across hosts, to the hierarchy (hosts/hier.c). This is the one
 * place that tells the two apart, for building (coll_launch) and for
 * weighing (tern_comm_algorithms).
 */
#include "coll/coll.h"
#include "coll/hosts/hosts.h"

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

/*
 * Builds and submits @n operations of @comm on @stream as one program:
 * collectives in order, then the point-to-point ones interleaved chunk by
 * chunk so that any exchange between them makes progress. Comm lock held.
 */
static tern_status_t coll_run_locked(struct tern_comm *comm,
				     struct tern_stream *stream,
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

tern_status_t coll_launch(struct tern_comm *comm, struct tern_stream *stream,
			  const struct coll_op *ops, size_t n)
{
	tern_status_t status;

	pthread_mutex_lock(&comm->lock);
	status = coll_run_locked(comm, stream, ops, n);
	pthread_mutex_unlock(&comm->lock);
	return status;
}

TERN_API tern_status_t tern_comm_algorithms(tern_comm_t comm,
					    tern_collective_t coll,
					    size_t bytes,
					    tern_algo_estimate_t *out,
					    uint32_t capacity, uint32_t *count)
{
	enum coll_kind kind;

	if (!count || (!out && capacity) || !coll_comm_valid(comm) ||
	    !coll_public_kind(coll, &kind))
		return TERN_ERROR_INVALID_ARGUMENT;
	if (comm->hosts)
		return coll_hosts_algorithms(comm, kind, bytes, out, capacity,
					     count);
	return coll_fabric_algorithms(comm, kind, bytes, out, capacity, count);
}
