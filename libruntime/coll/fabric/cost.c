// SPDX-License-Identifier: MIT
/*
 * The cost model: what the comm's fabric charges, from its links' own
 * figures (each port's nominal bandwidth and latency, as tern_port_info_t
 * reports them and the timing model charges them), and the least time any
 * schedule of a collective can take on it.
 *
 * Each algorithm's estimate follows its schedule: the steps it takes in
 * sequence, each a latency, a chunk over a link and the packets an engine
 * runs for it, and the bytes it sends in all.
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

/* An engine's cost per packet, as the timing model charges it. */
#define COLL_COST_PACKET_NS	((double)TERN_TIMING_PACKET_NS)

static double coll_min_out(const struct coll_fabric *f, int n)
{
	uint64_t out = UINT64_MAX;

	for (int r = 0; r < n; r++)
		if (f->out[r] < out)
			out = f->out[r];
	return out && out != UINT64_MAX ? (double)out : 1.0;
}

/* The slowest hop of any of the comm's rings. */
static double coll_ring_hop_ns(const struct tern_comm *comm)
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

static double coll_div_up(double a, double b)
{
	double q = a / b;
	double whole = (double)(uint64_t)q;

	return whole < q ? whole + 1 : whole;
}

/*
 * A ring's blocks through @steps steps each, @overlap of them in flight:
 * the first block's @chain steps that send (each a hop, a chunk over the
 * link and the packets), then a block for every turn of the busiest
 * resource: the
 * @steps/@overlap waves between one block's start and the next's, the
 * @sends chunks a block puts on one link, or the @local chunks the steps
 * of a block (on every ring) read and write in the engine's memory.
 */
static double coll_pipeline_ns(double chain, double steps, double overlap,
			       double blocks, double chunk, double hop,
			       double link, double sends, double local)
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

/* Chunks a ring's block reads and writes here in @m steps of one half. */
static double coll_half_local(int m, bool gather)
{
	/*
	 * A step that sends a sum reads two, the one that completes it also
	 * writes one; one that passes a gathered chunk on and keeps it reads
	 * two and writes one, the last only keeps it.
	 */
	return gather ? 3.0 * (m - 1) + 2 : 2.0 * (m - 1) + 3;
}

/*
 * All-reduce by the torus's dimensions (ring.c): parts along one
 * dimension after another, each phase as long as its slowest part, a
 * pipeline of chunks on a ring of the dimension's side with as many
 * blocks in flight as the phase takes.
 */
static double coll_torus_ns(const struct tern_comm *comm, double bytes)
{
	const int dims = comm->dims, parts = coll_torus_parts(comm);
	const double chunk = (double)comm->torus_chunk;
	double total = 0;

	for (int k = 0; k < 2 * dims - 1; k++) {
		/* reduce-scatter by the first D-1, all-reduce, gather back */
		const int at = k < dims ? k : 2 * dims - 2 - k;
		const int steps_of = k == dims - 1 ? 2 : 1;
		double phase = 0;

		for (int p = 0; p < parts; p++) {
			const int d = coll_torus_dim(comm, p, at);
			const int m = comm->side[d];
			const int steps = steps_of * m;
			double piece = bytes / parts, per_pos, c, blocks, ns;
			double local = k < dims - 1 ? coll_half_local(m, false) :
				       k > dims - 1 ? coll_half_local(m, true) :
				       coll_half_local(m, false) +
				       coll_half_local(m, true);
			int o = (int)COLL_SLOTS, share = 0;

			/* the parts on this part's ring, this way round */
			for (int q = 0; q < parts; q++)
				share += coll_torus_dim(comm, q, at) == d &&
					 q % 2 == p % 2;
			for (int j = 0; j < at; j++)
				piece /= comm->side[coll_torus_dim(comm, p, j)];
			per_pos = piece / m;
			c = per_pos < chunk ? per_pos : chunk;
			blocks = coll_div_up(per_pos, chunk);
			while (o > 1 && !coll_phase_fits(steps, o, m,
							 k > dims - 1 ? m : 0,
							 steps, share))
				o--;
			if (blocks < o)
				o = blocks < 1 ? 1 : (int)blocks;
			ns = coll_pipeline_ns(steps_of * (m - 1.0), steps, o,
					      blocks, c,
					      comm->dim_latency_ns[d],
					      (double)comm->dim_bandwidth[d],
					      share * steps_of * (m - 1.0),
					      parts * local);
			if (ns > phase)
				phase = ns;
		}
		total += phase;
	}
	return total;
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
 * The one-step all-reduce a step per dimension (direct.c): each along a
 * ring of the side's ranks, whose busiest directed link carries the pairs
 * of every distance up to half the side one way.
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

double coll_cost_estimate(const struct tern_comm *comm, enum coll_kind kind,
			  enum coll_algo algo, uint64_t bytes)
{
	const struct coll_fabric *f = &comm->fabric;
	const int n = comm->nranks;
	const int nch = comm->nchannels > 0 ? comm->nchannels : 1;
	double far = coll_reach_ns(f, n, -1), hop = coll_ring_hop_ns(comm);
	double link = f->link ? (double)f->link : 1.0, out = coll_min_out(f, n);
	double b = (double)bytes, per_ch, chunk, blocks, step;
	double segs, steps, overlap, local, bytes_ns;

	if (far >= (double)COLL_FAR)
		far = 1e9;
	switch (algo) {
	case COLL_ALGO_DIRECT:
		if (comm->dims && kind == COLL_ALL_REDUCE)
			return coll_direct_lines_ns(comm, b);
		/*
		 * every piece at once: the farthest, the bytes (the more of
		 * the rank's own links or the busiest link's share of every
		 * pair's), then the fold, n-1 reductions one after another
		 * in the engine's memory (three operands each), the packets
		 */
		bytes_ns = (n - 1) * b / out * 1e9;
		if (f->every_pair_s * b * 1e9 > bytes_ns)
			bytes_ns = f->every_pair_s * b * 1e9;
		bytes_ns += 3.0 * (n - 1) * b /
			    (double)TERN_TIMING_MEM_BANDWIDTH * 1e9;
		return far + bytes_ns + 5.0 * (n - 1) * COLL_COST_PACKET_NS;
	case COLL_ALGO_RING:
		/*
		 * Blocks of n chunks per ring (one for all-gather and
		 * reduce-scatter); 2(n-1) steps each for an all-reduce (n-1
		 * for its halves), every step a hop, blocks overlapping.
		 */
		per_ch = b / nch;
		segs = kind == COLL_ALL_REDUCE ? n : 1;
		steps = kind == COLL_ALL_REDUCE ? 2.0 * (n - 1) : n - 1;
		chunk = per_ch < segs * COLL_RING_CHUNK_BYTES ?
			coll_div_up(per_ch, segs) : COLL_RING_CHUNK_BYTES;
		blocks = coll_div_up(per_ch, segs * COLL_RING_CHUNK_BYTES);
		overlap = blocks < comm->ring_overlap ? blocks :
							comm->ring_overlap;
		local = kind == COLL_ALL_GATHER ? 0 : coll_half_local(n, false);
		if (kind != COLL_REDUCE_SCATTER)
			local += coll_half_local(n, true);
		return coll_pipeline_ns(steps, steps, overlap, blocks, chunk, hop,
					link, steps, nch * local);
	case COLL_ALGO_TORUS:
		return coll_torus_ns(comm, b);
	case COLL_ALGO_CHAIN:
		/* n-1 hops to fill the chain, then a chunk per slot's turn */
		per_ch = b / nch;
		chunk = per_ch < COLL_CHUNK_BYTES ? per_ch : COLL_CHUNK_BYTES;
		blocks = coll_div_up(per_ch, COLL_CHUNK_BYTES);
		step = hop + chunk / link * 1e9 + 3 * COLL_COST_PACKET_NS;
		{
			double turn = chunk / link * 1e9 + 3 * COLL_COST_PACKET_NS;
			double credit = (2 * hop + chunk / link * 1e9) / COLL_SLOTS;

			return (n - 1) * step +
			       (blocks - 1) * (turn > credit ? turn : credit);
		}
	case COLL_ALGO_PAIRWISE:
		/* n-1 rounds, each a piece to one peer */
		blocks = coll_div_up(b, COLL_CHUNK_BYTES);
		return (n - 1) * (far + b / link * 1e9 +
				  3 * blocks * COLL_COST_PACKET_NS);
	default:
		return 0;
	}
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
