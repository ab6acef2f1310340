/* SPDX-License-Identifier: MIT */
/*
 * What the stream builders share: packets.c (streams, the DMA packets
 * and the damage) and packets_compute.c (the compute packets of a core's
 * engines, DMA_TILE).
 */
#ifndef TERN_FUZZ_PACKETS_H
#define TERN_FUZZ_PACKETS_H

#include "fuzz.h"

struct builder {
	struct fuzz_stream *s;
	struct rng *rng;
	const struct fuzz_target *targets;
	unsigned int target_count;
	uint32_t limit;			/* bytes the stream may hold */
	uint64_t caps;
	/* an address outside every buffer of every file */
	uint64_t unmapped;
	/*
	 * How often an address lands on a buffer's edge or outside (percent):
	 * zero for most streams, so that most valid jobs succeed.
	 */
	unsigned int edgy;
	uint64_t smallest;		/* the smallest target's size */
	/* the engine the stream is for: enum drm_tern_engine_type, its core */
	uint32_t engine_type;
	uint32_t core;
	/* the chip's cores and the bytes of a partition of SBUF and PSUM */
	uint32_t cores;
	uint32_t sbuf_bytes;
	uint32_t psum_bytes;
};

bool stream_emit(struct builder *b, const void *packet, uint32_t bytes);
struct drm_tern_packet_header stream_header(uint16_t opcode, uint32_t bytes,
					    uint32_t flags);
/* An address for @len bytes aligned to @align (see packets.c). */
uint64_t stream_pick_addr(struct builder *b, uint64_t len, uint64_t align);
/* The model's size of @dtype; 4 for a type it does not know. */
uint32_t stream_dtype_size(uint16_t dtype);
bool stream_nop(struct builder *b, uint16_t length);
bool stream_timestamp(struct builder *b);
bool stream_sem_pair(struct builder *b);

/* A valid DMA_TILE, for a DMA engine of a chip with cores. */
bool stream_dma_tile(struct builder *b);
/* A valid compute packet for the builder's compute engine. */
bool stream_compute(struct builder *b);

#endif /* TERN_FUZZ_PACKETS_H */
