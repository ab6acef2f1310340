// SPDX-License-Identifier: MIT
/*
 * The rail's ring: through the hosts in host order, reduce-scatter then
 * all-gather, as the fabric's rings do. The chunk is cut into one piece
 * per host; at step s of the reduce-scatter host q sends piece q - s to
 * the next host and reduces piece q - s - 1 from the previous one into
 * its own, so after H - 1 steps it holds the sums of piece q + 1; the
 * all-gather passes the finished pieces on. 2(H - 1) steps, each 1/H of
 * the chunk, on any number of hosts. A reduce-scatter along the rail
 * (../hier.c's across hosts) is the first half, turned one piece so that
 * host q ends with piece q.
 */
#include "coll/hosts/internal.h"

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

static tern_status_t coll_rail_ring_all_reduce(struct tern_comm *top,
					       uint8_t *buf, uint64_t count,
					       tern_dtype_t dtype, tern_redop_t op,
					       uint32_t divisor)
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

static tern_status_t coll_rail_ring_reduce_scatter(struct tern_comm *top,
						   uint8_t *buf,
						   uint64_t count,
						   tern_dtype_t dtype,
						   tern_redop_t op,
						   uint32_t divisor)
{
	return coll_rail_ring_scatter(top, buf, count, dtype, op, divisor,
				      -1);
}

static bool coll_rail_ring_can_run(const struct coll_hosts *h, bool scatter)
{
	(void)h;
	(void)scatter;
	return true;
}

static double coll_rail_ring_estimate(const struct coll_hosts *h,
				      uint64_t bytes, bool scatter)
{
	struct coll_rail_cost c;

	coll_rail_cost(h, bytes, scatter, &c);
	return c.halves * (c.n - 1) * c.alpha +
	       c.halves * (c.n - 1) / c.n * c.b * c.beta +
	       (c.n - 1) / c.n * c.b * c.gamma;
}

const struct coll_rail_algo coll_rail_ring = {
	.name = "ring",
	.listed_as = "rail-ring",
	.can_run = coll_rail_ring_can_run,
	.estimate = coll_rail_ring_estimate,
	.all_reduce = coll_rail_ring_all_reduce,
	.reduce_scatter = coll_rail_ring_reduce_scatter,
};
