// SPDX-License-Identifier: MIT
/*
 * Rooted collectives as pipelined chains along the rings: broadcast flows
 * from the root round each ring, reduce flows round each ring into the
 * root. The message is split across the rings (with the rings run both
 * ways, half goes each way round) and cut into slot-sized chunks, so
 * chunk j+1 leaves while chunk j is still travelling down the chain.
 */
#include "coll/fabric/internal.h"

/* Chunks of ring @c's part of @bytes; *@start is the part's first byte. */
static uint64_t coll_chain_chunks(uint64_t bytes, int nch, int c,
				  uint64_t unit, uint64_t *start, uint64_t *len)
{
	uint64_t elems;

	coll_split(bytes / unit, (uint64_t)nch, (uint64_t)c, start, &elems);
	*start *= unit;
	*len = elems * unit;
	return (*len + COLL_CHUNK_BYTES - 1) / COLL_CHUNK_BYTES;
}

/* Position of the root in ring @c, and ours relative to it. */
static int coll_chain_place(const struct tern_comm *comm, int c, int root)
{
	for (int x = 0; x < comm->nranks; x++)
		if (comm->ring[c][x] == root)
			return coll_mod(comm->pos[c] - x, comm->nranks);
	return 0;
}

struct coll_chain_job {
	struct coll_call *call;
	bool reduce;
	int root, nch;
	uint64_t send, recv, bytes;
};

static void coll_chain_step(const struct coll_chain_job *job, int c,
			    uint64_t j)
{
	struct coll_call *call = job->call;
	const struct tern_comm *comm = call->comm;
	const int n = comm->nranks, q = comm->pos[c];
	const int next = comm->ring[c][coll_mod(q + 1, n)];
	const int prev = comm->ring[c][coll_mod(q - 1, n)];
	uint64_t start, len, off, bytes, in;
	int d = coll_chain_place(comm, c, job->root);

	coll_chain_chunks(job->bytes, job->nch, c, call->esize, &start, &len);
	off = start + j * COLL_CHUNK_BYTES;
	bytes = len - j * COLL_CHUNK_BYTES;
	if (bytes > COLL_CHUNK_BYTES)
		bytes = COLL_CHUNK_BYTES;
	if (job->reduce) {
		/* The chain starts just after the root and ends at it. */
		d = coll_mod(d - 1, n);
		if (d == 0) {
			coll_send_copy(&call->prog, next, job->send + off, bytes);
			return;
		}
		in = coll_recv_wait(&call->prog, prev);
		if (d < n - 1)
			coll_send_reduce(&call->prog, next, job->send + off, in,
					 bytes / call->esize, call->op.dtype,
					 call->op.redop);
		else
			coll_emit_reduce_last(&call->prog, job->recv + off,
					 job->send + off, in,
					 bytes / call->esize, call->op.dtype,
					 call->op.redop);
		coll_recv_done(&call->prog, prev);
		return;
	}
	if (d == 0) {
		coll_send_copy(&call->prog, next, job->send + off, bytes);
		return;
	}
	in = coll_recv_wait(&call->prog, prev);
	if (d < n - 1)
		coll_send_copy(&call->prog, next, in, bytes);
	coll_emit_copy(&call->prog, job->recv + off, in, bytes);
	coll_recv_done(&call->prog, prev);
}

static void coll_chain_steps(struct coll_chain_job *job)
{
	uint64_t chunks[COLL_MAX_CHANNELS], most = 0, start, len;

	for (int c = 0; c < job->nch; c++) {
		chunks[c] = coll_chain_chunks(job->bytes, job->nch, c,
					      job->call->esize, &start, &len);
		if (chunks[c] > most)
			most = chunks[c];
	}
	for (uint64_t j = 0; j < most; j++)
		for (int c = 0; c < job->nch; c++)
			if (j < chunks[c])
				coll_chain_step(job, c, j);
}

static void coll_chain_run(struct coll_call *call, int nch)
{
	const struct coll_op *op = &call->op;
	struct coll_chain_job job = {
		.call = call, .reduce = op->kind == COLL_REDUCE,
		.root = op->root, .nch = nch, .send = op->send,
		.recv = op->recv, .bytes = op->count * call->esize,
	};

	coll_chain_steps(&job);
}

static bool coll_chain_can_run(const struct tern_comm *comm,
			       enum coll_kind kind, uint64_t bytes)
{
	(void)comm;
	(void)bytes;
	return kind == COLL_BROADCAST || kind == COLL_REDUCE;
}

/* n-1 hops to fill the chain, then a chunk per slot's turn. */
static double coll_chain_estimate(const struct tern_comm *comm,
				  enum coll_kind kind, uint64_t bytes)
{
	const int n = comm->nranks;
	const int nch = comm->nchannels > 0 ? comm->nchannels : 1;
	const double hop = coll_ring_hop_ns(comm), link = coll_cost_link(comm);
	const double per_ch = (double)bytes / nch;
	const double chunk = per_ch < COLL_CHUNK_BYTES ? per_ch :
						       COLL_CHUNK_BYTES;
	const double blocks = coll_div_up(per_ch, COLL_CHUNK_BYTES);
	const double step = hop + chunk / link * 1e9 + 3 * COLL_COST_PACKET_NS;
	const double turn = chunk / link * 1e9 + 3 * COLL_COST_PACKET_NS;
	const double credit = (2 * hop + chunk / link * 1e9) / COLL_SLOTS;

	(void)kind;	/* broadcast and reduce alike */
	return (n - 1) * step + (blocks - 1) * (turn > credit ? turn : credit);
}

const struct coll_algo coll_algo_chain = {
	.name = "chain",
	.can_run = coll_chain_can_run,
	.estimate = coll_chain_estimate,
	.run = coll_chain_run,
	.rings = true,
};
