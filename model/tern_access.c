// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Device memory as the model's packets reach it (tern_access.h).
 */
#include "tern_access.h"

int tern_access(const struct tern_model_mem *mem, u64 va, u64 len,
		struct tern_access *a)
{
	a->ptr = mem->translate(mem->ctx, va, len, &a->owner);
	a->hop_count = 0;
	if (!a->ptr)
		return -EFAULT;
	if (a->owner == mem->device)
		return 0;
	if (!mem->fabric)
		return -EFAULT;
	a->hop_count = tern_fabric_route(mem->fabric, mem->device, a->owner,
					 a->hops);
	return a->hop_count < 0 ? -ENOLINK : 0;
}

struct tern_timing_operand tern_operand(const struct tern_access *a,
					u64 bytes, bool write)
{
	struct tern_timing_operand op = {
		.ptr = a->ptr, .bytes = bytes, .write = write,
		.device = a->owner, .hop_count = a->hop_count, .hops = a->hops,
	};

	return op;
}

void tern_account(const struct tern_model_mem *mem,
		  const struct tern_access *a, bool write, u64 bytes)
{
	if (a->hop_count > 0)
		tern_fabric_count(mem->fabric, a->hops, a->hop_count, !write,
				  bytes);
}
