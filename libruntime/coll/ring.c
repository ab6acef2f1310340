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
 * Every rank walks (block, step, ring) in the same order and a chunk sent
 * at a step is taken at the next, so each pair of ranks sees its chunks in
 * one order and the slots' credits never wait for a later step: no
 * deadlock. Blocks of a ring follow each other through the slots while the
 * earlier ones are still being reduced further along: the pipeline.
 */
#include "coll.h"

enum coll_ring_kind { COLL_ALL_REDUCE, COLL_REDUCE_SCATTER, COLL_ALL_GATHER };

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
	if (job->kind == COLL_ALL_REDUCE)
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
	if (job->kind == COLL_ALL_REDUCE) {
		coll_split(blen, (uint64_t)comm->nranks, (uint64_t)x, &ss, &sl);
		seg.send = job->send + (bstart + ss) * es;
		seg.recv = job->recv + (bstart + ss) * es;
		seg.len = sl;
		return seg;
	}
	rank = (uint64_t)comm->ring[c][x];
	seg.len = blen;
	if (job->kind == COLL_REDUCE_SCATTER) {
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
				 call->dtype, call->op);
	else
		coll_emit_reduce(&call->prog, seg.recv, seg.send, in, seg.len,
				 call->dtype, call->op);
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
			       job->kind == COLL_ALL_REDUCE ? seg.recv : seg.send,
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

static void coll_ring_run(struct coll_ring_job *job)
{
	const int n = job->call->comm->nranks;
	const bool rs = job->kind != COLL_ALL_GATHER;
	const bool ag = job->kind != COLL_REDUCE_SCATTER;
	uint64_t blocks[COLL_MAX_CHANNELS], most = 0, cs, cl, bsize;

	for (int c = 0; c < job->nch; c++) {
		blocks[c] = coll_blocks(job, c, &cs, &cl, &bsize);
		if (blocks[c] > most)
			most = blocks[c];
	}
	for (uint64_t b = 0; b < most; b++) {
		for (int s = 0; rs && s < n; s++)
			for (int c = 0; c < job->nch; c++)
				if (b < blocks[c])
					coll_rs_step(job, c, b, s);
		for (int t = 0; ag && t < n; t++)
			for (int c = 0; c < job->nch; c++)
				if (b < blocks[c])
					coll_ag_step(job, c, b, t);
	}
}

/* [a, a + alen) and [b, b + blen) share a byte. */
static bool coll_overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

TERN_API tern_status_t tern_all_reduce(tern_ptr_t send, tern_ptr_t recv,
				       size_t count, tern_dtype_t dtype,
				       tern_redop_t op, tern_comm_t comm,
				       tern_stream_t stream)
{
	struct coll_call call;
	struct coll_ring_job job = { &call, COLL_ALL_REDUCE, 0, 0, count, 1 };
	tern_status_t status;
	uint64_t bytes;

	status = coll_call_begin(&call, comm, stream, dtype, true, op);
	if (status)
		return status;
	status = coll_call_ptr(&call, send, count, 1, &job.send);
	if (status == TERN_SUCCESS)
		status = coll_call_ptr(&call, recv, count, 1, &job.recv);
	bytes = (uint64_t)count * call.esize;
	if (status == TERN_SUCCESS && job.send != job.recv &&
	    coll_overlap(job.send, bytes, job.recv, bytes))
		status = TERN_ERROR_INVALID_ARGUMENT;
	if (status == TERN_SUCCESS && count) {
		job.nch = coll_channels_for(&call, bytes);
		if (call.comm->nranks == 1)
			coll_emit_copy(&call.prog, job.recv, job.send, bytes);
		else if (!coll_direct_all_reduce(&call, job.send, job.recv,
						 count))
			coll_ring_run(&job);
	}
	return coll_call_end(&call, status);
}

TERN_API tern_status_t tern_reduce_scatter(tern_ptr_t send, tern_ptr_t recv,
					   size_t recv_count, tern_dtype_t dtype,
					   tern_redop_t op, tern_comm_t comm,
					   tern_stream_t stream)
{
	struct coll_call call;
	struct coll_ring_job job = {
		&call, COLL_REDUCE_SCATTER, 0, 0, recv_count, 1
	};
	tern_status_t status;
	uint64_t bytes, mine;

	status = coll_call_begin(&call, comm, stream, dtype, true, op);
	if (status)
		return status;
	status = coll_call_ptr(&call, send, recv_count,
			       (size_t)call.comm->nranks, &job.send);
	if (status == TERN_SUCCESS)
		status = coll_call_ptr(&call, recv, recv_count, 1, &job.recv);
	bytes = (uint64_t)recv_count * call.esize;
	mine = job.send + (uint64_t)call.comm->rank * bytes;
	/* In place is recv == our piece of send; any other overlap is not. */
	if (status == TERN_SUCCESS && job.recv != mine &&
	    coll_overlap(job.send, bytes * (uint64_t)call.comm->nranks,
			 job.recv, bytes))
		status = TERN_ERROR_INVALID_ARGUMENT;
	if (status == TERN_SUCCESS && recv_count) {
		job.nch = coll_channels_for(&call, bytes);
		if (call.comm->nranks == 1)
			coll_emit_copy(&call.prog, job.recv, job.send, bytes);
		else if (!coll_direct_reduce_scatter(&call, job.send, job.recv,
						     recv_count))
			coll_ring_run(&job);
	}
	return coll_call_end(&call, status);
}

TERN_API tern_status_t tern_all_gather(tern_ptr_t send, tern_ptr_t recv,
				       size_t send_count, tern_dtype_t dtype,
				       tern_comm_t comm, tern_stream_t stream)
{
	struct coll_call call;
	struct coll_ring_job job = {
		&call, COLL_ALL_GATHER, 0, 0, send_count, 1
	};
	tern_status_t status;
	uint64_t bytes, mine;

	status = coll_call_begin(&call, comm, stream, dtype, false, TERN_SUM);
	if (status)
		return status;
	status = coll_call_ptr(&call, send, send_count, 1, &job.send);
	if (status == TERN_SUCCESS)
		status = coll_call_ptr(&call, recv, send_count,
				       (size_t)call.comm->nranks, &job.recv);
	bytes = (uint64_t)send_count * call.esize;
	mine = job.recv + (uint64_t)call.comm->rank * bytes;
	/* In place is send == our piece of recv; any other overlap is not. */
	if (status == TERN_SUCCESS && job.send != mine &&
	    coll_overlap(job.recv, bytes * (uint64_t)call.comm->nranks,
			 job.send, bytes))
		status = TERN_ERROR_INVALID_ARGUMENT;
	if (status == TERN_SUCCESS && send_count) {
		job.nch = coll_channels_for(&call, bytes);
		coll_emit_copy(&call.prog, mine, job.send, bytes);
		if (call.comm->nranks > 1 &&
		    !coll_direct_all_gather(&call, job.send, job.recv,
					    send_count))
			coll_ring_run(&job);
	}
	return coll_call_end(&call, status);
}
