// SPDX-License-Identifier: MIT
/*
 * A chunk's all-reduce along the rail, over the network, by the algorithm
 * the tuner chose (coll_tune_rail): all three leave every host the same
 * bits, an average divided once, at the reduction that completes it.
 *
 * - Ring: through the hosts in host order, reduce-scatter then all-gather,
 *   as the fabric's rings do. The chunk is cut into one piece per host; at
 *   step s of the reduce-scatter host q sends piece q - s to the next host
 *   and reduces piece q - s - 1 from the previous one into its own, so
 *   after H - 1 steps it holds the sums of piece q + 1; the all-gather
 *   passes the finished pieces on. 2(H - 1) steps, each 1/H of the chunk.
 * - Halving-doubling (Rabenseifner's; H a power of two): the
 *   reduce-scatter halves the range of pieces each step, exchanging half
 *   of it with the host whose number differs in one bit (the highest
 *   first), so host q ends with piece q; the all-gather doubles it back.
 *   2 log2(H) steps, the same bytes as the ring.
 * - Doubling (H a power of two): log2(H) steps, each exchanging the whole
 *   chunk with the host one bit away and reducing it: fewest steps, the
 *   most bytes; for small chunks.
 *
 * A reduce-scatter along the rail (hosts/hier.c's reduce-scatter across
 * hosts)
 * is the first half of the ring's, turned one piece so that host q ends
 * with piece q, or of halving-doubling's; doubling has none.
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
static tern_status_t coll_rail_step(struct tern_comm *top, int to,
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
static void coll_rail_reduce(uint8_t *dst, const uint8_t *in, uint64_t count,
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
static void coll_rail_range(uint64_t count, int n, int a, int b,
			    uint64_t *start, uint64_t *len)
{
	uint64_t s, l, e;

	coll_split(count, (uint64_t)n, (uint64_t)a, start, &l);
	coll_split(count, (uint64_t)n, (uint64_t)(b - 1), &s, &l);
	e = s + l;
	*len = e - *start;
}

/*
 * The ring's reduce-scatter: after it host q holds the sums of piece
 * q + 1 + @shift (0 for the all-reduce's all-gather to pass on as it
 * comes, -1 for a reduce-scatter's own piece).
 */
static tern_status_t coll_rail_ring_scatter(struct tern_comm *top,
					    uint8_t *buf, uint64_t count,
					    tern_dtype_t dtype,
					    tern_redop_t op, uint32_t divisor,
					    int shift)
{
	struct coll_hosts *h = top->hosts;
	const int n = h->nhosts, q = h->host;
	const int next = (q + 1) % n, prev = (q + n - 1) % n;
	const size_t es = tern_dtype_bytes(dtype);
	tern_status_t status = TERN_SUCCESS;
	uint64_t ss, sl, rs, rl;

	for (int s = 0; s < n - 1 && status == TERN_SUCCESS; s++) {
		const int sp = coll_mod(q - s + shift, n);
		const int rp = coll_mod(q - s - 1 + shift, n);

		coll_split(count, (uint64_t)n, (uint64_t)sp, &ss, &sl);
		coll_split(count, (uint64_t)n, (uint64_t)rp, &rs, &rl);
		status = coll_rail_step(top, next, buf + ss * es, sl * es,
					prev, h->tmp, rl * es, h->tmp_mr);
		if (status == TERN_SUCCESS)
			coll_rail_reduce(buf + rs * es, h->tmp, rl, dtype, op,
					 s == n - 2, divisor);
	}
	return status;
}

static tern_status_t coll_rail_ring(struct tern_comm *top, uint8_t *buf,
				    uint64_t count, tern_dtype_t dtype,
				    tern_redop_t op, uint32_t divisor)
{
	struct coll_hosts *h = top->hosts;
	const int n = h->nhosts, q = h->host;
	const int next = (q + 1) % n, prev = (q + n - 1) % n;
	const size_t es = tern_dtype_bytes(dtype);
	tern_status_t status;
	uint64_t ss, sl, rs, rl;

	status = coll_rail_ring_scatter(top, buf, count, dtype, op, divisor,
					0);
	for (int t = 0; t < n - 1 && status == TERN_SUCCESS; t++) {
		const int sp = coll_mod(q + 1 - t, n), rp = coll_mod(q - t, n);

		coll_split(count, (uint64_t)n, (uint64_t)sp, &ss, &sl);
		coll_split(count, (uint64_t)n, (uint64_t)rp, &rs, &rl);
		status = coll_rail_step(top, next, buf + ss * es, sl * es,
					prev, buf + rs * es, rl * es,
					h->stage_mr);
	}
	return status;
}

/*
 * Halving's reduce-scatter: host q ends with the sums of piece q, pieces
 * [*@a, *@b) (set here).
 */
static tern_status_t coll_rail_halve(struct tern_comm *top, uint8_t *buf,
				     uint64_t count, tern_dtype_t dtype,
				     tern_redop_t op, uint32_t divisor,
				     int *a, int *b)
{
	struct coll_hosts *h = top->hosts;
	const int n = h->nhosts, q = h->host;
	const size_t es = tern_dtype_bytes(dtype);
	tern_status_t status = TERN_SUCCESS;
	uint64_t ks, kl, gs, gl;

	*a = 0;
	*b = n;
	/* keep the half of [a, b) our bit says, give the other */
	for (int mask = n / 2; mask >= 1 && status == TERN_SUCCESS;
	     mask /= 2) {
		const int mid = *a + (*b - *a) / 2, partner = q ^ mask;
		const bool upper = q & mask;

		coll_rail_range(count, n, upper ? mid : *a, upper ? *b : mid,
				&ks, &kl);
		coll_rail_range(count, n, upper ? *a : mid, upper ? mid : *b,
				&gs, &gl);
		status = coll_rail_step(top, partner, buf + gs * es, gl * es,
					partner, h->tmp, kl * es, h->tmp_mr);
		if (status == TERN_SUCCESS)
			coll_rail_reduce(buf + ks * es, h->tmp, kl, dtype, op,
					 mask == 1, divisor);
		if (upper)
			*a = mid;
		else
			*b = mid;
	}
	return status;
}

static tern_status_t coll_rail_halving(struct tern_comm *top, uint8_t *buf,
				       uint64_t count, tern_dtype_t dtype,
				       tern_redop_t op, uint32_t divisor)
{
	struct coll_hosts *h = top->hosts;
	const int n = h->nhosts, q = h->host;
	const size_t es = tern_dtype_bytes(dtype);
	tern_status_t status;
	int a, b, mask;
	uint64_t ks, kl, gs, gl;

	status = coll_rail_halve(top, buf, count, dtype, op, divisor, &a, &b);
	/* All-gather: [a, b) is ours; the partner's is its mirror. */
	for (mask = 1; mask < n && status == TERN_SUCCESS; mask *= 2) {
		const int partner = q ^ mask, width = b - a;
		const int pa = q & mask ? a - width : b;

		coll_rail_range(count, n, a, b, &ks, &kl);
		coll_rail_range(count, n, pa, pa + width, &gs, &gl);
		status = coll_rail_step(top, partner, buf + ks * es, kl * es,
					partner, buf + gs * es, gl * es,
					h->stage_mr);
		if (pa < a)
			a = pa;
		else
			b = pa + width;
	}
	return status;
}

static tern_status_t coll_rail_doubling(struct tern_comm *top, uint8_t *buf,
					uint64_t count, tern_dtype_t dtype,
					tern_redop_t op, uint32_t divisor)
{
	struct coll_hosts *h = top->hosts;
	const int n = h->nhosts, q = h->host;
	const size_t bytes = count * tern_dtype_bytes(dtype);
	tern_status_t status = TERN_SUCCESS;

	for (int mask = 1; mask < n && status == TERN_SUCCESS; mask *= 2) {
		status = coll_rail_step(top, q ^ mask, buf, bytes, q ^ mask,
					h->tmp, bytes, h->tmp_mr);
		if (status == TERN_SUCCESS)
			coll_rail_reduce(buf, h->tmp, count, dtype, op,
					 mask * 2 >= n, divisor);
	}
	return status;
}

tern_status_t coll_rail_all_reduce(struct tern_comm *top, uint8_t *buf,
				   uint64_t count, tern_dtype_t dtype,
				   tern_redop_t op, uint32_t divisor,
				   enum coll_rail_algo algo)
{
	switch (algo) {
	case COLL_RAIL_HALVING:
		return coll_rail_halving(top, buf, count, dtype, op, divisor);
	case COLL_RAIL_DOUBLING:
		return coll_rail_doubling(top, buf, count, dtype, op, divisor);
	default:
		return coll_rail_ring(top, buf, count, dtype, op, divisor);
	}
}

tern_status_t coll_rail_reduce_scatter(struct tern_comm *top, uint8_t *buf,
				       uint64_t count, tern_dtype_t dtype,
				       tern_redop_t op, uint32_t divisor,
				       enum coll_rail_algo algo)
{
	int a, b;

	if (algo == COLL_RAIL_HALVING)
		return coll_rail_halve(top, buf, count, dtype, op, divisor,
				       &a, &b);
	return coll_rail_ring_scatter(top, buf, count, dtype, op, divisor,
				      -1);
}
