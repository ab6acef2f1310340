// SPDX-License-Identifier: MIT
/*
 * The cost model: what the comm's fabric charges, from its links' own
 * figures (each port's nominal bandwidth and latency, as tern_port_info_t
 * reports them and the timing model charges them), and the least time any
 * schedule of a collective can take on it.
 *
 * The bound is the alpha-beta one (Documentation/collectives.rst): the
 * bytes every rank must send, over the fewest bytes per second a rank's
 * links to the others carry, plus the latency the farthest pair of ranks
 * needs (the farthest from the root, for broadcast and reduce): no
 * algorithm does better, on any topology.
 */
#include <string.h>

#include "coll.h"

#define COLL_FAR	UINT32_MAX

static int coll_rank_by_id(const struct coll_node *nodes, int n, int id)
{
	for (int r = 0; r < n; r++)
		if (nodes[r].fabric_id == id)
			return r;
	return -1;
}

void coll_measure_fabric(struct tern_comm *comm, const struct coll_node *nodes)
{
	struct coll_fabric *f = &comm->fabric;
	const int n = comm->nranks;

	memset(f, 0, sizeof(*f));
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++)
			f->latency_ns[a][b] = a == b ? 0 : COLL_FAR;
	for (int a = 0; a < n; a++) {
		for (uint32_t p = 0; p < nodes[a].port_count; p++) {
			int b = coll_rank_by_id(nodes, n, nodes[a].neighbour[p]);

			if (b < 0 || b == a || !nodes[a].bandwidth[p])
				continue;
			f->out[a] += nodes[a].bandwidth[p];
			if (nodes[a].latency_ns[p] < f->latency_ns[a][b])
				f->latency_ns[a][b] = nodes[a].latency_ns[p];
		}
	}
	/* Least latency between every pair, over the comm's own links. */
	for (int k = 0; k < n; k++)
		for (int a = 0; a < n; a++)
			for (int b = 0; b < n; b++) {
				uint64_t via = (uint64_t)f->latency_ns[a][k] +
					       f->latency_ns[k][b];

				if (via < f->latency_ns[a][b])
					f->latency_ns[a][b] = (uint32_t)via;
			}
}

/* The farthest any rank is from @from (all ranks: @from < 0). */
static uint32_t coll_reach_ns(const struct coll_fabric *f, int n, int from)
{
	uint32_t far = 0;

	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++)
			if ((from < 0 || a == from) && f->latency_ns[a][b] > far)
				far = f->latency_ns[a][b];
	return far;
}

/* The share of the message the busiest rank must send. */
static double coll_bytes_factor(enum coll_kind kind, int n)
{
	switch (kind) {
	case COLL_ALL_REDUCE:
		return 2.0 * (n - 1) / n;
	case COLL_REDUCE_SCATTER:
	case COLL_ALL_GATHER:
	case COLL_ALL_TO_ALL:
		return (double)(n - 1) / n;
	default:
		return 1.0;
	}
}

tern_status_t coll_cost_bound(const struct tern_comm *comm,
			      enum coll_kind kind, uint64_t bytes, int root,
			      double *ns)
{
	const struct coll_fabric *f = &comm->fabric;
	const int n = comm->nranks;
	bool rooted = kind == COLL_BROADCAST || kind == COLL_REDUCE;
	uint64_t out = UINT64_MAX;
	uint32_t reach;

	*ns = 0;
	if (n == 1 || bytes == 0)
		return TERN_SUCCESS;
	/* every rank sends its share, the root alone the whole of it */
	for (int r = 0; r < n; r++)
		if ((!rooted || r == root) && f->out[r] < out)
			out = f->out[r];
	reach = coll_reach_ns(f, n, rooted ? root : -1);
	if (!out || reach == COLL_FAR)
		return TERN_ERROR_NO_ROUTE;
	*ns = coll_bytes_factor(kind, n) * (double)bytes / (double)out * 1e9 +
	      reach;
	return TERN_SUCCESS;
}

TERN_API tern_status_t tern_comm_lower_bound(tern_comm_t comm,
					     tern_collective_t coll,
					     size_t bytes, int root, double *us)
{
	static const enum coll_kind kinds[] = {
		[TERN_COLL_ALL_REDUCE] = COLL_ALL_REDUCE,
		[TERN_COLL_REDUCE_SCATTER] = COLL_REDUCE_SCATTER,
		[TERN_COLL_ALL_GATHER] = COLL_ALL_GATHER,
		[TERN_COLL_BROADCAST] = COLL_BROADCAST,
		[TERN_COLL_REDUCE] = COLL_REDUCE,
		[TERN_COLL_ALL_TO_ALL] = COLL_ALL_TO_ALL,
	};
	enum coll_kind kind;
	tern_status_t status;
	double ns;

	if (!us || !coll_comm_valid(comm) ||
	    (unsigned int)coll >= sizeof(kinds) / sizeof(kinds[0]))
		return TERN_ERROR_INVALID_ARGUMENT;
	kind = kinds[coll];
	if ((kind == COLL_BROADCAST || kind == COLL_REDUCE) &&
	    (root < 0 || root >= comm->nranks))
		return TERN_ERROR_INVALID_ARGUMENT;
	status = coll_cost_bound(comm, kind, bytes, root, &ns);
	*us = status == TERN_SUCCESS ? ns / 1000.0 : 0;
	return status;
}
