// SPDX-License-Identifier: MIT
/*
 * Ring collectives: all-reduce (reduce-scatter then all-gather), all-gather
 * and reduce-scatter.
 *
 * The message is split across the comm's rings (channels) and, within a
 * ring, into blocks; a block is cut into one segment per rank, at most a
 * slot each. Segments are named by ring position. Reduce-scatter step s
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
#include "coll.h"

enum coll_ring_kind { RING_ALL_REDUCE, RING_REDUCE_SCATTER, RING_ALL_GATHER };

/* One ring of a job: its members, its share of the data, its steps. */
struct coll_ring_chan {
	const int *order;		/* ranks by position */
	int m, pos;			/* members, and our position */
	uint64_t send, recv;		/* device addresses of the data */
	uint64_t start, len;		/* elements: all-reduce's range; else per rank */
	int first, steps;		/* the kind's steps it runs */
	bool final;			/* its reduce-scatter completes the sums */
};

struct coll_ring_job {
	struct coll_call *call;
	enum coll_ring_kind kind;
	uint64_t count;			/* reduce-scatter, all-gather: per rank */
	int nch;
	struct coll_ring_chan ch[COLL_MAX_CHANNELS];
};

struct coll_seg {
	uint64_t send, recv;		/* addresses of the segment */
	uint64_t len;			/* elements */
};

/* Elements per block of ring @c, and its blocks. */
static uint64_t coll_blocks(const struct coll_ring_job *job, int c,
			    uint64_t *block)
{
	const struct coll_ring_chan *ch = &job->ch[c];

	*block = job->call->chunk_elems;
	if (job->kind == RING_ALL_REDUCE)
		*block *= (uint64_t)ch->m;
	return (ch->len + *block - 1) / *block;
}

static struct coll_seg coll_segment(const struct coll_ring_job *job, int c,
				    uint64_t b, int x)
{
	const struct coll_ring_chan *ch = &job->ch[c];
	const uint64_t es = job->call->esize;
	uint64_t bsize, bstart, blen, ss, sl, rank;
	struct coll_seg seg;

	coll_blocks(job, c, &bsize);
	bstart = ch->start + b * bsize;
	blen = ch->len - b * bsize < bsize ? ch->len - b * bsize : bsize;
	x = coll_mod(x, ch->m);
	if (job->kind == RING_ALL_REDUCE) {
		coll_split(blen, (uint64_t)ch->m, (uint64_t)x, &ss, &sl);
		seg.send = ch->send + (bstart + ss) * es;
		seg.recv = ch->recv + (bstart + ss) * es;
		seg.len = sl;
		return seg;
	}
	rank = (uint64_t)ch->order[x];
	seg.len = blen;
	if (job->kind == RING_REDUCE_SCATTER) {
		seg.send = ch->send + (rank * job->count + bstart) * es;
		seg.recv = ch->recv + bstart * es;
	} else {
		seg.send = ch->send + bstart * es;
		seg.recv = ch->recv + (rank * job->count + bstart) * es;
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

static void coll_ring_steps(struct coll_ring_job *job)
{
	const uint64_t overlap = (uint64_t)job->call->comm->ring_overlap;
	uint64_t blocks[COLL_MAX_CHANNELS], most = 0, bsize, waves, stride;
	int steps = 0;

	for (int c = 0; c < job->nch; c++) {
		blocks[c] = coll_blocks(job, c, &bsize);
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

void coll_ring_run(struct coll_call *call, int nch)
{
	const struct coll_op *op = &call->op;
	const struct tern_comm *comm = call->comm;
	struct coll_ring_job job = { .call = call, .count = op->count, .nch = nch };

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

/* The torus's four rings through us: east, west, south, north. */
struct coll_torus_rings {
	int order[4][COLL_MAX_RANKS];
	int m[4], pos[4];
};

static void coll_torus_rings(const struct tern_comm *comm,
			     struct coll_torus_rings *t)
{
	const int rows = comm->grid_rows, cols = comm->grid_cols;
	int x = 0, y = 0;

	for (int i = 0; i < rows * cols; i++)
		if (comm->grid[i] == comm->rank) {
			y = i / cols;
			x = i % cols;
		}
	t->m[0] = t->m[1] = cols;
	t->m[2] = t->m[3] = rows;
	/*
	 * The members of a ring must agree on its order (a segment is named
	 * by position): the row or column from its first rank, and reversed
	 * as coll_plan_rings reverses.
	 */
	for (int i = 0; i < cols; i++) {
		t->order[0][i] = comm->grid[y * cols + i];
		t->order[1][i] = comm->grid[y * cols + (cols - i) % cols];
	}
	for (int i = 0; i < rows; i++) {
		t->order[2][i] = comm->grid[i * cols + x];
		t->order[3][i] = comm->grid[((rows - i) % rows) * cols + x];
	}
	t->pos[0] = x;
	t->pos[1] = (cols - x) % cols;
	t->pos[2] = y;
	t->pos[3] = (rows - y) % rows;
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
 * All-reduce by dimensions on a torus: a quarter of the message on each
 * of the four rings through us (east, west, south, north). Each quarter
 * is reduce-scattered along its ring, the piece it leaves us all-reduced
 * along the ring across (east's along south, and so on: every directed
 * link carries one quarter in every phase), and gathered back along the
 * first. 2(cols-1) + 2(rows-1) steps, against 2(n-1) round the whole
 * torus, for the same bytes. One block a ring: the tuner keeps it to
 * quarters of at most a ring chunk a member.
 */
void coll_torus_run(struct coll_call *call)
{
	static const int across[4] = { 2, 3, 0, 1 };
	const struct coll_op *op = &call->op;
	struct coll_ring_job job = { .call = call, .kind = RING_ALL_REDUCE,
				     .nch = 4 };
	struct coll_torus_rings t;
	uint64_t start[4], len[4];

	coll_torus_rings(call->comm, &t);
	for (int r = 0; r < 4; r++)
		coll_split(op->count, 4, (uint64_t)r, &start[r], &len[r]);
	/* Reduce-scatter each quarter along its ring: partial sums. */
	for (int r = 0; r < 4; r++) {
		coll_torus_chan(&job.ch[r], &t, r, op->send, op->recv,
				start[r], len[r]);
		job.ch[r].first = 0;
		job.ch[r].steps = t.m[r];
		job.ch[r].final = false;
	}
	coll_ring_steps(&job);
	/* All-reduce the piece each left us along the ring across it. */
	for (int r = 0; r < 4; r++) {
		uint64_t ss, sl;

		coll_split(len[r], (uint64_t)t.m[r], (uint64_t)t.pos[r], &ss,
			   &sl);
		coll_torus_chan(&job.ch[r], &t, across[r], op->recv, op->recv,
				start[r] + ss, sl);
		job.ch[r].first = 0;
		job.ch[r].steps = 2 * t.m[across[r]];
		job.ch[r].final = true;
	}
	coll_ring_steps(&job);
	/* Gather each quarter back along its ring. */
	for (int r = 0; r < 4; r++) {
		coll_torus_chan(&job.ch[r], &t, r, op->send, op->recv,
				start[r], len[r]);
		job.ch[r].first = t.m[r];
		job.ch[r].steps = t.m[r];
	}
	coll_ring_steps(&job);
}
