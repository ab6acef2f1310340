// SPDX-License-Identifier: MIT
/*
 * Packet streams for SUBMIT: valid ones for the engine of their queue or
 * ring, over the file's own and imported buffers (addresses well inside,
 * at the very end, just past the end or before the start, overlapping
 * copies, all element types of REDUCE, dividing SUMs, SEM_WAIT_ABORTs
 * whose abort word is clear or set, a core's compute packets and
 * DMA_TILE: packets_compute.c),
 * then, for mutated streams, damage to opcodes, lengths, flags, pads,
 * addresses, counts and the stream's size; stall streams end in a
 * SEM_WAIT or SEM_WAIT_ABORT that never passes, which the job timeout
 * must end (or, for SEM_WAIT_ABORT, a store into its abort word: the
 * touch operation writes mapped buffers at random).
 */
#include <string.h>

#include "bad_packets.h"
#include "fuzz.h"
#include "packets.h"
#include "tern_reduce.h"
#include "util.h"

#define MAX_PACKET_BYTES	64	/* TENSOR_TENSOR, the longest */

bool stream_emit(struct builder *b, const void *packet, uint32_t bytes)
{
	struct fuzz_stream *s = b->s;
	const uint32_t slots = sizeof(s->offset) / sizeof(s->offset[0]);

	if (s->size + bytes > b->limit)
		return false;
	memcpy((uint8_t *)s->words + s->size, packet, bytes);
	if (s->packets < slots)
		s->offset[s->packets] = s->size;
	s->packets++;
	s->size += bytes;
	return true;
}

struct drm_tern_packet_header stream_header(uint16_t opcode, uint32_t bytes,
				     uint32_t flags)
{
	return (struct drm_tern_packet_header){
		.opcode = opcode, .length = (uint16_t)(bytes / 8), .flags = flags,
	};
}

/*
 * Bytes of an access: mostly small, sometimes a whole buffer or none;
 * in a stream that keeps inside its buffers, no more than any holds.
 */
static uint64_t pick_len(struct builder *b)
{
	uint64_t roll = rng_below(b->rng, 100), largest = 0, len;

	for (unsigned int i = 0; i < b->target_count; i++) {
		if (b->targets[i].size > largest)
			largest = b->targets[i].size;
	}
	if (roll < 5)
		len = 0;
	else if (roll < 50)
		len = 1 + rng_below(b->rng, 256);
	else if (roll < 80)
		len = 1 + rng_below(b->rng, 4096);
	else if (roll < 95)
		len = 1 + rng_below(b->rng, 64 << 10);
	else
		len = largest ? 1 + rng_below(b->rng, largest) : 4096;
	if (!b->edgy && b->target_count && len > b->smallest)
		len = b->smallest;
	return len;
}

/*
 * Where an access of @len bytes aligned to @align goes: mostly inside a
 * buffer, sometimes flush with its end, one step past it, one step before
 * its start, or nowhere at all. Always aligned, so that a valid stream
 * stays valid; only the job can fail.
 */
uint64_t stream_pick_addr(struct builder *b, uint64_t len, uint64_t align)
{
	const struct fuzz_target *tg;
	uint64_t roll = rng_below(b->rng, 100), room;

	if (!b->target_count)
		return b->unmapped;
	tg = &b->targets[rng_below(b->rng, b->target_count)];
	if (len > tg->size)
		return tg->va;
	room = (tg->size - len) / align;
	if (!rng_chance(b->rng, b->edgy))
		return tg->va + rng_below(b->rng, room + 1) * align;
	if (roll < 30)
		return tg->va + room * align;		/* flush with the end */
	if (roll < 60)
		return tg->va + room * align + align;	/* one step past it */
	if (roll < 85)
		return tg->va - align;			/* one step before */
	return b->unmapped;
}

/* The model's size of @dtype; 4 for a type it does not know. */
uint32_t stream_dtype_size(uint16_t dtype)
{
	uint32_t size = tern_model_dtype_size(dtype);

	return size ? size : 4;
}

bool stream_nop(struct builder *b, uint16_t length)
{
	uint64_t words[MAX_PACKET_BYTES / 8] = { 0 };
	struct drm_tern_packet_header h = stream_header(DRM_TERN_OP_NOP, 8u * length, 0);
	uint32_t bytes = 8u * length;

	if (length <= MAX_PACKET_BYTES / 8) {
		memcpy(words, &h, sizeof(h));
		return stream_emit(b, words, bytes);
	}
	/* a long NOP: its header, then zeroes in place */
	if (b->s->size + bytes > b->limit || !stream_emit(b, &h, sizeof(h)))
		return false;
	memset((uint8_t *)b->s->words + b->s->size, 0, bytes - sizeof(h));
	b->s->size += bytes - sizeof(h);
	return true;
}

/* Two ranges of @len bytes in one buffer that overlap (or touch). */
static bool pick_overlap(struct builder *b, uint64_t len, uint64_t *src,
			 uint64_t *dst)
{
	const struct fuzz_target *tg;
	uint64_t room, a, lo, hi;

	if (!b->target_count)
		return false;
	tg = &b->targets[rng_below(b->rng, b->target_count)];
	if (len > tg->size)
		return false;
	room = tg->size - len;
	a = rng_below(b->rng, room + 1);
	lo = a > len ? a - len : 0;
	hi = a + len < room ? a + len : room;
	*src = tg->va + a;
	*dst = tg->va + lo + rng_below(b->rng, hi - lo + 1);
	return true;
}

static bool emit_copy(struct builder *b)
{
	struct drm_tern_packet_copy p = {
		.header = stream_header(DRM_TERN_OP_COPY, sizeof(p), 0),
		.bytes = pick_len(b),
	};

	uint64_t src, dst;

	if (!rng_chance(b->rng, 20) || !pick_overlap(b, p.bytes, &src, &dst)) {
		src = stream_pick_addr(b, p.bytes, 1);
		dst = stream_pick_addr(b, p.bytes, 1);
	}
	p.src = src;
	p.dst = dst;
	return stream_emit(b, &p, sizeof(p));
}

static bool emit_fill(struct builder *b)
{
	struct drm_tern_packet_fill p = {
		.header = stream_header(DRM_TERN_OP_FILL, sizeof(p), 0),
		.bytes = pick_len(b),
		.pattern = (uint32_t)rng_next(b->rng),
	};

	p.dst = stream_pick_addr(b, p.bytes, 1);
	return stream_emit(b, &p, sizeof(p));
}

bool stream_timestamp(struct builder *b)
{
	struct drm_tern_packet_timestamp p = {
		.header = stream_header(DRM_TERN_OP_TIMESTAMP, sizeof(p), 0),
	};

	p.dst = stream_pick_addr(b, 8, 8);
	return stream_emit(b, &p, sizeof(p));
}

static bool emit_sem(struct builder *b, uint16_t opcode, uint32_t flags,
		     uint64_t addr, uint64_t value)
{
	struct drm_tern_packet_sem_signal p = {
		.header = stream_header(opcode, sizeof(p), flags),
		.addr = addr, .value = value,
	};

	return stream_emit(b, &p, sizeof(p));
}

static bool emit_sem_abort(struct builder *b, uint32_t flags, uint64_t addr,
			   uint64_t value, uint64_t abort_va)
{
	struct drm_tern_packet_sem_wait_abort p = {
		.header = stream_header(DRM_TERN_OP_SEM_WAIT_ABORT, sizeof(p), flags),
		.addr = addr, .value = value, .abort = abort_va,
	};

	return stream_emit(b, &p, sizeof(p));
}

/*
 * What a SEM_WAIT_ABORT's abort word holds before it: cleared mostly, so
 * that the wait passes, else set (called off, or a peer failed), or left
 * as it is, whatever earlier jobs and the CPU stored there.
 */
static bool emit_abort_word(struct builder *b, uint64_t abort_va)
{
	uint64_t roll = rng_below(b->rng, 100);

	if (roll < 70)
		return emit_sem(b, DRM_TERN_OP_SEM_SIGNAL, 0, abort_va, 0);
	if (roll < 80)
		return emit_sem(b, DRM_TERN_OP_SEM_SIGNAL, 0, abort_va,
				DRM_TERN_SEM_ABORT_CANCEL);
	if (roll < 90)
		return emit_sem(b, DRM_TERN_OP_SEM_SIGNAL, 0, abort_va,
				value_boundary(b->rng) | 2);
	return true;
}

/*
 * A signal, then a wait on the same slot that the signal lets pass: a
 * SEM_WAIT, or a SEM_WAIT_ABORT whose abort word (anywhere, the
 * semaphore itself too) may be set.
 */
bool stream_sem_pair(struct builder *b)
{
	uint64_t addr = stream_pick_addr(b, 8, 8), value = rng_below(b->rng, 1000);
	bool abortable = (b->caps & DRM_TERN_CAP_SEM_WAIT_ABORT) &&
			 rng_chance(b->rng, 40);
	uint64_t abort_va = rng_chance(b->rng, 10) ? addr : stream_pick_addr(b, 8, 8);

	if (abortable && !emit_abort_word(b, abort_va))
		return false;
	if (rng_chance(b->rng, 30)) {	/* a wait that passes at once */
		if (abortable)
			return emit_sem_abort(b, 0, addr, 0, abort_va);
		return emit_sem(b, DRM_TERN_OP_SEM_WAIT, 0, addr, 0);
	}
	if (!emit_sem(b, DRM_TERN_OP_SEM_SIGNAL,
		      rng_chance(b->rng, 30) ? DRM_TERN_SEM_SIGNAL_ADD : 0,
		      addr, value))
		return false;
	if (abortable)
		return emit_sem_abort(b, 0, addr, value, abort_va);
	return emit_sem(b, DRM_TERN_OP_SEM_WAIT, 0, addr, value);
}

static bool emit_reduce(struct builder *b)
{
	struct drm_tern_packet_reduce p = {
		.header = stream_header(DRM_TERN_OP_REDUCE, sizeof(p), 0),
		.dtype = (uint16_t)rng_below(b->rng, DRM_TERN_DTYPE_UINT64 + 1),
		.op = (uint16_t)rng_below(b->rng, DRM_TERN_REDOP_MAX + 1),
	};
	uint32_t size = stream_dtype_size(p.dtype);
	uint64_t bytes = pick_len(b) / size * size;

	/* an average's last step: a SUM divided, by 1 up to 2^32 - 1 */
	if (p.op == DRM_TERN_REDOP_SUM && (b->caps & DRM_TERN_CAP_REDUCE_DIVIDE) &&
	    rng_chance(b->rng, 40)) {
		p.header.flags = DRM_TERN_REDUCE_DIVIDE;
		p.divisor = rng_chance(b->rng, 70) ?
			    1 + (uint32_t)rng_below(b->rng, 64) :
			    (uint32_t)value_boundary(b->rng) | 1;
	}

	/*
	 * The most work a REDUCE element can be: soft-float divided, and as
	 * many as the largest buffer holds, in place (the engine must cut it
	 * into bounded steps).
	 */
	if ((b->caps & DRM_TERN_CAP_REDUCE_DIVIDE) && rng_chance(b->rng, 15)) {
		static const uint16_t soft[] = { DRM_TERN_DTYPE_FLOAT16,
						 DRM_TERN_DTYPE_BFLOAT16,
						 DRM_TERN_DTYPE_FLOAT32 };
		const struct fuzz_target *big = NULL;

		for (unsigned int i = 0; i < b->target_count; i++)
			if (!big || b->targets[i].size > big->size)
				big = &b->targets[i];
		if (big) {
			p.dtype = soft[rng_below(b->rng, 3)];
			p.op = DRM_TERN_REDOP_SUM;
			p.header.flags = DRM_TERN_REDUCE_DIVIDE;
			p.divisor = 1 + (uint32_t)rng_below(b->rng, 7);
			size = stream_dtype_size(p.dtype);
			p.count = big->size / size;
			p.src0 = p.src1 = p.dst = big->va;
			return stream_emit(b, &p, sizeof(p));
		}
	}
	p.count = bytes / size;
	p.src0 = stream_pick_addr(b, bytes, size);
	p.src1 = stream_pick_addr(b, bytes, size);
	/* in place is allowed; any other overlap is not */
	p.dst = rng_chance(b->rng, 25) ? p.src0 : stream_pick_addr(b, bytes, size);
	if (p.dst != p.src0 && p.dst < p.src0 + bytes && p.src0 < p.dst + bytes)
		p.dst = p.src0;
	if (p.dst != p.src1 && p.dst < p.src1 + bytes && p.src1 < p.dst + bytes)
		p.src1 = p.dst;
	return stream_emit(b, &p, sizeof(p));
}

/*
 * One valid packet the stream's engine can run (the device's capabilities
 * allowing): a core's engine its compute packets and the packets every
 * engine runs, a DMA engine the rest, DMA_TILE among them.
 */
static bool emit_valid(struct builder *b)
{
	if (b->engine_type != DRM_TERN_ENGINE_DMA) {
		switch (rng_below(b->rng, 8)) {
		case 0:
			return stream_nop(b, (uint16_t)(1 + rng_below(b->rng, 4)));
		case 1:
			return stream_timestamp(b);
		case 2:
			return stream_sem_pair(b);
		default:
			return stream_compute(b);
		}
	}
	if ((b->caps & DRM_TERN_CAP_COMPUTE) && rng_chance(b->rng, 15))
		return stream_dma_tile(b);
	switch (rng_below(b->rng, 12)) {
	case 0:
		return stream_nop(b, (uint16_t)(1 + rng_below(b->rng, 4)));
	case 1: case 2: case 3:
		return emit_copy(b);
	case 4: case 5:
		return emit_fill(b);
	case 6:
		if (b->caps & DRM_TERN_CAP_TIMESTAMP)
			return stream_timestamp(b);
		return emit_fill(b);
	case 7: case 8:
		if (b->caps & DRM_TERN_CAP_SEMAPHORE)
			return stream_sem_pair(b);
		return emit_copy(b);
	default:
		if (b->caps & DRM_TERN_CAP_REDUCE)
			return emit_reduce(b);
		return emit_copy(b);
	}
}

/* Fills the rest of the stream with long NOPs, a real packet here and there. */
static void fill_to_limit(struct builder *b)
{
	while (b->s->size + 8 <= b->limit) {
		uint32_t room = (b->limit - b->s->size) / 8;
		uint16_t length = (uint16_t)(room < 4096 ? room : 1 + rng_below(b->rng, 4096));

		if (rng_chance(b->rng, 5) && emit_valid(b))
			continue;
		if (!stream_nop(b, length))
			break;
	}
}

/* ---- damage ---- */

static uint32_t random_packet(struct builder *b)
{
	const uint32_t slots = sizeof(b->s->offset) / sizeof(b->s->offset[0]);
	uint32_t n = b->s->packets < slots ? b->s->packets : slots;

	return b->s->offset[rng_below(b->rng, n)];
}

/*
 * A damaged opcode: mostly one no packet has (the tests' table), else a
 * defined one whose length and fields then do not fit.
 */
static uint16_t bad_opcode(struct rng *rng)
{
	static const uint16_t misfits[] = {
		DRM_TERN_OP_SEM_WAIT, DRM_TERN_OP_SEM_WAIT_ABORT, DRM_TERN_OP_REDUCE,
		DRM_TERN_OP_DMA_TILE, DRM_TERN_OP_MATMUL, DRM_TERN_OP_TENSOR_TENSOR,
		DRM_TERN_OP_ACTIVATE,
	};
	const uint32_t n = (uint32_t)bad_opcode_count;
	uint32_t pick = (uint32_t)rng_below(rng, n + ARRAY_SIZE(misfits));

	return pick < n ? bad_opcodes[pick] : misfits[pick - n];
}

static void mutate_once(struct builder *b, uint32_t max_bytes)
{
	struct fuzz_stream *s = b->s;
	/*
	 * Word indexes, checked against the stream's size where a damaged
	 * length could point anywhere; FUZZ_STREAM_SLACK covers the fixed
	 * fields of a packet that starts just before the end.
	 */
	uint32_t at = random_packet(b) / 8, words = s->size / 8;
	struct drm_tern_packet_header *h = (void *)&s->words[at];
	uint32_t last = at + (h->length ? h->length : 1u) - 1;

	switch (rng_below(b->rng, 11)) {
	case 0:
		s->words[rng_below(b->rng, words)] ^= 1ull << rng_below(b->rng, 64);
		break;
	case 1:
		h->opcode = rng_chance(b->rng, 80) ? bad_opcode(b->rng) :
			(uint16_t)rng_next(b->rng);
		break;
	case 2: {
		static const int deltas[] = { -1, 1, 2, -2 };

		h->length = rng_chance(b->rng, 30) ? (uint16_t)rng_below(b->rng, 2) * 0xffff :
			(uint16_t)(h->length + deltas[rng_below(b->rng, 4)]);
		break;
	}
	case 3:
		h->flags ^= rng_chance(b->rng, 70) ? 1u << rng_below(b->rng, 32) :
						     (uint32_t)rng_next(b->rng);
		break;
	case 4:
		s->words[rng_below(b->rng, words)] = value_boundary(b->rng);
		break;
	case 5:
		/*
		 * the last word's upper half: the pad of FILL and REDUCE
		 * (REDUCE's divisor, with DRM_TERN_REDUCE_DIVIDE), or zero, a
		 * divisor SUBMIT must refuse
		 */
		if (last < words && rng_chance(b->rng, 80))
			s->words[last] |= 1ull << (32 + rng_below(b->rng, 32));
		else if (last < words)
			s->words[last] &= 0xffffffffull;
		break;
	case 6:
		if (s->size > 8)
			s->size -= 8 * (uint32_t)(1 + rng_below(b->rng, words - 1));
		break;
	case 7:
		while (s->size + 8 <= b->limit && rng_chance(b->rng, 70)) {
			s->words[s->size / 8] = rng_next(b->rng);
			s->size += 8;
		}
		break;
	case 8:
		if (last < words)
			rng_fill(b->rng, &s->words[at + 1], 8u * (last - at));
		break;
	case 9:
		/* past the largest stream SUBMIT takes */
		b->limit = max_bytes + 8 <= FUZZ_STREAM_BYTES ? max_bytes + 8 :
			   FUZZ_STREAM_BYTES;
		fill_to_limit(b);
		break;
	default:
		/* a huge count: bytes of COPY and FILL, elements of REDUCE */
		if (h->opcode == DRM_TERN_OP_COPY)
			s->words[at + 3] = value_boundary(b->rng);
		else if (h->opcode == DRM_TERN_OP_FILL)
			s->words[at + 2] = value_boundary(b->rng);
		else if (h->opcode == DRM_TERN_OP_REDUCE)
			s->words[at + 4] = value_boundary(b->rng);
		break;
	}
}

void stream_build(struct fuzz_thread *t, struct fuzz_stream *s,
		  const struct fuzz_target *targets, unsigned int count,
		  const struct drm_tern_info *info, uint32_t engine,
		  enum stream_kind kind)
{
	uint32_t max_bytes = info->max_submit_bytes ? info->max_submit_bytes : 4096;
	uint32_t dma = info->dma_engine_count;
	struct builder b = {
		.s = s, .rng = &t->rng, .targets = targets,
		.target_count = count, .caps = info->capabilities,
		.unmapped = info->va_base >= (1u << 20) ? info->va_base - (1u << 20) :
			    info->va_base + info->va_size,
		.engine_type = DRM_TERN_ENGINE_DMA,
		.cores = info->core_count,
		.sbuf_bytes = info->sbuf_partition_bytes,
		.psum_bytes = info->psum_partition_bytes,
	};

	/* a core's engine: dma + 3 * core + type - 1 */
	if (info->core_count && engine >= dma && engine < info->engine_count) {
		b.engine_type = DRM_TERN_ENGINE_TENSOR + (engine - dma) % 3;
		b.core = (engine - dma) / 3;
	}
	uint64_t roll = rng_below(&t->rng, 100);
	unsigned int packets;

	if (max_bytes > FUZZ_STREAM_BYTES)
		max_bytes = FUZZ_STREAM_BYTES;
	b.edgy = rng_chance(&t->rng, 25) ? 5 + (unsigned int)rng_below(&t->rng, 30) : 0;
	b.smallest = ~0ull;
	for (unsigned int i = 0; i < count; i++) {
		if (targets[i].size < b.smallest)
			b.smallest = targets[i].size;
	}
	/* room for the stall: SEM_SIGNAL and SEM_WAIT_ABORT, 56 bytes */
	b.limit = kind == STREAM_STALL ? max_bytes - 56 : max_bytes;
	s->size = 0;
	s->packets = 0;
	if (roll < 2) {
		fill_to_limit(&b);
	} else {
		packets = roll < 88 ? 1 + (unsigned int)rng_below(&t->rng, 8) :
				      9 + (unsigned int)rng_below(&t->rng, 56);
		while (packets-- && emit_valid(&b))
			;
	}
	if (kind == STREAM_STALL) {
		uint32_t eq = rng_chance(&t->rng, 50) ? DRM_TERN_SEM_WAIT_EQ : 0;
		uint64_t abort_va = stream_pick_addr(&b, 8, 8);

		b.limit = max_bytes;
		/* >= ~0 passes only if something stores ~0 there: never, here */
		if (!(b.caps & DRM_TERN_CAP_SEM_WAIT_ABORT) || rng_chance(&t->rng, 50)) {
			emit_sem(&b, DRM_TERN_OP_SEM_WAIT, eq, stream_pick_addr(&b, 8, 8), ~0ull);
		} else {
			/* cleared: only a store from elsewhere ends it early */
			emit_sem(&b, DRM_TERN_OP_SEM_SIGNAL, 0, abort_va, 0);
			emit_sem_abort(&b, eq, stream_pick_addr(&b, 8, 8), ~0ull, abort_va);
		}
	}
	if (!s->size)
		stream_nop(&b, 1);
	if (kind == STREAM_MUTATED) {
		for (unsigned int n = 1 + (unsigned int)rng_below(&t->rng, 3); n--;)
			mutate_once(&b, max_bytes);
		if (!s->size)
			stream_nop(&b, 1);
	}
}
