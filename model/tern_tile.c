// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Tiles of a core's on-chip memories, and the element conversions of the
 * compute packets.
 */
#include "tern_tile.h"
#include "tern_reduce.h"
#include "tern_softfloat.h"

u32 tern_space_partition_bytes(const struct tern_core_shape *shape,
			       u32 space)
{
	switch (space) {
	case DRM_TERN_SPACE_SBUF:
		return shape->sbuf_partition_bytes;
	case DRM_TERN_SPACE_PSUM:
		return shape->psum_partition_bytes;
	default:
		return 0;
	}
}

void tern_model_engine_target(u32 dma_engines, u32 index,
			      const struct tern_core_shape *shape,
			      struct tern_model_target *target)
{
	target->shape = shape;
	if (index < dma_engines) {
		target->type = DRM_TERN_ENGINE_DMA;
		target->core = 0;
		return;
	}
	index -= dma_engines;
	target->type = DRM_TERN_ENGINE_TENSOR + index % TERN_CORE_ENGINES;
	target->core = index / TERN_CORE_ENGINES;
}

u32 tern_model_engine_index(u32 dma_engines, u32 core, u32 type)
{
	return dma_engines + TERN_CORE_ENGINES * core + type -
	       DRM_TERN_ENGINE_TENSOR;
}

bool tern_compute_dtype_ok(u32 dtype)
{
	switch (dtype) {
	case DRM_TERN_DTYPE_FLOAT32:
	case DRM_TERN_DTYPE_FLOAT16:
	case DRM_TERN_DTYPE_BFLOAT16:
	case DRM_TERN_DTYPE_FLOAT8_E4M3:
	case DRM_TERN_DTYPE_FLOAT8_E5M2:
	case DRM_TERN_DTYPE_INT32:
	case DRM_TERN_DTYPE_UINT32:
	case DRM_TERN_DTYPE_INT8:
	case DRM_TERN_DTYPE_UINT8:
		return true;
	default:
		return false;
	}
}

bool tern_tile_ok(const struct drm_tern_tile *tile,
		  const struct tern_core_shape *shape)
{
	u32 bytes = tern_space_partition_bytes(shape, tile->space), size;

	if (!bytes || tile->pad || !tern_compute_dtype_ok(tile->dtype))
		return false;
	if (!tile->partitions || tile->partitions > DRM_TERN_PARTITIONS ||
	    tile->partition > DRM_TERN_PARTITIONS - tile->partitions)
		return false;
	size = tern_model_dtype_size(tile->dtype);
	if (!tile->elements || tile->offset % size || tile->offset > bytes)
		return false;
	return tile->elements <= (bytes - tile->offset) / size;
}

/* Whether @a and @b share a byte: a partition and a range in it. */
static bool tern_tiles_overlap(const struct drm_tern_tile *a,
			       const struct drm_tern_tile *b)
{
	u64 a_end = a->offset +
		    (u64)a->elements * tern_model_dtype_size(a->dtype);
	u64 b_end = b->offset +
		    (u64)b->elements * tern_model_dtype_size(b->dtype);

	if (a->space != b->space)
		return false;
	if (a->partition >= b->partition + b->partitions ||
	    b->partition >= a->partition + a->partitions)
		return false;
	return a->offset < b_end && b->offset < a_end;
}

bool tern_tiles_may_share(const struct drm_tern_tile *out,
			  const struct drm_tern_tile *in, bool same_allowed)
{
	if (!tern_tiles_overlap(out, in))
		return true;
	return same_allowed && out->space == in->space &&
	       out->partition == in->partition &&
	       out->partitions == in->partitions &&
	       out->offset == in->offset && out->elements == in->elements &&
	       tern_model_dtype_size(out->dtype) ==
	       tern_model_dtype_size(in->dtype);
}

/* A float32 NaN is the quiet NaN once it is read or written. */
static u32 tern_f32_canonical(u32 w)
{
	return (w & 0x7fffffff) > 0x7f800000 ? TERN_F32_QNAN : w;
}

u32 tern_element_load(const u8 *src, u32 dtype)
{
	u32 w;
	u16 h;

	switch (dtype) {
	case DRM_TERN_DTYPE_FLOAT16:
		memcpy(&h, src, 2);
		return tern_f16_to_f32(h);
	case DRM_TERN_DTYPE_BFLOAT16:
		memcpy(&h, src, 2);
		return tern_bf16_to_f32(h);
	case DRM_TERN_DTYPE_FLOAT8_E4M3:
		return tern_e4m3_to_f32(*src);
	case DRM_TERN_DTYPE_FLOAT8_E5M2:
		return tern_e5m2_to_f32(*src);
	case DRM_TERN_DTYPE_INT8:
		return tern_s32_to_f32((s8)*src);
	case DRM_TERN_DTYPE_UINT8:
		return tern_u32_to_f32(*src);
	case DRM_TERN_DTYPE_INT32:
		memcpy(&w, src, 4);
		return tern_s32_to_f32((s32)w);
	case DRM_TERN_DTYPE_UINT32:
		memcpy(&w, src, 4);
		return tern_u32_to_f32(w);
	default:	/* FLOAT32: a NaN's payload goes */
		memcpy(&w, src, 4);
		return tern_f32_canonical(w);
	}
}

void tern_element_store(u8 *dst, u32 dtype, u32 value)
{
	u32 w;
	u16 h;

	switch (dtype) {
	case DRM_TERN_DTYPE_FLOAT16:
		h = tern_f32_to_f16(value);
		memcpy(dst, &h, 2);
		return;
	case DRM_TERN_DTYPE_BFLOAT16:
		h = tern_f32_to_bf16(value);
		memcpy(dst, &h, 2);
		return;
	case DRM_TERN_DTYPE_FLOAT8_E4M3:
		*dst = tern_f32_to_e4m3(value);
		return;
	case DRM_TERN_DTYPE_FLOAT8_E5M2:
		*dst = tern_f32_to_e5m2(value);
		return;
	case DRM_TERN_DTYPE_INT8:
		*dst = (u8)tern_f32_to_int(value, -128, 127);
		return;
	case DRM_TERN_DTYPE_UINT8:
		*dst = (u8)tern_f32_to_int(value, 0, 255);
		return;
	case DRM_TERN_DTYPE_INT32:
		w = (u32)tern_f32_to_int(value, -2147483648ll, 2147483647);
		break;
	case DRM_TERN_DTYPE_UINT32:
		w = (u32)tern_f32_to_int(value, 0, 4294967295ll);
		break;
	default:
		w = tern_f32_canonical(value);
		break;
	}
	memcpy(dst, &w, 4);
}

/* Float32 elements as they are read: with @count constant, vectors. */
static inline void tern_f32_load(u32 *dst, const u8 *src, u32 count)
{
	memcpy(dst, src, (size_t)count * 4);
	for (u32 i = 0; i < count; i++)
		dst[i] = tern_f32_canonical(dst[i]);
}

static inline void tern_f32_store(u8 *restrict dst, const u32 *restrict src,
				  u32 count)
{
	for (u32 i = 0; i < count; i++) {
		u32 w = tern_f32_canonical(src[i]);

		memcpy(dst + 4 * i, &w, 4);
	}
}

void tern_elements_load(u32 *dst, const u8 *src, u32 dtype, u32 count)
{
	u32 size = tern_model_dtype_size(dtype);

	if (dtype == DRM_TERN_DTYPE_FLOAT32 && count == TERN_RUN)
		tern_f32_load(dst, src, TERN_RUN);
	else if (dtype == DRM_TERN_DTYPE_FLOAT32)
		tern_f32_load(dst, src, count);
	else
		for (u32 i = 0; i < count; i++)
			dst[i] = tern_element_load(src + i * size, dtype);
}

void tern_elements_store(u8 *dst, u32 dtype, const u32 *src, u32 count)
{
	u32 size = tern_model_dtype_size(dtype);

	if (dtype == DRM_TERN_DTYPE_FLOAT32 && count == TERN_RUN)
		tern_f32_store(dst, src, TERN_RUN);
	else if (dtype == DRM_TERN_DTYPE_FLOAT32)
		tern_f32_store(dst, src, count);
	else
		for (u32 i = 0; i < count; i++)
			tern_element_store(dst + i * size, dtype, src[i]);
}
