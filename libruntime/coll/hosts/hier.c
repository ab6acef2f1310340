// SPDX-License-Identifier: MIT
/*
 * Collectives across hosts, hierarchical: the program a rank's device
 * runs does the fabric's part on the comm of its host's ranks, and hands
 * the network's part to the proxy through staged chunks.
 *
 * All-reduce: a reduce-scatter round the host's rings leaves each rank
 * the sums of its shard (coll_split by local rank, the same shard at the
 * same position on every host); the shard goes through the stage, chunk
 * by chunk, to be all-reduced along the rail; an all-gather round the
 * host's rings gives every rank every shard. A chunk waits for a free slot
 * only behind the chunk COLL_STAGE_SLOTS before it, so the device copies
 * while the network moves.
 *
 * All-gather: the rail's blocks over the network, then the host's over
 * the fabric. Broadcast: the root's rail over the network, then each
 * host's broadcast over the fabric. Reduce-scatter: the host's, by the
 * place of the rank a block is for, then the rail's (below). Reduce is
 * an all-reduce for now, into device memory of the comm's (temp) where
 * the root is another rank: twice the bytes its own would move.
 * All-to-all, send and recv reach ranks on other hosts over the network,
 * through the stage, and those on ours over the fabric.
 */
#include <stdlib.h>

#include "coll/hosts/internal.h"
#include "submit.h"

/*
 * Stages @count elements from @src through the rail's all-reduce back to
 * @dst (both device addresses; they may be the same), in chunks.
 */
static void coll_hier_stage(struct coll_call *call, struct coll_hosts *h,
			    uint64_t src, uint64_t dst, uint64_t count)
{
	const uint64_t es = call->esize, per = COLL_STAGE_BYTES / es;
	struct coll_stager st;

	coll_stage_begin(&st, call, h);
	for (uint64_t at = 0; at < count; at += per) {
		uint64_t len = count - at < per ? count - at : per;

		coll_stage_push(&st, COLL_STAGE_ALL_REDUCE, src + at * es,
				dst + at * es, len * es, -1);
	}
	coll_stage_end(&st);
}

static void coll_hier_all_reduce(struct coll_call *call, struct coll_hosts *h)
{
	const struct tern_comm *local = call->comm;
	const struct coll_op *op = &call->op;
	uint64_t start, len;

	coll_split(op->count, (uint64_t)local->nranks, (uint64_t)local->rank,
		   &start, &len);
	if (local->nranks == 1) {
		coll_hier_stage(call, h, op->send, op->recv, op->count);
		return;
	}
	coll_ring_shards(call, local->nchannels, false);
	coll_hier_stage(call, h, op->recv + start * call->esize,
			op->recv + start * call->esize, len);
	coll_ring_shards(call, local->nchannels, true);
}

/* An all-reduce of @count elements from @send to @recv, as @call's op. */
static void coll_hier_reduce_all(struct coll_call *call, struct coll_hosts *h,
				 uint64_t send, uint64_t recv, uint64_t count,
				 tern_dtype_t dtype, tern_redop_t redop)
{
	const struct coll_op saved = call->op;

	call->op.send = send;
	call->op.recv = recv;
	call->op.count = count;
	call->op.dtype = dtype;
	call->op.redop = redop;
	call->esize = tern_dtype_bytes(dtype);
	call->chunk_elems = COLL_RING_CHUNK_BYTES / call->esize;
	if (count)
		coll_hier_all_reduce(call, h);
	call->op = saved;
	call->esize = tern_dtype_bytes(saved.dtype);
	call->chunk_elems = COLL_RING_CHUNK_BYTES / call->esize;
}

/* The rank at place @lrank on host @host. */
static int coll_hier_member(const struct coll_hosts *h, int host, int lrank)
{
	return h->host_member[host][lrank];
}

/* Whether @rank is on another host than ours. */
static bool coll_hier_remote(const struct coll_hosts *h, int rank)
{
	return h->host_of[rank] != h->host;
}

/*
 * All-to-all: our own block is a copy; the blocks for ranks on other
 * hosts go over the network in rounds (in round t, to rank + t and from
 * rank - t, so each pair's chunks meet at the same place in both ranks'
 * order, a send beside its receive); those for our host's ranks go over
 * the fabric, pairwise likewise, while the network moves.
 */
static void coll_hier_all_to_all(struct coll_call *call, struct tern_comm *top)
{
	struct coll_hosts *h = top->hosts;
	const struct tern_comm *local = call->comm;
	const struct coll_op o = call->op;
	const uint64_t b = o.count * call->esize;
	const int n = top->nranks, r = top->rank, L = local->nranks;
	struct coll_prog *p = &call->prog;
	struct coll_stager st;

	coll_emit_copy(p, o.recv + (uint64_t)r * b, o.send + (uint64_t)r * b,
		       b);
	coll_stage_begin(&st, call, h);
	for (int t = 1; t < n; t++) {
		const int to = (r + t) % n, from = (r - t + n) % n;

		for (uint64_t at = 0; at < b; at += COLL_STAGE_BYTES) {
			uint64_t len = b - at < COLL_STAGE_BYTES ?
				       b - at : COLL_STAGE_BYTES;

			if (coll_hier_remote(h, to))
				coll_stage_push(&st, COLL_STAGE_SEND,
						o.send + (uint64_t)to * b + at,
						0, len, to);
			if (coll_hier_remote(h, from))
				coll_stage_push(&st, COLL_STAGE_RECV, 0,
						o.recv + (uint64_t)from * b + at,
						len, from);
		}
	}
	for (int t = 1; t < L; t++) {
		const int to = (local->rank + t) % L;
		const int from = (local->rank - t + L) % L;
		const uint64_t gto = (uint64_t)h->member[to];
		const uint64_t gfrom = (uint64_t)h->member[from];

		for (uint64_t at = 0; at < b; at += COLL_CHUNK_BYTES) {
			uint64_t len = b - at < COLL_CHUNK_BYTES ?
				       b - at : COLL_CHUNK_BYTES;
			uint64_t in;

			coll_send_copy(p, to, o.send + gto * b + at, len);
			in = coll_recv_wait(p, from);
			coll_emit_copy(p, o.recv + gfrom * b + at, in, len);
			coll_recv_done(p, from);
		}
	}
	coll_stage_end(&st);
}

/*
 * All-gather: our block to every rank of our rail over the network and
 * theirs to us, in rounds as all-to-all's; then, over the fabric, the
 * blocks of our rail (one a host) to every rank of our host and theirs
 * to us, pairwise. Each rank's block crosses the network once a host and
 * the fabric once a rank.
 */
static void coll_hier_all_gather(struct coll_call *call, struct tern_comm *top)
{
	struct coll_hosts *h = top->hosts;
	const struct tern_comm *local = call->comm;
	const struct coll_op o = call->op;
	const uint64_t b = o.count * call->esize;
	const int H = h->nhosts, L = local->nranks;
	struct coll_prog *p = &call->prog;
	struct coll_stager st;

	coll_emit_copy(p, o.recv + (uint64_t)top->rank * b, o.send, b);
	coll_stage_begin(&st, call, h);
	for (int t = 1; t < H; t++) {
		const int to = h->rail[(h->host + t) % H];
		const int from = h->rail[(h->host - t + H) % H];

		for (uint64_t at = 0; at < b; at += COLL_STAGE_BYTES) {
			uint64_t len = b - at < COLL_STAGE_BYTES ?
				       b - at : COLL_STAGE_BYTES;

			coll_stage_push(&st, COLL_STAGE_SEND, o.send + at, 0,
					len, to);
			coll_stage_push(&st, COLL_STAGE_RECV, 0,
					o.recv + (uint64_t)from * b + at, len,
					from);
		}
	}
	coll_stage_end(&st);
	for (int t = 1; t < L; t++) {
		const int to = (local->rank + t) % L;
		const int from = (local->rank - t + L) % L;

		for (int k = 0; k < H; k++) {
			/* our rail's block of host k, theirs likewise */
			const uint64_t mine = (uint64_t)h->rail[k] * b;
			const uint64_t theirs =
				(uint64_t)coll_hier_member(h, k, from) * b;

			for (uint64_t at = 0; at < b; at += COLL_CHUNK_BYTES) {
				uint64_t len = b - at < COLL_CHUNK_BYTES ?
					       b - at : COLL_CHUNK_BYTES;
				uint64_t in;

				coll_send_copy(p, to, o.recv + mine + at, len);
				in = coll_recv_wait(p, from);
				coll_emit_copy(p, o.recv + theirs + at, in, len);
				coll_recv_done(p, from);
			}
		}
	}
}

/*
 * Broadcast: the root sends its buffer to the ranks at its place on the
 * other hosts over the network; each host's rank at that place then
 * broadcasts it over the fabric as on one host (the tuner's choice).
 */
static void coll_hier_broadcast(struct coll_call *call, struct tern_comm *top)
{
	struct coll_hosts *h = top->hosts;
	const struct coll_op o = call->op;
	const uint64_t b = o.count * call->esize;
	const int place = h->lrank_of[o.root];
	struct coll_stager st;

	coll_stage_begin(&st, call, h);
	for (uint64_t at = 0; at < b; at += COLL_STAGE_BYTES) {
		uint64_t len = b - at < COLL_STAGE_BYTES ? b - at :
							   COLL_STAGE_BYTES;

		for (int k = 0; k < h->nhosts && top->rank == o.root; k++)
			if (k != h->host)
				coll_stage_push(&st, COLL_STAGE_SEND,
						o.send + at, 0, len,
						coll_hier_member(h, k, place));
		if (top->rank != o.root && h->host_of[o.root] != h->host &&
		    h->lrank_of[top->rank] == place)
			coll_stage_push(&st, COLL_STAGE_RECV, 0, o.recv + at,
					len, o.root);
	}
	coll_stage_end(&st);
	/* Our host's broadcast from that place: the root's send, else recv. */
	call->op.root = place;
	if (top->rank != o.root)
		call->op.send = o.recv;
	coll_build(call);
	call->op = o;
}

/*
 * Reduce-scatter: our host's blocks laid out by the place of the rank
 * they are for (the blocks of place l's rail together, host by host),
 * in the comm's temp; a reduce-scatter round the host's rings leaves
 * each rank its rail's blocks summed over the host; those go through
 * the stage to be reduce-scattered along the rail, host k's rank
 * keeping block k. Each block crosses the fabric and the network once,
 * where an all-reduce would carry it twice.
 */
static void coll_hier_reduce_scatter(struct coll_call *call,
				     struct tern_comm *top)
{
	struct coll_hosts *h = top->hosts;
	const struct tern_comm *local = call->comm;
	const struct coll_op o = call->op;
	const uint64_t es = call->esize, b = o.count * es;
	const uint64_t per = COLL_STAGE_BYTES / es / (uint64_t)h->nhosts;
	const int H = h->nhosts, L = local->nranks;
	const uint64_t temp = h->temp ? h->temp->be->va : 0;
	uint64_t src[COLL_MAX_RANKS];
	struct coll_stager st;

	for (int k = 0; k < H; k++)
		src[k] = o.send + (uint64_t)h->rail[k] * b;
	if (L > 1) {
		for (int l = 0; l < L; l++)
			for (int k = 0; k < H; k++)
				coll_emit_copy(&call->prog,
					       temp + (uint64_t)(l * H + k) * b,
					       o.send + (uint64_t)coll_hier_member(h, k, l) * b,
					       b);
		call->op.send = temp;
		call->op.recv = temp;
		call->op.count = o.count * (uint64_t)top->nranks;
		coll_ring_shards(call, local->nchannels, false);
		call->op = o;
		for (int k = 0; k < H; k++)
			src[k] = temp + (uint64_t)(local->rank * H + k) * b;
	}
	coll_stage_begin(&st, call, h);
	for (uint64_t at = 0; at < o.count; at += per) {
		const uint64_t len = o.count - at < per ? o.count - at : per;
		uint64_t from[COLL_MAX_RANKS];

		for (int k = 0; k < H; k++)
			from[k] = src[k] + at * es;
		coll_stage_push_scatter(&st, from, o.recv + at * es, len * es);
	}
	coll_stage_end(&st);
}

/*
 * Sends and recvs launched together: those between our host's ranks as
 * on one host (fabric/p2p.c), the others over the network, chunk by chunk
 * across the operations in call order (chunk k of each in turn), as many
 * at once as the stage holds. Returns false where there are more of
 * those than the proxy keeps in flight: they might wait on each other.
 */
static bool coll_hier_p2p(struct coll_call *call, struct tern_comm *top,
			  const struct coll_op *ops, size_t n)
{
	struct coll_hosts *h = top->hosts;
	struct coll_op *mine = calloc(n + 1, sizeof(*mine));
	size_t nlocal = 0, nremote = 0;
	bool more = true;
	struct coll_stager st;

	if (!mine) {
		call->prog.failed = true;
		return true;
	}
	for (size_t i = 0; i < n; i++) {
		if (!coll_kind_is_p2p(ops[i].kind))
			continue;
		if (coll_hier_remote(h, ops[i].root)) {
			nremote++;
			continue;
		}
		mine[nlocal] = ops[i];
		mine[nlocal++].root = h->lrank_of[ops[i].root];
	}
	if (nremote > COLL_STAGE_SLOTS) {
		free(mine);
		return false;
	}
	coll_stage_begin(&st, call, h);
	for (uint64_t at = 0; more; at += COLL_STAGE_BYTES) {
		more = false;
		for (size_t i = 0; i < n; i++) {
			const uint64_t b = ops[i].count *
					   tern_dtype_bytes(ops[i].dtype);
			uint64_t len;

			if (!coll_kind_is_p2p(ops[i].kind) || at >= b ||
			    !coll_hier_remote(h, ops[i].root))
				continue;
			len = b - at < COLL_STAGE_BYTES ? b - at :
							  COLL_STAGE_BYTES;
			more = true;
			if (ops[i].kind == COLL_SEND)
				coll_stage_push(&st, COLL_STAGE_SEND,
						ops[i].send + at, 0, len,
						ops[i].root);
			else
				coll_stage_push(&st, COLL_STAGE_RECV, 0,
						ops[i].recv + at, len,
						ops[i].root);
		}
	}
	if (nlocal)
		coll_p2p_run(call, mine, nlocal);
	coll_stage_end(&st);
	free(mine);
	return true;
}

/* The device memory @op needs of the comm's temp. */
static uint64_t coll_hier_temp_bytes(const struct tern_comm *top,
				     const struct coll_op *op)
{
	const uint64_t bytes = op->count * tern_dtype_bytes(op->dtype);

	if (op->kind == COLL_REDUCE_SCATTER)
		return bytes * (uint64_t)top->nranks;
	if (op->kind == COLL_REDUCE && op->root != top->rank)
		return bytes;
	return 0;
}

static void coll_hier_build(struct coll_call *call, struct tern_comm *top)
{
	struct coll_hosts *h = top->hosts;
	const struct coll_op o = call->op;
	const uint64_t temp = h->temp ? h->temp->be->va : 0;

	switch (o.kind) {
	case COLL_ALL_REDUCE:
		coll_hier_all_reduce(call, h);
		break;
	case COLL_ALL_GATHER:
		coll_hier_all_gather(call, top);
		break;
	case COLL_REDUCE_SCATTER:
		coll_hier_reduce_scatter(call, top);
		break;
	case COLL_BROADCAST:
		coll_hier_broadcast(call, top);
		break;
	case COLL_REDUCE:
		coll_hier_reduce_all(call, h, o.send,
				     o.root == top->rank ? o.recv : temp,
				     o.count, o.dtype, o.redop);
		break;
	case COLL_ALL_TO_ALL:
		coll_hier_all_to_all(call, top);
		break;
	default:
		break;
	}
}

/*
 * Makes the comm's temp hold @bytes: a bigger one once the jobs that may
 * use the old one have ended. Comm lock held, not the local comm's.
 */
static tern_status_t coll_hier_temp(struct tern_comm *top, uint64_t bytes)
{
	struct coll_hosts *h = top->hosts;
	tern_status_t status;

	if (bytes <= h->temp_bytes)
		return TERN_SUCCESS;
	coll_inflight_drain(top->local, TERN_WAIT_FOREVER);
	if (h->temp)
		tern_buffer_free(h->temp);
	h->temp = NULL;
	h->temp_bytes = 0;
	status = tern_buffer_alloc_internal(top->dev, TERN_MEMORY_DEVICE,
					    bytes, &h->temp, NULL);
	if (status == TERN_SUCCESS)
		h->temp_bytes = bytes;
	return status;
}

tern_status_t coll_hier_run_locked(struct tern_comm *top,
				   struct tern_stream *stream,
				   const struct coll_op *ops, size_t n)
{
	struct tern_comm *local = top->local;
	struct coll_hosts *h = top->hosts;
	struct coll_call call = { .comm = local, .stream = stream };
	struct coll_seq_snapshot snap;
	tern_status_t status;
	uint32_t submitted = 0;
	uint64_t built = h->built, temp = 0;

	bool p2p = false;

	for (size_t i = 0; i < n; i++) {
		p2p |= coll_kind_is_p2p(ops[i].kind);
		if (coll_hier_temp_bytes(top, &ops[i]) > temp)
			temp = coll_hier_temp_bytes(top, &ops[i]);
	}
	status = coll_comm_error(top);
	if (status == TERN_SUCCESS)
		status = coll_hier_temp(top, temp);
	if (status)
		return status;
	pthread_mutex_lock(&local->lock);
	coll_inflight_reap(local);
	coll_prog_init(&call.prog, local);
	coll_seq_save(local, &snap);
	for (size_t i = 0; i < n; i++) {
		call.op = ops[i];
		call.esize = tern_dtype_bytes(call.op.dtype);
		call.chunk_elems = COLL_RING_CHUNK_BYTES / call.esize;
		if (call.op.count && !coll_kind_is_p2p(call.op.kind))
			coll_hier_build(&call, top);
	}
	if (p2p && !coll_hier_p2p(&call, top, ops, n)) {
		/* Our peers wait for them: they learn of it as of a failure. */
		tern_set_last_error("a group across hosts holds more than %u sends and recvs to other hosts",
				    COLL_STAGE_SLOTS);
		coll_seq_restore(local, &snap);
		h->built = built;
		coll_proxy_publish(h, false);
		coll_prog_free(&call.prog);
		pthread_mutex_unlock(&local->lock);
		coll_comm_fail(top, TERN_ERROR_NOT_SUPPORTED, false);
		return TERN_ERROR_NOT_SUPPORTED;
	}
	status = coll_prog_submit(&call.prog, stream, &submitted);
	if (status && submitted == 0) {
		coll_seq_restore(local, &snap);
		h->built = built;
		coll_proxy_publish(h, false);
	} else {
		coll_proxy_publish(h, true);
		if (status)
			coll_comm_fail(top, status, false);
	}
	coll_prog_free(&call.prog);
	pthread_mutex_unlock(&local->lock);
	return status;
}
