// SPDX-License-Identifier: MIT
/*
 * Kernel backend buffers: GEM objects of the device file, mapped through
 * the file on first use.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <xf86drm.h>

#include "kernel.h"

tern_status_t kbe_buffer_create(struct tern_be_device *bdev,
				tern_memory_kind_t kind, uint64_t bytes,
				struct tern_be_buffer **out)
{
	struct kbe_device *dev = kbe_device(bdev);
	struct drm_tern_bo_create args = {
		.size = bytes,
		.placement = kind == TERN_MEMORY_HOST ? DRM_TERN_PLACEMENT_HOST :
							DRM_TERN_PLACEMENT_DEVICE,
	};
	struct kbe_bo *bo = calloc(1, sizeof(*bo));

	if (!bo)
		return TERN_ERROR_OUT_OF_MEMORY;
	if (drmIoctl(dev->fd, DRM_IOCTL_TERN_BO_CREATE, &args)) {
		int err = errno;

		free(bo);
		return kbe_errno_status(err);
	}
	if (kbe_handle_get(dev, args.handle)) {
		drmCloseBufferHandle(dev->fd, args.handle);
		free(bo);
		return TERN_ERROR_OUT_OF_MEMORY;
	}
	bo->handle = args.handle;
	bo->mmap_offset = args.mmap_offset;
	bo->base.size = args.size;
	bo->base.va = args.device_va;
	*out = &bo->base;
	return TERN_SUCCESS;
}

tern_status_t kbe_buffer_map(struct tern_be_device *bdev,
			     struct tern_be_buffer *bbuf, void **ptr)
{
	struct kbe_bo *bo = kbe_bo(bbuf);
	void *cpu;

	if (!bo->cpu) {
		cpu = mmap(NULL, bo->base.size, PROT_READ | PROT_WRITE,
			   MAP_SHARED, kbe_device(bdev)->fd,
			   (off_t)bo->mmap_offset);
		if (cpu == MAP_FAILED)
			return kbe_errno_status(errno);
		bo->cpu = cpu;
	}
	*ptr = bo->cpu;
	return TERN_SUCCESS;
}

void kbe_buffer_free(struct tern_be_device *bdev,
		     struct tern_be_buffer *bbuf)
{
	struct kbe_bo *bo = kbe_bo(bbuf);

	if (bo->cpu)
		munmap(bo->cpu, bo->base.size);
	kbe_handle_put(kbe_device(bdev), bo->handle);
	free(bo);
}
