// SPDX-License-Identifier: MIT
/*
 * One rank's packet program for a collective: chunk sends and receives
 * over the peers' slots, flow-controlled by credit semaphores, built in
 * host memory and submitted on the caller's stream.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/fabric/internal.h"
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

/* An average sums all the way, and divides only at the last step. */
void coll_emit_reduce(struct coll_prog *p, uint64_t dst, uint64_t src0,
		      uint64_t src1, uint64_t count, tern_dtype_t dtype,
		      tern_redop_t op)
{
	struct tern_packet_builder b;

	if (count == 0 || !coll_prog_room(p, &b))
		return;
	tern_packet_reduce(&b, dst, src0, src1, count, (uint16_t)dtype,
			   (uint16_t)(op == TERN_AVG ? TERN_SUM : op));
	coll_prog_commit(p, &b);
}

void coll_emit_reduce_last(struct coll_prog *p, uint64_t dst, uint64_t src0,
			   uint64_t src1, uint64_t count, tern_dtype_t dtype,
			   tern_redop_t op)
{
	struct tern_packet_builder b;

	if (op != TERN_AVG) {
		coll_emit_reduce(p, dst, src0, src1, count, dtype, op);
		return;
	}
	if (count == 0 || !coll_prog_room(p, &b))
		return;
	tern_packet_reduce_divide(&b, dst, src0, src1, count, (uint16_t)dtype,
				  (uint32_t)p->comm->nranks);
	coll_prog_commit(p, &b);
}

void coll_emit_signal(struct coll_prog *p, uint64_t addr, uint64_t value)
{
	struct tern_packet_builder b;

	if (!coll_prog_room(p, &b))
		return;
	tern_packet_sem_signal(&b, addr, value, false);
	coll_prog_commit(p, &b);
}

/*
 * A wait of the comm's job: it also fails the job once the comm's abort
 * word is set, where the device can do that.
 */
static void coll_wait(struct tern_packet_builder *b,
		      const struct tern_comm *comm, uint64_t addr,
		      uint64_t value)
{
	uint64_t abort_va = comm->ctl->be->va + offsetof(struct coll_ctl, abort);

	if (comm->dev->info.capabilities & TERN_DEVICE_CAP_ABORTABLE_WAIT)
		tern_packet_sem_wait_abort(b, addr, value, abort_va, false);
	else
		tern_packet_sem_wait(b, addr, value, false);
}

void coll_emit_wait(struct coll_prog *p, uint64_t addr, uint64_t value)
{
	struct tern_packet_builder b;

	if (!coll_prog_room(p, &b))
		return;
	coll_wait(&b, p->comm, addr, value);
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

size_t coll_scratch_bytes(int nranks)
{
	if (nranks == 1)
		return 8;	/* nobody sends to a lone rank */
	return COLL_SLOTS * ((size_t)nranks * COLL_CHUNK_BYTES +
			     COLL_MAX_CHANNELS *
			     (size_t)(COLL_RING_CHUNK_BYTES - COLL_CHUNK_BYTES));
}

/* Whether @sender comes just before @receiver on one of the rings. */
bool coll_wide_slots(const struct tern_comm *comm, int sender, int receiver)
{
	const int n = comm->nranks;

	for (int c = 0; c < comm->nchannels; c++)
		for (int i = 0; i < n; i++)
			if (comm->ring[c][i] == receiver)
				if (comm->ring[c][(i + n - 1) % n] == sender)
					return true;
	return false;
}

/*
 * Where @sender's slots start in @receiver's scratch, and in *@bytes how
 * wide they are: senders in rank order, a ring's previous rank wide.
 */
static uint64_t coll_slots_at(const struct tern_comm *comm, int sender,
			      int receiver, uint64_t *bytes)
{
	uint64_t at = 0;

	for (int s = 0; s < sender; s++)
		at += COLL_SLOTS * (coll_wide_slots(comm, s, receiver) ?
				    COLL_RING_CHUNK_BYTES : COLL_CHUNK_BYTES);
	*bytes = coll_wide_slots(comm, sender, receiver) ?
		 COLL_RING_CHUNK_BYTES : COLL_CHUNK_BYTES;
	return at;
}

void coll_plan_slots(struct tern_comm *comm)
{
	for (int p = 0; p < comm->nranks; p++) {
		struct coll_peer *cp = &comm->peers[p];

		cp->slots_there = coll_slots_at(comm, comm->rank, p,
						&cp->slot_there_bytes);
		cp->slots_here = coll_slots_at(comm, p, comm->rank,
					       &cp->slot_here_bytes);
	}
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
	return cp->scratch->be->va + cp->slots_there +
	       k % COLL_SLOTS * cp->slot_there_bytes;
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
	return p->scratch_va + cp->slots_here +
	       k % COLL_SLOTS * cp->slot_here_bytes;
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

void coll_recv_copy(struct coll_prog *p, int peer, uint64_t dst,
		    uint64_t bytes)
{
	uint64_t in = coll_recv_wait(p, peer);

	coll_emit_copy(p, dst, in, bytes);
	coll_recv_done(p, peer);
}

uint64_t coll_self_slot(struct coll_prog *p)
{
	return p->scratch_va + p->comm->peers[p->comm->rank].slots_here;
}

/*
 * The gate around every job of the comm: it starts once the job before it
 * ran to its end (or fails once the abort word is set) and ends by saying
 * it ran to its own end.
 */
#define COLL_GATE_BYTES		64

static void coll_gate_open(struct tern_packet_builder *b,
			   const struct tern_comm *comm)
{
	uint64_t ctl = comm->ctl->be->va;

	coll_wait(b, comm, ctl + offsetof(struct coll_ctl, chain), comm->jobs);
}

static void coll_gate_close(struct tern_packet_builder *b,
			    const struct tern_comm *comm)
{
	uint64_t ctl = comm->ctl->be->va;

	tern_packet_sem_signal(b, ctl + offsetof(struct coll_ctl, chain),
			       comm->jobs + 1, false);
}

/* Submits one gated job of @bytes of program; keeps its fence. */
static tern_status_t coll_job_submit(struct tern_comm *comm,
				     struct tern_stream *stream, uint8_t *job,
				     size_t room, const uint8_t *prog,
				     size_t bytes)
{
	struct tern_fence *fence = NULL, *after = NULL;
	struct tern_packet_builder b;
	tern_status_t status;

	tern_packets_init(&b, job, room);
	coll_gate_open(&b, comm);
	memcpy(job + b.size, prog, bytes);
	b.size += bytes;
	coll_gate_close(&b, comm);
	if (b.overflow)
		return TERN_ERROR_INVALID_ARGUMENT;
	/* Another stream's job of the comm must end first: order by fence. */
	if (comm->last && comm->last_stream != stream &&
	    comm->ops->fence_status(comm->last) == TERN_ERROR_NOT_READY)
		after = comm->last;
	status = tern_stream_submit(stream, job, b.size, after ? &after : NULL,
				    after ? 1 : 0, &fence);
	if (status)
		return status;
	comm->jobs++;
	tern_fence_put(comm->last);
	comm->last = tern_fence_get(fence);
	comm->last_stream = stream;
	coll_inflight_push(comm, fence);
	return TERN_SUCCESS;
}

tern_status_t coll_prog_submit(struct coll_prog *p, struct tern_stream *stream,
			       uint32_t *submitted)
{
	struct tern_comm *comm = p->comm;
	size_t room = stream->device->info.max_submit_bytes;
	tern_status_t status = TERN_SUCCESS;
	size_t at, part;
	uint8_t *job;

	*submitted = 0;
	if (p->failed)
		return TERN_ERROR_OUT_OF_MEMORY;
	if (p->size == 0)
		return TERN_SUCCESS;
	if (room <= COLL_GATE_BYTES)
		return TERN_ERROR_NOT_SUPPORTED;
	/* A job holds at most the program and its gate. */
	room = p->size + COLL_GATE_BYTES < room ? p->size + COLL_GATE_BYTES :
						  room;
	job = malloc(room);
	if (!job)
		return TERN_ERROR_OUT_OF_MEMORY;
	for (at = 0; at < p->size && status == TERN_SUCCESS; at += part) {
		part = tern_packets_fit(p->buf, p->size, at,
					room - COLL_GATE_BYTES);
		if (!part) {
			status = TERN_ERROR_INVALID_ARGUMENT;
			break;
		}
		status = coll_job_submit(comm, stream, job, room, p->buf + at,
					 part);
		if (status == TERN_SUCCESS)
			(*submitted)++;
	}
	free(job);
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
