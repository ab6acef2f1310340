// SPDX-License-Identifier: MIT
/*
 * Recursive doubling along the rail (H a power of two): log2(H) steps,
 * each exchanging the whole chunk with the host one bit away and reducing
 * it: fewest steps, the most bytes; for small chunks. It has no
 * reduce-scatter.
 */
#include "coll/hosts/internal.h"

static tern_status_t coll_rail_doubling_all_reduce(struct tern_comm *top,
						   uint8_t *buf, uint64_t count,
						   tern_dtype_t dtype, tern_redop_t op,
						   uint32_t divisor)
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

static bool coll_rail_doubling_can_run(const struct coll_hosts *h,
				       bool scatter)
{
	return coll_rail_pow2(h) && !scatter;
}

static double coll_rail_doubling_estimate(const struct coll_hosts *h,
					  uint64_t bytes, bool scatter)
{
	struct coll_rail_cost c;

	coll_rail_cost(h, bytes, scatter, &c);
	return c.steps * (c.alpha + c.b * c.beta + c.b * c.gamma);
}

const struct coll_rail_algo coll_rail_doubling = {
	.name = "doubling",
	.listed_as = "rail-doubling",
	.can_run = coll_rail_doubling_can_run,
	.estimate = coll_rail_doubling_estimate,
	.all_reduce = coll_rail_doubling_all_reduce,
};
