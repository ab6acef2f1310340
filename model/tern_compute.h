/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The packets that use a core's on-chip memory: DMA_TILE on a DMA engine,
 * and the compute packets of the tensor, vector and scalar engines.
 * Called by tern_model.c only.
 */
#ifndef TERN_COMPUTE_H
#define TERN_COMPUTE_H

#include "tern_model.h"

/*
 * The cycles a valid compute packet keeps its engine busy, by Trainium2's
 * published cost model (Documentation/compute.rst); 0 for DMA_TILE.
 */
u64 tern_compute_cycles(const struct drm_tern_packet_header *hdr);

/* Checks one such packet for @target; 0 or -EINVAL. */
int tern_compute_validate(const struct drm_tern_packet_header *hdr,
			  const struct tern_model_target *target);

/*
 * Runs one such packet from job->progress (partitions or, for MATMUL,
 * result elements done), doing about *@budget of work and taking it off.
 * Returns 0, TERN_MODEL_YIELD, or the error of tern_model_run().
 */
int tern_compute_run(struct tern_model_job *job,
		     const struct drm_tern_packet_header *hdr,
		     const struct tern_model_mem *mem, u64 *budget);

#endif /* TERN_COMPUTE_H */
