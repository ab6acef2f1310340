// SPDX-License-Identifier: MIT
/*
 * Kernel backend peer memory and fabric: buffers exported and imported as
 * dma-bufs through PRIME, and the device's ports through
 * DRM_IOCTL_TERN_TOPOLOGY.
 *
 * An imported buffer gets a device address of its own in the importing
 * file, which DRM_IOCTL_TERN_BO_INFO reports. Importing into the file that
 * exported the buffer gives back the exporter's handle (and address); the
 * handle counts below keep it open until both buffers are freed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>

#include "kernel.h"

tern_status_t kbe_handle_get(struct kbe_device *dev, uint32_t handle)
{
	tern_status_t status = TERN_SUCCESS;

	pthread_mutex_lock(&dev->handles_lock);
	if (handle >= dev->handle_cap) {
		uint32_t cap = dev->handle_cap ? dev->handle_cap : 64;
		uint32_t *bigger;

		while (cap <= handle && cap < UINT32_MAX / 2)
			cap *= 2;
		bigger = cap > handle ?
			 realloc(dev->handle_refs, cap * sizeof(*bigger)) : NULL;
		if (!bigger) {
			status = TERN_ERROR_OUT_OF_MEMORY;
			goto out;
		}
		memset(bigger + dev->handle_cap, 0,
		       (cap - dev->handle_cap) * sizeof(*bigger));
		dev->handle_refs = bigger;
		dev->handle_cap = cap;
	}
	dev->handle_refs[handle]++;
out:
	pthread_mutex_unlock(&dev->handles_lock);
	return status;
}

void kbe_handle_put(struct kbe_device *dev, uint32_t handle)
{
	bool last = true;

	pthread_mutex_lock(&dev->handles_lock);
	if (handle < dev->handle_cap && dev->handle_refs[handle])
		last = --dev->handle_refs[handle] == 0;
	pthread_mutex_unlock(&dev->handles_lock);
	if (last)
		drmCloseBufferHandle(dev->fd, handle);
}

tern_status_t kbe_buffer_export(struct tern_be_device *bdev,
				struct tern_be_buffer *bbuf, int *fd)
{
	int out;

	if (drmPrimeHandleToFD(kbe_device(bdev)->fd, kbe_bo(bbuf)->handle,
			       DRM_CLOEXEC | DRM_RDWR, &out))
		return kbe_errno_status(errno);
	*fd = out;
	return TERN_SUCCESS;
}

tern_status_t kbe_buffer_import(struct tern_be_device *bdev, int fd,
				struct tern_be_buffer **out,
				tern_memory_kind_t *kind)
{
	struct kbe_device *dev = kbe_device(bdev);
	struct drm_tern_bo_info info = { 0 };
	tern_status_t status;
	struct kbe_bo *bo;
	uint32_t handle;

	if (fd < 0)
		return TERN_ERROR_INVALID_ARGUMENT;
	/* A descriptor that is not a dma-buf fails here with EINVAL. */
	if (drmPrimeFDToHandle(dev->fd, fd, &handle))
		return errno == EBADF ? TERN_ERROR_INVALID_ARGUMENT :
					kbe_errno_status(errno);
	if (kbe_handle_get(dev, handle)) {
		/* Only closes the handle if no other buffer holds it. */
		kbe_handle_put(dev, handle);
		return TERN_ERROR_OUT_OF_MEMORY;
	}
	info.handle = handle;
	if (drmIoctl(dev->fd, DRM_IOCTL_TERN_BO_INFO, &info)) {
		status = kbe_errno_status(errno);
		goto err_put;
	}
	bo = calloc(1, sizeof(*bo));
	if (!bo) {
		status = TERN_ERROR_OUT_OF_MEMORY;
		goto err_put;
	}
	bo->handle = handle;
	bo->mmap_offset = info.mmap_offset;
	bo->base.size = info.size;
	bo->base.va = info.device_va;
	*kind = info.placement == DRM_TERN_PLACEMENT_HOST ? TERN_MEMORY_HOST :
							TERN_MEMORY_DEVICE;
	*out = &bo->base;
	return TERN_SUCCESS;

err_put:
	kbe_handle_put(dev, handle);
	return status;
}

int kbe_fabric_id(int fd)
{
	struct drm_tern_topology args = { 0 };

	if (drmIoctl(fd, DRM_IOCTL_TERN_TOPOLOGY, &args))
		return -1;
	return (int)args.fabric_id;
}

static void kbe_port_from_uapi(tern_port_info_t *info,
			       const struct drm_tern_port_info *k)
{
	memset(info, 0, sizeof(*info));
	info->port = k->port;
	info->state = (tern_link_state_t)k->state;
	info->peer_device = k->state == DRM_TERN_PORT_UNCONNECTED ?
			    -1 : (int)k->peer_fabric_id;
	info->peer_port = k->peer_port;
	info->bandwidth = k->bandwidth;
	info->latency_ns = k->latency_ns;
	info->tx_bytes = k->tx_bytes;
	info->rx_bytes = k->rx_bytes;
	info->tx_packets = k->tx_packets;
	info->rx_packets = k->rx_packets;
	info->errors = k->errors;
}

tern_status_t kbe_ports(struct tern_be_device *bdev, tern_port_info_t *ports,
			uint32_t capacity, uint32_t *count)
{
	struct kbe_device *dev = kbe_device(bdev);
	struct drm_tern_topology args = { 0 };
	struct drm_tern_port_info *k = NULL;
	uint32_t i, n;

	if (dev->fabric_id < 0) {
		*count = 0;	/* a driver without a fabric has no ports */
		return TERN_SUCCESS;
	}
	if (capacity) {
		k = calloc(capacity, sizeof(*k));
		if (!k)
			return TERN_ERROR_OUT_OF_MEMORY;
	}
	args.port_count = capacity;
	args.ports = (uintptr_t)k;
	if (drmIoctl(dev->fd, DRM_IOCTL_TERN_TOPOLOGY, &args)) {
		int err = errno;

		free(k);
		return kbe_errno_status(err);
	}
	n = args.port_count < capacity ? args.port_count : capacity;
	for (i = 0; i < n; i++)
		kbe_port_from_uapi(&ports[i], &k[i]);
	free(k);
	*count = args.port_count;
	return TERN_SUCCESS;
}
