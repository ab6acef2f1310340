// SPDX-License-Identifier: MIT
/*
 * The calls of tern.h that a group may keep: the collectives, send and
 * recv, and tern_comm_split. Each checks its arguments and then, on a
 * comm in error, fails; inside a group (group.c), is kept for the
 * group's end; else goes on, to coll_launch() or coll_comm_split(). A
 * call that fails a check enqueues nothing and leaves the communicator as
 * it was.
 */
#include "coll/coll.h"
#include "coll/init/init.h"

/* The checks every collective makes on the comm, stream, type and op. */
static tern_status_t coll_check(struct coll_call *call, tern_comm_t comm,
				tern_stream_t stream, tern_dtype_t dtype,
				bool reduces, tern_redop_t op)
{
	struct tern_stream *s = stream;

	/* A comm whose device was closed under it is refused as well. */
	if (!coll_comm_valid(comm) ||
	    !tern_handle_valid(comm->dev, TERN_HANDLE_DEVICE) ||
	    !tern_handle_valid(s, TERN_HANDLE_STREAM) || s->device != comm->dev)
		return TERN_ERROR_INVALID_ARGUMENT;
	if ((unsigned int)dtype >= TERN_DTYPE_COUNT ||
	    (reduces && (unsigned int)op >= TERN_REDOP_COUNT))
		return TERN_ERROR_INVALID_ARGUMENT;
	if (reduces && !tern_dtype_reducible(dtype)) {
		tern_set_last_error("reductions take float32, float16, bfloat16 and integers, not %s: convert 8-bit floats before reducing them",
				    tern_dtype_name(dtype));
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	if (reduces && comm->nranks > 1 &&
	    (!(comm->dev->info.capabilities & TERN_DEVICE_CAP_REDUCE) ||
	     (op == TERN_AVG && !(comm->dev->info.capabilities &
				  TERN_DEVICE_CAP_REDUCE_DIVIDE))))
		return TERN_ERROR_NOT_SUPPORTED;
	call->comm = comm;
	call->stream = s;
	call->op.dtype = dtype;
	call->op.redop = reduces ? op : TERN_SUM;
	call->esize = tern_dtype_bytes(dtype);
	return TERN_SUCCESS;
}

/*
 * Checks that @ptr holds @count elements (scaled by @times) on the comm's
 * device, aligned to the element size, and gives its device address. A
 * NULL buffer is accepted for zero bytes.
 */
static tern_status_t coll_check_ptr(const struct coll_call *call,
				    tern_ptr_t ptr, size_t count, size_t times,
				    uint64_t *va)
{
	struct tern_buffer *buf = ptr.buffer;
	size_t bytes;

	if (times && count > SIZE_MAX / times / call->esize)
		return TERN_ERROR_OUT_OF_RANGE;
	bytes = count * times * call->esize;
	*va = 0;
	if (!buf && bytes == 0)
		return TERN_SUCCESS;
	if (!tern_handle_valid(buf, TERN_HANDLE_BUFFER) ||
	    buf->device != call->comm->dev || ptr.offset % call->esize)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (ptr.offset > buf->bytes || bytes > buf->bytes - ptr.offset)
		return TERN_ERROR_OUT_OF_RANGE;
	*va = buf->be->va + ptr.offset;
	return TERN_SUCCESS;
}

/* [a, a + alen) and [b, b + blen) share a byte. */
static bool coll_overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

/*
 * Reduce-scatter and all-gather: a buffer of every rank's piece (@whole)
 * and one of our piece (@piece, @bytes) may be in place, the piece being
 * our rank's part of the whole, but may not overlap otherwise.
 */
static tern_status_t coll_check_pieces(const struct coll_call *call,
				       uint64_t whole, uint64_t piece,
				       uint64_t bytes)
{
	const struct tern_comm *comm = call->comm;

	if (piece != whole + (uint64_t)comm->rank * bytes &&
	    coll_overlap(whole, bytes * (uint64_t)comm->nranks, piece, bytes))
		return TERN_ERROR_INVALID_ARGUMENT;
	return TERN_SUCCESS;
}

static tern_status_t coll_go(struct coll_call *call, enum coll_kind kind,
			     uint64_t count, tern_status_t status)
{
	if (status)
		return status;
	call->op.kind = kind;
	call->op.count = count;
	status = coll_comm_error(call->comm);
	if (status)
		return status;
	if (coll_group_depth())
		return coll_group_add(call->comm, call->stream, &call->op);
	return coll_launch(call->comm, call->stream, &call->op, 1);
}

TERN_API tern_status_t tern_all_reduce(tern_ptr_t send, tern_ptr_t recv,
				       size_t count, tern_dtype_t dtype,
				       tern_redop_t op, tern_comm_t comm,
				       tern_stream_t stream)
{
	struct coll_call call = { 0 };
	tern_status_t status;
	uint64_t bytes;

	status = coll_check(&call, comm, stream, dtype, true, op);
	if (status == TERN_SUCCESS)
		status = coll_check_ptr(&call, send, count, 1, &call.op.send);
	if (status == TERN_SUCCESS)
		status = coll_check_ptr(&call, recv, count, 1, &call.op.recv);
	bytes = (uint64_t)count * call.esize;
	if (status == TERN_SUCCESS && call.op.send != call.op.recv &&
	    coll_overlap(call.op.send, bytes, call.op.recv, bytes))
		status = TERN_ERROR_INVALID_ARGUMENT;
	return coll_go(&call, COLL_ALL_REDUCE, count, status);
}

TERN_API tern_status_t tern_reduce_scatter(tern_ptr_t send, tern_ptr_t recv,
					   size_t recv_count, tern_dtype_t dtype,
					   tern_redop_t op, tern_comm_t comm,
					   tern_stream_t stream)
{
	struct coll_call call = { 0 };
	tern_status_t status;

	status = coll_check(&call, comm, stream, dtype, true, op);
	if (status == TERN_SUCCESS)
		status = coll_check_ptr(&call, send, recv_count,
					(size_t)call.comm->nranks,
					&call.op.send);
	if (status == TERN_SUCCESS)
		status = coll_check_ptr(&call, recv, recv_count, 1,
					&call.op.recv);
	if (status == TERN_SUCCESS)
		status = coll_check_pieces(&call, call.op.send, call.op.recv,
					   (uint64_t)recv_count * call.esize);
	return coll_go(&call, COLL_REDUCE_SCATTER, recv_count, status);
}

TERN_API tern_status_t tern_all_gather(tern_ptr_t send, tern_ptr_t recv,
				       size_t send_count, tern_dtype_t dtype,
				       tern_comm_t comm, tern_stream_t stream)
{
	struct coll_call call = { 0 };
	tern_status_t status;

	status = coll_check(&call, comm, stream, dtype, false, TERN_SUM);
	if (status == TERN_SUCCESS)
		status = coll_check_ptr(&call, send, send_count, 1,
					&call.op.send);
	if (status == TERN_SUCCESS)
		status = coll_check_ptr(&call, recv, send_count,
					(size_t)call.comm->nranks,
					&call.op.recv);
	if (status == TERN_SUCCESS)
		status = coll_check_pieces(&call, call.op.recv, call.op.send,
					   (uint64_t)send_count * call.esize);
	return coll_go(&call, COLL_ALL_GATHER, send_count, status);
}

/* Checks a broadcast (@reduce false) or a reduce. */
static tern_status_t coll_rooted(tern_ptr_t send, tern_ptr_t recv,
				 size_t count, tern_dtype_t dtype,
				 bool reduce, tern_redop_t op, int root,
				 tern_comm_t comm, tern_stream_t stream)
{
	struct coll_call call = { 0 };
	tern_status_t status;
	bool at_root;

	status = coll_check(&call, comm, stream, dtype, reduce, op);
	if (status)
		return status;
	if (root < 0 || root >= call.comm->nranks)
		return TERN_ERROR_INVALID_ARGUMENT;
	at_root = call.comm->rank == root;
	call.op.root = root;
	/* Broadcast reads send only at the root, reduce writes recv only there. */
	if (reduce || at_root)
		status = coll_check_ptr(&call, send, count, 1, &call.op.send);
	if (status == TERN_SUCCESS && (!reduce || at_root))
		status = coll_check_ptr(&call, recv, count, 1, &call.op.recv);
	return coll_go(&call, reduce ? COLL_REDUCE : COLL_BROADCAST, count,
		       status);
}

TERN_API tern_status_t tern_broadcast(tern_ptr_t send, tern_ptr_t recv,
				      size_t count, tern_dtype_t dtype,
				      int root, tern_comm_t comm,
				      tern_stream_t stream)
{
	return coll_rooted(send, recv, count, dtype, false, TERN_SUM, root,
			   comm, stream);
}

TERN_API tern_status_t tern_reduce(tern_ptr_t send, tern_ptr_t recv,
				   size_t count, tern_dtype_t dtype,
				   tern_redop_t op, int root, tern_comm_t comm,
				   tern_stream_t stream)
{
	return coll_rooted(send, recv, count, dtype, true, op, root, comm,
			   stream);
}

TERN_API tern_status_t tern_all_to_all(tern_ptr_t send, tern_ptr_t recv,
				       size_t count_per_rank,
				       tern_dtype_t dtype, tern_comm_t comm,
				       tern_stream_t stream)
{
	struct coll_call call = { 0 };
	tern_status_t status;
	uint64_t total;
	size_t n;

	status = coll_check(&call, comm, stream, dtype, false, TERN_SUM);
	if (status)
		return status;
	n = (size_t)call.comm->nranks;
	status = coll_check_ptr(&call, send, count_per_rank, n, &call.op.send);
	if (status == TERN_SUCCESS)
		status = coll_check_ptr(&call, recv, count_per_rank, n,
					&call.op.recv);
	total = (uint64_t)count_per_rank * call.esize * n;
	/* Pieces would be overwritten before they are sent. */
	if (status == TERN_SUCCESS &&
	    coll_overlap(call.op.send, total, call.op.recv, total))
		status = TERN_ERROR_NOT_SUPPORTED;
	return coll_go(&call, COLL_ALL_TO_ALL, count_per_rank, status);
}

/*
 * Checks a send (@sending) or a recv of @count elements. A rank may name
 * itself only inside a group, where its send meets its recv.
 */
static tern_status_t coll_p2p(tern_ptr_t ptr, size_t count,
			      tern_dtype_t dtype, int peer, bool sending,
			      tern_comm_t comm, tern_stream_t stream)
{
	struct coll_call call = { 0 };
	tern_status_t status;
	uint64_t *va;

	status = coll_check(&call, comm, stream, dtype, false, TERN_SUM);
	if (status)
		return status;
	if (peer < 0 || peer >= call.comm->nranks ||
	    (peer == call.comm->rank && !coll_group_depth()))
		return TERN_ERROR_INVALID_ARGUMENT;
	call.op.root = peer;
	va = sending ? &call.op.send : &call.op.recv;
	status = coll_check_ptr(&call, ptr, count, 1, va);
	return coll_go(&call, sending ? COLL_SEND : COLL_RECV, count, status);
}

TERN_API tern_status_t tern_send(tern_ptr_t send, size_t count,
				 tern_dtype_t dtype, int peer,
				 tern_comm_t comm, tern_stream_t stream)
{
	return coll_p2p(send, count, dtype, peer, true, comm, stream);
}

TERN_API tern_status_t tern_recv(tern_ptr_t recv, size_t count,
				 tern_dtype_t dtype, int peer,
				 tern_comm_t comm, tern_stream_t stream)
{
	return coll_p2p(recv, count, dtype, peer, false, comm, stream);
}

TERN_API tern_status_t tern_comm_split(tern_comm_t comm, int color, int key,
				       tern_comm_t *newcomm)
{
	tern_status_t status;

	if (!newcomm || !coll_comm_valid(comm) ||
	    (color < 0 && color != TERN_SPLIT_NOCOLOR) ||
	    coll_init_timeout_ms() < 0 || coll_cut_ms() < 0)
		return TERN_ERROR_INVALID_ARGUMENT;
	status = coll_comm_error(comm);
	if (status)
		return status;
	/* Only a team's ranks wait for each other in this process. */
	if (comm->team && coll_group_depth())
		return coll_group_add_split(comm, color, key, newcomm);
	return coll_comm_split(comm, color, key, newcomm);
}
