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
 */
#include "coll.h"

/*
 * Stages @count elements from @src through the proxy back to @dst (both
 * device addresses; they may be the same), in chunks.
 */
static void coll_hier_stage(struct coll_call *call, struct coll_hosts *h,
			    uint64_t src, uint64_t dst, uint64_t count)
{
	const uint64_t es = call->esize, per = COLL_STAGE_BYTES / es;
	const uint64_t n = (count + per - 1) / per, base = h->built;
	const uint64_t stage = h->stage->be->va, words = h->words->be->va;
	struct coll_prog *p = &call->prog;

	for (uint64_t k = 0; k < n + COLL_STAGE_SLOTS; k++) {
		uint64_t at, len;

		if (k >= COLL_STAGE_SLOTS) {
			const uint64_t j = k - COLL_STAGE_SLOTS;

			if (j >= n)
				break;
			at = j * per;
			len = count - at < per ? count - at : per;
			coll_emit_wait(p, words + 8 * COLL_WORD_DONE,
				       base + j + 1);
			coll_emit_copy(p, dst + at * es,
				       stage + (base + j) % COLL_STAGE_SLOTS *
					       COLL_STAGE_BYTES,
				       len * es);
		}
		if (k < n) {
			struct coll_stage_chunk c = {
				.seq = base + k + 1, .dtype = call->op.dtype,
				.redop = call->op.redop,
			};

			at = k * per;
			len = count - at < per ? count - at : per;
			c.count = len;
			coll_emit_copy(p, stage + (base + k) % COLL_STAGE_SLOTS *
					       COLL_STAGE_BYTES,
				       src + at * es, len * es);
			coll_emit_signal(p, words + 8 * COLL_WORD_STAGED, c.seq);
			if (!coll_proxy_queue(h, &c))
				p->failed = true;
		}
	}
	h->built += n;
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
	uint64_t built = h->built;

	for (size_t i = 0; i < n; i++) {
		if (ops[i].kind != COLL_ALL_REDUCE) {
			tern_set_last_error("a communicator across hosts runs all-reduce only, so far");
			return TERN_ERROR_NOT_SUPPORTED;
		}
	}
	status = coll_comm_error(top);
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
		if (call.op.count)
			coll_hier_all_reduce(&call, h);
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
