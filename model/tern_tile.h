/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A chip's cores and the tiles of their on-chip memories: the shape of a
 * core, what makes a tile valid, where its elements are, and how an
 * element of any type becomes float32 and back, as the compute packets
 * define it (Documentation/compute.rst).
 */
#ifndef TERN_TILE_H
#define TERN_TILE_H

#include "tern_model_port.h"
#include "../../uapi/drm/tern_accel.h"

/**
 * struct tern_core_shape - the cores of one chip
 * @cores: how many; 0 for a device without compute
 * @sbuf_partition_bytes: SBUF bytes in each of DRM_TERN_PARTITIONS
 *	partitions
 * @psum_partition_bytes: PSUM bytes in each, a multiple of
 *	DRM_TERN_PSUM_BANK_BYTES
 */
struct tern_core_shape {
	u32 cores;
	u32 sbuf_partition_bytes;
	u32 psum_partition_bytes;
};

/* What Trn2's cores have: 8 of them, 192 KiB of SBUF and 16 KiB of PSUM a partition. */
#define TERN_TRN2_CORES			8
#define TERN_TRN2_SBUF_PARTITION_BYTES	(192u << 10)
#define TERN_TRN2_PSUM_PARTITION_BYTES	(16u << 10)

/* A core's engines: a tensor, a vector and a scalar engine. */
#define TERN_CORE_ENGINES		3

/**
 * struct tern_model_target - the engine a packet stream runs on
 * @type: enum drm_tern_engine_type
 * @core: the core of a compute engine (a DMA engine names it per packet)
 * @shape: the chip's cores
 */
struct tern_model_target {
	u32 type;
	u32 core;
	const struct tern_core_shape *shape;
};

/*
 * What engine @index of a chip of @shape's cores is, after its
 * @dma_engines DMA engines: engine @dma_engines + 3 * c + t - 1 is core
 * c's engine of type t (enum drm_tern_engine_type), as
 * &drm_tern_info.dma_engine_count says. A DMA engine's @core is 0 (its
 * packets name their core). tern.ko, tern-simd and libtern all number
 * engines with this.
 */
void tern_model_engine_target(u32 dma_engines, u32 index,
			      const struct tern_core_shape *shape,
			      struct tern_model_target *target);

/* The index of core @core's engine of compute @type: the inverse of the above. */
u32 tern_model_engine_index(u32 dma_engines, u32 core, u32 type);

/* Bytes in each partition of @space; 0 for an unknown space. */
u32 tern_space_partition_bytes(const struct tern_core_shape *shape,
			       u32 space);

/* Whether @dtype may be an operand of a compute packet. */
bool tern_compute_dtype_ok(u32 dtype);

/*
 * Whether @tile is a valid tile of @shape's cores: a known space and
 * compute type, zero pad, 1 to DRM_TERN_PARTITIONS partitions within
 * them, at least one element, and an aligned range inside the partition.
 */
bool tern_tile_ok(const struct drm_tern_tile *tile,
		  const struct tern_core_shape *shape);

/*
 * Whether the bytes of @a and @b may share memory as an output may with
 * an input: not at all, or (@same_allowed) exactly, with one element size.
 */
bool tern_tiles_may_share(const struct drm_tern_tile *out,
			  const struct drm_tern_tile *in, bool same_allowed);

/* Element [@p][@f] of @tile in the memory at @base. */
static inline u8 *tern_tile_at(u8 *base, u32 partition_bytes,
			       const struct drm_tern_tile *tile, u32 size,
			       u32 p, u32 f)
{
	return base + (u64)(tile->partition + p) * partition_bytes +
	       tile->offset + (u64)f * size;
}

/* The element of @dtype at @src as float32 bits: exact but for int32. */
u32 tern_element_load(const u8 *src, u32 dtype);
/* Float32 @value rounded once into @dtype at @dst (saturating). */
void tern_element_store(u8 *dst, u32 dtype, u32 value);

/*
 * The compute packets work on runs of at most this many elements of a
 * partition, read and written side by side, each packet's choices (types,
 * operation) made once a run. A whole run's loops have a constant count,
 * which lets the compiler make vectors of them.
 */
#define TERN_RUN	64u

/*
 * A run of elements, as the two above do each: @count of @dtype at @src
 * into @dst, and @count values into @dtype at @dst. The run of values is
 * apart from the elements.
 */
void tern_elements_load(u32 *dst, const u8 *src, u32 dtype, u32 count);
void tern_elements_store(u8 *dst, u32 dtype, const u32 *src, u32 count);

#endif /* TERN_TILE_H */
