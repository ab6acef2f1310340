// SPDX-License-Identifier: MIT
/*
 * What a device's cores are: the figures programs and kernels plan by.
 */
#include "compute.h"
#include "tern_timing.h"

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
