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
#include "coll/fabric/internal.h"

/*
 * dst = src[0] op src[1] op ... op src[m-1] over the @m ranks of @group in
 * its order; ours is at @own, the others arrive in slots (waited for here
 * and handed back after). @last: this fold completes the result (an
 * average divides here).
 */
static void coll_group_fold(struct coll_call *call, const int *group, int m,
			    uint64_t dst, uint64_t own, uint64_t count,
			    bool last)
{
	struct tern_comm *comm = call->comm;
	uint64_t src[COLL_MAX_RANKS] = { 0 };

	if (own == dst) {
		coll_emit_copy(&call->prog, coll_self_slot(&call->prog), own,
			       count * call->esize);
		own = coll_self_slot(&call->prog);
	}
	for (int i = 0; i < m; i++)
		src[i] = group[i] == comm->rank ? own :
			 coll_recv_wait(&call->prog, group[i]);
	for (int i = 1; i < m; i++) {
		uint64_t acc = i == 1 ? src[0] : dst;

		if (i < m - 1 || !last)
			coll_emit_reduce(&call->prog, dst, acc, src[i], count,
					 call->op.dtype, call->op.redop);
		else
			coll_emit_reduce_last(&call->prog, dst, acc, src[i],
					      count, call->op.dtype,
					      call->op.redop);
	}
	for (int i = 0; i < m; i++)
		if (group[i] != comm->rank)
			coll_recv_done(&call->prog, group[i]);
}

/* The fold over every rank, in rank order. */
static void coll_direct_fold(struct coll_call *call, uint64_t dst,
			     uint64_t own, uint64_t count)
{
	int all[COLL_MAX_RANKS];

	for (int r = 0; r < call->comm->nranks; r++)
		all[r] = r;
	coll_group_fold(call, all, call->comm->nranks, dst, own, count, true);
}

/* @src to every other rank of @group, then the fold over it into @dst. */
static void coll_group_all_reduce(struct coll_call *call, const int *group,
				  int m, uint64_t src, uint64_t dst, bool last)
{
	const uint64_t count = call->op.count;

	for (int i = 0; i < m; i++)
		if (group[i] != call->comm->rank)
			coll_send_copy(&call->prog, group[i], src,
				       count * call->esize);
	coll_group_fold(call, group, m, dst, src, count, last);
}

/*
 * On a torus, a step per dimension, along the line through us: the same
 * farthest latency as one step over all (the sum of each line's), but
 * the sides' peers instead of all n, so fewer packets and bytes (on a
 * 4x4, 6 peers instead of 15; on the UltraServer 9 instead of 63, 3 of
 * them over the slow links). Every rank of a line folds the same sums in
 * the same order, so all get the same bits.
 */
static void coll_direct_all_reduce(struct coll_call *call)
{
	const struct tern_comm *comm = call->comm;
	const struct coll_op *op = &call->op;
	const int n = comm->nranks, r = comm->rank;
	int group[COLL_MAX_RANKS], m;

	if (comm->dims) {
		for (int d = 0; d < comm->dims; d++) {
			m = coll_grid_line(comm, d, group);
			coll_group_all_reduce(call, group, m,
					      d ? op->recv : op->send, op->recv,
					      d == comm->dims - 1);
		}
		return;
	}
	for (int j = 1; j < n; j++)
		coll_send_copy(&call->prog, (r + j) % n, op->send,
			       op->count * call->esize);
	coll_direct_fold(call, op->recv, op->send, op->count);
}

static void coll_direct_reduce_scatter(struct coll_call *call)
{
	const struct coll_op *op = &call->op;
	const int n = call->comm->nranks, r = call->comm->rank;
	const uint64_t piece = op->count * call->esize;

	for (int j = 1; j < n; j++) {
		int to = (r + j) % n;

		coll_send_copy(&call->prog, to, op->send + (uint64_t)to * piece,
			       piece);
	}
	coll_direct_fold(call, op->recv, op->send + (uint64_t)r * piece,
			 op->count);
}

static void coll_direct_all_gather(struct coll_call *call)
{
	const struct coll_op *op = &call->op;
	const int n = call->comm->nranks, r = call->comm->rank;
	const uint64_t piece = op->count * call->esize;

	for (int j = 1; j < n; j++)
		coll_send_copy(&call->prog, (r + j) % n, op->send, piece);
	for (int j = 1; j < n; j++) {
		int from = (r + n - j) % n;
		uint64_t in = coll_recv_wait(&call->prog, from);

		coll_emit_copy(&call->prog, op->recv + (uint64_t)from * piece,
			       in, piece);
		coll_recv_done(&call->prog, from);
	}
}

static void coll_direct_rooted(struct coll_call *call)
{
	const struct coll_op *op = &call->op;
	const int n = call->comm->nranks, r = call->comm->rank;
	const uint64_t bytes = op->count * call->esize;
	uint64_t in;

	if (op->kind == COLL_REDUCE) {
		if (r != op->root)
			coll_send_copy(&call->prog, op->root, op->send, bytes);
		else
			coll_direct_fold(call, op->recv, op->send, op->count);
		return;
	}
	if (r == op->root) {
		for (int j = 1; j < n; j++)
			coll_send_copy(&call->prog, (r + j) % n, op->send,
				       bytes);
		return;
	}
	in = coll_recv_wait(&call->prog, op->root);
	coll_emit_copy(&call->prog, op->recv, in, bytes);
	coll_recv_done(&call->prog, op->root);
}

static void coll_direct_run(struct coll_call *call, int nch)
{
	(void)nch;	/* every piece straight to its rank: no rings */
	switch (call->op.kind) {
	case COLL_ALL_REDUCE:
		coll_direct_all_reduce(call);
		break;
	case COLL_REDUCE_SCATTER:
		coll_direct_reduce_scatter(call);
		break;
	case COLL_ALL_GATHER:
		coll_direct_all_gather(call);
		break;
	default:
		coll_direct_rooted(call);
		break;
	}
}

static bool coll_direct_can_run(const struct tern_comm *comm,
				enum coll_kind kind, uint64_t bytes)
{
	(void)comm;
	return kind != COLL_ALL_TO_ALL && bytes <= COLL_CHUNK_BYTES;
}

/*
 * One step of the one-step path among @m ranks of @group: the farthest
 * of them, the bytes over the rank's links there (@out) or the busiest
 * link's share of every pair's (@every_pair_s), the fold, the packets.
 */
static double coll_direct_step_ns(const struct tern_comm *comm,
				  const int *group, int m, double bytes,
				  double out, double every_pair_s)
{
	double far = 0, ns = (m - 1) * bytes / out * 1e9;

	for (int i = 0; i < m; i++)
		for (int j = 0; j < m; j++)
			if (comm->fabric.latency_ns[group[i]][group[j]] > far)
				far = comm->fabric.latency_ns[group[i]][group[j]];
	if (every_pair_s * bytes * 1e9 > ns)
		ns = every_pair_s * bytes * 1e9;
	ns += 3.0 * (m - 1) * bytes / (double)TERN_TIMING_MEM_BANDWIDTH * 1e9;
	return far + ns + 5.0 * (m - 1) * COLL_COST_PACKET_NS;
}

/*
 * The one-step all-reduce a step per dimension: each along a ring of the
 * side's ranks, whose busiest directed link carries the pairs of every
 * distance up to half the side one way.
 */
static double coll_direct_lines_ns(const struct tern_comm *comm,
				   double bytes)
{
	int group[COLL_MAX_RANKS];
	double ns = 0;

	for (int d = 0; d < comm->dims; d++) {
		const int m = coll_grid_line(comm, d, group), half = m / 2;
		const double link = (double)comm->dim_bandwidth[d];

		ns += coll_direct_step_ns(comm, group, m, bytes, 2.0 * link,
					  half * (half + 1) / 2 / link);
	}
	return ns;
}

static double coll_direct_estimate(const struct tern_comm *comm,
				   enum coll_kind kind, uint64_t bytes)
{
	const int n = comm->nranks;
	const double b = (double)bytes, out = coll_cost_out(comm);
	double bytes_ns;

	if (comm->dims && kind == COLL_ALL_REDUCE)
		return coll_direct_lines_ns(comm, b);
	/*
	 * every piece at once: the farthest, the bytes (the more of the
	 * rank's own links or the busiest link's share of every pair's),
	 * then the fold, n-1 reductions one after another in the engine's
	 * memory (three operands each), the packets
	 */
	bytes_ns = (n - 1) * b / out * 1e9;
	if (comm->fabric.every_pair_s * b * 1e9 > bytes_ns)
		bytes_ns = comm->fabric.every_pair_s * b * 1e9;
	bytes_ns += 3.0 * (n - 1) * b / (double)TERN_TIMING_MEM_BANDWIDTH * 1e9;
	return coll_cost_far_ns(comm) + bytes_ns +
	       5.0 * (n - 1) * COLL_COST_PACKET_NS;
}

const struct coll_algo coll_algo_direct = {
	.name = "direct",
	.can_run = coll_direct_can_run,
	.estimate = coll_direct_estimate,
	.run = coll_direct_run,
};
