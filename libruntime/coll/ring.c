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

struct coll_ring_job {
	struct coll_call *call;
	enum coll_ring_kind kind;
	uint64_t send, recv;		/* device addresses */
	uint64_t count;			/* all-reduce: all; else per rank */
	int nch;
};

struct coll_seg {
	uint64_t send, recv;		/* addresses of the segment */
	uint64_t len;			/* elements */
};

/* Elements per block and blocks of ring @c; *@start: its first element. */
static uint64_t coll_blocks(const struct coll_ring_job *job, int c,
			    uint64_t *start, uint64_t *len, uint64_t *block)
{
	const struct coll_call *call = job->call;

	coll_split(job->count, (uint64_t)job->nch, (uint64_t)c, start, len);
	*block = call->chunk_elems;
	if (job->kind == RING_ALL_REDUCE)
		*block *= (uint64_t)call->comm->nranks;
	return (*len + *block - 1) / *block;
}

static struct coll_seg coll_segment(const struct coll_ring_job *job, int c,
				    uint64_t b, int x)
{
	const struct tern_comm *comm = job->call->comm;
	const uint64_t es = job->call->esize;
	uint64_t cs, cl, bsize, bstart, blen, ss, sl, rank;
	struct coll_seg seg;

	coll_blocks(job, c, &cs, &cl, &bsize);
	bstart = cs + b * bsize;
	blen = cl - b * bsize < bsize ? cl - b * bsize : bsize;
	x = coll_mod(x, comm->nranks);
	if (job->kind == RING_ALL_REDUCE) {
		coll_split(blen, (uint64_t)comm->nranks, (uint64_t)x, &ss, &sl);
		seg.send = job->send + (bstart + ss) * es;
		seg.recv = job->recv + (bstart + ss) * es;
		seg.len = sl;
		return seg;
	}
	rank = (uint64_t)comm->ring[c][x];
	seg.len = blen;
	if (job->kind == RING_REDUCE_SCATTER) {
		seg.send = job->send + (rank * job->count + bstart) * es;
		seg.recv = job->recv + bstart * es;
	} else {
		seg.send = job->send + bstart * es;
		seg.recv = job->recv + (rank * job->count + bstart) * es;
	}
	return seg;
}

static void coll_rs_step(const struct coll_ring_job *job, int c, uint64_t b,
			 int s)
{
	struct coll_call *call = job->call;
	const struct tern_comm *comm = call->comm;
	const int n = comm->nranks, q = comm->pos[c];
	const int next = comm->ring[c][coll_mod(q + 1, n)];
	const int prev = comm->ring[c][coll_mod(q - 1, n)];
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
	else
		coll_emit_reduce_last(&call->prog, seg.recv, seg.send, in, seg.len,
				 call->op.dtype, call->op.redop);
	coll_recv_done(&call->prog, prev);
}

static void coll_ag_step(const struct coll_ring_job *job, int c, uint64_t b,
			 int t)
{
	struct coll_call *call = job->call;
	const struct tern_comm *comm = call->comm;
	const int n = comm->nranks, q = comm->pos[c];
	const int next = comm->ring[c][coll_mod(q + 1, n)];
	const int prev = comm->ring[c][coll_mod(q - 1, n)];
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
	const int n = job->call->comm->nranks;
	const bool rs = job->kind != RING_ALL_GATHER;

	for (int c = 0; c < job->nch; c++) {
		if (b >= blocks[c])
			continue;
		if (rs && k < n)
			coll_rs_step(job, c, b, k);
		else
			coll_ag_step(job, c, b, rs ? k - n : k);
	}
}

static void coll_ring_steps(struct coll_ring_job *job)
{
	const int n = job->call->comm->nranks;
	const int steps = job->kind == RING_ALL_REDUCE ? 2 * n : n;
	const uint64_t overlap = (uint64_t)job->call->comm->ring_overlap;
	/* a block starts this many waves after the one before it */
	const uint64_t stride = ((uint64_t)steps + overlap - 1) / overlap;
	uint64_t blocks[COLL_MAX_CHANNELS], most = 0, cs, cl, bsize, waves;

	for (int c = 0; c < job->nch; c++) {
		blocks[c] = coll_blocks(job, c, &cs, &cl, &bsize);
		if (blocks[c] > most)
			most = blocks[c];
	}
	if (!most)
		return;
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
	struct coll_ring_job job = {
		.call = call, .send = op->send, .recv = op->recv,
		.count = op->count, .nch = nch,
	};

	job.kind = op->kind == COLL_ALL_REDUCE ? RING_ALL_REDUCE :
		   op->kind == COLL_REDUCE_SCATTER ? RING_REDUCE_SCATTER :
						     RING_ALL_GATHER;
	coll_ring_steps(&job);
}
