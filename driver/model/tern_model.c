// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The Tern device model: decoding and executing packet streams.
 *
 * Validation is structural and happens once, when a stream is submitted.
 * Execution translates every access through the submitting context, so a
 * bad address fails only that job.
 */
#include "tern_model.h"

struct tern_packet_rule {
	u16 length;		/* in 8-byte units; 0: any length >= 1 */
	u32 flags;		/* flag bits that are defined */
};

static const struct tern_packet_rule *tern_packet_rule(u16 opcode)
{
	static const struct tern_packet_rule rules[] = {
		[TERN_OP_NOP] = { 0, 0 },
		[TERN_OP_COPY] = { sizeof(struct drm_tern_packet_copy) / 8, 0 },
		[TERN_OP_FILL] = { sizeof(struct drm_tern_packet_fill) / 8, 0 },
		[TERN_OP_TIMESTAMP] = {
			sizeof(struct drm_tern_packet_timestamp) / 8, 0 },
		[TERN_OP_SEM_SIGNAL] = {
			sizeof(struct drm_tern_packet_sem_signal) / 8,
			TERN_SEM_SIGNAL_ADD },
		[TERN_OP_SEM_WAIT] = {
			sizeof(struct drm_tern_packet_sem_wait) / 8,
			TERN_SEM_WAIT_EQ },
	};

	if (opcode == 0 || opcode >= ARRAY_SIZE(rules))
		return NULL;
	return &rules[opcode];
}

/* A range is in range when it ends at or below TERN_VA_LIMIT. */
static bool tern_range_ok(u64 va, u64 bytes)
{
	return va <= TERN_VA_LIMIT && bytes <= TERN_VA_LIMIT - va;
}

static bool tern_u64_slot_ok(u64 va)
{
	return (va & 7) == 0 && tern_range_ok(va, 8);
}

static int tern_validate_packet(const struct drm_tern_packet_header *hdr)
{
	switch (hdr->opcode) {
	case TERN_OP_COPY: {
		const struct drm_tern_packet_copy *p = (const void *)hdr;

		if (!tern_range_ok(p->src, p->bytes) ||
		    !tern_range_ok(p->dst, p->bytes))
			return -EINVAL;
		return 0;
	}
	case TERN_OP_FILL: {
		const struct drm_tern_packet_fill *p = (const void *)hdr;

		if (p->pad || !tern_range_ok(p->dst, p->bytes))
			return -EINVAL;
		return 0;
	}
	case TERN_OP_TIMESTAMP: {
		const struct drm_tern_packet_timestamp *p = (const void *)hdr;

		return tern_u64_slot_ok(p->dst) ? 0 : -EINVAL;
	}
	case TERN_OP_SEM_SIGNAL:
	case TERN_OP_SEM_WAIT: {
		/* signal and wait share one layout: header, addr, value */
		const struct drm_tern_packet_sem_wait *p = (const void *)hdr;

		return tern_u64_slot_ok(p->addr) ? 0 : -EINVAL;
	}
	default:
		return 0;
	}
}

int tern_model_validate(const void *packets, u32 size, u32 *bad_offset)
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
		if (!rule || hdr->length == 0 || (hdr->flags & ~rule->flags))
			goto bad;
		if (rule->length && hdr->length != rule->length)
			goto bad;
		bytes = (u32)hdr->length * 8;
		if (bytes > size - offset)
			goto bad;
		if (tern_validate_packet(hdr))
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
	u64 chunk, at;
	u8 *src, *dst;

	if (p->bytes == 0)
		return 0;
	/* Check the whole ranges first: a faulting copy writes nothing. */
	src = mem->translate(mem->ctx, p->src, p->bytes);
	dst = mem->translate(mem->ctx, p->dst, p->bytes);
	if (!src || !dst)
		return -EFAULT;
	chunk = tern_min_u64(p->bytes - job->progress, *budget);
	/*
	 * Overlapping ranges with dst above src must be walked from the end,
	 * or a chunk would read bytes an earlier chunk already overwrote.
	 */
	if (dst > src && src + p->bytes > dst)
		at = p->bytes - job->progress - chunk;
	else
		at = job->progress;
	memmove(dst + at, src + at, chunk);
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
	u64 end, i;
	u8 *dst;

	if (p->bytes == 0)
		return 0;
	dst = mem->translate(mem->ctx, p->dst, p->bytes);
	if (!dst)
		return -EFAULT;
	end = job->progress + tern_min_u64(p->bytes - job->progress, *budget);
	if (pattern[0] == pattern[1] && pattern[0] == pattern[2] &&
	    pattern[0] == pattern[3]) {
		memset(dst + job->progress, pattern[0], end - job->progress);
	} else {
		for (i = job->progress; i < end; i++)
			dst[i] = pattern[i & 3];
	}
	*budget -= end - job->progress;
	job->progress = end;
	return end == p->bytes ? 0 : TERN_MODEL_YIELD;
}

static u64 *tern_u64_slot(const struct tern_model_mem *mem, u64 va)
{
	return mem->translate(mem->ctx, va, sizeof(u64));
}

static int tern_run_packet(struct tern_model_job *job,
			   const struct drm_tern_packet_header *hdr,
			   const struct tern_model_mem *mem, u64 *budget)
{
	switch (hdr->opcode) {
	case TERN_OP_COPY:
		return tern_run_copy(job, (const void *)hdr, mem, budget);
	case TERN_OP_FILL:
		return tern_run_fill(job, (const void *)hdr, mem, budget);
	case TERN_OP_TIMESTAMP: {
		const struct drm_tern_packet_timestamp *p = (const void *)hdr;
		u64 *slot = tern_u64_slot(mem, p->dst);

		if (!slot)
			return -EFAULT;
		tern_store_u64(slot, mem->clock(mem->ctx));
		return 0;
	}
	case TERN_OP_SEM_SIGNAL: {
		const struct drm_tern_packet_sem_signal *p = (const void *)hdr;
		u64 *slot = tern_u64_slot(mem, p->addr);
		u64 value = p->value;

		if (!slot)
			return -EFAULT;
		if (hdr->flags & TERN_SEM_SIGNAL_ADD)
			value += tern_load_u64(slot);
		tern_store_u64(slot, value);
		return 0;
	}
	case TERN_OP_SEM_WAIT: {
		const struct drm_tern_packet_sem_wait *p = (const void *)hdr;
		u64 *slot = tern_u64_slot(mem, p->addr);
		u64 now;

		if (!slot)
			return -EFAULT;
		now = tern_load_u64(slot);
		if (hdr->flags & TERN_SEM_WAIT_EQ)
			return now == p->value ? 0 : TERN_MODEL_STALLED;
		return now >= p->value ? 0 : TERN_MODEL_STALLED;
	}
	default:
		return 0;	/* NOP */
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
		budget -= tern_min_u64(budget, TERN_MODEL_PACKET_COST);
		job->offset += (u32)hdr->length * 8;
		job->progress = 0;
	}
	return 0;
}
