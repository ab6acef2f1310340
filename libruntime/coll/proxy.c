// SPDX-License-Identifier: MIT
/*
 * The proxy: one thread per comm across hosts that does the network's
 * part of its collectives, as NCCL's proxy thread does, so that a
 * collective call only enqueues and the device never waits for the host
 * to be called again.
 *
 * A program stages its shard in chunks (hier.c): it copies a chunk into
 * a slot of host memory and sets the staged word to the chunk's sequence
 * number, and before it copies the result back it waits for the done word
 * to reach it. The proxy takes the chunks in the order the programs were
 * built (which is the order every rank of the rail builds them), waits
 * for the staged word, all-reduces the slot with the rail (rail.c) and
 * sets the done word. A chunk is queued while its program is built and
 * published once the program is submitted, or dropped with it.
 *
 * A failure on the network fails the comm, which aborts the device's
 * wait; a comm in error drops its chunks.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coll.h"

bool coll_proxy_queue(struct coll_hosts *h, const struct coll_stage_chunk *c)
{
	bool ok = true;

	pthread_mutex_lock(&h->lock);
	if (h->head == h->published && h->published == h->tail) {
		h->head = h->published = h->tail = 0;	/* all taken: rewind */
	} else if (h->tail == h->cap && h->head > 0) {
		size_t n = h->tail - h->head;

		memmove(h->queue, h->queue + h->head, n * sizeof(*h->queue));
		h->published -= h->head;
		h->tail = n;
		h->head = 0;
	}
	if (h->tail == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 64;
		struct coll_stage_chunk *q = realloc(h->queue,
						     cap * sizeof(*q));

		if (q) {
			h->queue = q;
			h->cap = cap;
		} else {
			ok = false;
		}
	}
	if (ok)
		h->queue[h->tail++] = *c;
	pthread_mutex_unlock(&h->lock);
	return ok;
}

void coll_proxy_publish(struct coll_hosts *h, bool keep)
{
	pthread_mutex_lock(&h->lock);
	if (keep)
		h->published = h->tail;
	else
		h->tail = h->published;
	pthread_cond_signal(&h->cond);
	pthread_mutex_unlock(&h->lock);
}

/* Whether the proxy should give up what it is doing. */
static bool coll_proxy_quit(struct tern_comm *top)
{
	return __atomic_load_n(&top->hosts->stop, __ATOMIC_ACQUIRE) ||
	       coll_comm_error(top) != TERN_SUCCESS;
}

/* Waits until the device has staged chunk @seq; false if told to quit. */
static bool coll_proxy_wait_staged(struct tern_comm *top, uint64_t seq)
{
	volatile uint64_t *staged = &top->hosts->words_cpu[COLL_WORD_STAGED];
	struct timespec pause = { 0, 20000 };

	for (unsigned int spins = 0;; spins++) {
		if (__atomic_load_n(staged, __ATOMIC_ACQUIRE) >= seq)
			return true;
		if (coll_proxy_quit(top))
			return false;
		/* A moment's spinning catches a device just behind us. */
		if (spins < 64) {
			sched_yield();
		} else {
			nanosleep(&pause, NULL);
			if (pause.tv_nsec < 1000000)
				pause.tv_nsec *= 2;
		}
	}
}

static void coll_proxy_chunk(struct tern_comm *top,
			     const struct coll_stage_chunk *c)
{
	struct coll_hosts *h = top->hosts;
	uint8_t *slot = h->stage_cpu +
			(c->seq - 1) % COLL_STAGE_SLOTS * COLL_STAGE_BYTES;
	tern_status_t status;

	if (!coll_proxy_wait_staged(top, c->seq))
		return;
	status = coll_rail_all_reduce(top, slot, c->count, c->dtype, c->redop,
				      (uint32_t)top->nranks);
	if (status) {
		/*
		 * A transfer the network failed (cancelled as the connection
		 * went, say) means a rank of the rail failed; a wait we gave
		 * up ourselves leaves the comm's own error.
		 */
		coll_comm_fail(top, TERN_ERROR_PEER_FAILED, false);
		return;
	}
	__atomic_store_n(&h->words_cpu[COLL_WORD_DONE], c->seq,
			 __ATOMIC_SEQ_CST);
	/* The device's wait would see it only at its next look. */
	if (top->dev->ops->host_wrote)
		top->dev->ops->host_wrote(top->dev->be);
}

static void *coll_proxy_main(void *arg)
{
	struct tern_comm *top = arg;
	struct coll_hosts *h = top->hosts;

	for (;;) {
		struct coll_stage_chunk c;

		pthread_mutex_lock(&h->lock);
		while (!h->stop && h->head == h->published)
			pthread_cond_wait(&h->cond, &h->lock);
		if (h->stop) {
			pthread_mutex_unlock(&h->lock);
			break;
		}
		c = h->queue[h->head++];
		pthread_mutex_unlock(&h->lock);
		if (!coll_proxy_quit(top))
			coll_proxy_chunk(top, &c);
	}
	return NULL;
}

tern_status_t coll_proxy_start(struct tern_comm *top)
{
	struct coll_hosts *h = top->hosts;

	if (pthread_create(&h->thread, NULL, coll_proxy_main, top))
		return TERN_ERROR_OUT_OF_MEMORY;
	h->running = true;
	return TERN_SUCCESS;
}

void coll_proxy_stop(struct tern_comm *top)
{
	struct coll_hosts *h = top->hosts;

	if (!h->running)
		return;
	pthread_mutex_lock(&h->lock);
	__atomic_store_n(&h->stop, true, __ATOMIC_RELEASE);
	pthread_cond_signal(&h->cond);
	pthread_mutex_unlock(&h->lock);
	pthread_join(h->thread, NULL);
	h->running = false;
}
