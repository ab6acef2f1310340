// SPDX-License-Identifier: MIT
/*
 * The cost model: what the comm's fabric charges, from its links' own
 * figures (each port's nominal bandwidth and latency, as tern_port_info_t
 * reports them and the timing model charges them), and the least time any
 * schedule of a collective can take on it.
 *
 * Each algorithm's estimate (in the algorithm's own file) follows its
 * schedule: the steps it takes in sequence, each a latency, a chunk over
 * a link and the packets an engine runs for it, and the bytes it sends in
 * all; the terms it is made of are here.
 *
 * The bound is the alpha-beta one (Documentation/collectives.rst): the
 * bytes every rank must send, over the fewest bytes per second a rank's
 * links to the others carry, plus the latency the farthest pair of ranks
 * needs (the farthest from the root, for broadcast and reduce): no
 * algorithm does better, on any topology.
 */
#include <string.h>

#include "coll/fabric/internal.h"
#include "tern_timing.h"

#define COLL_FAR	UINT32_MAX

static int coll_rank_by_id(const struct coll_node *nodes, int n, int id)
{
	for (int r = 0; r < n; r++)
		if (nodes[r].fabric_id == id)
			return r;
	return -1;
}

/*
 * Routes every pair as the device model does (breadth first, ports in
 * index order: fewest hops, ties to the lower port) and counts the pairs
 * each directed link carries; the busiest over its bandwidth.
 */
static double coll_measure_every_pair(const struct coll_node *nodes, int n)
{
	static _Thread_local uint32_t load[COLL_MAX_RANKS][16];
	double busiest = 0;

	memset(load, 0, sizeof(load));
	for (int a = 0; a < n; a++) {
		int from[COLL_MAX_RANKS], port[COLL_MAX_RANKS];
		int queue[COLL_MAX_RANKS], head = 0, tail = 0;
		bool seen[COLL_MAX_RANKS] = { false };

		seen[a] = true;
		queue[tail++] = a;
		while (head < tail) {
			int d = queue[head++];

			for (uint32_t p = 0; p < nodes[d].port_count && p < 16; p++) {
				int peer = coll_rank_by_id(nodes, n,
							   nodes[d].neighbour[p]);

				if (peer < 0 || seen[peer] || !nodes[d].bandwidth[p])
					continue;
				seen[peer] = true;
				from[peer] = d;
				port[peer] = (int)p;
				queue[tail++] = peer;
			}
		}
		for (int b = 0; b < n; b++)
			for (int at = b; b != a && seen[b] && at != a; at = from[at])
				load[from[at]][port[at]]++;
	}
	for (int a = 0; a < n; a++)
		for (uint32_t p = 0; p < nodes[a].port_count && p < 16; p++)
			if (load[a][p] && nodes[a].bandwidth[p] &&
			    (double)load[a][p] / (double)nodes[a].bandwidth[p] >
			    busiest)
				busiest = (double)load[a][p] /
					  (double)nodes[a].bandwidth[p];
	return busiest;
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
			if (!f->link || nodes[a].bandwidth[p] < f->link)
				f->link = nodes[a].bandwidth[p];
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
	f->every_pair_s = coll_measure_every_pair(nodes, n);
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

/*
 * The least time, in ns, any schedule of @kind over @bytes (the whole
 * message, as tern-bench counts it) can take on the comm's fabric.
 * TERN_ERROR_NO_ROUTE if some rank reaches no other.
 */
static tern_status_t coll_cost_bound(const struct tern_comm *comm,
				     enum coll_kind kind, uint64_t bytes,
				     int root, double *ns)
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

double coll_cost_far_ns(const struct tern_comm *comm)
{
	double far = coll_reach_ns(&comm->fabric, comm->nranks, -1);

	return far >= (double)COLL_FAR ? 1e9 : far;
}

double coll_cost_link(const struct tern_comm *comm)
{
	return comm->fabric.link ? (double)comm->fabric.link : 1.0;
}

double coll_cost_out(const struct tern_comm *comm)
{
	const struct coll_fabric *f = &comm->fabric;
	const int n = comm->nranks;
	uint64_t out = UINT64_MAX;

	for (int r = 0; r < n; r++)
		if (f->out[r] < out)
			out = f->out[r];
	return out && out != UINT64_MAX ? (double)out : 1.0;
}

double coll_ring_hop_ns(const struct tern_comm *comm)
{
	const struct coll_fabric *f = &comm->fabric;
	uint32_t far = 0;

	for (int c = 0; c < comm->nchannels; c++)
		for (int i = 0; i < comm->nranks; i++) {
			int a = comm->ring[c][i];
			int b = comm->ring[c][(i + 1) % comm->nranks];

			if (f->latency_ns[a][b] > far)
				far = f->latency_ns[a][b];
		}
	return far == COLL_FAR ? 1e9 : (double)far;
}

double coll_div_up(double a, double b)
{
	double q = a / b;
	double whole = (double)(uint64_t)q;

	return whole < q ? whole + 1 : whole;
}

double coll_pipeline_ns(double chain, double steps, double overlap,
			double blocks, double chunk, double hop, double link,
			double sends, double local)
{
	double step = hop + chunk / link * 1e9 + 3 * COLL_COST_PACKET_NS;
	double turn = coll_div_up(steps, overlap) * step;
	double on_link = sends * chunk / link * 1e9;
	double in_memory = local * chunk /
			   (double)TERN_TIMING_MEM_BANDWIDTH * 1e9;

	if (on_link > turn)
		turn = on_link;
	if (in_memory > turn)
		turn = in_memory;
	return chain * step + (blocks - 1) * turn;
}

double coll_half_local(int m, bool gather)
{
	/*
	 * A step that sends a sum reads two, the one that completes it also
	 * writes one; one that passes a gathered chunk on and keeps it reads
	 * two and writes one, the last only keeps it. And the m - 1 chunks
	 * the rank before sends land here: a device's memory serves its
	 * peers' writes too.
	 */
	return (gather ? 3.0 * (m - 1) + 2 : 2.0 * (m - 1) + 3) + (m - 1);
}

TERN_API tern_status_t tern_comm_lower_bound(tern_comm_t comm,
					     tern_collective_t coll,
					     size_t bytes, int root, double *us)
{
	enum coll_kind kind;
	tern_status_t status;
	double ns;

	if (!us || !coll_comm_valid(comm) || !coll_public_kind(coll, &kind))
		return TERN_ERROR_INVALID_ARGUMENT;
	if (comm->hosts) {
		tern_set_last_error("the cost model does not yet take in the network between hosts");
		return TERN_ERROR_NOT_SUPPORTED;
	}
	if ((kind == COLL_BROADCAST || kind == COLL_REDUCE) &&
	    (root < 0 || root >= comm->nranks))
		return TERN_ERROR_INVALID_ARGUMENT;
	status = coll_cost_bound(comm, kind, bytes, root, &ns);
	*us = status == TERN_SUCCESS ? ns / 1000.0 : 0;
	return status;
}
