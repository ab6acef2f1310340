// SPDX-License-Identifier: MIT
/*
 * What a device's cores are: the figures programs and kernels plan by.
 */
#include "compute.h"
#include "tern_timing.h"

/* tern_compute.h's enums are the packet format's, passed through as they are. */
_Static_assert((int)TERN_SBUF == DRM_TERN_SPACE_SBUF &&
	       (int)TERN_PSUM == DRM_TERN_SPACE_PSUM &&
	       (int)TERN_ENGINE_DMA == DRM_TERN_ENGINE_DMA &&
	       (int)TERN_ENGINE_TENSOR == DRM_TERN_ENGINE_TENSOR &&
	       (int)TERN_ENGINE_VECTOR == DRM_TERN_ENGINE_VECTOR &&
	       (int)TERN_ENGINE_SCALAR == DRM_TERN_ENGINE_SCALAR &&
	       (int)TERN_ALU_MIN == DRM_TERN_ALU_MIN &&
	       (int)TERN_ALU_MAX == DRM_TERN_ALU_MAX &&
	       (int)TERN_ACT_GELU_TANH == DRM_TERN_ACT_GELU_TANH &&
	       (int)TERN_ACT_SQUARE == DRM_TERN_ACT_SQUARE &&
	       TERN_PARTITIONS == DRM_TERN_PARTITIONS &&
	       TERN_PSUM_BANK_BYTES == DRM_TERN_PSUM_BANK_BYTES,
	       "tern_compute.h follows uapi/drm/tern_accel.h");

TERN_API tern_status_t tern_device_get_compute(tern_device_t device,
					       tern_compute_info_t *info)
{
	struct tern_device *dev = device;

	if (!info || !tern_handle_valid(dev, TERN_HANDLE_DEVICE))
		return TERN_ERROR_INVALID_ARGUMENT;
	if (!(dev->info.capabilities & TERN_DEVICE_CAP_COMPUTE))
		return TERN_ERROR_NOT_SUPPORTED;
	info->cores = dev->info.cores.cores;
	info->partitions = DRM_TERN_PARTITIONS;
	info->sbuf_partition_bytes = dev->info.cores.sbuf_partition_bytes;
	info->psum_partition_bytes = dev->info.cores.psum_partition_bytes;
	info->dma_engine_count = dev->info.dma_engine_count;
	info->core_clock_hz = TERN_TIMING_CORE_HZ;
	return TERN_SUCCESS;
}
