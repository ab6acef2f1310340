// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * DMA_TILE and the compute packets. Each is checked once, at submit,
 * against the chip's cores; then run a partition at a time (for MATMUL, a
 * run of result elements), so that a call stays within its budget and a
 * long packet yields the engine like a long COPY does.
 */
#include "tern_access.h"
#include "tern_activate.h"
#include "tern_compute.h"
#include "tern_f32.h"
#include "tern_matmul_fpu.h"
#include "tern_reduce.h"

/*
 * The work of one float32 operation or conversion, in units of
 * TERN_MODEL_BUDGET (a byte of COPY): tern.ko computes with integers, the
 * simulator with the FPU, a call of either taking about a millisecond.
 * The model fuzzer makes them dearer, so that its short runs yield too.
 * An activation costs TERN_ACTIVATE_COST of them.
 */
#ifndef TERN_FLOAT_COST
#ifdef __KERNEL__
#define TERN_FLOAT_COST		256u
#else
#define TERN_FLOAT_COST		1u
#endif
#endif
#define TERN_ACTIVATE_COST	32u

/*
 * The multiply-adds of MATMUL that cost one TERN_FLOAT_COST: the simulator
 * does them in blocks on vectors (tern_matmul_fpu.c), several times as
 * fast as float32 operations one at a time, so that a call still takes
 * about a millisecond and reads its tiles into float32 for as much work
 * as it can.
 */
#ifdef TERN_MATMUL_FPU
#define TERN_MATMUL_PER_COST	4u
#else
#define TERN_MATMUL_PER_COST	1u
#endif

/* ---- checks at submit ---- */

static bool tern_float_input_ok(u32 dtype)
{
	return dtype == DRM_TERN_DTYPE_FLOAT32 ||
	       dtype == DRM_TERN_DTYPE_BFLOAT16 ||
	       dtype == DRM_TERN_DTYPE_FLOAT16 ||
	       dtype == DRM_TERN_DTYPE_FLOAT8_E4M3 ||
	       dtype == DRM_TERN_DTYPE_FLOAT8_E5M2;
}

static bool tern_same_shape(const struct drm_tern_tile *a,
			    const struct drm_tern_tile *b)
{
	return a->partitions == b->partitions && a->elements == b->elements;
}

static bool tern_alu_op_ok(u32 op)
{
	return op >= DRM_TERN_ALU_ADD && op <= DRM_TERN_ALU_MIN;
}

/* The float32 column @offset bytes into each of @in's partitions of SBUF. */
static struct drm_tern_tile tern_column(const struct drm_tern_tile *in,
					u32 offset)
{
	struct drm_tern_tile column = {
		.offset = offset, .partition = in->partition,
		.partitions = in->partitions, .elements = 1,
		.space = DRM_TERN_SPACE_SBUF, .dtype = DRM_TERN_DTYPE_FLOAT32,
	};

	return column;
}

/* A column operand is inside SBUF and apart from the output. */
static bool tern_column_ok(const struct drm_tern_tile *in,
			   const struct drm_tern_tile *out, u32 offset,
			   const struct tern_core_shape *shape)
{
	struct drm_tern_tile column = tern_column(in, offset);

	return tern_tile_ok(&column, shape) &&
	       tern_tiles_may_share(out, &column, false);
}

static int tern_check_dma_tile(const struct drm_tern_packet_dma_tile *p,
			       const struct tern_core_shape *shape)
{
	const struct drm_tern_tile *t = &p->tile;
	u32 size = tern_model_dtype_size(p->dtype);
	u64 last;

	if (p->pad || !tern_compute_dtype_ok(p->dtype) ||
	    p->core >= shape->cores || !tern_tile_ok(t, shape) ||
	    t->space != DRM_TERN_SPACE_SBUF)
		return -EINVAL;
	if (p->va % size || p->partition_stride % size ||
	    p->element_stride % size || p->partition_stride > DRM_TERN_VA_LIMIT)
		return -EINVAL;
	/* at most 127 * 2^47 + 2^32 * 2^32: no overflow */
	last = (u64)(t->partitions - 1) * p->partition_stride +
	       (u64)(t->elements - 1) * p->element_stride + size;
	if (p->va > DRM_TERN_VA_LIMIT || last > DRM_TERN_VA_LIMIT - p->va)
		return -EINVAL;
	return 0;
}

static int tern_check_matmul(const struct drm_tern_packet_matmul *p,
			     const struct tern_core_shape *shape)
{
	const struct drm_tern_tile *st = &p->stationary, *mv = &p->moving;
	const struct drm_tern_tile *res = &p->result;
	u32 bank_first, bank_last;

	if (!tern_tile_ok(st, shape) || !tern_tile_ok(mv, shape) ||
	    !tern_tile_ok(res, shape))
		return -EINVAL;
	if (st->space != DRM_TERN_SPACE_SBUF || mv->space != DRM_TERN_SPACE_SBUF ||
	    !tern_float_input_ok(st->dtype) || !tern_float_input_ok(mv->dtype))
		return -EINVAL;
	if (res->space != DRM_TERN_SPACE_PSUM ||
	    res->dtype != DRM_TERN_DTYPE_FLOAT32)
		return -EINVAL;
	if (st->partitions != mv->partitions || st->elements > 128 ||
	    mv->elements > 512 || res->partitions != st->elements ||
	    res->elements != mv->elements)
		return -EINVAL;
	bank_first = res->offset / DRM_TERN_PSUM_BANK_BYTES;
	bank_last = (res->offset + res->elements * 4 - 1) /
		    DRM_TERN_PSUM_BANK_BYTES;
	return bank_first == bank_last ? 0 : -EINVAL;
}

static int tern_check_tensor_copy(const struct drm_tern_packet_tensor_copy *p,
				  const struct tern_model_target *target)
{
	const struct drm_tern_tile *in = &p->in, *out = &p->out;

	if (!tern_tile_ok(in, target->shape) || !tern_tile_ok(out, target->shape))
		return -EINVAL;
	if (!(p->header.flags & DRM_TERN_TENSOR_COPY_TRANSPOSE))
		return tern_same_shape(in, out) &&
		       tern_tiles_may_share(out, in, true) ? 0 : -EINVAL;
	if (target->type != DRM_TERN_ENGINE_VECTOR ||
	    in->elements > DRM_TERN_PARTITIONS ||
	    out->partitions != in->elements || out->elements != in->partitions)
		return -EINVAL;
	return tern_tiles_may_share(out, in, false) ? 0 : -EINVAL;
}

static int tern_check_tensor_tensor(const struct drm_tern_packet_tensor_tensor *p,
				    const struct tern_core_shape *shape)
{
	if (p->pad || !tern_alu_op_ok(p->op) || !tern_tile_ok(&p->in0, shape) ||
	    !tern_tile_ok(&p->in1, shape) || !tern_tile_ok(&p->out, shape))
		return -EINVAL;
	if (!tern_same_shape(&p->in0, &p->out) ||
	    !tern_same_shape(&p->in1, &p->out))
		return -EINVAL;
	return tern_tiles_may_share(&p->out, &p->in0, true) &&
	       tern_tiles_may_share(&p->out, &p->in1, true) ? 0 : -EINVAL;
}

static int tern_check_tensor_scalar(const struct drm_tern_packet_tensor_scalar *p,
				    const struct tern_core_shape *shape)
{
	u32 flags = p->header.flags;

	if (p->pad || !tern_alu_op_ok(p->op0) ||
	    (p->op1 != DRM_TERN_ALU_NONE && !tern_alu_op_ok(p->op1)))
		return -EINVAL;
	if (p->op1 == DRM_TERN_ALU_NONE &&
	    (p->operand1 || (flags & DRM_TERN_SCALAR_OPERAND1_COLUMN)))
		return -EINVAL;
	if (!tern_tile_ok(&p->in, shape) || !tern_tile_ok(&p->out, shape) ||
	    !tern_same_shape(&p->in, &p->out) ||
	    !tern_tiles_may_share(&p->out, &p->in, true))
		return -EINVAL;
	if ((flags & DRM_TERN_SCALAR_OPERAND0_COLUMN) &&
	    !tern_column_ok(&p->in, &p->out, p->operand0, shape))
		return -EINVAL;
	if ((flags & DRM_TERN_SCALAR_OPERAND1_COLUMN) &&
	    !tern_column_ok(&p->in, &p->out, p->operand1, shape))
		return -EINVAL;
	return 0;
}

static int tern_check_tensor_reduce(const struct drm_tern_packet_tensor_reduce *p,
				    const struct tern_core_shape *shape)
{
	if (p->pad || (p->op != DRM_TERN_ALU_ADD && p->op != DRM_TERN_ALU_MAX))
		return -EINVAL;
	if (!tern_tile_ok(&p->in, shape) || !tern_tile_ok(&p->out, shape) ||
	    p->out.partitions != p->in.partitions || p->out.elements != 1)
		return -EINVAL;
	return tern_tiles_may_share(&p->out, &p->in, false) ? 0 : -EINVAL;
}

static int tern_check_activate(const struct drm_tern_packet_activate *p,
			       const struct tern_core_shape *shape)
{
	struct drm_tern_tile sums = tern_column(&p->in, p->sum);
	u32 flags = p->header.flags;

	if (p->pad || !tern_activation_known(p->function))
		return -EINVAL;
	if (!tern_tile_ok(&p->in, shape) || !tern_tile_ok(&p->out, shape) ||
	    !tern_same_shape(&p->in, &p->out) ||
	    !tern_tiles_may_share(&p->out, &p->in, true))
		return -EINVAL;
	if ((flags & DRM_TERN_ACTIVATE_SCALE_COLUMN) &&
	    !tern_column_ok(&p->in, &p->out, p->scale, shape))
		return -EINVAL;
	if ((flags & DRM_TERN_ACTIVATE_BIAS_COLUMN) &&
	    !tern_column_ok(&p->in, &p->out, p->bias, shape))
		return -EINVAL;
	if (!(flags & DRM_TERN_ACTIVATE_SUM))
		return p->sum ? -EINVAL : 0;
	/* the sums are written as the rows end: apart from both tiles */
	if (!tern_column_ok(&p->in, &p->out, p->sum, shape))
		return -EINVAL;
	return tern_tiles_may_share(&sums, &p->in, false) ? 0 : -EINVAL;
}

int tern_compute_validate(const struct drm_tern_packet_header *hdr,
			  const struct tern_model_target *target)
{
	const struct tern_core_shape *shape = target->shape;

	/* a compute engine is a core's, of a chip that has it */
	if (hdr->opcode != DRM_TERN_OP_DMA_TILE && target->core >= shape->cores)
		return -EINVAL;
	switch (hdr->opcode) {
	case DRM_TERN_OP_DMA_TILE:
		return tern_check_dma_tile((const void *)hdr, shape);
	case DRM_TERN_OP_MATMUL:
		return tern_check_matmul((const void *)hdr, shape);
	case DRM_TERN_OP_TENSOR_COPY:
		return tern_check_tensor_copy((const void *)hdr, target);
	case DRM_TERN_OP_TENSOR_TENSOR:
		return tern_check_tensor_tensor((const void *)hdr, shape);
	case DRM_TERN_OP_TENSOR_SCALAR:
		return tern_check_tensor_scalar((const void *)hdr, shape);
	case DRM_TERN_OP_TENSOR_REDUCE:
		return tern_check_tensor_reduce((const void *)hdr, shape);
	case DRM_TERN_OP_ACTIVATE:
		return tern_check_activate((const void *)hdr, shape);
	default:
		return -EINVAL;
	}
}

/* ---- running ---- */

/* A tile, with the memory it is in. */
struct tern_onchip_tile {
	const struct drm_tern_tile *tile;
	u8 *base;
	u32 partition_bytes;
	u32 size;
};

static int tern_onchip(const struct tern_model_mem *mem, u32 core,
		       const struct drm_tern_tile *tile,
		       struct tern_onchip_tile *o)
{
	o->tile = tile;
	o->base = mem->onchip(mem->ctx, core, tile->space);
	o->partition_bytes = tern_space_partition_bytes(mem->target->shape,
							tile->space);
	o->size = tern_model_dtype_size(tile->dtype);
	return o->base ? 0 : -ENOMEM;
}

/*
 * @in_tile's and @out_tile's memories of the engine's core, and SBUF's
 * (for columns) when @sbuf is not NULL.
 */
static int tern_onchip_in_out(const struct tern_model_mem *mem,
			      const struct drm_tern_tile *in_tile,
			      const struct drm_tern_tile *out_tile,
			      struct tern_onchip_tile *in,
			      struct tern_onchip_tile *out,
			      struct tern_onchip_tile *sbuf)
{
	static const struct drm_tern_tile sbuf_tile = {
		.space = DRM_TERN_SPACE_SBUF, .dtype = DRM_TERN_DTYPE_FLOAT32,
	};
	u32 core = mem->target->core;
	int ret = tern_onchip(mem, core, in_tile, in);

	if (!ret)
		ret = tern_onchip(mem, core, out_tile, out);
	if (!ret && sbuf)
		ret = tern_onchip(mem, core, &sbuf_tile, sbuf);
	return ret;
}

static u8 *tern_at(const struct tern_onchip_tile *o, u32 p, u32 f)
{
	return tern_tile_at(o->base, o->partition_bytes, o->tile, o->size, p, f);
}

static u32 tern_get(const struct tern_onchip_tile *o, u32 p, u32 f)
{
	return tern_element_load(tern_at(o, p, f), o->tile->dtype);
}

static void tern_put(const struct tern_onchip_tile *o, u32 p, u32 f, u32 v)
{
	tern_element_store(tern_at(o, p, f), o->tile->dtype, v);
}

/*
 * Units of @cost that this call does: what *@budget holds, at least one
 * and at most @left; takes their cost off *@budget.
 */
static u64 tern_units(u64 *budget, u64 cost, u64 left)
{
	u64 n = *budget / cost;

	if (!n)
		n = 1;
	if (n > left)
		n = left;
	*budget -= n * cost < *budget ? n * cost : *budget;
	return n;
}

/* job->progress advanced by @n of @total; 0 when the packet is done. */
static int tern_advance(struct tern_model_job *job, u64 n, u64 total)
{
	job->progress += n;
	return job->progress == total ? 0 : TERN_MODEL_YIELD;
}

static u32 tern_alu(u32 op, u32 a, u32 b)
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

/*
 * a[i] = @op(a[i], b[i]) for i below @count, or with @b a scalar's
 * address and @b_step 0, @op(a[i], *b): each a loop of its own, of a
 * constant count when the run is whole (tern_alu_run()). @a and @b are
 * runs of their own.
 */
static inline void tern_alu_loops(u32 op, u32 *restrict a,
				  const u32 *restrict b, u32 b_step, u32 count)
{
	u32 i, s = *b;

	switch (op) {
	case DRM_TERN_ALU_ADD:
		for (i = 0; i < count; i++)
			a[i] = tern_fadd(a[i], b_step ? b[i] : s);
		return;
	case DRM_TERN_ALU_SUBTRACT:
		for (i = 0; i < count; i++)
			a[i] = tern_fsub(a[i], b_step ? b[i] : s);
		return;
	case DRM_TERN_ALU_MULTIPLY:
		for (i = 0; i < count; i++)
			a[i] = tern_fmul(a[i], b_step ? b[i] : s);
		return;
	default:
		for (i = 0; i < count; i++)
			a[i] = tern_alu(op, a[i], b_step ? b[i] : s);
		return;
	}
}

/* a[i] = @op(a[i], b[i * @b_step]) for i below @count; a scalar's step is 0. */
static void tern_alu_run(u32 op, u32 *a, const u32 *b, u32 b_step, u32 count)
{
	if (count == TERN_RUN && b_step)
		tern_alu_loops(op, a, b, 1, TERN_RUN);
	else if (count == TERN_RUN)
		tern_alu_loops(op, a, b, 0, TERN_RUN);
	else
		tern_alu_loops(op, a, b, b_step, count);
}

/*
 * x[i] = fma(x[i], @scale, @bias) for i below @count. With a scale of 1
 * the product is exact, so that is x + bias, which costs less.
 */
static void tern_fma_run(u32 *x, u32 scale, u32 bias, u32 count)
{
	u32 i;

	if (scale == TERN_F32_ONE && count == TERN_RUN) {
		tern_alu_loops(DRM_TERN_ALU_ADD, x, &bias, 0, TERN_RUN);
		return;
	}
	if (scale == TERN_F32_ONE) {
		tern_alu_loops(DRM_TERN_ALU_ADD, x, &bias, 0, count);
		return;
	}
	for (i = 0; i < count; i++)
		x[i] = tern_ffma(x[i], scale, bias);
}

/* The shorter of what is left of @count from @f and a run. */
static u32 tern_run_length(u32 f, u32 count)
{
	return count - f < TERN_RUN ? count - f : TERN_RUN;
}

/* Elements of one size @stride bytes apart in memory, in order. */
static inline void tern_dma_grid(u8 *m, u64 stride, u8 *c, u32 count,
				 u32 size, bool to_memory)
{
	for (u32 f = 0; f < count; f++, m += stride, c += size)
		memcpy(to_memory ? m : c, to_memory ? c : m, size);
}

/* A partition of a DMA_TILE whose types are the same: the bytes. */
static void tern_dma_same(u8 *m, u64 stride, u8 *c, u32 count, u32 size,
			  bool to_memory)
{
	if (stride == size) {
		memcpy(to_memory ? m : c, to_memory ? c : m, (u64)count * size);
		return;
	}
	/* a constant size each, which the compiler makes one move */
	switch (size) {
	case 1:
		tern_dma_grid(m, stride, c, count, 1, to_memory);
		break;
	case 2:
		tern_dma_grid(m, stride, c, count, 2, to_memory);
		break;
	default:
		tern_dma_grid(m, stride, c, count, 4, to_memory);
		break;
	}
}

/*
 * A load whose partitions lie side by side in memory and whose elements
 * lie far apart (a matrix read transposed), in squares: the partitions of
 * a line of memory by TERN_SQUARE_ELEMENTS, read a line at a time into a
 * buffer, then written a run of each partition at a time, so that the
 * cache holds every line while it is used, though both sets of lines lie
 * a large power of two apart. Partitions [@first, @end).
 */
#define TERN_SQUARE_ELEMENTS	16u

static inline void tern_dma_squares(const u8 *m, u64 stride,
				    const struct tern_onchip_tile *o,
				    u32 first, u32 end, u32 size)
{
	u32 width = 64 / size, count = o->tile->elements;
	u8 buf[64 * TERN_SQUARE_ELEMENTS];

	for (u32 pt = first; pt < end; pt += width) {
		u32 rows = end - pt < width ? end - pt : width;

		for (u32 f0 = 0; f0 < count; f0 += TERN_SQUARE_ELEMENTS) {
			u32 cols = count - f0 < TERN_SQUARE_ELEMENTS ?
				   count - f0 : TERN_SQUARE_ELEMENTS;

			for (u32 f = 0; f < cols; f++) {
				const u8 *line = m + pt * size +
						 (u64)(f0 + f) * stride;

				/* the next square's line: far, so not guessed */
				if (f0 + f + TERN_SQUARE_ELEMENTS < count)
					tern_prefetch(line + TERN_SQUARE_ELEMENTS *
						      stride);
				for (u32 g = 0; g < rows; g++)
					memcpy(buf + (g * TERN_SQUARE_ELEMENTS +
						      f) * size,
					       line + g * size, size);
			}
			for (u32 g = 0; g < rows; g++)
				memcpy(tern_at(o, pt + g, f0),
				       buf + g * TERN_SQUARE_ELEMENTS * size,
				       cols * size);
		}
	}
}

/* tern_dma_squares() with a constant size, which makes each one move. */
static void tern_dma_transposed(const u8 *m, u64 stride,
				const struct tern_onchip_tile *o, u32 first,
				u32 end, u32 size)
{
	switch (size) {
	case 1:
		tern_dma_squares(m, stride, o, first, end, 1);
		break;
	case 2:
		tern_dma_squares(m, stride, o, first, end, 2);
		break;
	default:
		tern_dma_squares(m, stride, o, first, end, 4);
		break;
	}
}

/* A partition of a DMA_TILE that converts: @m of @m_dtype, @c of @c_dtype. */
static void tern_dma_convert(u8 *m, u64 stride, u32 m_dtype, u8 *c,
			     u32 c_dtype, u32 count, bool to_memory)
{
	u32 m_size = tern_model_dtype_size(m_dtype);
	u32 c_size = tern_model_dtype_size(c_dtype);
	u32 run[TERN_RUN];

	for (u32 f = 0, n; f < count; f += n) {
		u8 *mf = m + (u64)f * stride, *cf = c + f * c_size;

		n = tern_run_length(f, count);
		if (to_memory) {
			tern_elements_load(run, cf, c_dtype, n);
			if (stride == m_size)
				tern_elements_store(mf, m_dtype, run, n);
			else
				for (u32 i = 0; i < n; i++)
					tern_element_store(mf + i * stride,
							   m_dtype, run[i]);
			continue;
		}
		if (stride == m_size)
			tern_elements_load(run, mf, m_dtype, n);
		else
			for (u32 i = 0; i < n; i++)
				run[i] = tern_element_load(mf + i * stride,
							   m_dtype);
		tern_elements_store(cf, c_dtype, run, n);
	}
}

static int tern_run_dma_tile(struct tern_model_job *job,
			     const struct drm_tern_packet_dma_tile *p,
			     const struct tern_model_mem *mem, u64 *budget)
{
	const struct drm_tern_tile *t = &p->tile;
	bool to_memory = p->header.flags & DRM_TERN_DMA_TILE_TO_MEMORY;
	bool same = p->dtype == t->dtype;
	u32 size = tern_model_dtype_size(p->dtype);
	u64 span = (u64)(t->partitions - 1) * p->partition_stride +
		   (u64)(t->elements - 1) * p->element_stride + size;
	struct tern_onchip_tile o;
	struct tern_access a;
	u64 n, first = job->progress;
	int ret;

	ret = tern_access(mem, p->va, span, &a);
	if (!ret)
		ret = tern_onchip(mem, p->core, t, &o);
	if (ret)
		return ret;
	if (mem->timing && first == 0) {
		struct tern_timing_operand op = tern_operand(&a,
				(u64)t->partitions * t->elements * size, to_memory);

		tern_timing_transfer(mem->timing, mem->engine, &op, 1);
	}
	n = tern_units(budget, (u64)t->elements * (same ? size : TERN_FLOAT_COST),
		       t->partitions - first);
	if (mem->skip_data) {
		/* nothing moved, counted below as if it were */
	} else if (same && !to_memory && p->partition_stride == size &&
		   p->element_stride != size) {
		tern_dma_transposed(a.ptr, p->element_stride, &o, (u32)first,
				    (u32)(first + n), size);
	} else {
		for (u32 pt = (u32)first; pt < first + n; pt++) {
			u8 *m = a.ptr + pt * p->partition_stride;
			u8 *c = tern_at(&o, pt, 0);

			if (same)
				tern_dma_same(m, p->element_stride, c,
					      t->elements, size, to_memory);
			else
				tern_dma_convert(m, p->element_stride, p->dtype,
						 c, t->dtype, t->elements,
						 to_memory);
		}
	}
	tern_account(mem, &a, to_memory, n * t->elements * size);
	return tern_advance(job, n, t->partitions);
}

/*
 * Result elements [@n0, @n1) of row @m: from -0 (or PSUM's value), add
 * stationary[k][m] * moving[k][n] for k in order, one fused multiply-add
 * each.
 */
static void tern_matmul_run(const struct tern_onchip_tile *st,
			    const struct tern_onchip_tile *mv,
			    const struct tern_onchip_tile *res, u32 m,
			    u32 n0, u32 n1, bool accumulate)
{
	u32 acc;

	if (!accumulate) {
		acc = TERN_F32_NEG_ZERO;
		for (u32 n = n0; n < n1; n++)
			memcpy(tern_at(res, m, n), &acc, 4);
	}
	for (u32 k = 0; k < st->tile->partitions; k++) {
		u32 a = tern_get(st, k, m);

		for (u32 n = n0; n < n1; n++) {
			u8 *r = tern_at(res, m, n);

			memcpy(&acc, r, 4);
			acc = tern_ffma(a, tern_get(mv, k, n), acc);
			memcpy(r, &acc, 4);
		}
	}
}

#ifdef TERN_MATMUL_FPU
/*
 * Result elements [@at, @end) as tern_matmul_run() computes them, on the
 * FPU (tern_matmul_fpu.c); false when it could not, then nothing is done.
 */
static bool tern_matmul_run_fpu(const struct tern_onchip_tile *st,
				const struct tern_onchip_tile *mv,
				const struct tern_onchip_tile *res, u64 at,
				u64 end, bool accumulate)
{
	struct tern_matmul_fpu mm = {
		.stationary = tern_at(st, 0, 0), .moving = tern_at(mv, 0, 0),
		.stride = st->partition_bytes,
		.stationary_dtype = st->tile->dtype,
		.moving_dtype = mv->tile->dtype,
		.result = tern_at(res, 0, 0),
		.result_stride = res->partition_bytes,
		.k_count = st->tile->partitions, .n_count = mv->tile->elements,
		.accumulate = accumulate,
	};

	return tern_matmul_fpu_run(&mm, at, end);
}
#endif

static int tern_run_matmul(struct tern_model_job *job,
			   const struct drm_tern_packet_matmul *p,
			   const struct tern_model_mem *mem, u64 *budget)
{
	u32 core = mem->target->core, n_count = p->moving.elements;
	u64 total = (u64)p->stationary.elements * n_count, at, end;
	struct tern_onchip_tile st, mv, res;
	int ret;

	ret = tern_onchip(mem, core, &p->stationary, &st);
	if (!ret)
		ret = tern_onchip(mem, core, &p->moving, &mv);
	if (!ret)
		ret = tern_onchip(mem, core, &p->result, &res);
	if (ret)
		return ret;
	at = job->progress;
	/* a result element is K multiply-adds */
	end = at + tern_units(budget,
			      ((u64)p->stationary.partitions * TERN_FLOAT_COST +
			       TERN_MATMUL_PER_COST - 1) / TERN_MATMUL_PER_COST,
			      total - at);
#ifdef TERN_MATMUL_FPU
	if (!mem->skip_data &&
	    tern_matmul_run_fpu(&st, &mv, &res, at, end,
				p->header.flags & DRM_TERN_MATMUL_ACCUMULATE))
		at = end;
#endif
	while (!mem->skip_data && at < end) {
		u32 m = (u32)(at / n_count), n0 = (u32)(at % n_count);
		u32 n1 = end - at < n_count - n0 ? n0 + (u32)(end - at) : n_count;

		tern_matmul_run(&st, &mv, &res, m, n0, n1,
				p->header.flags & DRM_TERN_MATMUL_ACCUMULATE);
		at += n1 - n0;
	}
	return tern_advance(job, end - job->progress, total);
}

static int tern_run_tensor_copy(struct tern_model_job *job,
				const struct drm_tern_packet_tensor_copy *p,
				const struct tern_model_mem *mem, u64 *budget)
{
	bool transpose = p->header.flags & DRM_TERN_TENSOR_COPY_TRANSPOSE;
	bool same = p->in.dtype == p->out.dtype;
	u32 e = p->in.elements, run[TERN_RUN];
	struct tern_onchip_tile in, out;
	u64 n, first = job->progress;
	int ret = tern_onchip_in_out(mem, &p->in, &p->out, &in, &out, NULL);

	if (ret)
		return ret;
	n = tern_units(budget, (u64)e * TERN_FLOAT_COST, p->in.partitions - first);
	for (u32 pt = (u32)first; !mem->skip_data && pt < first + n; pt++) {
		if (same && !transpose) {
			/* the bits, as they are; @out may be @in itself */
			memmove(tern_at(&out, pt, 0), tern_at(&in, pt, 0),
				(u64)e * in.size);
			continue;
		}
		if (!transpose) {
			/* a run is read before it is written: @out may be @in */
			for (u32 f = 0, k; f < e; f += k) {
				k = tern_run_length(f, e);
				tern_elements_load(run, tern_at(&in, pt, f),
						   p->in.dtype, k);
				tern_elements_store(tern_at(&out, pt, f),
						    p->out.dtype, run, k);
			}
			continue;
		}
		for (u32 f = 0; f < e; f++) {
			u8 *dst = tern_at(&out, f, pt);

			if (same)
				memcpy(dst, tern_at(&in, pt, f), in.size);
			else
				tern_element_store(dst, p->out.dtype,
						   tern_get(&in, pt, f));
		}
	}
	return tern_advance(job, n, p->in.partitions);
}

static int tern_run_tensor_tensor(struct tern_model_job *job,
				  const struct drm_tern_packet_tensor_tensor *p,
				  const struct tern_model_mem *mem, u64 *budget)
{
	u32 core = mem->target->core, e = p->out.elements;
	u32 run0[TERN_RUN], run1[TERN_RUN];
	struct tern_onchip_tile in0, in1, out;
	u64 n, first = job->progress;
	int ret;

	ret = tern_onchip(mem, core, &p->in0, &in0);
	if (!ret)
		ret = tern_onchip(mem, core, &p->in1, &in1);
	if (!ret)
		ret = tern_onchip(mem, core, &p->out, &out);
	if (ret)
		return ret;
	n = tern_units(budget, (u64)e * TERN_FLOAT_COST,
		       p->out.partitions - first);
	for (u32 pt = (u32)first; !mem->skip_data && pt < first + n; pt++) {
		for (u32 f = 0, k; f < e; f += k) {
			k = tern_run_length(f, e);
			tern_elements_load(run0, tern_at(&in0, pt, f),
					   p->in0.dtype, k);
			tern_elements_load(run1, tern_at(&in1, pt, f),
					   p->in1.dtype, k);
			tern_alu_run(p->op, run0, run1, 1, k);
			tern_elements_store(tern_at(&out, pt, f), p->out.dtype,
					    run0, k);
		}
	}
	return tern_advance(job, n, p->out.partitions);
}

/* A TENSOR_SCALAR or ACTIVATE operand of partition @pt: a value or a column's. */
static u32 tern_operand_value(const struct tern_onchip_tile *sbuf,
			      const struct drm_tern_tile *in, bool column,
			      u32 operand, u32 pt)
{
	if (!column)
		return operand;
	return tern_element_load(sbuf->base + (u64)(in->partition + pt) *
				 sbuf->partition_bytes + operand,
				 DRM_TERN_DTYPE_FLOAT32);
}

static int tern_run_tensor_scalar(struct tern_model_job *job,
				  const struct drm_tern_packet_tensor_scalar *p,
				  const struct tern_model_mem *mem, u64 *budget)
{
	u32 e = p->out.elements, flags = p->header.flags, run[TERN_RUN];
	struct tern_onchip_tile in, out, sbuf;
	u64 n, first = job->progress;
	int ret = tern_onchip_in_out(mem, &p->in, &p->out, &in, &out, &sbuf);

	if (ret)
		return ret;
	n = tern_units(budget, (u64)e * 2 * TERN_FLOAT_COST,
		       p->out.partitions - first);
	for (u32 pt = (u32)first; !mem->skip_data && pt < first + n; pt++) {
		u32 s0 = tern_operand_value(&sbuf, &p->in,
					    flags & DRM_TERN_SCALAR_OPERAND0_COLUMN,
					    p->operand0, pt);
		u32 s1 = tern_operand_value(&sbuf, &p->in,
					    flags & DRM_TERN_SCALAR_OPERAND1_COLUMN,
					    p->operand1, pt);

		for (u32 f = 0, k; f < e; f += k) {
			k = tern_run_length(f, e);
			tern_elements_load(run, tern_at(&in, pt, f), p->in.dtype,
					   k);
			tern_alu_run(p->op0, run, &s0, 0, k);
			if (p->op1 != DRM_TERN_ALU_NONE)
				tern_alu_run(p->op1, run, &s1, 0, k);
			tern_elements_store(tern_at(&out, pt, f), p->out.dtype,
					    run, k);
		}
	}
	return tern_advance(job, n, p->out.partitions);
}

static int tern_run_tensor_reduce(struct tern_model_job *job,
				  const struct drm_tern_packet_tensor_reduce *p,
				  const struct tern_model_mem *mem, u64 *budget)
{
	u32 e = p->in.elements, run[TERN_RUN];
	struct tern_onchip_tile in, out;
	u64 n, first = job->progress;
	int ret = tern_onchip_in_out(mem, &p->in, &p->out, &in, &out, NULL);

	if (ret)
		return ret;
	n = tern_units(budget, (u64)e * TERN_FLOAT_COST, p->in.partitions - first);
	for (u32 pt = (u32)first; !mem->skip_data && pt < first + n; pt++) {
		u32 acc = tern_get(&in, pt, 0);

		/* in order from the first element, as the packet defines */
		for (u32 f = 1, k; f < e; f += k) {
			k = tern_run_length(f, e);
			tern_elements_load(run, tern_at(&in, pt, f), p->in.dtype,
					   k);
			for (u32 i = 0; i < k; i++)
				acc = p->op == DRM_TERN_ALU_ADD ?
				      tern_fadd(acc, run[i]) :
				      tern_f32_max(acc, run[i]);
		}
		tern_put(&out, pt, 0, acc);
	}
	return tern_advance(job, n, p->in.partitions);
}

static int tern_run_activate(struct tern_model_job *job,
			     const struct drm_tern_packet_activate *p,
			     const struct tern_model_mem *mem, u64 *budget)
{
	u32 e = p->out.elements, flags = p->header.flags, run[TERN_RUN];
	struct tern_onchip_tile in, out, sbuf;
	u64 n, first = job->progress;
	int ret = tern_onchip_in_out(mem, &p->in, &p->out, &in, &out, &sbuf);

	if (ret)
		return ret;
	n = tern_units(budget, (u64)e * TERN_ACTIVATE_COST * TERN_FLOAT_COST,
		       p->out.partitions - first);
	for (u32 pt = (u32)first; !mem->skip_data && pt < first + n; pt++) {
		u32 scale = tern_operand_value(&sbuf, &p->in,
					       flags & DRM_TERN_ACTIVATE_SCALE_COLUMN,
					       p->scale, pt);
		u32 bias = tern_operand_value(&sbuf, &p->in,
					      flags & DRM_TERN_ACTIVATE_BIAS_COLUMN,
					      p->bias, pt);
		u32 sum = 0;

		for (u32 f = 0, k; f < e; f += k) {
			k = tern_run_length(f, e);
			tern_elements_load(run, tern_at(&in, pt, f), p->in.dtype,
					   k);
			tern_fma_run(run, scale, bias, k);
			/* results of arithmetic are canonical: IDENTITY's own */
			for (u32 i = 0; p->function != DRM_TERN_ACT_IDENTITY &&
			     i < k; i++)
				run[i] = tern_activate(p->function, run[i]);
			for (u32 i = 0; (flags & DRM_TERN_ACTIVATE_SUM) && i < k;
			     i++)
				sum = f + i ? tern_fadd(sum, run[i]) : run[i];
			tern_elements_store(tern_at(&out, pt, f), p->out.dtype,
					    run, k);
		}
		if (flags & DRM_TERN_ACTIVATE_SUM)
			tern_element_store(sbuf.base + (u64)(p->in.partition + pt) *
					   sbuf.partition_bytes + p->sum,
					   DRM_TERN_DTYPE_FLOAT32, sum);
	}
	return tern_advance(job, n, p->out.partitions);
}

/*
 * Fixed cycles of a vector or scalar instruction, and the least a MATMUL
 * takes: the NKI architecture guide's figures for Trainium2.
 */
#define TERN_CYCLES_FIXED	64u
#define TERN_CYCLES_MATMUL_MIN	64u
/* float32 inputs pass the systolic array at a quarter of the rate */
#define TERN_CYCLES_F32_FACTOR	4u

u64 tern_compute_cycles(const struct drm_tern_packet_header *hdr)
{
	const struct drm_tern_packet_matmul *mm = (const void *)hdr;
	/* every other packet's first tile is its input */
	const struct drm_tern_packet_tensor_copy *t = (const void *)hdr;
	u64 n;

	switch (hdr->opcode) {
	case DRM_TERN_OP_MATMUL:
		n = mm->moving.elements < TERN_CYCLES_MATMUL_MIN ?
		    TERN_CYCLES_MATMUL_MIN : mm->moving.elements;
		if (mm->stationary.dtype == DRM_TERN_DTYPE_FLOAT32 ||
		    mm->moving.dtype == DRM_TERN_DTYPE_FLOAT32)
			n *= TERN_CYCLES_F32_FACTOR;
		return n;
	case DRM_TERN_OP_TENSOR_TENSOR:
		/* two inputs stream through: two cycles an element */
		return 2ull * t->in.elements + TERN_CYCLES_FIXED;
	case DRM_TERN_OP_TENSOR_COPY:
	case DRM_TERN_OP_TENSOR_SCALAR:
	case DRM_TERN_OP_TENSOR_REDUCE:
	case DRM_TERN_OP_ACTIVATE:
		return (u64)t->in.elements + TERN_CYCLES_FIXED;
	default:
		return 0;	/* DMA_TILE: a transfer, timed as one */
	}
}

int tern_compute_run(struct tern_model_job *job,
		     const struct drm_tern_packet_header *hdr,
		     const struct tern_model_mem *mem, u64 *budget)
{
	if (mem->timing && job->progress == 0 &&
	    hdr->opcode != DRM_TERN_OP_DMA_TILE)
		tern_timing_compute(mem->engine, tern_compute_cycles(hdr));
	switch (hdr->opcode) {
	case DRM_TERN_OP_DMA_TILE:
		return tern_run_dma_tile(job, (const void *)hdr, mem, budget);
	case DRM_TERN_OP_MATMUL:
		return tern_run_matmul(job, (const void *)hdr, mem, budget);
	case DRM_TERN_OP_TENSOR_COPY:
		return tern_run_tensor_copy(job, (const void *)hdr, mem, budget);
	case DRM_TERN_OP_TENSOR_TENSOR:
		return tern_run_tensor_tensor(job, (const void *)hdr, mem, budget);
	case DRM_TERN_OP_TENSOR_SCALAR:
		return tern_run_tensor_scalar(job, (const void *)hdr, mem, budget);
	case DRM_TERN_OP_TENSOR_REDUCE:
		return tern_run_tensor_reduce(job, (const void *)hdr, mem, budget);
	default:
		return tern_run_activate(job, (const void *)hdr, mem, budget);
	}
}
