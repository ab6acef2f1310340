// SPDX-License-Identifier: MIT
/*
 * What a chunk's all-reduce along the rail is made of, whichever of the
 * rail's algorithms runs it (ring.c, halving.c, doubling.c; the tuner,
 * ../tune.c, chooses): steps over the network to and from other hosts'
 * ranks at our position, reductions on the host, and the model's
 * figures for them. Every algorithm leaves every host the same bits, an
 * average divided once, at the reduction that completes it.
 *
 * Each step posts its receive before its send, every message is exactly
 * the size its receiver expects, and a message of length 0 is neither
 * sent nor awaited (both ends know the lengths). The reduction runs on
 * the host, with the device model's arithmetic, so that it gives what the
 * device's REDUCE gives; IEEE sums commute, so both ends of an exchange
 * get the same bits.
 */
#include "coll/hosts/internal.h"
#include "tern_reduce.h"

/* Posts a send (@send) or a receive, waiting while there is no room. */
static tern_status_t coll_rail_post(struct tern_comm *top, bool send,
				    struct tern_net_comm *comm, void *ptr,
				    size_t len, struct tern_net_mr *mr,
				    struct tern_net_req **req)
{
	struct coll_hosts *h = top->hosts;
	tern_status_t status;

	for (;;) {
		status = send ? h->ops->isend(comm, ptr, len, mr, req) :
				h->ops->irecv(comm, ptr, len, mr, req);
		if (status != TERN_ERROR_NOT_READY)
			return status;
		if (coll_comm_error(top))
			return coll_comm_error(top);
		h->ops->wait(h->net, 1);
	}
}

/* Waits for @req to end with @len bytes; the comm's error stops the wait. */
static tern_status_t coll_rail_wait(struct tern_comm *top,
				    struct tern_net_req *req, size_t len)
{
	struct coll_hosts *h = top->hosts;

	for (;;) {
		tern_status_t status;
		bool done = false;
		size_t moved = 0;

		status = h->ops->test(req, &done, &moved);
		if (status)
			return status;
		if (done)
			return moved == len ? TERN_SUCCESS :
					      TERN_ERROR_PEER_FAILED;
		/* Left in flight: closing the connection cancels it. */
		if (coll_comm_error(top) ||
		    __atomic_load_n(&h->stop, __ATOMIC_ACQUIRE))
			return TERN_ERROR_CANCELLED;
		h->ops->wait(h->net, 1);
	}
}

/*
 * One step: @rlen bytes from host @from, @slen to host @to (hosts by
 * number; their ranks on our rail).
 */
tern_status_t coll_rail_step(struct tern_comm *top, int to,
				    const void *sbuf, size_t slen, int from,
				    void *rbuf, size_t rlen,
				    struct tern_net_mr *rmr)
{
	struct coll_hosts *h = top->hosts;
	const int next = h->rail[to], prev = h->rail[from];
	struct tern_net_req *rreq = NULL, *sreq = NULL;
	tern_status_t status = TERN_SUCCESS;

	if (rlen)
		status = coll_rail_post(top, false, h->from[prev], rbuf, rlen,
					rmr, &rreq);
	if (status == TERN_SUCCESS && slen)
		status = coll_rail_post(top, true, h->to[next], (void *)sbuf,
					slen, h->stage_mr, &sreq);
	if (status == TERN_SUCCESS && rreq)
		status = coll_rail_wait(top, rreq, rlen);
	if (status == TERN_SUCCESS && sreq)
		status = coll_rail_wait(top, sreq, slen);
	return status;
}

/* @dst = @dst op @in, the last reduction of an average dividing. */
void coll_rail_reduce(uint8_t *dst, const uint8_t *in, uint64_t count,
		      tern_dtype_t dtype, tern_redop_t op, bool last,
		      uint32_t divisor)
{
	if (!count)
		return;
	if (op == TERN_AVG && last)
		tern_model_reduce_divide(dst, dst, in, count, dtype, divisor);
	else
		tern_model_reduce(dst, dst, in, count, dtype,
				  op == TERN_AVG ? TERN_SUM : op);
}

/* Pieces [@a, @b) of the chunk's @n: where they start and their elements. */
void coll_rail_range(uint64_t count, int n, int a, int b, uint64_t *start,
		     uint64_t *len)
{
	uint64_t s, l, e;

	coll_split(count, (uint64_t)n, (uint64_t)a, start, &l);
	coll_split(count, (uint64_t)n, (uint64_t)(b - 1), &s, &l);
	e = s + l;
	*len = e - *start;
}

/*
 * A chunk along the rail, alpha-beta: a step costs the network's latency
 * plus its bytes at the network's bandwidth, and its reduction at the
 * host's (the proxy reduces on its CPU).
 */
#define COLL_COST_HOST_REDUCE	(4e9)	/* bytes/s */

void coll_rail_cost(const struct coll_hosts *h, uint64_t bytes, bool scatter,
		    struct coll_rail_cost *c)
{
	c->n = h->nhosts;
	c->b = (double)bytes;
	c->alpha = h->net_latency_ns;
	c->beta = 1e9 / h->net_bandwidth;
	c->gamma = 1e9 / COLL_COST_HOST_REDUCE;
	c->steps = 0;
	for (int m = 1; m < h->nhosts; m *= 2)
		c->steps++;
	/* a reduce-scatter is the all-reduce's first half */
	c->halves = scatter ? 1 : 2;
}

bool coll_rail_pow2(const struct coll_hosts *h)
{
	return (h->nhosts & (h->nhosts - 1)) == 0;
}
