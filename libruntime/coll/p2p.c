// SPDX-License-Identifier: MIT
/*
 * Point to point: send, recv and all-to-all, chunk by chunk through the
 * receiver's slots for the sender. Routes may take several hops; the
 * fabric forwards them.
 *
 * All-to-all runs n-1 rounds: in round j every rank sends to rank + j and
 * takes from rank - j, so each pair's chunks come in one order and a
 * rank's wait in round j only needs sends of round j.
 */
#include "coll.h"

static uint64_t coll_chunk_len(uint64_t bytes, uint64_t j)
{
	uint64_t left = bytes - j * COLL_CHUNK_BYTES;

	return left < COLL_CHUNK_BYTES ? left : COLL_CHUNK_BYTES;
}

static void coll_take(struct coll_call *call, int peer, uint64_t dst,
		      uint64_t bytes)
{
	uint64_t in = coll_recv_wait(&call->prog, peer);

	coll_emit_copy(&call->prog, dst, in, bytes);
	coll_recv_done(&call->prog, peer);
}

TERN_API tern_status_t tern_all_to_all(tern_ptr_t send, tern_ptr_t recv,
				       size_t count_per_rank,
				       tern_dtype_t dtype, tern_comm_t comm,
				       tern_stream_t stream)
{
	struct coll_call call;
	uint64_t src, dst, piece, total, chunks;
	tern_status_t status;
	int n, r;

	status = coll_call_begin(&call, comm, stream, dtype, false, TERN_SUM);
	if (status)
		return status;
	n = call.comm->nranks;
	r = call.comm->rank;
	status = coll_call_ptr(&call, send, count_per_rank, (size_t)n, &src);
	if (status == TERN_SUCCESS)
		status = coll_call_ptr(&call, recv, count_per_rank, (size_t)n,
				       &dst);
	piece = (uint64_t)count_per_rank * call.esize;
	total = piece * (uint64_t)n;
	/* Pieces would be overwritten before they are sent. */
	if (status == TERN_SUCCESS && total && src < dst + total &&
	    dst < src + total)
		status = TERN_ERROR_NOT_SUPPORTED;
	if (status || !total)
		return coll_call_end(&call, status);
	coll_emit_copy(&call.prog, dst + (uint64_t)r * piece,
		       src + (uint64_t)r * piece, piece);
	chunks = (piece + COLL_CHUNK_BYTES - 1) / COLL_CHUNK_BYTES;
	for (int j = 1; j < n; j++) {
		int to = coll_mod(r + j, n), from = coll_mod(r - j, n);

		for (uint64_t k = 0; k < chunks; k++) {
			uint64_t at = k * COLL_CHUNK_BYTES;
			uint64_t len = coll_chunk_len(piece, k);

			coll_send_copy(&call.prog, to,
				       src + (uint64_t)to * piece + at, len);
			coll_take(&call, from, dst + (uint64_t)from * piece + at,
				  len);
		}
	}
	return coll_call_end(&call, status);
}

/* Checks and runs a send (@sending) or a recv of @count elements. */
static tern_status_t coll_p2p(tern_ptr_t ptr, size_t count,
			      tern_dtype_t dtype, int peer, bool sending,
			      tern_comm_t comm, tern_stream_t stream)
{
	struct coll_call call;
	uint64_t va, bytes;
	tern_status_t status;

	status = coll_call_begin(&call, comm, stream, dtype, false, TERN_SUM);
	if (status)
		return status;
	if (peer < 0 || peer >= call.comm->nranks || peer == call.comm->rank)
		status = TERN_ERROR_INVALID_ARGUMENT;
	if (status == TERN_SUCCESS)
		status = coll_call_ptr(&call, ptr, count, 1, &va);
	bytes = (uint64_t)count * call.esize;
	for (uint64_t at = 0; status == TERN_SUCCESS && at < bytes;
	     at += COLL_CHUNK_BYTES) {
		uint64_t len = coll_chunk_len(bytes, at / COLL_CHUNK_BYTES);

		if (sending)
			coll_send_copy(&call.prog, peer, va + at, len);
		else
			coll_take(&call, peer, va + at, len);
	}
	return coll_call_end(&call, status);
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
