/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * How the model's packets reach device memory: a range translated through
 * the submitting context, the route to a peer's memory, and the traffic
 * it puts on the fabric's links. Shared by the files of model/ only.
 */
#ifndef TERN_ACCESS_H
#define TERN_ACCESS_H

#include "tern_model.h"

/* One translated operand: where it is and how the engine reaches it. */
struct tern_access {
	u8 *ptr;
	u32 owner;
	int hop_count;		/* 0: the executing device's own memory */
	struct tern_fabric_hop hops[TERN_FABRIC_MAX_HOPS];
};

/*
 * Translates [@va, @va + @len) and, for a peer's memory, finds the route to
 * it. Returns 0, -EFAULT (not in the context's buffers) or -ENOLINK.
 */
int tern_access(const struct tern_model_mem *mem, u64 va, u64 len,
		struct tern_access *a);

/* @a as the timing model sees it: @bytes read (or written, @write). */
struct tern_timing_operand tern_operand(const struct tern_access *a,
					u64 bytes, bool write);

/* Counts @bytes read from (or written to, @write) a peer on its route. */
void tern_account(const struct tern_model_mem *mem,
		  const struct tern_access *a, bool write, u64 bytes);

#endif /* TERN_ACCESS_H */
