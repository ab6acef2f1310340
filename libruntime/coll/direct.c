// SPDX-License-Identifier: MIT
/*
 * The low-latency path: for a message that fits one slot, every rank puts
 * its piece straight into the slot of every rank that needs it (routed over
 * as many hops as it takes) and then combines what it received. One step:
 * each rank waits once per peer, with every peer's data already under way,
 * where a ring would wait 2(n-1) times in sequence. It moves more bytes
 * over the fabric, which for small messages costs less than the steps.
 *
 * Reductions run in rank order on every rank, so every rank gets the same
 * bits; our own piece is staged in our spare slot first when the result
 * overwrites it (in place).
 */
#include "coll.h"

/*
 * dst = src[0] op src[1] op ... op src[n-1]; src[@self] is ours at @own,
 * the others arrive in slots (waited for here and handed back after).
 */
static void coll_direct_fold(struct coll_call *call, uint64_t dst,
			     uint64_t own, uint64_t count)
{
	struct tern_comm *comm = call->comm;
	const int n = comm->nranks;
	uint64_t src[COLL_MAX_RANKS] = { 0 };

	if (own == dst) {
		coll_emit_copy(&call->prog, coll_self_slot(&call->prog), own,
			       count * call->esize);
		own = coll_self_slot(&call->prog);
	}
	for (int p = 0; p < n; p++)
		src[p] = p == comm->rank ? own : coll_recv_wait(&call->prog, p);
	coll_emit_reduce(&call->prog, dst, src[0], src[1], count, call->dtype,
			 call->op);
	for (int p = 2; p < n; p++)
		coll_emit_reduce(&call->prog, dst, dst, src[p], count,
				 call->dtype, call->op);
	for (int p = 0; p < n; p++)
		if (p != comm->rank)
			coll_recv_done(&call->prog, p);
}

static bool coll_fits(const struct coll_call *call, uint64_t count)
{
	return count * call->esize <= COLL_CHUNK_BYTES;
}

bool coll_direct_all_reduce(struct coll_call *call, uint64_t send,
			    uint64_t recv, uint64_t count)
{
	const int n = call->comm->nranks, r = call->comm->rank;

	if (!coll_fits(call, count))
		return false;
	for (int j = 1; j < n; j++)
		coll_send_copy(&call->prog, (r + j) % n, send,
			       count * call->esize);
	coll_direct_fold(call, recv, send, count);
	return true;
}

bool coll_direct_reduce_scatter(struct coll_call *call, uint64_t send,
				uint64_t recv, uint64_t count)
{
	const int n = call->comm->nranks, r = call->comm->rank;
	const uint64_t piece = count * call->esize;

	if (!coll_fits(call, count))
		return false;
	for (int j = 1; j < n; j++) {
		int to = (r + j) % n;

		coll_send_copy(&call->prog, to, send + (uint64_t)to * piece,
			       piece);
	}
	coll_direct_fold(call, recv, send + (uint64_t)r * piece, count);
	return true;
}

bool coll_direct_all_gather(struct coll_call *call, uint64_t send,
			    uint64_t recv, uint64_t count)
{
	const int n = call->comm->nranks, r = call->comm->rank;
	const uint64_t piece = count * call->esize;

	if (!coll_fits(call, count))
		return false;
	for (int j = 1; j < n; j++)
		coll_send_copy(&call->prog, (r + j) % n, send, piece);
	for (int j = 1; j < n; j++) {
		int from = (r + n - j) % n;
		uint64_t in = coll_recv_wait(&call->prog, from);

		coll_emit_copy(&call->prog, recv + (uint64_t)from * piece, in,
			       piece);
		coll_recv_done(&call->prog, from);
	}
	return true;
}

bool coll_direct_rooted(struct coll_call *call, bool reduce, int root,
			uint64_t send, uint64_t recv, uint64_t count)
{
	const int n = call->comm->nranks, r = call->comm->rank;
	const uint64_t bytes = count * call->esize;
	uint64_t in;

	if (!coll_fits(call, count))
		return false;
	if (reduce) {
		if (r != root)
			coll_send_copy(&call->prog, root, send, bytes);
		else
			coll_direct_fold(call, recv, send, count);
		return true;
	}
	if (r == root) {
		for (int j = 1; j < n; j++)
			coll_send_copy(&call->prog, (r + j) % n, send, bytes);
		return true;
	}
	in = coll_recv_wait(&call->prog, root);
	coll_emit_copy(&call->prog, recv, in, bytes);
	coll_recv_done(&call->prog, root);
	return true;
}
