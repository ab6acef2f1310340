// SPDX-License-Identifier: MIT
/*
 * Ring collectives: all-reduce (reduce-scatter then all-gather), all-gather
 * and reduce-scatter.
 *
 * The message is split across the comm's rings (channels). An all-reduce
 * cuts a ring's share into one piece per ring position, and each piece
 * into chunks of at most a slot; block b is chunk b of every piece, its
 * segments named by position. So the sums a reduce-scatter leaves at
 * position q are one piece, in one place, whatever the blocks (as the
 * torus's phases need, torus.c). All-gather and reduce-scatter cut
 * each rank's part into blocks of a slot. Reduce-scatter step s
 * (0..n-1) at position q: step 0 sends segment q-1; steps 1..n-2 take the
 * partial of segment q-1-s from the previous rank, reduce it with our own
 * data straight into the next rank's slot; step n-1 reduces segment q into
 * place. All-gather step t: step 0 sends segment q; later steps take
 * segment q-t, pass it on (but not at the last step) and keep it.
 *
 * A block's steps follow each other, a hop's latency apart: alone, a
 * ring would wait for that latency at every step. So blocks overlap: a
 * block starts when the one before it is halfway through its steps, and
 * each wave of the program takes one step of every block in flight, in
 * block order. A chunk sent at one wave is taken at the next, while the
 * engine does the other block's step in between.
 *
 * Every rank walks (wave, block, ring) in the same order and a chunk sent
 * at a step is taken at the next, one wave later, so each pair of ranks
 * sees its chunks in one order. A rank takes a chunk only after its own
 * send of that step, so a wave must send fewer chunks to any one peer than
 * the slots a sender has there: then a send waits only for a take of an
 * earlier wave, and there is no deadlock. coll_plan_rings() picks the
 * blocks in flight to keep it so (comm->ring_overlap).
 */
#include "coll/fabric/internal.h"

struct coll_seg {
	uint64_t send, recv;		/* addresses of the segment */
	uint64_t len;			/* elements */
};

/* Blocks of ring @c: chunks of its largest piece, or of a rank's part. */
static uint64_t coll_blocks(const struct coll_ring_job *job, int c)
{
	const struct coll_ring_chan *ch = &job->ch[c];
	uint64_t piece = ch->len;

	if (job->kind == RING_ALL_REDUCE)
		piece = (ch->len + (uint64_t)ch->m - 1) / (uint64_t)ch->m;
	if (job->shards)
		piece = ((job->count + (uint64_t)ch->m - 1) / (uint64_t)ch->m +
			 (uint64_t)job->nch - 1) / (uint64_t)job->nch;
	return (piece + job->chunk - 1) / job->chunk;
}

/* Chunk @b of [0, @len): where it starts, and its length (may be 0). */
static uint64_t coll_chunk_of(uint64_t len, uint64_t chunk, uint64_t b,
			      uint64_t *at)
{
	*at = b * chunk;
	if (*at >= len)
		return 0;
	return len - *at < chunk ? len - *at : chunk;
}

static struct coll_seg coll_segment(const struct coll_ring_job *job, int c,
				    uint64_t b, int x)
{
	const struct coll_ring_chan *ch = &job->ch[c];
	const uint64_t es = job->call->esize;
	uint64_t ps, pl, at, rank;
	struct coll_seg seg;

	x = coll_mod(x, ch->m);
	if (job->shards) {
		/* ring @c's part of the shard of the rank at position @x */
		coll_split(job->count, (uint64_t)ch->m, (uint64_t)ch->order[x],
			   &rank, &pl);
		coll_split(pl, (uint64_t)job->nch, (uint64_t)c, &ps, &pl);
		seg.len = coll_chunk_of(pl, job->chunk, b, &at);
		seg.send = ch->send + (rank + ps + at) * es;
		seg.recv = ch->recv + (rank + ps + at) * es;
		return seg;
	}
	if (job->kind == RING_ALL_REDUCE) {
		coll_split(ch->len, (uint64_t)ch->m, (uint64_t)x, &ps, &pl);
		seg.len = coll_chunk_of(pl, job->chunk, b, &at);
		seg.send = ch->send + (ch->start + ps + at) * es;
		seg.recv = ch->recv + (ch->start + ps + at) * es;
		return seg;
	}
	rank = (uint64_t)ch->order[x];
	seg.len = coll_chunk_of(ch->len, job->chunk, b, &at);
	at += ch->start;
	if (job->kind == RING_REDUCE_SCATTER) {
		seg.send = ch->send + (rank * job->count + at) * es;
		seg.recv = ch->recv + at * es;
	} else {
		seg.send = ch->send + at * es;
		seg.recv = ch->recv + (rank * job->count + at) * es;
	}
	return seg;
}

static void coll_rs_step(const struct coll_ring_job *job, int c, uint64_t b,
			 int s)
{
	struct coll_call *call = job->call;
	const struct coll_ring_chan *ch = &job->ch[c];
	const int n = ch->m, q = ch->pos;
	const int next = ch->order[coll_mod(q + 1, n)];
	const int prev = ch->order[coll_mod(q - 1, n)];
	struct coll_seg seg = coll_segment(job, c, b, s == n - 1 ? q : q - 1 - s);
	uint64_t in;

	if (s == 0) {
		coll_send_copy(&call->prog, next, seg.send, seg.len * call->esize);
		return;
	}
	if (seg.len == 0)
		return;
	in = coll_recv_wait(&call->prog, prev);
	if (s < n - 1)
		coll_send_reduce(&call->prog, next, seg.send, in, seg.len,
				 call->op.dtype, call->op.redop);
	else if (ch->final)
		coll_emit_reduce_last(&call->prog, seg.recv, seg.send, in, seg.len,
				 call->op.dtype, call->op.redop);
	else
		coll_emit_reduce(&call->prog, seg.recv, seg.send, in, seg.len,
				 call->op.dtype, call->op.redop);
	coll_recv_done(&call->prog, prev);
}

static void coll_ag_step(const struct coll_ring_job *job, int c, uint64_t b,
			 int t)
{
	struct coll_call *call = job->call;
	const struct coll_ring_chan *ch = &job->ch[c];
	const int n = ch->m, q = ch->pos;
	const int next = ch->order[coll_mod(q + 1, n)];
	const int prev = ch->order[coll_mod(q - 1, n)];
	struct coll_seg seg = coll_segment(job, c, b, q - t);
	const uint64_t bytes = seg.len * call->esize;
	uint64_t in;

	if (t == 0) {
		/* All-reduce passes on its result, all-gather its input. */
		coll_send_copy(&call->prog, next,
			       job->kind == RING_ALL_REDUCE ? seg.recv : seg.send,
			       bytes);
		return;
	}
	if (bytes == 0)
		return;
	in = coll_recv_wait(&call->prog, prev);
	if (t < n - 1)
		coll_send_copy(&call->prog, next, in, bytes);
	coll_emit_copy(&call->prog, seg.recv, in, bytes);
	coll_recv_done(&call->prog, prev);
}

/* Step @k of block @b on every ring: reduce-scatter's, then all-gather's. */
static void coll_ring_step(struct coll_ring_job *job, const uint64_t *blocks,
			   uint64_t b, int k)
{
	const bool rs = job->kind != RING_ALL_GATHER;

	for (int c = 0; c < job->nch; c++) {
		const struct coll_ring_chan *ch = &job->ch[c];
		int kk = ch->first + k;

		if (b >= blocks[c] || k >= ch->steps)
			continue;
		if (rs && kk < ch->m)
			coll_rs_step(job, c, b, kk);
		else
			coll_ag_step(job, c, b, rs ? kk - ch->m : kk);
	}
}

/*
 * Whether @o blocks in flight keep a wave of a phase of @steps waves under
 * COLL_SLOTS chunks to a ring's next rank, for @share parts on a ring of
 * @m that run its steps @first to @first + @ring_steps. A ring of m sends
 * at steps 0..m-2 of each half, so a short ring's last step in each half
 * sends nothing, and more blocks may overlap than round a long one.
 */
bool coll_phase_fits(int steps, int o, int m, int first, int ring_steps,
		     int share)
{
	const int stride = (steps + o - 1) / o;

	for (int k = 0; k < steps; k++) {
		int sends = 0;

		for (int s = k; s >= 0; s -= stride)
			if (s < ring_steps && (first + s) % m != m - 1)
				sends += share;
		if (sends >= (int)COLL_SLOTS)
			return false;
	}
	return true;
}

/* As many blocks in flight as every ring of a torus phase takes. */
static int coll_phase_overlap(const struct coll_ring_job *job)
{
	int steps = 0, o;

	for (int c = 0; c < job->nch; c++)
		if (job->ch[c].steps > steps)
			steps = job->ch[c].steps;
	for (o = (int)COLL_SLOTS; o > 1; o--) {
		bool fits = true;

		for (int c = 0; c < job->nch && fits; c++) {
			const struct coll_ring_chan *ch = &job->ch[c];
			int share = 0;

			for (int d = 0; d < job->nch; d++)
				share += job->ch[d].order == ch->order;
			fits = coll_phase_fits(steps, o, ch->m, ch->first,
					       ch->steps, share);
		}
		if (fits)
			break;
	}
	return o;
}

static void coll_ring_steps(struct coll_ring_job *job)
{
	const uint64_t overlap = (uint64_t)job->overlap;
	uint64_t blocks[COLL_RING_JOB_CHANNELS], most = 0, waves, stride;
	int steps = 0;

	for (int c = 0; c < job->nch; c++) {
		blocks[c] = coll_blocks(job, c);
		if (blocks[c] > most)
			most = blocks[c];
		if (job->ch[c].steps > steps)
			steps = job->ch[c].steps;
	}
	if (!most)
		return;
	/* a block starts this many waves after the one before it */
	stride = ((uint64_t)steps + overlap - 1) / overlap;
	waves = (most - 1) * stride + (uint64_t)steps;
	for (uint64_t w = 0; w < waves; w++) {
		uint64_t first = w >= (uint64_t)steps ?
				 (w - (uint64_t)steps) / stride + 1 : 0;

		for (uint64_t b = first; b < most && b * stride <= w; b++)
			coll_ring_step(job, blocks, b, (int)(w - b * stride));
	}
}

static void coll_ring_run(struct coll_call *call, int nch)
{
	const struct coll_op *op = &call->op;
	const struct tern_comm *comm = call->comm;
	struct coll_ring_job job = {
		.call = call, .count = op->count, .nch = nch,
		.chunk = call->chunk_elems, .overlap = comm->ring_overlap,
	};

	job.kind = op->kind == COLL_ALL_REDUCE ? RING_ALL_REDUCE :
		   op->kind == COLL_REDUCE_SCATTER ? RING_REDUCE_SCATTER :
						     RING_ALL_GATHER;
	for (int c = 0; c < nch; c++) {
		struct coll_ring_chan *ch = &job.ch[c];

		ch->order = comm->ring[c];
		ch->m = comm->nranks;
		ch->pos = comm->pos[c];
		ch->send = op->send;
		ch->recv = op->recv;
		coll_split(op->count, (uint64_t)nch, (uint64_t)c, &ch->start,
			   &ch->len);
		ch->steps = job.kind == RING_ALL_REDUCE ? 2 * ch->m : ch->m;
		ch->final = true;
	}
	coll_ring_steps(&job);
}

void coll_ring_phase(struct coll_ring_job *job)
{
	job->overlap = coll_phase_overlap(job);
	coll_ring_steps(job);
}

void coll_ring_shards(struct coll_call *call, int nch, bool gather)
{
	const struct coll_op *op = &call->op;
	const struct tern_comm *comm = call->comm;
	struct coll_ring_job job = {
		.call = call, .kind = RING_ALL_REDUCE, .count = op->count,
		.nch = nch, .chunk = call->chunk_elems, .shards = true,
	};

	for (int c = 0; c < nch; c++) {
		struct coll_ring_chan *ch = &job.ch[c];

		ch->order = comm->ring[c];
		ch->m = comm->nranks;
		ch->pos = comm->pos[c];
		ch->send = gather ? op->recv : op->send;
		ch->recv = op->recv;
		ch->first = gather ? ch->m : 0;
		ch->steps = ch->m;
		ch->final = false;
	}
	coll_ring_phase(&job);
}

static bool coll_ring_can_run(const struct tern_comm *comm,
			      enum coll_kind kind, uint64_t bytes)
{
	(void)comm;
	(void)bytes;
	return kind == COLL_ALL_REDUCE || kind == COLL_REDUCE_SCATTER ||
	       kind == COLL_ALL_GATHER;
}

/*
 * Blocks of n chunks per ring (one for all-gather and reduce-scatter);
 * 2(n-1) steps each for an all-reduce (n-1 for its halves), every step a
 * hop, blocks overlapping.
 */
static double coll_ring_estimate(const struct tern_comm *comm,
				 enum coll_kind kind, uint64_t bytes)
{
	const int n = comm->nranks;
	const int nch = comm->nchannels > 0 ? comm->nchannels : 1;
	const double hop = coll_ring_hop_ns(comm), link = coll_cost_link(comm);
	const double per_ch = (double)bytes / nch;
	double segs, steps, chunk, blocks, overlap, local;

	segs = kind == COLL_ALL_REDUCE ? n : 1;
	steps = kind == COLL_ALL_REDUCE ? 2.0 * (n - 1) : n - 1;
	chunk = per_ch < segs * COLL_RING_CHUNK_BYTES ?
		coll_div_up(per_ch, segs) : COLL_RING_CHUNK_BYTES;
	blocks = coll_div_up(per_ch, segs * COLL_RING_CHUNK_BYTES);
	overlap = blocks < comm->ring_overlap ? blocks : comm->ring_overlap;
	local = kind == COLL_ALL_GATHER ? 0 : coll_half_local(n, false);
	if (kind != COLL_REDUCE_SCATTER)
		local += coll_half_local(n, true);
	return coll_pipeline_ns(steps, steps, overlap, blocks, chunk, hop,
				link, steps, nch * local);
}

const struct coll_algo coll_algo_ring = {
	.name = "ring",
	.can_run = coll_ring_can_run,
	.estimate = coll_ring_estimate,
	.run = coll_ring_run,
	.rings = true,
};
