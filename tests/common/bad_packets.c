// SPDX-License-Identifier: MIT
/*
 * The table of malformed packet streams (bad_packets.h). Adding a way to
 * break a packet is one row here; the model's unit test, the uapi test
 * and the fuzzer's corpus then all have it.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "tern_accel.h"
#include "bad_packets.h"
#include "tern_reduce.h"
#include "util.h"

/* The element type of the table's REDUCEs: 8 bytes, so 1..7 misalign. */
#define REDUCE_DTYPE	DRM_TERN_DTYPE_UINT64
#define REDUCE_COUNT	16u
#define FILL_PATTERN	0x01020304u

/* The last 8-byte field of FILL and of REDUCE, as little endian lays it. */
#define FILL_WORD(pattern, pad)	((uint64_t)(pad) << 32 | (pattern))
#define REDUCE_WORD(dtype, op, pad) \
	((uint64_t)(pad) << 32 | (uint64_t)(op) << 16 | (dtype))
_Static_assert(offsetof(struct drm_tern_packet_fill, pattern) == 24 &&
	       offsetof(struct drm_tern_packet_reduce, dtype) == 40 &&
	       offsetof(struct drm_tern_packet_reduce, op) == 42 &&
	       offsetof(struct drm_tern_packet_reduce, pad) == 44,
	       "FILL_WORD and REDUCE_WORD follow the packets' layout");

const uint16_t bad_opcodes[] = {
	0,
	/* unknown */
	0x08, 0x0f, 0x36, 0x3f, 0xff, 0x100, 0x8001, 0xffff,
	/* reserved for DMA (0x12-0x1f) and fabric (0x20-0x2f) packets */
	0x12, 0x1f, 0x20, 0x2f,
};
const size_t bad_opcode_count = ARRAY_SIZE(bad_opcodes);
#define UNKNOWN_FIRST	1u
#define UNKNOWN_COUNT	8u
#define RESERVED_FIRST	(UNKNOWN_FIRST + UNKNOWN_COUNT)
#define RESERVED_COUNT	4u
_Static_assert(RESERVED_FIRST + RESERVED_COUNT == ARRAY_SIZE(bad_opcodes),
	       "bad_opcodes: zero, then the unknown, then the reserved");

static struct drm_tern_packet_header *packet_at(struct tern_packet_builder *b,
						uint32_t offset)
{
	return (void *)(b->buf + offset);
}

/* The @field-th 8-byte field after the header of the packet at @offset. */
static uint64_t *field_at(struct tern_packet_builder *b, uint32_t offset,
			  unsigned int field)
{
	return (uint64_t *)(void *)(b->buf + offset + 8 * (field + 1));
}

/* A well-formed packet of @opcode inside the buffer at @va; its offset. */
static uint32_t emit_valid(struct tern_packet_builder *b, uint16_t opcode,
			   uint64_t va)
{
	uint32_t offset = (uint32_t)b->size;

	switch (opcode) {
	case DRM_TERN_OP_NOP:
		tern_packet_nop(b, 2);
		break;
	case DRM_TERN_OP_COPY:
		tern_packet_copy(b, va + 2048, va, 16);
		break;
	case DRM_TERN_OP_FILL:
		/* 13 bytes: from 8 below the limit, it crosses it */
		tern_packet_fill(b, va + 1, 13, FILL_PATTERN);
		break;
	case DRM_TERN_OP_TIMESTAMP:
		tern_packet_timestamp(b, va + 64);
		break;
	case DRM_TERN_OP_SEM_SIGNAL:
		tern_packet_sem_signal(b, va + 64, 0, false);
		break;
	case DRM_TERN_OP_SEM_WAIT:
		tern_packet_sem_wait(b, va + 64, 0, false);
		break;
	case DRM_TERN_OP_SEM_WAIT_ABORT:
		tern_packet_sem_wait_abort(b, va + 64, 0, va + 72, false);
		break;
	case DRM_TERN_OP_REDUCE:
		tern_packet_reduce(b, va + 2048, va, va + 1024, REDUCE_COUNT,
				   REDUCE_DTYPE, DRM_TERN_REDOP_SUM);
		break;
	default:
		fprintf(stderr, "bad_packets: no valid packet of opcode 0x%x\n",
			opcode);
		abort();
	}
	return offset;
}

/* ---- opcodes, lengths, flags ---- */

static uint32_t emit_opcode(struct tern_packet_builder *b, uint16_t opcode,
			    uint64_t va)
{
	uint32_t offset = emit_valid(b, DRM_TERN_OP_COPY, va);

	packet_at(b, offset)->opcode = opcode;
	return offset;
}

static uint32_t opcode_zero(struct tern_packet_builder *b,
			    const struct bad_packet *bad, uint64_t va,
			    unsigned int variant)
{
	(void)bad;
	(void)variant;
	return emit_opcode(b, bad_opcodes[0], va);
}

static uint32_t opcode_unknown(struct tern_packet_builder *b,
			       const struct bad_packet *bad, uint64_t va,
			       unsigned int variant)
{
	(void)bad;
	return emit_opcode(b, bad_opcodes[UNKNOWN_FIRST + variant], va);
}

static uint32_t opcode_reserved(struct tern_packet_builder *b,
				const struct bad_packet *bad, uint64_t va,
				unsigned int variant)
{
	(void)bad;
	return emit_opcode(b, bad_opcodes[RESERVED_FIRST + variant], va);
}

/* Variant 0: one word short; 1: one word long, still inside the stream. */
static uint32_t length_wrong(struct tern_packet_builder *b,
			     const struct bad_packet *bad, uint64_t va,
			     unsigned int variant)
{
	uint32_t offset = emit_valid(b, bad->opcode, va);
	struct drm_tern_packet_header *h;

	tern_packet_nop(b, 4);
	h = packet_at(b, offset);
	h->length = variant ? h->length + 1 : h->length - 1;
	return offset;
}

static uint32_t length_zero(struct tern_packet_builder *b,
			    const struct bad_packet *bad, uint64_t va,
			    unsigned int variant)
{
	uint32_t offset = emit_valid(b, DRM_TERN_OP_NOP, va);

	(void)bad;
	(void)variant;
	packet_at(b, offset)->length = 0;
	return offset;
}

/* The last packet says it is longer than what is left of the stream. */
static uint32_t length_past_end(struct tern_packet_builder *b,
				const struct bad_packet *bad, uint64_t va,
				unsigned int variant)
{
	uint32_t offset = emit_valid(b, DRM_TERN_OP_NOP, va);

	(void)bad;
	packet_at(b, offset)->length = variant ? 0xffff : 3;
	return offset;
}

/* The fixed-size packets, which a stream may cut short. */
static const uint16_t fixed_opcodes[] = {
	DRM_TERN_OP_COPY, DRM_TERN_OP_FILL, DRM_TERN_OP_TIMESTAMP,
	DRM_TERN_OP_SEM_SIGNAL, DRM_TERN_OP_SEM_WAIT,
	DRM_TERN_OP_SEM_WAIT_ABORT, DRM_TERN_OP_REDUCE,
};

/* The stream ends a word before the packet does. */
static uint32_t cut_short(struct tern_packet_builder *b,
			  const struct bad_packet *bad, uint64_t va,
			  unsigned int variant)
{
	uint32_t offset = emit_valid(b, fixed_opcodes[variant], va);

	(void)bad;
	b->size -= 8;
	return offset;
}

/* The flags an opcode defines; every other bit must be zero. */
static uint32_t defined_flags(uint16_t opcode)
{
	switch (opcode) {
	case DRM_TERN_OP_SEM_SIGNAL:
		return DRM_TERN_SEM_SIGNAL_ADD;
	case DRM_TERN_OP_SEM_WAIT:
	case DRM_TERN_OP_SEM_WAIT_ABORT:
		return DRM_TERN_SEM_WAIT_EQ;
	case DRM_TERN_OP_REDUCE:
		return DRM_TERN_REDUCE_DIVIDE;
	default:
		return 0;
	}
}

/* Variant n: the n-th flag the opcode does not define, alone. */
static uint32_t flag_undefined(struct tern_packet_builder *b,
			       const struct bad_packet *bad, uint64_t va,
			       unsigned int variant)
{
	uint32_t offset = emit_valid(b, bad->opcode, va);
	uint32_t defined = defined_flags(bad->opcode);
	unsigned int bit = 0;

	for (unsigned int n = 0; bit < 32; bit++)
		if (!(defined & (1u << bit)) && n++ == variant)
			break;
	if (bit == 32)
		abort();	/* more variants than undefined flags */
	packet_at(b, offset)->flags = 1u << bit;
	return offset;
}

/* ---- fields ---- */

/* The field set to the variant's value. */
static uint32_t field_set(struct tern_packet_builder *b,
			  const struct bad_packet *bad, uint64_t va,
			  unsigned int variant)
{
	uint32_t offset = emit_valid(b, bad->opcode, va);

	*field_at(b, offset, bad->field) = bad->values[variant];
	return offset;
}

/* An 8-byte aligned address moved by 1 to 7 bytes. */
static uint32_t misaligned(struct tern_packet_builder *b,
			   const struct bad_packet *bad, uint64_t va,
			   unsigned int variant)
{
	uint32_t offset = emit_valid(b, bad->opcode, va);

	*field_at(b, offset, bad->field) += variant + 1;
	return offset;
}

/* Beyond the address space, or wrapping around the end of u64. */
static const uint64_t past_limit[] = {
	DRM_TERN_VA_LIMIT, UINT64_MAX - 7,
};
/* From below the limit to above it. */
static const uint64_t crossing_limit[] = {
	DRM_TERN_VA_LIMIT - 8,
};
/* A byte or element count whose end wraps around. */
static const uint64_t huge_counts[] = {
	UINT64_MAX - 63, UINT64_MAX,
};
/* FILL's pad, REDUCE's element type, operation and pad (no divide). */
static const uint64_t fill_pads[] = {
	FILL_WORD(FILL_PATTERN, 1), FILL_WORD(FILL_PATTERN, 0x80000000u),
};
static const uint64_t reduce_dtypes[] = {
	REDUCE_WORD(TERN_MODEL_REDUCE_DTYPE_COUNT, DRM_TERN_REDOP_SUM, 0),
	REDUCE_WORD(DRM_TERN_DTYPE_FLOAT8_E4M3, DRM_TERN_REDOP_SUM, 0),
	REDUCE_WORD(TERN_MODEL_DTYPE_COUNT, DRM_TERN_REDOP_SUM, 0),
	REDUCE_WORD(0xffff, DRM_TERN_REDOP_SUM, 0),
};
static const uint64_t reduce_ops[] = {
	REDUCE_WORD(REDUCE_DTYPE, TERN_MODEL_REDOP_COUNT, 0),
	REDUCE_WORD(REDUCE_DTYPE, 0xffff, 0),
};
static const uint64_t reduce_pads[] = {
	REDUCE_WORD(REDUCE_DTYPE, DRM_TERN_REDOP_SUM, 1),
	REDUCE_WORD(REDUCE_DTYPE, DRM_TERN_REDOP_SUM, 0x80000000u),
};

/* A COPY of nothing, but from (variant 0) or to an address past the limit. */
static uint32_t empty_copy_past_limit(struct tern_packet_builder *b,
				      const struct bad_packet *bad,
				      uint64_t va, unsigned int variant)
{
	uint32_t offset = emit_valid(b, DRM_TERN_OP_COPY, va);
	struct drm_tern_packet_copy *p = (void *)packet_at(b, offset);

	(void)bad;
	if (variant)
		p->dst = DRM_TERN_VA_LIMIT + 8;
	else
		p->src = DRM_TERN_VA_LIMIT + 4096;
	p->bytes = 0;
	return offset;
}

/* ---- REDUCE ---- */

static struct drm_tern_packet_reduce *reduce_at(struct tern_packet_builder *b,
						uint32_t offset)
{
	return (void *)packet_at(b, offset);
}

/* A divided SUM: by zero (variant 0), or a PROD, MIN or MAX divided. */
static uint32_t reduce_divide(struct tern_packet_builder *b,
			      const struct bad_packet *bad, uint64_t va,
			      unsigned int variant)
{
	uint32_t offset = emit_valid(b, DRM_TERN_OP_REDUCE, va);
	struct drm_tern_packet_reduce *p = reduce_at(b, offset);

	(void)bad;
	p->header.flags = DRM_TERN_REDUCE_DIVIDE;
	p->divisor = variant ? 3 : 0;
	if (variant)
		p->op = (uint16_t)(DRM_TERN_REDOP_SUM + variant);
	return offset;
}

/* DRM_TERN_REDUCE_DIVIDE with a flag no packet defines beside it. */
static uint32_t reduce_divide_flag(struct tern_packet_builder *b,
				   const struct bad_packet *bad, uint64_t va,
				   unsigned int variant)
{
	uint32_t offset = emit_valid(b, DRM_TERN_OP_REDUCE, va);
	struct drm_tern_packet_reduce *p = reduce_at(b, offset);

	(void)bad;
	p->header.flags = DRM_TERN_REDUCE_DIVIDE | 1u << (variant + 1);
	p->divisor = 3;
	return offset;
}

/* The destination overlaps a source without being it. */
static uint32_t reduce_overlap(struct tern_packet_builder *b,
			       const struct bad_packet *bad, uint64_t va,
			       unsigned int variant)
{
	uint32_t offset = emit_valid(b, DRM_TERN_OP_REDUCE, va);
	struct drm_tern_packet_reduce *p = reduce_at(b, offset);
	const uint64_t last = 8 * (REDUCE_COUNT - 1);

	(void)bad;
	p->dst = variant == 0 ? p->src0 + 8 :
		 variant == 1 ? p->src0 - 8 : p->src1 + last;
	return offset;
}

/* ---- streams ---- */

/* Two bad packets: validation names the first. */
static uint32_t first_of_two(struct tern_packet_builder *b,
			     const struct bad_packet *bad, uint64_t va,
			     unsigned int variant)
{
	uint32_t first = emit_valid(b, DRM_TERN_OP_TIMESTAMP, va);

	(void)bad;
	(void)variant;
	*field_at(b, first, 0) += 3;
	tern_packet_nop(b, 1);
	packet_at(b, emit_valid(b, DRM_TERN_OP_NOP, va))->opcode = 0;
	return first;
}

#define OP(name)	DRM_TERN_OP_##name
#define KIND(name_, op, emit_, n) \
	{ .name = name_, .opcode = OP(op), .variants = n, .emit = emit_ }
#define FIELD(name_, op, field_, emit_, n) \
	{ .name = name_, .opcode = OP(op), .field = field_, \
	  .variants = n, .emit = emit_ }
#define SET(name_, op, field_, values_) \
	{ .name = name_, .opcode = OP(op), .field = field_, \
	  .values = values_, .variants = ARRAY_SIZE(values_), \
	  .emit = field_set }

const struct bad_packet bad_packets[] = {
	KIND("opcode-zero", COPY, opcode_zero, 1),
	KIND("opcode-unknown", COPY, opcode_unknown, UNKNOWN_COUNT),
	KIND("opcode-reserved", COPY, opcode_reserved, RESERVED_COUNT),
	KIND("length-zero", NOP, length_zero, 1),
	KIND("length-past-end", NOP, length_past_end, 2),
	{ .name = "cut-short", .variants = ARRAY_SIZE(fixed_opcodes),
	  .emit = cut_short },
	KIND("length-copy", COPY, length_wrong, 2),
	KIND("length-fill", FILL, length_wrong, 2),
	KIND("length-timestamp", TIMESTAMP, length_wrong, 2),
	KIND("length-sem-signal", SEM_SIGNAL, length_wrong, 2),
	KIND("length-sem-wait", SEM_WAIT, length_wrong, 2),
	KIND("length-sem-wait-abort", SEM_WAIT_ABORT, length_wrong, 2),
	KIND("length-reduce", REDUCE, length_wrong, 2),
	KIND("flags-nop", NOP, flag_undefined, 32),
	KIND("flags-copy", COPY, flag_undefined, 32),
	KIND("flags-fill", FILL, flag_undefined, 32),
	KIND("flags-timestamp", TIMESTAMP, flag_undefined, 32),
	KIND("flags-sem-signal", SEM_SIGNAL, flag_undefined, 31),
	KIND("flags-sem-wait", SEM_WAIT, flag_undefined, 31),
	KIND("flags-sem-wait-abort", SEM_WAIT_ABORT, flag_undefined, 31),
	KIND("flags-reduce", REDUCE, flag_undefined, 31),
	SET("fill-pad", FILL, 2, fill_pads),
	FIELD("misaligned-timestamp", TIMESTAMP, 0, misaligned, 7),
	FIELD("misaligned-sem-signal", SEM_SIGNAL, 0, misaligned, 7),
	FIELD("misaligned-sem-wait", SEM_WAIT, 0, misaligned, 7),
	FIELD("misaligned-sem-wait-abort", SEM_WAIT_ABORT, 0, misaligned, 7),
	FIELD("misaligned-abort-word", SEM_WAIT_ABORT, 2, misaligned, 7),
	FIELD("misaligned-reduce-src0", REDUCE, 0, misaligned, 7),
	FIELD("misaligned-reduce-src1", REDUCE, 1, misaligned, 7),
	FIELD("misaligned-reduce-dst", REDUCE, 2, misaligned, 7),
	SET("past-limit-copy-src", COPY, 0, past_limit),
	SET("past-limit-copy-dst", COPY, 1, past_limit),
	SET("past-limit-fill", FILL, 0, past_limit),
	SET("past-limit-timestamp", TIMESTAMP, 0, past_limit),
	SET("past-limit-sem-signal", SEM_SIGNAL, 0, past_limit),
	SET("past-limit-sem-wait", SEM_WAIT, 0, past_limit),
	SET("past-limit-sem-wait-abort", SEM_WAIT_ABORT, 0, past_limit),
	SET("past-limit-abort-word", SEM_WAIT_ABORT, 2, past_limit),
	SET("past-limit-reduce-src0", REDUCE, 0, past_limit),
	SET("past-limit-reduce-src1", REDUCE, 1, past_limit),
	SET("past-limit-reduce-dst", REDUCE, 2, past_limit),
	KIND("past-limit-empty-copy", COPY, empty_copy_past_limit, 2),
	SET("crossing-limit-copy-src", COPY, 0, crossing_limit),
	SET("crossing-limit-copy-dst", COPY, 1, crossing_limit),
	SET("crossing-limit-fill", FILL, 0, crossing_limit),
	SET("crossing-limit-reduce-src0", REDUCE, 0, crossing_limit),
	SET("crossing-limit-reduce-src1", REDUCE, 1, crossing_limit),
	SET("crossing-limit-reduce-dst", REDUCE, 2, crossing_limit),
	SET("huge-copy", COPY, 2, huge_counts),
	SET("huge-fill", FILL, 1, huge_counts),
	SET("huge-reduce", REDUCE, 3, huge_counts),
	SET("reduce-dtype", REDUCE, 4, reduce_dtypes),
	SET("reduce-op", REDUCE, 4, reduce_ops),
	SET("reduce-pad", REDUCE, 4, reduce_pads),
	KIND("reduce-divide", REDUCE, reduce_divide, 4),
	KIND("reduce-divide-flags", REDUCE, reduce_divide_flag, 31),
	KIND("reduce-overlap", REDUCE, reduce_overlap, 3),
	KIND("first-of-two", TIMESTAMP, first_of_two, 1),
};
const size_t bad_packet_count = ARRAY_SIZE(bad_packets);

uint32_t bad_packet_build(const struct bad_packet *bad, unsigned int variant,
			  uint64_t va, void *buf, uint32_t *size)
{
	struct tern_packet_builder b;
	uint32_t offset;

	if (variant >= bad->variants) {
		fprintf(stderr, "bad_packets: %s has no variant %u\n", bad->name,
			variant);
		abort();
	}
	tern_packets_init(&b, buf, BAD_PACKETS_MAX_BYTES);
	tern_packet_fill(&b, va, BAD_PACKETS_FILL_BYTES,
			 BAD_PACKETS_FILL_PATTERN);
	offset = bad->emit(&b, bad, va, variant);
	if (b.overflow) {
		fprintf(stderr, "bad_packets: %s/%u does not fit\n", bad->name,
			variant);
		abort();
	}
	*size = (uint32_t)b.size;
	return offset;
}
