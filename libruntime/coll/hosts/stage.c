// SPDX-License-Identifier: MIT
/*
 * The device's side of the stage between it and the proxy (proxy.c).
 *
 * Chunk k of a comm (k counts from 1 over its life: h->built) uses slot
 * k % COLL_STAGE_SLOTS of host memory. The device copies what the chunk
 * sends into the slot and sets the staged word to k; the proxy takes the
 * chunks in that order and sets the done word to k once chunk k and every
 * one before it are through; the device waits for that before it copies
 * a result out of the slot, and before it uses the slot for chunk k +
 * COLL_STAGE_SLOTS. So up to COLL_STAGE_SLOTS chunks are in the proxy's
 * hands at once while the device copies the next.
 */
#include <string.h>

#include "coll/hosts/internal.h"

void coll_stage_begin(struct coll_stager *st, struct coll_call *call,
		      struct coll_hosts *h)
{
	memset(st, 0, sizeof(*st));
	st->call = call;
	st->h = h;
}

/* Waits for the chunk that used @slot last, and copies its result out. */
static void coll_stage_retire(struct coll_stager *st, unsigned int slot)
{
	struct coll_prog *p = &st->call->prog;
	const uint64_t words = st->h->words->be->va;
	const uint64_t at = st->h->stage->be->va +
			    (uint64_t)slot * COLL_STAGE_BYTES;

	if (!st->pending[slot].seq)
		return;
	coll_emit_wait(p, words + 8 * COLL_WORD_DONE, st->pending[slot].seq);
	coll_emit_copy(p, st->pending[slot].dst, at + st->pending[slot].from,
		       st->pending[slot].bytes);
	st->pending[slot].seq = 0;
}

/* The slot the next chunk uses, free once its last chunk is retired. */
static uint64_t coll_stage_slot(struct coll_stager *st)
{
	const unsigned int slot = (unsigned int)(st->h->built %
						 COLL_STAGE_SLOTS);

	coll_stage_retire(st, slot);
	return st->h->stage->be->va + (uint64_t)slot * COLL_STAGE_BYTES;
}

/*
 * Hands the proxy chunk @c, its slot filled, and notes its copy out:
 * @bytes from @from in the slot to @dst.
 */
static void coll_stage_commit(struct coll_stager *st,
			      struct coll_stage_chunk *c, uint64_t dst,
			      uint64_t from, uint64_t bytes)
{
	struct coll_hosts *h = st->h;
	struct coll_prog *p = &st->call->prog;
	const unsigned int slot = (unsigned int)(h->built % COLL_STAGE_SLOTS);

	c->seq = h->built + 1;
	c->dtype = st->call->op.dtype;
	c->redop = st->call->op.redop;
	coll_emit_signal(p, h->words->be->va + 8 * COLL_WORD_STAGED, c->seq);
	if (!coll_proxy_queue(h, c))
		p->failed = true;
	st->pending[slot].seq = c->seq;
	st->pending[slot].dst = dst;
	st->pending[slot].from = from;
	st->pending[slot].bytes = bytes;
	h->built++;
}

void coll_stage_push(struct coll_stager *st, enum coll_stage_kind kind,
		     uint64_t src, uint64_t dst, uint64_t bytes, int peer)
{
	struct coll_stage_chunk c = {
		.kind = kind, .count = bytes, .peer = peer,
	};
	const uint64_t at = coll_stage_slot(st);

	if (kind != COLL_STAGE_RECV)
		coll_emit_copy(&st->call->prog, at, src, bytes);
	if (kind == COLL_STAGE_ALL_REDUCE) {
		c.count = bytes / st->call->esize;
		c.algo = coll_tune_rail(st->h, bytes, false);
	}
	coll_stage_commit(st, &c, dst, 0, kind == COLL_STAGE_SEND ? 0 : bytes);
}

void coll_stage_push_scatter(struct coll_stager *st, const uint64_t *src,
			     uint64_t dst, uint64_t bytes)
{
	const int n = st->h->nhosts;
	struct coll_stage_chunk c = {
		.kind = COLL_STAGE_REDUCE_SCATTER,
		.count = bytes / st->call->esize * (uint64_t)n, .peer = -1,
		.algo = coll_tune_rail(st->h, bytes * (uint64_t)n, true),
	};
	const uint64_t at = coll_stage_slot(st);

	/* piece k at k * @bytes, as coll_split cuts n pieces of equal size */
	for (int k = 0; k < n; k++)
		coll_emit_copy(&st->call->prog, at + (uint64_t)k * bytes,
			       src[k], bytes);
	coll_stage_commit(st, &c, dst, (uint64_t)st->h->host * bytes, bytes);
}

void coll_stage_end(struct coll_stager *st)
{
	/* oldest first: the done word passes them in order */
	for (uint64_t i = 0; i < COLL_STAGE_SLOTS; i++)
		coll_stage_retire(st, (unsigned int)((st->h->built + i) %
						      COLL_STAGE_SLOTS));
}
