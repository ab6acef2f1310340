// SPDX-License-Identifier: MIT
/*
 * Halving-doubling along the rail (Rabenseifner's; H a power of two): the
 * reduce-scatter halves the range of pieces each step, exchanging half of
 * it with the host whose number differs in one bit (the highest first),
 * so host q ends with piece q; the all-gather doubles it back. 2 log2(H)
 * steps, the same bytes as the ring. Its reduce-scatter alone is a
 * reduce-scatter along the rail.
 */
#include "coll/hosts/internal.h"

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

static tern_status_t coll_rail_halving_all_reduce(struct tern_comm *top,
						  uint8_t *buf, uint64_t count,
						  tern_dtype_t dtype, tern_redop_t op,
						  uint32_t divisor)
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

static tern_status_t coll_rail_halving_reduce_scatter(struct tern_comm *top,
						      uint8_t *buf,
						      uint64_t count,
						      tern_dtype_t dtype,
						      tern_redop_t op,
						      uint32_t divisor)
{
	int a, b;

	return coll_rail_halve(top, buf, count, dtype, op, divisor, &a, &b);
}

static bool coll_rail_halving_can_run(const struct coll_hosts *h,
				      bool scatter)
{
	(void)scatter;
	return coll_rail_pow2(h);
}

static double coll_rail_halving_estimate(const struct coll_hosts *h,
					 uint64_t bytes, bool scatter)
{
	struct coll_rail_cost c;

	coll_rail_cost(h, bytes, scatter, &c);
	return c.halves * c.steps * c.alpha +
	       c.halves * (c.n - 1) / c.n * c.b * c.beta +
	       (c.n - 1) / c.n * c.b * c.gamma;
}

const struct coll_rail_algo coll_rail_halving = {
	.name = "halving-doubling",
	.listed_as = "rail-halving",
	.can_run = coll_rail_halving_can_run,
	.estimate = coll_rail_halving_estimate,
	.all_reduce = coll_rail_halving_all_reduce,
	.reduce_scatter = coll_rail_halving_reduce_scatter,
};
