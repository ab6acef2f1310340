// SPDX-License-Identifier: MIT
/*
 * The compute packets of a chip's cores, valid for the engine a stream
 * is for (Documentation/compute.rst): MATMUL on a tensor engine,
 * TENSOR_COPY (transposing on a vector engine), TENSOR_TENSOR,
 * TENSOR_SCALAR and TENSOR_REDUCE on a vector engine, ACTIVATE on a
 * scalar engine, and DMA_TILE on a DMA engine. Tiles are of every type a
 * packet takes, anywhere in the partitions and flush with their ends now
 * and then, in either memory where the packet allows; outputs are the
 * inputs themselves sometimes, else apart from them. Most are small; a
 * few MATMULs are the largest there is (128 x 128 x 512), which the
 * engine must cut into bounded steps. DMA_TILE grids go where COPY's
 * addresses go: mostly inside a buffer, sometimes past it, when the job
 * fails with -EFAULT. Mutations (packets.c) then damage any of it.
 */
#include <string.h>

#include "packets.h"

static const uint8_t any_types[] = {
	DRM_TERN_DTYPE_FLOAT32, DRM_TERN_DTYPE_FLOAT16, DRM_TERN_DTYPE_BFLOAT16,
	DRM_TERN_DTYPE_INT32, DRM_TERN_DTYPE_UINT32, DRM_TERN_DTYPE_INT8,
	DRM_TERN_DTYPE_UINT8, DRM_TERN_DTYPE_FLOAT8_E4M3,
	DRM_TERN_DTYPE_FLOAT8_E5M2,
};

static const uint8_t float_types[] = {
	DRM_TERN_DTYPE_FLOAT32, DRM_TERN_DTYPE_BFLOAT16, DRM_TERN_DTYPE_FLOAT16,
	DRM_TERN_DTYPE_FLOAT8_E4M3, DRM_TERN_DTYPE_FLOAT8_E5M2,
};

/*
 * Each partition of each memory is cut into REGIONS slices, one for each
 * role a tile plays: tiles of different slices never share a byte.
 */
enum { IN0, IN1, OUT, COLUMNS, REGIONS };

static uint8_t pick_type(struct builder *b, bool floats_only)
{
	if (floats_only)
		return float_types[rng_below(b->rng, sizeof(float_types))];
	return any_types[rng_below(b->rng, sizeof(any_types))];
}

static uint32_t pick_space(struct builder *b)
{
	return rng_chance(b->rng, 25) ? DRM_TERN_SPACE_PSUM : DRM_TERN_SPACE_SBUF;
}

/* Mostly a few partitions, sometimes all 128 or any number. */
static uint32_t pick_partitions(struct builder *b)
{
	uint64_t roll = rng_below(b->rng, 100);

	if (roll < 70)
		return 1 + (uint32_t)rng_below(b->rng, 16);
	if (roll < 85)
		return DRM_TERN_PARTITIONS;
	return 1 + (uint32_t)rng_below(b->rng, DRM_TERN_PARTITIONS);
}

/* Mostly a few elements, sometimes up to @max. */
static uint32_t pick_elements(struct builder *b, uint32_t max)
{
	if (!max)
		return 1;
	if (rng_chance(b->rng, 80))
		return 1 + (uint32_t)rng_below(b->rng, max < 32 ? max : 32);
	return 1 + (uint32_t)rng_below(b->rng, max);
}

/* Bytes of a slice of a partition of @space. */
static uint32_t slice_bytes(const struct builder *b, uint32_t space)
{
	uint32_t bytes = space == DRM_TERN_SPACE_SBUF ? b->sbuf_bytes : b->psum_bytes;

	return bytes / REGIONS / 8 * 8;
}

/* The most elements of @dtype a slice of @space holds. */
static uint32_t slice_elements(const struct builder *b, uint32_t space,
			       uint32_t dtype)
{
	return slice_bytes(b, space) / stream_dtype_size(dtype);
}

/*
 * A tile of @partitions x @elements of @dtype in slice @region of
 * @space: anywhere in it, sometimes flush with its end or the last
 * partition. False if it does not fit.
 */
static bool place(struct builder *b, struct drm_tern_tile *t, uint32_t space,
		  uint32_t dtype, uint32_t partitions, uint32_t elements,
		  uint32_t region)
{
	uint32_t size = stream_dtype_size(dtype), slice = slice_bytes(b, space);
	uint64_t bytes = (uint64_t)elements * size;
	uint32_t room, spare = DRM_TERN_PARTITIONS - partitions;

	if (!partitions || partitions > DRM_TERN_PARTITIONS || !elements ||
	    bytes > slice)
		return false;
	room = (uint32_t)((slice - bytes) / size);
	memset(t, 0, sizeof(*t));
	t->offset = region * slice + size * (rng_chance(b->rng, 20) ? room :
				(uint32_t)rng_below(b->rng, room + 1));
	t->partition = (uint16_t)(rng_chance(b->rng, 20) ? spare :
				  rng_below(b->rng, spare + 1));
	t->partitions = (uint16_t)partitions;
	t->elements = elements;
	t->space = (uint8_t)space;
	t->dtype = (uint8_t)dtype;
	return true;
}

/* A tile of @space and @dtype of a shape that fits, in slice @region. */
static bool place_any(struct builder *b, struct drm_tern_tile *t, uint32_t space,
		      uint32_t dtype, uint32_t region)
{
	return place(b, t, space, dtype, pick_partitions(b),
		     pick_elements(b, slice_elements(b, space, dtype)), region);
}

/* @t's shape again, of another type and place: in slice @region. */
static bool place_like(struct builder *b, struct drm_tern_tile *t,
		       const struct drm_tern_tile *like, uint32_t region)
{
	return place(b, t, pick_space(b), pick_type(b, false), like->partitions,
		     like->elements, region);
}

/* A float32 operand: a column's offset in the SBUF slice for columns, or bits. */
static uint32_t operand(struct builder *b, bool column)
{
	static const uint32_t values[] = {
		0, 0x80000000u, 0x3f800000u, 0xbf800000u, 0x40490fdbu,
		0x7f800000u, 0xff800000u, 0x7fc00000u, 0x00000001u, 0x7f7fffffu,
	};
	uint32_t slice = slice_bytes(b, DRM_TERN_SPACE_SBUF);

	if (column)
		return COLUMNS * slice + 4 * (uint32_t)rng_below(b->rng, slice / 4);
	if (rng_chance(b->rng, 40))
		return values[rng_below(b->rng, sizeof(values) / sizeof(values[0]))];
	return (uint32_t)rng_next(b->rng);
}

static bool emit_matmul(struct builder *b)
{
	struct drm_tern_packet_matmul p = {
		.header = stream_header(DRM_TERN_OP_MATMUL, sizeof(p),
					rng_chance(b->rng, 50) ?
					DRM_TERN_MATMUL_ACCUMULATE : 0),
	};
	bool largest = rng_chance(b->rng, 3);
	uint32_t k = largest ? 128 : pick_partitions(b);
	uint32_t m = largest ? 128 : 1 + (uint32_t)rng_below(b->rng, 32);
	uint32_t n = largest ? 512 : 1 + (uint32_t)rng_below(b->rng, 64);
	uint32_t banks = b->psum_bytes / DRM_TERN_PSUM_BANK_BYTES;
	uint32_t room = (DRM_TERN_PSUM_BANK_BYTES - 4 * n) / 4;
	struct drm_tern_tile *res = &p.result;

	if (!place(b, &p.stationary, DRM_TERN_SPACE_SBUF, pick_type(b, true), k,
		   m, IN0) ||
	    !place(b, &p.moving, DRM_TERN_SPACE_SBUF, pick_type(b, true), k, n,
		   IN1))
		return stream_nop(b, 1);
	/* M partitions of N float32 in PSUM, inside one bank */
	res->space = DRM_TERN_SPACE_PSUM;
	res->dtype = DRM_TERN_DTYPE_FLOAT32;
	res->partitions = (uint16_t)m;
	res->partition = (uint16_t)rng_below(b->rng, DRM_TERN_PARTITIONS - m + 1);
	res->elements = n;
	res->offset = DRM_TERN_PSUM_BANK_BYTES * (uint32_t)rng_below(b->rng, banks) +
		      4 * (rng_chance(b->rng, 20) ? room :
			   (uint32_t)rng_below(b->rng, room + 1));
	return stream_emit(b, &p, sizeof(p));
}

static bool emit_tensor_copy(struct builder *b)
{
	bool transpose = b->engine_type == DRM_TERN_ENGINE_VECTOR &&
			 rng_chance(b->rng, 25);
	struct drm_tern_packet_tensor_copy p = {
		.header = stream_header(DRM_TERN_OP_TENSOR_COPY, sizeof(p),
					transpose ? DRM_TERN_TENSOR_COPY_TRANSPOSE : 0),
	};
	uint32_t space = pick_space(b), dtype = pick_type(b, false);
	bool ok;

	if (!transpose) {
		ok = place_any(b, &p.in, space, dtype, IN0);
		/* in place, or apart */
		if (ok && rng_chance(b->rng, 15))
			p.out = p.in;
		else if (ok)
			ok = place_like(b, &p.out, &p.in, OUT);
	} else {
		uint32_t elements = slice_elements(b, space, dtype);

		ok = place(b, &p.in, space, dtype, pick_partitions(b),
			   pick_elements(b, elements < 128 ? elements : 128), IN0) &&
		     place(b, &p.out, pick_space(b), pick_type(b, false),
			   p.in.elements, p.in.partitions, OUT);
	}
	return ok ? stream_emit(b, &p, sizeof(p)) : stream_nop(b, 1);
}

static bool emit_tensor_tensor(struct builder *b)
{
	struct drm_tern_packet_tensor_tensor p = {
		.header = stream_header(DRM_TERN_OP_TENSOR_TENSOR, sizeof(p), 0),
		.op = DRM_TERN_ALU_ADD + (uint32_t)rng_below(b->rng, DRM_TERN_ALU_MIN),
	};
	bool ok = place_any(b, &p.in0, pick_space(b), pick_type(b, false), IN0) &&
		  place_like(b, &p.in1, &p.in0, IN1);

	if (ok && rng_chance(b->rng, 20))
		p.out = rng_chance(b->rng, 50) ? p.in0 : p.in1;
	else if (ok)
		ok = place_like(b, &p.out, &p.in0, OUT);
	return ok ? stream_emit(b, &p, sizeof(p)) : stream_nop(b, 1);
}

static bool emit_tensor_scalar(struct builder *b)
{
	bool columns[2] = { rng_chance(b->rng, 30), rng_chance(b->rng, 30) };
	struct drm_tern_packet_tensor_scalar p = {
		.header = stream_header(DRM_TERN_OP_TENSOR_SCALAR, sizeof(p), 0),
		.op0 = (uint16_t)(DRM_TERN_ALU_ADD +
				  rng_below(b->rng, DRM_TERN_ALU_MIN)),
		.op1 = (uint16_t)rng_below(b->rng, DRM_TERN_ALU_MIN + 1),
	};
	bool ok = place_any(b, &p.in, pick_space(b), pick_type(b, false), IN0);

	if (ok && rng_chance(b->rng, 20))
		p.out = p.in;
	else if (ok)
		ok = place_like(b, &p.out, &p.in, OUT);
	/* a second operand only with a second op */
	columns[1] = columns[1] && p.op1 != DRM_TERN_ALU_NONE;
	p.header.flags = (columns[0] ? DRM_TERN_SCALAR_OPERAND0_COLUMN : 0) |
			 (columns[1] ? DRM_TERN_SCALAR_OPERAND1_COLUMN : 0);
	p.operand0 = operand(b, columns[0]);
	p.operand1 = p.op1 == DRM_TERN_ALU_NONE ? 0 : operand(b, columns[1]);
	return ok ? stream_emit(b, &p, sizeof(p)) : stream_nop(b, 1);
}

static bool emit_tensor_reduce(struct builder *b)
{
	struct drm_tern_packet_tensor_reduce p = {
		.header = stream_header(DRM_TERN_OP_TENSOR_REDUCE, sizeof(p), 0),
		.op = rng_chance(b->rng, 50) ? DRM_TERN_ALU_ADD : DRM_TERN_ALU_MAX,
	};
	bool ok = place_any(b, &p.in, pick_space(b), pick_type(b, false), IN0) &&
		  place(b, &p.out, pick_space(b), pick_type(b, false),
			p.in.partitions, 1, OUT);

	return ok ? stream_emit(b, &p, sizeof(p)) : stream_nop(b, 1);
}

static bool emit_activate(struct builder *b)
{
	bool scale = rng_chance(b->rng, 30), bias = rng_chance(b->rng, 30);
	bool sum = rng_chance(b->rng, 40);
	struct drm_tern_packet_activate p = {
		.header = stream_header(DRM_TERN_OP_ACTIVATE, sizeof(p),
					(scale ? DRM_TERN_ACTIVATE_SCALE_COLUMN : 0) |
					(bias ? DRM_TERN_ACTIVATE_BIAS_COLUMN : 0) |
					(sum ? DRM_TERN_ACTIVATE_SUM : 0)),
		.function = (uint16_t)rng_below(b->rng, DRM_TERN_ACT_SQUARE + 1),
	};
	bool ok = place_any(b, &p.in, pick_space(b), pick_type(b, false), IN0);

	if (ok && rng_chance(b->rng, 20))
		p.out = p.in;
	else if (ok)
		ok = place_like(b, &p.out, &p.in, OUT);
	p.scale = operand(b, scale);
	p.bias = operand(b, bias);
	p.sum = sum ? operand(b, true) : 0;
	return ok ? stream_emit(b, &p, sizeof(p)) : stream_nop(b, 1);
}

bool stream_dma_tile(struct builder *b)
{
	struct drm_tern_packet_dma_tile p = {
		.header = stream_header(DRM_TERN_OP_DMA_TILE, sizeof(p),
					rng_chance(b->rng, 50) ?
					DRM_TERN_DMA_TILE_TO_MEMORY : 0),
		.core = (uint16_t)rng_below(b->rng, b->cores),
		.dtype = pick_type(b, false),
	};
	uint32_t size = stream_dtype_size(p.dtype), tile_size;
	struct drm_tern_tile *t = &p.tile;
	uint64_t span;

	/* the whole partition: one region */
	if (!place(b, t, DRM_TERN_SPACE_SBUF, pick_type(b, false),
		   pick_partitions(b), 1, IN0))
		return stream_nop(b, 1);
	tile_size = stream_dtype_size(t->dtype);
	t->elements = pick_elements(b, (b->sbuf_bytes - t->offset) / tile_size);
	/* rows, columns (a transposing load) or rows with gaps */
	switch (rng_below(b->rng, 3)) {
	case 0:
		p.element_stride = size;
		p.partition_stride = (uint64_t)t->elements * size;
		break;
	case 1:
		p.partition_stride = size;
		p.element_stride = t->partitions * size;
		break;
	default:
		p.element_stride = size * (1 + (uint32_t)rng_below(b->rng, 4));
		p.partition_stride = (uint64_t)t->elements * p.element_stride +
				     size * rng_below(b->rng, 8);
		break;
	}
	span = (uint64_t)(t->partitions - 1) * p.partition_stride +
	       (uint64_t)(t->elements - 1) * p.element_stride + size;
	p.va = stream_pick_addr(b, span, size);
	return stream_emit(b, &p, sizeof(p));
}

bool stream_compute(struct builder *b)
{
	switch (b->engine_type) {
	case DRM_TERN_ENGINE_TENSOR:
		return emit_matmul(b);
	case DRM_TERN_ENGINE_VECTOR:
		switch (rng_below(b->rng, 4)) {
		case 0:
			return emit_tensor_copy(b);
		case 1:
			return emit_tensor_tensor(b);
		case 2:
			return emit_tensor_scalar(b);
		default:
			return emit_tensor_reduce(b);
		}
	default:
		switch (rng_below(b->rng, 4)) {
		case 0:
			return emit_tensor_copy(b);
		case 1:
			return emit_tensor_scalar(b);
		default:
			return emit_activate(b);
		}
	}
}
