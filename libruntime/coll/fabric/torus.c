// SPDX-License-Identifier: MIT
/*
 * All-reduce by the dimensions of a torus (topo.c found its grid): each
 * rank's message in a part on each of the rings through it, +1 and -1
 * along each dimension, reduce-scattered along all but the last
 * dimension, all-reduced along the last and gathered back, phase by
 * phase as ring jobs (ring.c). Fewer steps than round the whole torus
 * for the same bytes; where the last dimension is the slow one (the
 * UltraServer's instances), the all-reduce between them goes last, on
 * what is left of a plane's share.
 */
#include "coll/fabric/internal.h"

/* The torus's rings through us: +1 and -1 along each dimension. */
struct coll_torus_rings {
	int order[COLL_TORUS_PARTS][COLL_MAX_RANKS];
	int m[COLL_TORUS_PARTS], pos[COLL_TORUS_PARTS];
};

static void coll_torus_rings(const struct tern_comm *comm,
			     struct coll_torus_rings *t)
{
	/*
	 * The members of a ring must agree on its order (a segment is named
	 * by position): along the dimension from index 0, and reversed as
	 * coll_plan_rings reverses.
	 */
	for (int d = 0; d < comm->dims; d++) {
		const int m = coll_grid_line(comm, d, t->order[2 * d]);
		int at = 0;

		for (int i = 0; i < m; i++) {
			t->order[2 * d + 1][i] = t->order[2 * d][(m - i) % m];
			if (t->order[2 * d][i] == comm->rank)
				at = i;
		}
		t->m[2 * d] = t->m[2 * d + 1] = m;
		t->pos[2 * d] = at;
		t->pos[2 * d + 1] = (m - at) % m;
	}
}

/* Ring @r of @t as channel @ch of a job over elements [@start, +@len). */
static void coll_torus_chan(struct coll_ring_chan *ch,
			    const struct coll_torus_rings *t, int r,
			    uint64_t send, uint64_t recv, uint64_t start,
			    uint64_t len)
{
	ch->order = t->order[r];
	ch->m = t->m[r];
	ch->pos = t->pos[r];
	ch->send = send;
	ch->recv = recv;
	ch->start = start;
	ch->len = len;
}

/*
 * All-reduce by dimensions on a torus of D dimensions: a part of the
 * message on each of the 2D rings through us (+1 and -1 along each
 * dimension). Part p takes the dimensions in turn from its own (d, d+1,
 * ...): it is reduce-scattered along the first D-1, each narrowing it to
 * the piece the ring leaves us, all-reduced along the last, and gathered
 * back along the first D-1 in reverse. In every phase each part is on a
 * ring of its own, so every directed link carries one part. Steps: twice
 * the sum of (side - 1), against 2(n-1) round the whole torus, for the
 * same bytes: 12 on a 4x4 torus (30 round it), 18 on a 4x4x4 (126).
 * Within a phase blocks overlap as round the comm's rings; as each
 * directed link carries one part, a wave sends a peer a chunk per block
 * in flight.
 */
static void coll_torus_run(struct coll_call *call, int nch)
{
	const struct tern_comm *comm = call->comm;
	const struct coll_op *op = &call->op;
	const int dims = comm->dims, parts = coll_torus_parts(comm);
	struct coll_ring_job job = {
		.call = call, .kind = RING_ALL_REDUCE, .nch = parts,
		.chunk = comm->torus_chunk / call->esize,
	};
	uint64_t start[COLL_TORUS_PARTS][COLL_TORUS_DIMS];
	uint64_t len[COLL_TORUS_PARTS][COLL_TORUS_DIMS];
	struct coll_torus_rings t;

	(void)nch;	/* a ring a part, not the comm's rings */
	coll_torus_rings(comm, &t);
	for (int p = 0; p < parts; p++)
		coll_split(op->count, (uint64_t)parts, (uint64_t)p, &start[p][0],
			   &len[p][0]);
	/* phase k of part p runs on its dimension's ring, p's way */
#define COLL_TORUS_RING(p, k)	(2 * coll_torus_dim(comm, p, k) + (p) % 2)
	/* Reduce-scatter along the first D-1: partial sums, narrowing. */
	for (int k = 0; k < dims - 1; k++) {
		for (int p = 0; p < parts; p++) {
			const int r = COLL_TORUS_RING(p, k);
			uint64_t ss, sl;

			coll_torus_chan(&job.ch[p], &t, r,
					k ? op->recv : op->send, op->recv,
					start[p][k], len[p][k]);
			job.ch[p].first = 0;
			job.ch[p].steps = t.m[r];
			job.ch[p].final = false;
			coll_split(len[p][k], (uint64_t)t.m[r],
				   (uint64_t)t.pos[r], &ss, &sl);
			start[p][k + 1] = start[p][k] + ss;
			len[p][k + 1] = sl;
		}
		coll_ring_phase(&job);
	}
	/* All-reduce what is left along the last. */
	for (int p = 0; p < parts; p++) {
		const int r = COLL_TORUS_RING(p, dims - 1);

		coll_torus_chan(&job.ch[p], &t, r, op->recv, op->recv,
				start[p][dims - 1], len[p][dims - 1]);
		job.ch[p].first = 0;
		job.ch[p].steps = 2 * t.m[r];
		job.ch[p].final = true;
	}
	coll_ring_phase(&job);
	/* Gather back along the first D-1, in reverse. */
	for (int k = dims - 2; k >= 0; k--) {
		for (int p = 0; p < parts; p++) {
			const int r = COLL_TORUS_RING(p, k);

			coll_torus_chan(&job.ch[p], &t, r, op->recv, op->recv,
					start[p][k], len[p][k]);
			job.ch[p].first = t.m[r];
			job.ch[p].steps = t.m[r];
		}
		coll_ring_phase(&job);
	}
#undef COLL_TORUS_RING
}

static bool coll_torus_can_run(const struct tern_comm *comm,
			       enum coll_kind kind, uint64_t bytes)
{
	(void)bytes;
	return kind == COLL_ALL_REDUCE && comm->torus_chunk;
}

/*
 * Parts along one dimension after another, each phase as long as its
 * slowest part, a pipeline of chunks on a ring of the dimension's side
 * with as many blocks in flight as the phase takes.
 */
static double coll_torus_estimate(const struct tern_comm *comm,
				  enum coll_kind kind, uint64_t call_bytes)
{
	const double bytes = (double)call_bytes;
	const int dims = comm->dims, parts = coll_torus_parts(comm);
	const double chunk = (double)comm->torus_chunk;
	double total = 0;

	(void)kind;	/* all-reduce alone */

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

const struct coll_algo coll_algo_torus = {
	.name = "torus",
	.can_run = coll_torus_can_run,
	.estimate = coll_torus_estimate,
	.run = coll_torus_run,
};
