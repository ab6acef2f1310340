// SPDX-License-Identifier: MIT
/*
 * The proxy: one thread per comm across hosts that does the network's
 * part of its collectives, as NCCL's proxy thread does, so that a
 * collective call only enqueues and the device never waits for the host
 * to be called again.
 *
 * A program stages chunks (stage.c): it copies a chunk into a slot of
 * host memory and sets the staged word to the chunk's sequence number,
 * and before it copies a result out it waits for the done word to reach
 * it. The proxy takes the chunks in the order the programs were built
 * (every rank builds its collectives in one order), each once the staged
 * word has reached it: an all-reduce or reduce-scatter of the rail
 * (rail/rail.c) runs alone, on the spot; sends and receives to other ranks
 * are posted and tested, up to a slot's worth each, so that an exchange
 * whose two sides are both in the window moves. The done word passes the chunks seen through, in
 * order. A chunk is queued while its program is built and published once
 * the program is submitted, or dropped with it.
 *
 * A failure on the network fails the comm, which aborts the device's
 * wait; a comm in error drops its chunks.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coll/hosts/internal.h"

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

/* The chunks the proxy has taken and not yet seen through, oldest first. */
struct coll_window {
	struct coll_stage_chunk chunk[COLL_STAGE_SLOTS];
	struct tern_net_req *req[COLL_STAGE_SLOTS];
	bool posted[COLL_STAGE_SLOTS], done[COLL_STAGE_SLOTS];
	unsigned int first, count;
};

static uint8_t *coll_proxy_slot(struct coll_hosts *h, uint64_t seq)
{
	return h->stage_cpu + (seq - 1) % COLL_STAGE_SLOTS * COLL_STAGE_BYTES;
}

/*
 * The next published chunk, if the device has staged it and the window
 * can take it: a chunk along the rail runs alone.
 */
static bool coll_proxy_next(struct coll_hosts *h, const struct coll_window *w,
			    struct coll_stage_chunk *c)
{
	bool ok = false;

	pthread_mutex_lock(&h->lock);
	if (h->head < h->published && w->count < COLL_STAGE_SLOTS) {
		*c = h->queue[h->head];
		ok = __atomic_load_n(&h->words_cpu[COLL_WORD_STAGED],
				     __ATOMIC_ACQUIRE) >= c->seq &&
		     (!coll_stage_on_rail(c->kind) || w->count == 0);
		if (ok)
			h->head++;
	}
	pthread_mutex_unlock(&h->lock);
	return ok;
}

/*
 * Posts window entry @i's send or receive, over a connection made now
 * if need be; NOT_READY: try again later.
 */
static tern_status_t coll_proxy_post(struct tern_comm *top,
				     struct coll_window *w, unsigned int i)
{
	struct coll_hosts *h = top->hosts;
	const struct coll_stage_chunk *c = &w->chunk[i];
	uint8_t *slot = coll_proxy_slot(h, c->seq);
	tern_status_t status;

	status = coll_hosts_reach(top, c->peer, c->kind == COLL_STAGE_SEND);
	if (status)
		return status;

	if (c->kind == COLL_STAGE_SEND)
		status = h->ops->isend(h->to[c->peer], slot, c->count,
				       h->stage_mr, &w->req[i]);
	else
		status = h->ops->irecv(h->from[c->peer], slot, c->count,
				       h->stage_mr, &w->req[i]);
	if (status == TERN_SUCCESS)
		w->posted[i] = true;
	return status;
}

/*
 * Moves the window on: takes what is staged, posts, tests, and passes the
 * done word over the chunks seen through in order. Whether anything
 * moved; a failure fails the comm.
 */
static bool coll_proxy_turn(struct tern_comm *top, struct coll_window *w)
{
	struct coll_hosts *h = top->hosts;
	struct coll_stage_chunk c;
	tern_status_t status = TERN_SUCCESS;
	uint64_t done = 0;
	bool moved = false;

	while (status == TERN_SUCCESS && coll_proxy_next(h, w, &c)) {
		unsigned int i = (w->first + w->count++) % COLL_STAGE_SLOTS;

		w->chunk[i] = c;
		w->req[i] = NULL;
		w->posted[i] = w->done[i] = false;
		moved = true;
		if (c.kind == COLL_STAGE_ALL_REDUCE)
			status = c.algo->all_reduce(top,
						    coll_proxy_slot(h, c.seq),
						    c.count, c.dtype, c.redop,
						    (uint32_t)top->nranks);
		else if (c.kind == COLL_STAGE_REDUCE_SCATTER)
			status = c.algo->reduce_scatter(top,
							coll_proxy_slot(h, c.seq),
							c.count, c.dtype,
							c.redop,
							(uint32_t)top->nranks);
		w->done[i] = coll_stage_on_rail(c.kind);
	}
	for (unsigned int k = 0; k < w->count && status == TERN_SUCCESS; k++) {
		unsigned int i = (w->first + k) % COLL_STAGE_SLOTS;
		size_t len = 0;
		bool ended = false;

		if (w->done[i])
			continue;
		if (!w->posted[i]) {
			status = coll_proxy_post(top, w, i);
			if (status == TERN_ERROR_NOT_READY) {
				status = TERN_SUCCESS;
				continue;
			}
		}
		if (status == TERN_SUCCESS)
			status = h->ops->test(w->req[i], &ended, &len);
		if (status == TERN_SUCCESS && ended) {
			w->req[i] = NULL;
			w->done[i] = true;
			moved = true;
			if (len != w->chunk[i].count)
				status = TERN_ERROR_PEER_FAILED;
		}
	}
	/* Counted before the device can see the chunks done. */
	if (moved || status)
		coll_hosts_count(top);
	if (status) {
		/*
		 * A transfer the network failed (cancelled as the connection
		 * went, say) means a rank failed; a wait given up by
		 * ourselves leaves the comm's own error. Requests still in
		 * flight end when their connections close.
		 */
		coll_comm_fail(top, TERN_ERROR_PEER_FAILED, false);
		return true;
	}
	while (w->count && w->done[w->first]) {
		done = w->chunk[w->first].seq;
		w->first = (w->first + 1) % COLL_STAGE_SLOTS;
		w->count--;
	}
	if (done) {
		__atomic_store_n(&h->words_cpu[COLL_WORD_DONE], done,
				 __ATOMIC_SEQ_CST);
		/* The device's wait would see it only at its next look. */
		if (top->dev->ops->host_wrote)
			top->dev->ops->host_wrote(top->dev->be);
	}
	return moved || done;
}

/* Drops what is queued once the comm has failed. */
static void coll_proxy_drop(struct coll_hosts *h, struct coll_window *w)
{
	pthread_mutex_lock(&h->lock);
	h->head = h->published;
	pthread_mutex_unlock(&h->lock);
	w->count = 0;
}

static void *coll_proxy_main(void *arg)
{
	struct tern_comm *top = arg;
	struct coll_hosts *h = top->hosts;
	struct coll_window w = { .count = 0 };
	struct timespec pause = { 0, 20000 };
	unsigned int idle = 0;

	for (;;) {
		pthread_mutex_lock(&h->lock);
		while (!h->stop && h->head == h->published && !w.count)
			pthread_cond_wait(&h->cond, &h->lock);
		pthread_mutex_unlock(&h->lock);
		if (__atomic_load_n(&h->stop, __ATOMIC_ACQUIRE))
			break;
		if (coll_proxy_quit(top)) {
			coll_proxy_drop(h, &w);
			continue;
		}
		if (coll_proxy_turn(top, &w)) {
			idle = 0;
			pause.tv_nsec = 20000;
			continue;
		}
		/* Transfers in flight: the network's wait; else the device. */
		if (w.count) {
			h->ops->wait(h->net, 1);
		} else if (++idle < 64) {
			sched_yield();
		} else {
			nanosleep(&pause, NULL);
			if (pause.tv_nsec < 1000000)
				pause.tv_nsec *= 2;
		}
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
