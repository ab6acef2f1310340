// SPDX-License-Identifier: MIT
/*
 * A chunk's all-reduce along the rail, over the network: a ring through
 * the hosts in host order, reduce-scatter then all-gather, as the fabric's
 * rings do. The chunk is cut into one piece per host; at step s of the
 * reduce-scatter host q sends piece q - s to the next host and reduces
 * piece q - s - 1 from the previous one into its own, so after H - 1 steps
 * it holds the sums of piece q + 1; the all-gather passes the finished
 * pieces on. Each step posts its receive before its send, every message
 * is exactly the size its receiver expects, and a message of length 0 is
 * neither sent nor awaited (both ends know the lengths).
 *
 * The reduction runs on the host, with the device model's arithmetic, so
 * that it gives what the device's REDUCE gives.
 */
#include "coll.h"
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

/* One step: @rlen bytes from the previous host, @slen to the next. */
static tern_status_t coll_rail_step(struct tern_comm *top, const void *sbuf,
				    size_t slen, void *rbuf, size_t rlen,
				    struct tern_net_mr *rmr)
{
	struct coll_hosts *h = top->hosts;
	const int next = h->rail[(h->host + 1) % h->nhosts];
	const int prev = h->rail[(h->host + h->nhosts - 1) % h->nhosts];
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

tern_status_t coll_rail_all_reduce(struct tern_comm *top, uint8_t *buf,
				   uint64_t count, tern_dtype_t dtype,
				   tern_redop_t op, uint32_t divisor)
{
	struct coll_hosts *h = top->hosts;
	const int n = h->nhosts, q = h->host;
	const size_t es = tern_dtype_bytes(dtype);
	tern_status_t status = TERN_SUCCESS;
	uint64_t ss, sl, rs, rl;

	for (int s = 0; s < n - 1 && status == TERN_SUCCESS; s++) {
		const int sp = coll_mod(q - s, n), rp = coll_mod(q - s - 1, n);
		uint8_t *dst;

		coll_split(count, (uint64_t)n, (uint64_t)sp, &ss, &sl);
		coll_split(count, (uint64_t)n, (uint64_t)rp, &rs, &rl);
		status = coll_rail_step(top, buf + ss * es, sl * es, h->tmp,
					rl * es, h->tmp_mr);
		if (status || !rl)
			continue;
		dst = buf + rs * es;
		if (op == TERN_AVG && s == n - 2)
			tern_model_reduce_divide(dst, dst, h->tmp, rl, dtype,
						 divisor);
		else
			tern_model_reduce(dst, dst, h->tmp, rl, dtype,
					  op == TERN_AVG ? TERN_SUM : op);
	}
	for (int t = 0; t < n - 1 && status == TERN_SUCCESS; t++) {
		const int sp = coll_mod(q + 1 - t, n), rp = coll_mod(q - t, n);

		coll_split(count, (uint64_t)n, (uint64_t)sp, &ss, &sl);
		coll_split(count, (uint64_t)n, (uint64_t)rp, &rs, &rl);
		status = coll_rail_step(top, buf + ss * es, sl * es,
					buf + rs * es, rl * es, h->stage_mr);
	}
	return status;
}
