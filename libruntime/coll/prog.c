// SPDX-License-Identifier: MIT
/*
 * One rank's packet program for a collective: chunk sends and receives
 * over the peers' slots, flow-controlled by credit semaphores, built in
 * host memory and submitted on the caller's stream.
 */
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "submit.h"

/* Room for any one packet. */
#define COLL_PACKET_ROOM	TERN_PACKET_MAX_BYTES

void coll_prog_init(struct coll_prog *p, struct tern_comm *comm)
{
	memset(p, 0, sizeof(*p));
	p->comm = comm;
	p->scratch_va = comm->scratch->be->va;
	p->sem_va = comm->sem->be->va;
}

void coll_prog_free(struct coll_prog *p)
{
	free(p->buf);
	p->buf = NULL;
}

/* A builder over the free tail of the program, with room for one packet. */
static bool coll_prog_room(struct coll_prog *p, struct tern_packet_builder *b)
{
	if (p->failed)
		return false;
	if (p->capacity - p->size < COLL_PACKET_ROOM) {
		size_t cap = p->capacity ? p->capacity * 2 : 4096;
		uint8_t *bigger = realloc(p->buf, cap);

		if (!bigger) {
			p->failed = true;
			return false;
		}
		p->buf = bigger;
		p->capacity = cap;
	}
	tern_packets_init(b, p->buf + p->size, p->capacity - p->size);
	return true;
}

static void coll_prog_commit(struct coll_prog *p, struct tern_packet_builder *b)
{
	if (b->overflow)
		p->failed = true;
	else
		p->size += b->size;
}

void coll_emit_copy(struct coll_prog *p, uint64_t dst, uint64_t src,
		    uint64_t bytes)
{
	struct tern_packet_builder b;

	if (bytes == 0 || dst == src || !coll_prog_room(p, &b))
		return;
	tern_packet_copy(&b, dst, src, bytes);
	coll_prog_commit(p, &b);
}

void coll_emit_reduce(struct coll_prog *p, uint64_t dst, uint64_t src0,
		      uint64_t src1, uint64_t count, tern_dtype_t dtype,
		      tern_redop_t op)
{
	struct tern_packet_builder b;

	if (count == 0 || !coll_prog_room(p, &b))
		return;
	tern_packet_reduce(&b, dst, src0, src1, count, (uint16_t)dtype,
			   (uint16_t)op);
	coll_prog_commit(p, &b);
}

static void coll_emit_signal(struct coll_prog *p, uint64_t addr,
			     uint64_t value)
{
	struct tern_packet_builder b;

	if (!coll_prog_room(p, &b))
		return;
	tern_packet_sem_signal(&b, addr, value, false);
	coll_prog_commit(p, &b);
}

static void coll_emit_wait(struct coll_prog *p, uint64_t addr, uint64_t value)
{
	struct tern_packet_builder b;

	if (!coll_prog_room(p, &b))
		return;
	tern_packet_sem_wait(&b, addr, value, false);
	coll_prog_commit(p, &b);
}

/* Semaphore layout: ready[peer] at 8 * peer, credit[peer] after them. */
static uint64_t coll_ready_offset(int peer)
{
	return 8ull * (uint64_t)peer;
}

static uint64_t coll_credit_offset(const struct tern_comm *comm, int peer)
{
	return 8ull * (uint64_t)(comm->nranks + peer);
}

/* Offset of slot @slot of sender @sender in a scratch area. */
static uint64_t coll_slot_offset(int sender, uint64_t slot)
{
	return ((uint64_t)sender * COLL_SLOTS + slot) * COLL_CHUNK_BYTES;
}

/* Waits for a free slot at @peer; returns its address as we see it. */
static uint64_t coll_send_begin(struct coll_prog *p, int peer, uint64_t *seq)
{
	struct tern_comm *comm = p->comm;
	struct coll_peer *cp = &comm->peers[peer];
	uint64_t k = cp->sent++;

	if (k >= COLL_SLOTS)
		coll_emit_wait(p, p->sem_va + coll_credit_offset(comm, peer),
			       k - COLL_SLOTS + 1);
	*seq = k + 1;
	return cp->scratch->be->va +
	       coll_slot_offset(comm->rank, k % COLL_SLOTS);
}

static void coll_send_end(struct coll_prog *p, int peer, uint64_t seq)
{
	struct tern_comm *comm = p->comm;

	coll_emit_signal(p, comm->peers[peer].sem->be->va +
			    coll_ready_offset(comm->rank), seq);
}

void coll_send_copy(struct coll_prog *p, int peer, uint64_t src,
		    uint64_t bytes)
{
	uint64_t seq, slot;

	if (bytes == 0)
		return;
	slot = coll_send_begin(p, peer, &seq);
	coll_emit_copy(p, slot, src, bytes);
	coll_send_end(p, peer, seq);
}

void coll_send_reduce(struct coll_prog *p, int peer, uint64_t src0,
		      uint64_t src1, uint64_t count, tern_dtype_t dtype,
		      tern_redop_t op)
{
	uint64_t seq, slot;

	if (count == 0)
		return;
	slot = coll_send_begin(p, peer, &seq);
	coll_emit_reduce(p, slot, src0, src1, count, dtype, op);
	coll_send_end(p, peer, seq);
}

uint64_t coll_recv_wait(struct coll_prog *p, int peer)
{
	struct coll_peer *cp = &p->comm->peers[peer];
	uint64_t k = cp->received;

	coll_emit_wait(p, p->sem_va + coll_ready_offset(peer), k + 1);
	return p->scratch_va + coll_slot_offset(peer, k % COLL_SLOTS);
}

void coll_recv_done(struct coll_prog *p, int peer)
{
	struct tern_comm *comm = p->comm;
	struct coll_peer *cp = &comm->peers[peer];

	cp->received++;
	coll_emit_signal(p, cp->sem->be->va +
			    coll_credit_offset(comm, comm->rank),
			 cp->received);
}

uint64_t coll_self_slot(struct coll_prog *p)
{
	return p->scratch_va + coll_slot_offset(p->comm->rank, 0);
}

/* Keeps @fence (our reference) as the newest job of @comm on @stream. */
static void coll_remember(struct tern_comm *comm,
			  const struct tern_stream *stream,
			  struct tern_fence *fence)
{
	struct coll_stream_fence *bigger;
	int i;

	for (i = 0; i < comm->last_count; i++) {
		if (comm->lasts[i].stream == stream) {
			tern_fence_put(comm->lasts[i].fence);
			comm->lasts[i].fence = fence;
			return;
		}
	}
	if (comm->last_count == comm->last_cap) {
		int cap = comm->last_cap ? comm->last_cap * 2 : 4;

		bigger = realloc(comm->lasts, (size_t)cap * sizeof(*bigger));
		if (!bigger) {
			/* Cannot track it: wait now rather than lose it. */
			comm->ops->fence_wait(fence, TERN_WAIT_FOREVER);
			tern_fence_put(fence);
			return;
		}
		comm->lasts = bigger;
		comm->last_cap = cap;
	}
	comm->lasts[comm->last_count].stream = stream;
	comm->lasts[comm->last_count].fence = fence;
	comm->last_count++;
}

tern_status_t coll_prog_submit(struct coll_prog *p, struct tern_stream *stream)
{
	struct tern_comm *comm = p->comm;
	struct tern_fence *fence = NULL;
	tern_status_t status;

	if (p->failed)
		return TERN_ERROR_OUT_OF_MEMORY;
	if (p->size == 0)
		return TERN_SUCCESS;
	status = tern_stream_submit(stream, p->buf, p->size, NULL, 0, &fence);
	if (fence)
		coll_remember(comm, stream, fence);
	return status;
}

void coll_seq_save(const struct tern_comm *comm, struct coll_seq_snapshot *s)
{
	for (int i = 0; i < comm->nranks; i++) {
		s->sent[i] = comm->peers[i].sent;
		s->received[i] = comm->peers[i].received;
	}
}

void coll_seq_restore(struct tern_comm *comm,
		      const struct coll_seq_snapshot *s)
{
	for (int i = 0; i < comm->nranks; i++) {
		comm->peers[i].sent = s->sent[i];
		comm->peers[i].received = s->received[i];
	}
}
