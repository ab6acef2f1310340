// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The Tern device model: decoding and executing packet streams.
 *
 * Validation is structural and happens once, when a stream is submitted.
 * Execution translates every access through the submitting context, so a
 * bad address fails only that job.
 */
#include "tern_access.h"
#include "tern_compute.h"
#include "tern_reduce.h"

/* The engines a packet runs on, as bits of enum drm_tern_engine_type. */
#define TERN_ON_DMA	(1u << DRM_TERN_ENGINE_DMA)
#define TERN_ON_TENSOR	(1u << DRM_TERN_ENGINE_TENSOR)
#define TERN_ON_VECTOR	(1u << DRM_TERN_ENGINE_VECTOR)
#define TERN_ON_SCALAR	(1u << DRM_TERN_ENGINE_SCALAR)
#define TERN_ON_ANY	(TERN_ON_DMA | TERN_ON_TENSOR | TERN_ON_VECTOR | \
			 TERN_ON_SCALAR)

struct tern_packet_rule {
	u8 engines;		/* TERN_ON_*; 0: the opcode is not defined */
	u16 length;		/* in 8-byte units; 0: any length >= 1 */
	u32 flags;		/* flag bits that are defined */
};

#define TERN_RULE(on, type, flag_bits) \
	{ (on), sizeof(struct type) / 8, (flag_bits) }

static const struct tern_packet_rule *tern_packet_rule(u16 opcode)
{
	static const struct tern_packet_rule rules[] = {
		[DRM_TERN_OP_NOP] = { TERN_ON_ANY, 0, 0 },
		[DRM_TERN_OP_COPY] = TERN_RULE(TERN_ON_DMA,
			drm_tern_packet_copy, 0),
		[DRM_TERN_OP_FILL] = TERN_RULE(TERN_ON_DMA,
			drm_tern_packet_fill, 0),
		[DRM_TERN_OP_TIMESTAMP] = TERN_RULE(TERN_ON_ANY,
			drm_tern_packet_timestamp, 0),
		[DRM_TERN_OP_SEM_SIGNAL] = TERN_RULE(TERN_ON_ANY,
			drm_tern_packet_sem_signal, DRM_TERN_SEM_SIGNAL_ADD),
		[DRM_TERN_OP_SEM_WAIT] = TERN_RULE(TERN_ON_ANY,
			drm_tern_packet_sem_wait, DRM_TERN_SEM_WAIT_EQ),
		[DRM_TERN_OP_SEM_WAIT_ABORT] = TERN_RULE(TERN_ON_ANY,
			drm_tern_packet_sem_wait_abort, DRM_TERN_SEM_WAIT_EQ),
		[DRM_TERN_OP_REDUCE] = TERN_RULE(TERN_ON_DMA,
			drm_tern_packet_reduce, DRM_TERN_REDUCE_DIVIDE),
		[DRM_TERN_OP_DMA_TILE] = TERN_RULE(TERN_ON_DMA,
			drm_tern_packet_dma_tile, DRM_TERN_DMA_TILE_TO_MEMORY),
		[DRM_TERN_OP_MATMUL] = TERN_RULE(TERN_ON_TENSOR,
			drm_tern_packet_matmul, DRM_TERN_MATMUL_ACCUMULATE),
		[DRM_TERN_OP_TENSOR_COPY] = TERN_RULE(TERN_ON_VECTOR | TERN_ON_SCALAR,
			drm_tern_packet_tensor_copy,
			DRM_TERN_TENSOR_COPY_TRANSPOSE),
		[DRM_TERN_OP_TENSOR_TENSOR] = TERN_RULE(TERN_ON_VECTOR,
			drm_tern_packet_tensor_tensor, 0),
		[DRM_TERN_OP_TENSOR_SCALAR] = TERN_RULE(TERN_ON_VECTOR | TERN_ON_SCALAR,
			drm_tern_packet_tensor_scalar,
			DRM_TERN_SCALAR_OPERAND0_COLUMN |
			DRM_TERN_SCALAR_OPERAND1_COLUMN),
		[DRM_TERN_OP_TENSOR_REDUCE] = TERN_RULE(TERN_ON_VECTOR,
			drm_tern_packet_tensor_reduce, 0),
		[DRM_TERN_OP_ACTIVATE] = TERN_RULE(TERN_ON_SCALAR,
			drm_tern_packet_activate,
			DRM_TERN_ACTIVATE_SCALE_COLUMN |
			DRM_TERN_ACTIVATE_BIAS_COLUMN | DRM_TERN_ACTIVATE_SUM),
	};

	if (opcode >= ARRAY_SIZE(rules) || !rules[opcode].engines)
		return NULL;
	return &rules[opcode];
}

/* A range is in range when it ends at or below DRM_TERN_VA_LIMIT. */
static bool tern_range_ok(u64 va, u64 bytes)
{
	return va <= DRM_TERN_VA_LIMIT && bytes <= DRM_TERN_VA_LIMIT - va;
}

static bool tern_u64_slot_ok(u64 va)
{
	return (va & 7) == 0 && tern_range_ok(va, 8);
}

/* Ranges of @bytes at @a and @b share a byte. */
static bool tern_ranges_overlap(u64 a, u64 b, u64 bytes)
{
	return bytes && a < b + bytes && b < a + bytes;
}

/* A destination may be an operand itself, but not part of one. */
static bool tern_reduce_dst_ok(u64 dst, u64 src, u64 bytes)
{
	return dst == src || !tern_ranges_overlap(dst, src, bytes);
}

static int tern_validate_reduce(const struct drm_tern_packet_reduce *p)
{
	u32 size;
	u64 bytes;

	if (p->dtype >= TERN_MODEL_REDUCE_DTYPE_COUNT ||
	    p->op >= TERN_MODEL_REDOP_COUNT)
		return -EINVAL;
	/* the divisor is the pad's word: an average is a SUM divided */
	if (p->header.flags & DRM_TERN_REDUCE_DIVIDE) {
		if (p->op != DRM_TERN_REDOP_SUM || p->divisor == 0)
			return -EINVAL;
	} else if (p->pad) {
		return -EINVAL;
	}
	size = tern_model_dtype_size(p->dtype);
	if ((p->src0 | p->src1 | p->dst) & (size - 1))
		return -EINVAL;
	if (p->count > DRM_TERN_VA_LIMIT / size)
		return -EINVAL;
	bytes = p->count * size;
	if (!tern_range_ok(p->src0, bytes) || !tern_range_ok(p->src1, bytes) ||
	    !tern_range_ok(p->dst, bytes))
		return -EINVAL;
	if (!tern_reduce_dst_ok(p->dst, p->src0, bytes) ||
	    !tern_reduce_dst_ok(p->dst, p->src1, bytes))
		return -EINVAL;
	return 0;
}

static int tern_validate_packet(const struct drm_tern_packet_header *hdr,
				const struct tern_model_target *target)
{
	switch (hdr->opcode) {
	case DRM_TERN_OP_COPY: {
		const struct drm_tern_packet_copy *p = (const void *)hdr;

		if (!tern_range_ok(p->src, p->bytes) ||
		    !tern_range_ok(p->dst, p->bytes))
			return -EINVAL;
		return 0;
	}
	case DRM_TERN_OP_FILL: {
		const struct drm_tern_packet_fill *p = (const void *)hdr;

		if (p->pad || !tern_range_ok(p->dst, p->bytes))
			return -EINVAL;
		return 0;
	}
	case DRM_TERN_OP_TIMESTAMP: {
		const struct drm_tern_packet_timestamp *p = (const void *)hdr;

		return tern_u64_slot_ok(p->dst) ? 0 : -EINVAL;
	}
	case DRM_TERN_OP_SEM_SIGNAL:
	case DRM_TERN_OP_SEM_WAIT: {
		/* signal and wait share one layout: header, addr, value */
		const struct drm_tern_packet_sem_wait *p = (const void *)hdr;

		return tern_u64_slot_ok(p->addr) ? 0 : -EINVAL;
	}
	case DRM_TERN_OP_SEM_WAIT_ABORT: {
		const struct drm_tern_packet_sem_wait_abort *p =
			(const void *)hdr;

		return tern_u64_slot_ok(p->addr) && tern_u64_slot_ok(p->abort) ?
		       0 : -EINVAL;
	}
	case DRM_TERN_OP_REDUCE:
		return tern_validate_reduce((const void *)hdr);
	case DRM_TERN_OP_NOP:
		return 0;
	default:
		return tern_compute_validate(hdr, target);
	}
}

int tern_model_validate(const void *packets, u32 size, u32 *bad_offset)
{
	static const struct tern_core_shape no_cores;
	static const struct tern_model_target dma = {
		.type = DRM_TERN_ENGINE_DMA, .shape = &no_cores,
	};

	return tern_model_validate_on(packets, size, &dma, bad_offset);
}

int tern_model_validate_on(const void *packets, u32 size,
			   const struct tern_model_target *target,
			   u32 *bad_offset)
{
	const u8 *base = packets;
	u32 offset = 0;

	if (size == 0 || size % 8 || size > TERN_MODEL_MAX_SUBMIT_BYTES)
		goto bad;

	while (offset < size) {
		const struct drm_tern_packet_header *hdr =
			(const void *)(base + offset);
		const struct tern_packet_rule *rule;
		u32 bytes;

		if (size - offset < sizeof(*hdr))
			goto bad;
		rule = tern_packet_rule(hdr->opcode);
		if (!rule || !(rule->engines & (1u << target->type)) ||
		    hdr->length == 0 || (hdr->flags & ~rule->flags))
			goto bad;
		if (rule->length && hdr->length != rule->length)
			goto bad;
		bytes = (u32)hdr->length * 8;
		if (bytes > size - offset)
			goto bad;
		if (tern_validate_packet(hdr, target))
			goto bad;
		offset += bytes;
	}
	return 0;
bad:
	if (bad_offset)
		*bad_offset = offset;
	return -EINVAL;
}

static u64 tern_min_u64(u64 a, u64 b)
{
	return a < b ? a : b;
}

/*
 * COPY and FILL move at most *budget bytes per call and record how far they
 * got in job->progress, so one call never runs long whatever the stream.
 */
static int tern_run_copy(struct tern_model_job *job,
			 const struct drm_tern_packet_copy *p,
			 const struct tern_model_mem *mem, u64 *budget)
{
	struct tern_access src_access, dst_access;
	u64 chunk, at;
	u8 *src, *dst;
	int ret;

	if (p->bytes == 0)
		return 0;
	/* Check the whole ranges first: a faulting copy writes nothing. */
	ret = tern_access(mem, p->src, p->bytes, &src_access);
	if (!ret)
		ret = tern_access(mem, p->dst, p->bytes, &dst_access);
	if (ret)
		return ret;
	if (mem->timing && job->progress == 0) {
		struct tern_timing_operand ops[] = {
			tern_operand(&src_access, p->bytes, false),
			tern_operand(&dst_access, p->bytes, true),
		};

		tern_timing_transfer(mem->timing, mem->engine, ops, 2);
	}
	src = src_access.ptr;
	dst = dst_access.ptr;
	chunk = tern_min_u64(p->bytes - job->progress, *budget);
	/*
	 * Overlapping ranges with dst above src must be walked from the end,
	 * or a chunk would read bytes an earlier chunk already overwrote.
	 */
	if (dst > src && src + p->bytes > dst)
		at = p->bytes - job->progress - chunk;
	else
		at = job->progress;
	if (!mem->skip_data)
		memmove(dst + at, src + at, chunk);
	tern_account(mem, &src_access, false, chunk);
	tern_account(mem, &dst_access, true, chunk);
	job->progress += chunk;
	*budget -= chunk;
	return job->progress == p->bytes ? 0 : TERN_MODEL_YIELD;
}

static int tern_run_fill(struct tern_model_job *job,
			 const struct drm_tern_packet_fill *p,
			 const struct tern_model_mem *mem, u64 *budget)
{
	u8 pattern[4] = {
		(u8)p->pattern, (u8)(p->pattern >> 8),
		(u8)(p->pattern >> 16), (u8)(p->pattern >> 24),
	};
	struct tern_access dst_access;
	u64 end, i;
	u8 *dst;
	int ret;

	if (p->bytes == 0)
		return 0;
	ret = tern_access(mem, p->dst, p->bytes, &dst_access);
	if (ret)
		return ret;
	if (mem->timing && job->progress == 0) {
		struct tern_timing_operand op =
			tern_operand(&dst_access, p->bytes, true);

		tern_timing_transfer(mem->timing, mem->engine, &op, 1);
	}
	dst = dst_access.ptr;
	end = job->progress + tern_min_u64(p->bytes - job->progress, *budget);
	if (mem->skip_data) {
		/* nothing written, counted below as if it were */
	} else if (pattern[0] == pattern[1] && pattern[0] == pattern[2] &&
		   pattern[0] == pattern[3]) {
		memset(dst + job->progress, pattern[0], end - job->progress);
	} else {
		for (i = job->progress; i < end; i++)
			dst[i] = pattern[i & 3];
	}
	tern_account(mem, &dst_access, true, end - job->progress);
	*budget -= end - job->progress;
	job->progress = end;
	return end == p->bytes ? 0 : TERN_MODEL_YIELD;
}

/*
 * REDUCE works in whole elements, each costing tern_model_reduce_cost() of
 * *budget, and at least one per call; job->progress counts the bytes of
 * dst done. Its reads of src0 and src1 and its write of dst are each
 * counted on their routes.
 */
static int tern_run_reduce(struct tern_model_job *job,
			   const struct drm_tern_packet_reduce *p,
			   const struct tern_model_mem *mem, u64 *budget)
{
	struct tern_access src0_access, src1_access, dst_access;
	u32 size = tern_model_dtype_size(p->dtype);
	u32 cost = tern_model_reduce_cost(p->dtype, p->op,
					  p->header.flags & DRM_TERN_REDUCE_DIVIDE);
	u64 bytes = p->count * size, at = job->progress, chunk, elements;
	int ret;

	if (bytes == 0)
		return 0;
	/* As for COPY: a REDUCE that cannot reach all three writes nothing. */
	ret = tern_access(mem, p->src0, bytes, &src0_access);
	if (!ret)
		ret = tern_access(mem, p->src1, bytes, &src1_access);
	if (!ret)
		ret = tern_access(mem, p->dst, bytes, &dst_access);
	if (ret)
		return ret;
	if (mem->timing && at == 0) {
		struct tern_timing_operand ops[] = {
			tern_operand(&src0_access, bytes, false),
			tern_operand(&src1_access, bytes, false),
			tern_operand(&dst_access, bytes, true),
		};

		tern_timing_transfer(mem->timing, mem->engine, ops, 3);
	}
	/* never 0: a call that gets here makes progress */
	elements = *budget / cost ? *budget / cost : 1;
	chunk = tern_min_u64(bytes - at, elements * size);
	if (mem->skip_data) {
		/* nothing reduced, counted below as if it were */
	} else if (p->header.flags & DRM_TERN_REDUCE_DIVIDE) {
		tern_model_reduce_divide(dst_access.ptr + at,
					 src0_access.ptr + at,
					 src1_access.ptr + at, chunk / size,
					 p->dtype, p->divisor);
	} else {
		tern_model_reduce(dst_access.ptr + at, src0_access.ptr + at,
				  src1_access.ptr + at, chunk / size, p->dtype,
				  p->op);
	}
	tern_account(mem, &src0_access, false, chunk);
	tern_account(mem, &src1_access, false, chunk);
	tern_account(mem, &dst_access, true, chunk);
	job->progress += chunk;
	*budget -= tern_min_u64(*budget, chunk / size * cost);
	return job->progress == bytes ? 0 : TERN_MODEL_YIELD;
}

/*
 * An 8-byte semaphore or timestamp slot, possibly a peer's: a peer's
 * semaphore is how a collective step waits for another device without the
 * host. Each access counts 8 bytes on the route.
 */
static int tern_u64_slot(const struct tern_model_mem *mem, u64 va, bool write,
			 struct tern_access *a)
{
	int ret = tern_access(mem, va, sizeof(u64), a);

	if (ret)
		return ret;
	tern_account(mem, a, write, sizeof(u64));
	return 0;
}

/*
 * Whether the u64 at @va passes a wait for @value (== with @equal, else
 * >=). Polls that fail are not traffic worth counting; the pass is.
 */
static int tern_sem_check(const struct tern_model_mem *mem, u64 va,
			  u64 value, bool equal)
{
	struct tern_access a;
	bool passed;
	u64 now;
	int ret = tern_access(mem, va, sizeof(u64), &a);

	if (ret)
		return ret;
	now = tern_load_u64((u64 *)a.ptr);
	passed = equal ? now == value : now >= value;
	if (!passed)
		return TERN_MODEL_STALLED;
	tern_account(mem, &a, false, sizeof(u64));
	if (mem->timing)
		tern_timing_wait(mem->timing, mem->engine, (u64 *)a.ptr, value,
				 equal, a.hops, a.hop_count);
	return 0;
}

/*
 * SEM_WAIT_ABORT: the abort word first, at every look, so that a job
 * whose abort word is set never passes. Its read is counted when it ends
 * the wait, either way.
 */
static int tern_run_sem_wait_abort(const struct drm_tern_packet_sem_wait_abort *p,
				   const struct tern_model_mem *mem)
{
	struct tern_access a;
	u64 word;
	int ret = tern_access(mem, p->abort, sizeof(u64), &a);

	if (ret)
		return ret;
	word = tern_load_u64((u64 *)a.ptr);
	if (word) {
		tern_account(mem, &a, false, sizeof(u64));
		return word == DRM_TERN_SEM_ABORT_CANCEL ? -ECANCELED : -ECONNRESET;
	}
	ret = tern_sem_check(mem, p->addr, p->value,
			     p->header.flags & DRM_TERN_SEM_WAIT_EQ);
	if (!ret)
		tern_account(mem, &a, false, sizeof(u64));
	return ret;
}

static int tern_run_packet(struct tern_model_job *job,
			   const struct drm_tern_packet_header *hdr,
			   const struct tern_model_mem *mem, u64 *budget)
{
	switch (hdr->opcode) {
	case DRM_TERN_OP_COPY:
		return tern_run_copy(job, (const void *)hdr, mem, budget);
	case DRM_TERN_OP_FILL:
		return tern_run_fill(job, (const void *)hdr, mem, budget);
	case DRM_TERN_OP_REDUCE:
		return tern_run_reduce(job, (const void *)hdr, mem, budget);
	case DRM_TERN_OP_TIMESTAMP: {
		const struct drm_tern_packet_timestamp *p = (const void *)hdr;
		struct tern_access a;
		int ret = tern_u64_slot(mem, p->dst, true, &a);
		u64 stamp;

		if (ret)
			return ret;
		stamp = mem->timing ? tern_timing_stamp(mem->engine) : 0;
		tern_store_u64((u64 *)a.ptr,
			       mem->model_clock ? stamp : mem->clock(mem->ctx));
		return 0;
	}
	case DRM_TERN_OP_SEM_SIGNAL: {
		const struct drm_tern_packet_sem_signal *p = (const void *)hdr;
		bool add = hdr->flags & DRM_TERN_SEM_SIGNAL_ADD;
		struct tern_access a;
		int ret = tern_u64_slot(mem, p->addr, true, &a);
		u64 *slot;

		if (ret)
			return ret;
		slot = (u64 *)a.ptr;
		if (mem->timing)
			tern_timing_signal(mem->timing, mem->engine, slot,
					   p->value, add, a.hops, a.hop_count);
		/* Engines of several devices may add to one semaphore at once. */
		else if (add)
			tern_atomic_add_u64(slot, p->value);
		else
			tern_store_u64(slot, p->value);
		return 0;
	}
	case DRM_TERN_OP_SEM_WAIT: {
		const struct drm_tern_packet_sem_wait *p = (const void *)hdr;

		return tern_sem_check(mem, p->addr, p->value,
				      hdr->flags & DRM_TERN_SEM_WAIT_EQ);
	}
	case DRM_TERN_OP_SEM_WAIT_ABORT:
		return tern_run_sem_wait_abort((const void *)hdr, mem);
	case DRM_TERN_OP_NOP:
		return 0;
	default:
		return tern_compute_run(job, hdr, mem, budget);
	}
}

int tern_model_run(struct tern_model_job *job, const struct tern_model_mem *mem)
{
	const u8 *base = job->packets;
	u64 budget = TERN_MODEL_BUDGET;

	while (job->offset < job->size) {
		const struct drm_tern_packet_header *hdr =
			(const void *)(base + job->offset);
		int ret;

		if (budget < TERN_MODEL_PACKET_COST)
			return TERN_MODEL_YIELD;
		ret = tern_run_packet(job, hdr, mem, &budget);
		if (ret)
			return ret;
		if (mem->timing)
			tern_timing_packet(mem->engine, mem->target->type);
		budget -= tern_min_u64(budget, TERN_MODEL_PACKET_COST);
		job->offset += (u32)hdr->length * 8;
		job->progress = 0;
	}
	return 0;
}
