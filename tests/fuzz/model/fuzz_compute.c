// SPDX-License-Identifier: MIT
/*
 * The model fuzzer's half for DMA_TILE and the compute packets
 * (fuzz_compute.h). The rules are Documentation/compute.rst's, written
 * again from it; the reference runs each packet whole, in the plainest
 * loops, with the model's element arithmetic (whose bits test_softfloat
 * and test_compute check), so that it checks where the bytes go.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_compute.h"
#include "tern_activate.h"
#include "tern_f32.h"
#include "tern_reduce.h"

/* Small memories, so that tiles fall inside and outside them alike. */
#define FUZZ_SBUF_BYTES	2048
#define FUZZ_PSUM_BYTES	4096

void fuzz_chip_setup(struct fuzz_chip *chip, const u8 header[2])
{
	memset(chip, 0, sizeof(*chip));
	chip->shape.cores = (header[1] & 3u) % 3u;
	chip->shape.sbuf_partition_bytes = FUZZ_SBUF_BYTES;
	chip->shape.psum_partition_bytes = FUZZ_PSUM_BYTES;
	chip->target.type = header[0] % 4u;
	chip->target.shape = &chip->shape;
	if (chip->target.type != DRM_TERN_ENGINE_DMA && chip->shape.cores)
		chip->target.core = (header[1] >> 2 & 1) % chip->shape.cores;
	chip->onchip_fails = header[1] >> 7;
}

static u32 fuzz_space_bytes(u32 space)
{
	return space == DRM_TERN_SPACE_SBUF ? FUZZ_SBUF_BYTES : FUZZ_PSUM_BYTES;
}

u8 *fuzz_onchip_get(struct fuzz_onchip *o, u32 core, u32 space)
{
	u8 **slot;

	if (core >= o->chip->shape.cores ||
	    (space != DRM_TERN_SPACE_SBUF && space != DRM_TERN_SPACE_PSUM)) {
		fprintf(stderr, "fuzz_model: oracle failed: onchip(%u, %u) "
			"on a chip of %u cores\n", core, space,
			o->chip->shape.cores);
		abort();
	}
	if (o->chip->onchip_fails)
		return NULL;
	slot = &o->mem[core][space == DRM_TERN_SPACE_PSUM];
	if (!*slot) {
		*slot = calloc(DRM_TERN_PARTITIONS, fuzz_space_bytes(space));
		if (!*slot)
			abort();
	}
	return *slot;
}

void fuzz_onchip_free(struct fuzz_onchip *o)
{
	for (u32 c = 0; c < FUZZ_MAX_CORES; c++)
		for (u32 s = 0; s < 2; s++)
			free(o->mem[c][s]);
	memset(o->mem, 0, sizeof(o->mem));
}

void fuzz_onchip_compare(const struct fuzz_onchip *a,
			 const struct fuzz_onchip *b, const char *what)
{
	static const u8 zeros[FUZZ_PSUM_BYTES];

	for (u32 c = 0; c < FUZZ_MAX_CORES; c++) {
		for (u32 s = 0; s < 2; s++) {
			u32 bytes = fuzz_space_bytes(s ? DRM_TERN_SPACE_PSUM :
						     DRM_TERN_SPACE_SBUF);

			for (u32 p = 0; p < DRM_TERN_PARTITIONS; p++) {
				const u8 *x = a->mem[c][s] ?
					      a->mem[c][s] + p * bytes : zeros;
				const u8 *y = b->mem[c][s] ?
					      b->mem[c][s] + p * bytes : zeros;

				if (memcmp(x, y, bytes)) {
					fprintf(stderr, "fuzz_model: oracle failed: %s: "
						"core %u %s partition %u differs\n",
						what, c, s ? "PSUM" : "SBUF", p);
					abort();
				}
			}
		}
	}
}

/* ---- the rules ---- */

static u32 spec_dtype_size(u32 dtype)
{
	switch (dtype) {
	case DRM_TERN_DTYPE_FLOAT32:
	case DRM_TERN_DTYPE_INT32:
	case DRM_TERN_DTYPE_UINT32:
		return 4;
	case DRM_TERN_DTYPE_FLOAT16:
	case DRM_TERN_DTYPE_BFLOAT16:
		return 2;
	case DRM_TERN_DTYPE_INT8:
	case DRM_TERN_DTYPE_UINT8:
	case DRM_TERN_DTYPE_FLOAT8_E4M3:
	case DRM_TERN_DTYPE_FLOAT8_E5M2:
		return 1;
	default:
		return 0;	/* the 64-bit integers, and unknown types */
	}
}

static bool spec_float(u32 dtype)
{
	return dtype == DRM_TERN_DTYPE_FLOAT32 ||
	       dtype == DRM_TERN_DTYPE_FLOAT16 ||
	       dtype == DRM_TERN_DTYPE_BFLOAT16 ||
	       dtype == DRM_TERN_DTYPE_FLOAT8_E4M3 ||
	       dtype == DRM_TERN_DTYPE_FLOAT8_E5M2;
}

static bool spec_tile(const struct drm_tern_tile *t)
{
	u32 size = spec_dtype_size(t->dtype);
	u64 bytes;

	if (t->space != DRM_TERN_SPACE_SBUF && t->space != DRM_TERN_SPACE_PSUM)
		return false;
	bytes = fuzz_space_bytes(t->space);
	return t->pad == 0 && size && t->partitions >= 1 &&
	       t->partitions <= 128 && t->partition + t->partitions <= 128 &&
	       t->elements >= 1 && t->offset % size == 0 &&
	       (u64)t->offset + (u64)t->elements * size <= bytes;
}

static bool spec_overlap(const struct drm_tern_tile *a,
			 const struct drm_tern_tile *b)
{
	u64 a_end = a->offset + (u64)a->elements * spec_dtype_size(a->dtype);
	u64 b_end = b->offset + (u64)b->elements * spec_dtype_size(b->dtype);

	return a->space == b->space &&
	       a->partition < b->partition + b->partitions &&
	       b->partition < a->partition + a->partitions &&
	       a->offset < b_end && b->offset < a_end;
}

/* An output and an input: apart, or (@same_ok) the very same tile. */
static bool spec_apart(const struct drm_tern_tile *out,
		       const struct drm_tern_tile *in, bool same_ok)
{
	if (!spec_overlap(out, in))
		return true;
	return same_ok && out->partition == in->partition &&
	       out->partitions == in->partitions && out->offset == in->offset &&
	       out->elements == in->elements &&
	       spec_dtype_size(out->dtype) == spec_dtype_size(in->dtype);
}

static bool spec_shape(const struct drm_tern_tile *a,
		       const struct drm_tern_tile *b)
{
	return a->partitions == b->partitions && a->elements == b->elements;
}

static struct drm_tern_tile spec_column(const struct drm_tern_tile *in,
					u32 offset)
{
	struct drm_tern_tile c = {
		.offset = offset, .partition = in->partition,
		.partitions = in->partitions, .elements = 1,
		.space = DRM_TERN_SPACE_SBUF, .dtype = DRM_TERN_DTYPE_FLOAT32,
	};

	return c;
}

/* A column operand: in SBUF, apart from @out. */
static bool spec_column_ok(const struct drm_tern_tile *in,
			   const struct drm_tern_tile *out, u32 offset)
{
	struct drm_tern_tile c = spec_column(in, offset);

	return spec_tile(&c) && spec_apart(out, &c, false);
}

static bool spec_alu(u32 op)
{
	return op >= DRM_TERN_ALU_ADD && op <= DRM_TERN_ALU_MIN;
}

/* Any packet of this file, as far as the stream holds it. */
union fuzz_compute_packet {
	struct drm_tern_packet_header h;
	struct drm_tern_packet_dma_tile dma;
	struct drm_tern_packet_matmul mm;
	struct drm_tern_packet_tensor_copy copy;
	struct drm_tern_packet_tensor_tensor tt;
	struct drm_tern_packet_tensor_scalar ts;
	struct drm_tern_packet_tensor_reduce red;
	struct drm_tern_packet_activate act;
};

static void fuzz_compute_read(const u8 *p, union fuzz_compute_packet *u)
{
	struct drm_tern_packet_header h;

	memset(u, 0, sizeof(*u));
	memcpy(&h, p, sizeof(h));
	memcpy(u, p, (u32)h.length * 8 < sizeof(*u) ? (u32)h.length * 8 :
	       sizeof(*u));
}

bool fuzz_compute_opcode(u16 opcode)
{
	return opcode == DRM_TERN_OP_DMA_TILE ||
	       (opcode >= DRM_TERN_OP_MATMUL && opcode <= DRM_TERN_OP_ACTIVATE);
}

static bool spec_dma_tile(const struct drm_tern_packet_dma_tile *d,
			  const struct tern_core_shape *shape)
{
	u32 size = spec_dtype_size(d->dtype);
	u64 last;

	if (d->header.flags & ~DRM_TERN_DMA_TILE_TO_MEMORY || d->pad || !size ||
	    d->core >= shape->cores || !spec_tile(&d->tile) ||
	    d->tile.space != DRM_TERN_SPACE_SBUF)
		return false;
	if (d->va % size || d->partition_stride % size ||
	    d->element_stride % size || d->partition_stride > DRM_TERN_VA_LIMIT)
		return false;
	last = (d->tile.partitions - 1) * d->partition_stride +
	       (u64)(d->tile.elements - 1) * d->element_stride + size;
	return d->va <= DRM_TERN_VA_LIMIT && last <= DRM_TERN_VA_LIMIT - d->va;
}

static bool spec_matmul(const struct drm_tern_packet_matmul *m)
{
	const struct drm_tern_tile *st = &m->stationary, *mv = &m->moving;
	const struct drm_tern_tile *r = &m->result;

	if (m->header.flags & ~DRM_TERN_MATMUL_ACCUMULATE ||
	    !spec_tile(st) || !spec_tile(mv) || !spec_tile(r))
		return false;
	return st->space == DRM_TERN_SPACE_SBUF && spec_float(st->dtype) &&
	       mv->space == DRM_TERN_SPACE_SBUF && spec_float(mv->dtype) &&
	       r->space == DRM_TERN_SPACE_PSUM &&
	       r->dtype == DRM_TERN_DTYPE_FLOAT32 &&
	       st->partitions == mv->partitions && st->elements <= 128 &&
	       mv->elements <= 512 && r->partitions == st->elements &&
	       r->elements == mv->elements &&
	       r->offset / 2048 == (r->offset + r->elements * 4 - 1) / 2048;
}

static bool spec_copy(const struct drm_tern_packet_tensor_copy *c, u32 type)
{
	if (c->header.flags & ~DRM_TERN_TENSOR_COPY_TRANSPOSE ||
	    !spec_tile(&c->in) || !spec_tile(&c->out))
		return false;
	if (!c->header.flags)
		return spec_shape(&c->in, &c->out) &&
		       spec_apart(&c->out, &c->in, true);
	return type == DRM_TERN_ENGINE_VECTOR && c->in.elements <= 128 &&
	       c->out.partitions == c->in.elements &&
	       c->out.elements == c->in.partitions &&
	       spec_apart(&c->out, &c->in, false);
}

static bool spec_tensor_tensor(const struct drm_tern_packet_tensor_tensor *t)
{
	return t->header.flags == 0 && t->pad == 0 && spec_alu(t->op) &&
	       spec_tile(&t->in0) && spec_tile(&t->in1) && spec_tile(&t->out) &&
	       spec_shape(&t->in0, &t->out) && spec_shape(&t->in1, &t->out) &&
	       spec_apart(&t->out, &t->in0, true) &&
	       spec_apart(&t->out, &t->in1, true);
}

static bool spec_tensor_scalar(const struct drm_tern_packet_tensor_scalar *t)
{
	u32 f = t->header.flags;

	if (f & ~(DRM_TERN_SCALAR_OPERAND0_COLUMN |
		  DRM_TERN_SCALAR_OPERAND1_COLUMN) || t->pad ||
	    !spec_alu(t->op0) || (t->op1 && !spec_alu(t->op1)))
		return false;
	if (!t->op1 && (t->operand1 || (f & DRM_TERN_SCALAR_OPERAND1_COLUMN)))
		return false;
	if (!spec_tile(&t->in) || !spec_tile(&t->out) ||
	    !spec_shape(&t->in, &t->out) || !spec_apart(&t->out, &t->in, true))
		return false;
	if ((f & DRM_TERN_SCALAR_OPERAND0_COLUMN) &&
	    !spec_column_ok(&t->in, &t->out, t->operand0))
		return false;
	return !(f & DRM_TERN_SCALAR_OPERAND1_COLUMN) ||
	       spec_column_ok(&t->in, &t->out, t->operand1);
}

static bool spec_tensor_reduce(const struct drm_tern_packet_tensor_reduce *t)
{
	return t->header.flags == 0 && t->pad == 0 &&
	       (t->op == DRM_TERN_ALU_ADD || t->op == DRM_TERN_ALU_MAX) &&
	       spec_tile(&t->in) && spec_tile(&t->out) &&
	       t->out.partitions == t->in.partitions && t->out.elements == 1 &&
	       spec_apart(&t->out, &t->in, false);
}

static bool spec_activate(const struct drm_tern_packet_activate *a)
{
	u32 f = a->header.flags;
	struct drm_tern_tile sums = spec_column(&a->in, a->sum);

	if (f & ~(DRM_TERN_ACTIVATE_SCALE_COLUMN | DRM_TERN_ACTIVATE_BIAS_COLUMN |
		  DRM_TERN_ACTIVATE_SUM) || a->pad ||
	    a->function > DRM_TERN_ACT_SQUARE)
		return false;
	if (!spec_tile(&a->in) || !spec_tile(&a->out) ||
	    !spec_shape(&a->in, &a->out) || !spec_apart(&a->out, &a->in, true))
		return false;
	if ((f & DRM_TERN_ACTIVATE_SCALE_COLUMN) &&
	    !spec_column_ok(&a->in, &a->out, a->scale))
		return false;
	if ((f & DRM_TERN_ACTIVATE_BIAS_COLUMN) &&
	    !spec_column_ok(&a->in, &a->out, a->bias))
		return false;
	if (!(f & DRM_TERN_ACTIVATE_SUM))
		return a->sum == 0;
	return spec_column_ok(&a->in, &a->out, a->sum) &&
	       spec_apart(&sums, &a->in, false);
}

bool spec_compute(const u8 *p, u32 bytes, const struct fuzz_chip *chip)
{
	static const struct { u16 opcode; u32 bytes; u32 engines; } rules[] = {
		{ DRM_TERN_OP_DMA_TILE, sizeof(struct drm_tern_packet_dma_tile),
		  1u << DRM_TERN_ENGINE_DMA },
		{ DRM_TERN_OP_MATMUL, sizeof(struct drm_tern_packet_matmul),
		  1u << DRM_TERN_ENGINE_TENSOR },
		{ DRM_TERN_OP_TENSOR_COPY,
		  sizeof(struct drm_tern_packet_tensor_copy),
		  1u << DRM_TERN_ENGINE_VECTOR | 1u << DRM_TERN_ENGINE_SCALAR },
		{ DRM_TERN_OP_TENSOR_TENSOR,
		  sizeof(struct drm_tern_packet_tensor_tensor),
		  1u << DRM_TERN_ENGINE_VECTOR },
		{ DRM_TERN_OP_TENSOR_SCALAR,
		  sizeof(struct drm_tern_packet_tensor_scalar),
		  1u << DRM_TERN_ENGINE_VECTOR | 1u << DRM_TERN_ENGINE_SCALAR },
		{ DRM_TERN_OP_TENSOR_REDUCE,
		  sizeof(struct drm_tern_packet_tensor_reduce),
		  1u << DRM_TERN_ENGINE_VECTOR },
		{ DRM_TERN_OP_ACTIVATE, sizeof(struct drm_tern_packet_activate),
		  1u << DRM_TERN_ENGINE_SCALAR },
	};
	union fuzz_compute_packet u;
	u32 type = chip->target.type;
	size_t i;

	fuzz_compute_read(p, &u);
	for (i = 0; i < ARRAY_SIZE(rules) && rules[i].opcode != u.h.opcode; i++)
		;
	if (i == ARRAY_SIZE(rules) || bytes != rules[i].bytes ||
	    !(rules[i].engines >> type & 1))
		return false;
	if (type != DRM_TERN_ENGINE_DMA &&
	    chip->target.core >= chip->shape.cores)
		return false;	/* no such core: its engines run nothing */
	switch (u.h.opcode) {
	case DRM_TERN_OP_DMA_TILE:
		return spec_dma_tile(&u.dma, &chip->shape);
	case DRM_TERN_OP_MATMUL:
		return spec_matmul(&u.mm);
	case DRM_TERN_OP_TENSOR_COPY:
		return spec_copy(&u.copy, type);
	case DRM_TERN_OP_TENSOR_TENSOR:
		return spec_tensor_tensor(&u.tt);
	case DRM_TERN_OP_TENSOR_SCALAR:
		return spec_tensor_scalar(&u.ts);
	case DRM_TERN_OP_TENSOR_REDUCE:
		return spec_tensor_reduce(&u.red);
	default:
		return spec_activate(&u.act);
	}
}

u64 fuzz_compute_steps(const u8 *p)
{
	union fuzz_compute_packet u;

	fuzz_compute_read(p, &u);
	switch (u.h.opcode) {
	case DRM_TERN_OP_DMA_TILE:
		return u.dma.tile.partitions;
	case DRM_TERN_OP_MATMUL:
		return (u64)u.mm.stationary.elements * u.mm.moving.elements;
	default:
		/* every other packet's first tile sets the partitions */
		return u.copy.in.partitions;
	}
}

u64 fuzz_compute_cost(const u8 *p)
{
	union fuzz_compute_packet u;

	fuzz_compute_read(p, &u);
	switch (u.h.opcode) {
	case DRM_TERN_OP_DMA_TILE:
		return (u64)u.dma.tile.partitions * u.dma.tile.elements * 4 + 64;
	case DRM_TERN_OP_MATMUL:
		return (u64)u.mm.stationary.elements * u.mm.moving.elements *
		       u.mm.stationary.partitions * 2 + 64;
	case DRM_TERN_OP_ACTIVATE:
		return (u64)u.act.in.partitions * u.act.in.elements * 100 + 64;
	default:
		return (u64)u.copy.in.partitions * u.copy.in.elements * 8 + 64;
	}
}

/* ---- the reference ---- */

/* A tile with its memory; NULL base when it cannot be had. */
struct ref_tile {
	const struct drm_tern_tile *t;
	u8 *base;
	u32 partition_bytes, size;
};

static bool ref_tile(struct fuzz_onchip *o, u32 core,
		     const struct drm_tern_tile *t, struct ref_tile *r)
{
	r->t = t;
	r->base = fuzz_onchip_get(o, core, t->space);
	r->partition_bytes = fuzz_space_bytes(t->space);
	r->size = spec_dtype_size(t->dtype);
	return r->base != NULL;
}

static u8 *ref_at(const struct ref_tile *r, u32 p, u32 f)
{
	return r->base + (r->t->partition + p) * r->partition_bytes +
	       r->t->offset + f * r->size;
}

static u32 ref_get(const struct ref_tile *r, u32 p, u32 f)
{
	return tern_element_load(ref_at(r, p, f), r->t->dtype);
}

static void ref_put(const struct ref_tile *r, u32 p, u32 f, u32 v)
{
	tern_element_store(ref_at(r, p, f), r->t->dtype, v);
}

static u32 ref_alu(u32 op, u32 a, u32 b)
{
	switch (op) {
	case DRM_TERN_ALU_ADD:
		return tern_fadd(a, b);
	case DRM_TERN_ALU_SUBTRACT:
		return tern_fsub(a, b);
	case DRM_TERN_ALU_MULTIPLY:
		return tern_fmul(a, b);
	case DRM_TERN_ALU_MAX:
		return tern_f32_max(a, b);
	default:
		return tern_f32_min(a, b);
	}
}

/* The float32 @offset bytes into partition @p of @in's SBUF column. */
static u32 ref_column(struct fuzz_onchip *o, u32 core,
		      const struct drm_tern_tile *in, u32 offset, u32 p)
{
	u8 *sbuf = fuzz_onchip_get(o, core, DRM_TERN_SPACE_SBUF);

	return tern_element_load(sbuf + (in->partition + p) * FUZZ_SBUF_BYTES +
				 offset, DRM_TERN_DTYPE_FLOAT32);
}

static int ref_dma_tile(const struct drm_tern_packet_dma_tile *d,
			struct fuzz_onchip *o, const struct fuzz_memory *m)
{
	bool to_memory = d->header.flags & DRM_TERN_DMA_TILE_TO_MEMORY;
	u32 size = spec_dtype_size(d->dtype), owner;
	u64 span = (d->tile.partitions - 1) * d->partition_stride +
		   (u64)(d->tile.elements - 1) * d->element_stride + size;
	struct ref_tile t;
	u8 *mem;
	int rc = m->access(m->ctx, d->va, span, &mem, &owner);

	if (rc)
		return rc;
	if (!ref_tile(o, d->core, &d->tile, &t))
		return -ENOMEM;
	for (u32 p = 0; p < d->tile.partitions; p++) {
		for (u32 f = 0; f < d->tile.elements; f++) {
			u8 *at = mem + p * d->partition_stride +
				 (u64)f * d->element_stride;

			if (d->dtype == d->tile.dtype)
				memcpy(to_memory ? at : ref_at(&t, p, f),
				       to_memory ? ref_at(&t, p, f) : at, size);
			else if (to_memory)
				tern_element_store(at, d->dtype, ref_get(&t, p, f));
			else
				ref_put(&t, p, f, tern_element_load(at, d->dtype));
		}
	}
	m->count(m->ctx, owner, to_memory,
		 (u64)d->tile.partitions * d->tile.elements * size);
	return 0;
}

static int ref_matmul(const struct drm_tern_packet_matmul *mm, u32 core,
		      struct fuzz_onchip *o)
{
	struct ref_tile st, mv, r;

	if (!ref_tile(o, core, &mm->stationary, &st) ||
	    !ref_tile(o, core, &mm->moving, &mv) ||
	    !ref_tile(o, core, &mm->result, &r))
		return -ENOMEM;
	for (u32 m = 0; m < mm->stationary.elements; m++) {
		for (u32 n = 0; n < mm->moving.elements; n++) {
			u32 acc = TERN_F32_NEG_ZERO;

			if (mm->header.flags & DRM_TERN_MATMUL_ACCUMULATE)
				memcpy(&acc, ref_at(&r, m, n), 4);
			for (u32 k = 0; k < mm->stationary.partitions; k++)
				acc = tern_ffma(ref_get(&st, k, m),
						ref_get(&mv, k, n), acc);
			memcpy(ref_at(&r, m, n), &acc, 4);
		}
	}
	return 0;
}

static int ref_copy(const struct drm_tern_packet_tensor_copy *c, u32 core,
		    struct fuzz_onchip *o)
{
	bool transpose = c->header.flags & DRM_TERN_TENSOR_COPY_TRANSPOSE;
	struct ref_tile in, out;

	if (!ref_tile(o, core, &c->in, &in) || !ref_tile(o, core, &c->out, &out))
		return -ENOMEM;
	for (u32 p = 0; p < c->in.partitions; p++) {
		for (u32 f = 0; f < c->in.elements; f++) {
			u8 *dst = transpose ? ref_at(&out, f, p) : ref_at(&out, p, f);

			if (c->in.dtype == c->out.dtype)
				memmove(dst, ref_at(&in, p, f), in.size);
			else
				tern_element_store(dst, c->out.dtype,
						   ref_get(&in, p, f));
		}
	}
	return 0;
}

static int ref_tensor_tensor(const struct drm_tern_packet_tensor_tensor *t,
			     u32 core, struct fuzz_onchip *o)
{
	struct ref_tile a, b, out;

	if (!ref_tile(o, core, &t->in0, &a) || !ref_tile(o, core, &t->in1, &b) ||
	    !ref_tile(o, core, &t->out, &out))
		return -ENOMEM;
	for (u32 p = 0; p < t->out.partitions; p++)
		for (u32 f = 0; f < t->out.elements; f++)
			ref_put(&out, p, f, ref_alu(t->op, ref_get(&a, p, f),
						    ref_get(&b, p, f)));
	return 0;
}

static int ref_tensor_scalar(const struct drm_tern_packet_tensor_scalar *t,
			     u32 core, struct fuzz_onchip *o)
{
	struct ref_tile in, out;

	if (!ref_tile(o, core, &t->in, &in) || !ref_tile(o, core, &t->out, &out) ||
	    !fuzz_onchip_get(o, core, DRM_TERN_SPACE_SBUF))
		return -ENOMEM;
	for (u32 p = 0; p < t->out.partitions; p++) {
		u32 s0 = t->header.flags & DRM_TERN_SCALAR_OPERAND0_COLUMN ?
			 ref_column(o, core, &t->in, t->operand0, p) : t->operand0;
		u32 s1 = t->header.flags & DRM_TERN_SCALAR_OPERAND1_COLUMN ?
			 ref_column(o, core, &t->in, t->operand1, p) : t->operand1;

		for (u32 f = 0; f < t->out.elements; f++) {
			u32 v = ref_alu(t->op0, ref_get(&in, p, f), s0);

			ref_put(&out, p, f, t->op1 ? ref_alu(t->op1, v, s1) : v);
		}
	}
	return 0;
}

static int ref_tensor_reduce(const struct drm_tern_packet_tensor_reduce *t,
			     u32 core, struct fuzz_onchip *o)
{
	struct ref_tile in, out;

	if (!ref_tile(o, core, &t->in, &in) || !ref_tile(o, core, &t->out, &out))
		return -ENOMEM;
	for (u32 p = 0; p < t->in.partitions; p++) {
		u32 acc = ref_get(&in, p, 0);

		for (u32 f = 1; f < t->in.elements; f++)
			acc = ref_alu(t->op, acc, ref_get(&in, p, f));
		ref_put(&out, p, 0, acc);
	}
	return 0;
}

static int ref_activate(const struct drm_tern_packet_activate *a, u32 core,
			struct fuzz_onchip *o)
{
	struct ref_tile in, out;
	u8 *sbuf;

	if (!ref_tile(o, core, &a->in, &in) || !ref_tile(o, core, &a->out, &out))
		return -ENOMEM;
	sbuf = fuzz_onchip_get(o, core, DRM_TERN_SPACE_SBUF);
	if (!sbuf)
		return -ENOMEM;
	for (u32 p = 0; p < a->in.partitions; p++) {
		u32 scale = a->header.flags & DRM_TERN_ACTIVATE_SCALE_COLUMN ?
			    ref_column(o, core, &a->in, a->scale, p) : a->scale;
		u32 bias = a->header.flags & DRM_TERN_ACTIVATE_BIAS_COLUMN ?
			   ref_column(o, core, &a->in, a->bias, p) : a->bias;
		u32 sum = 0;

		for (u32 f = 0; f < a->in.elements; f++) {
			u32 y = tern_activate(a->function,
					      tern_ffma(ref_get(&in, p, f), scale,
							bias));

			sum = f ? tern_fadd(sum, y) : y;
			ref_put(&out, p, f, y);
		}
		if (a->header.flags & DRM_TERN_ACTIVATE_SUM)
			tern_element_store(sbuf + (a->in.partition + p) *
					   FUZZ_SBUF_BYTES + a->sum,
					   DRM_TERN_DTYPE_FLOAT32, sum);
	}
	return 0;
}

int ref_compute(const u8 *p, const struct fuzz_chip *chip,
		struct fuzz_onchip *o, const struct fuzz_memory *m)
{
	union fuzz_compute_packet u;
	u32 core = chip->target.core;

	fuzz_compute_read(p, &u);
	switch (u.h.opcode) {
	case DRM_TERN_OP_DMA_TILE:
		return ref_dma_tile(&u.dma, o, m);
	case DRM_TERN_OP_MATMUL:
		return ref_matmul(&u.mm, core, o);
	case DRM_TERN_OP_TENSOR_COPY:
		return ref_copy(&u.copy, core, o);
	case DRM_TERN_OP_TENSOR_TENSOR:
		return ref_tensor_tensor(&u.tt, core, o);
	case DRM_TERN_OP_TENSOR_SCALAR:
		return ref_tensor_scalar(&u.ts, core, o);
	case DRM_TERN_OP_TENSOR_REDUCE:
		return ref_tensor_reduce(&u.red, core, o);
	default:
		return ref_activate(&u.act, core, o);
	}
}
