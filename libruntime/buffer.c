// SPDX-License-Identifier: MIT
/*
 * Buffers: device or host memory with a device virtual address.
 *
 * The backend rounds sizes up to pages; the library remembers the size the
 * caller asked for and checks every copy against it. An imported buffer's
 * size is the exporter's page-rounded size: that is all a dma-buf tells.
 */
#include <stdlib.h>
#include <unistd.h>

#include "submit.h"

/* Wraps @be (created or imported on @dev) in a registered buffer. */
static tern_status_t tern_buffer_wrap(struct tern_device *dev,
				      struct tern_be_buffer *be,
				      tern_memory_kind_t kind, size_t bytes,
				      struct tern_buffer **out)
{
	struct tern_buffer *buf = calloc(1, sizeof(*buf));
	tern_status_t status;

	if (!buf) {
		status = TERN_ERROR_OUT_OF_MEMORY;
		goto err_destroy;
	}
	buf->device = dev;
	buf->bytes = bytes;
	buf->kind = kind;
	buf->be = be;
	status = tern_handle_register(buf, TERN_HANDLE_BUFFER);
	if (status)
		goto err_free;
	pthread_mutex_lock(&dev->lock);
	tern_list_add_tail(&dev->buffers, &buf->node);
	pthread_mutex_unlock(&dev->lock);
	*out = buf;
	return TERN_SUCCESS;

err_free:
	free(buf);
err_destroy:
	dev->ops->buffer_free(dev->be, be);
	return status;
}

tern_status_t tern_buffer_create(struct tern_device *dev,
				 tern_memory_kind_t kind, size_t bytes,
				 struct tern_buffer **out)
{
	struct tern_be_buffer *be;
	tern_status_t status;

	if (kind != TERN_MEMORY_DEVICE && kind != TERN_MEMORY_HOST)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (kind == TERN_MEMORY_HOST &&
	    !(dev->info.capabilities & TERN_DEVICE_CAP_HOST_MEMORY))
		return TERN_ERROR_NOT_SUPPORTED;
	status = dev->ops->buffer_create(dev->be, kind, bytes, &be);
	if (status)
		return status;
	return tern_buffer_wrap(dev, be, kind, bytes, out);
}

TERN_API tern_status_t tern_buffer_alloc(tern_device_t device,
					 tern_memory_kind_t kind, size_t bytes,
					 tern_buffer_t *buffer)
{
	struct tern_device *dev = device;

	if (!buffer)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (!tern_handle_valid(dev, TERN_HANDLE_DEVICE) || bytes == 0)
		return TERN_ERROR_INVALID_ARGUMENT;
	return tern_buffer_create(dev, kind, bytes, buffer);
}

TERN_API tern_status_t tern_buffer_export(tern_buffer_t buffer, int *fd)
{
	struct tern_buffer *buf = buffer;

	if (!fd || !tern_handle_valid(buf, TERN_HANDLE_BUFFER))
		return TERN_ERROR_INVALID_ARGUMENT;
	return buf->device->ops->buffer_export(buf->device->be, buf->be, fd);
}

TERN_API tern_status_t tern_buffer_import(tern_device_t device, int fd,
					  tern_buffer_t *buffer)
{
	struct tern_device *dev = device;
	struct tern_be_buffer *be;
	tern_memory_kind_t kind;
	tern_status_t status;

	if (!buffer || fd < 0 || !tern_handle_valid(dev, TERN_HANDLE_DEVICE))
		return TERN_ERROR_INVALID_ARGUMENT;
	status = dev->ops->buffer_import(dev->be, fd, &be, &kind);
	if (status)
		return status;
	return tern_buffer_wrap(dev, be, kind, (size_t)be->size, buffer);
}

tern_status_t tern_buffer_import_peer(struct tern_device *dev,
				      struct tern_buffer *peer,
				      struct tern_buffer **out)
{
	tern_status_t status;
	int fd;

	status = tern_buffer_export(peer, &fd);
	if (status)
		return status;
	status = tern_buffer_import(dev, fd, out);
	close(fd);
	return status;
}

void tern_buffer_release(struct tern_buffer *buf)
{
	buf->device->ops->buffer_free(buf->device->be, buf->be);
	free(buf);
}

TERN_API tern_status_t tern_buffer_free(tern_buffer_t buffer)
{
	struct tern_buffer *buf = buffer;
	struct tern_device *dev;

	if (!tern_handle_valid(buf, TERN_HANDLE_BUFFER))
		return TERN_ERROR_INVALID_ARGUMENT;
	tern_handle_unregister(buf);
	dev = buf->device;
	pthread_mutex_lock(&dev->lock);
	tern_list_del(&buf->node);
	pthread_mutex_unlock(&dev->lock);
	tern_buffer_release(buf);
	return TERN_SUCCESS;
}

TERN_API tern_status_t tern_buffer_map(tern_buffer_t buffer, void **ptr)
{
	struct tern_buffer *buf = buffer;
	struct tern_device *dev;
	tern_status_t status = TERN_SUCCESS;

	if (!ptr)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (!tern_handle_valid(buf, TERN_HANDLE_BUFFER))
		return TERN_ERROR_INVALID_ARGUMENT;
	dev = buf->device;
	pthread_mutex_lock(&dev->lock);
	if (!buf->cpu)
		status = dev->ops->buffer_map(dev->be, buf->be, &buf->cpu);
	if (status == TERN_SUCCESS)
		*ptr = buf->cpu;
	pthread_mutex_unlock(&dev->lock);
	return status;
}

TERN_API tern_status_t tern_buffer_size(tern_buffer_t buffer, size_t *bytes)
{
	struct tern_buffer *buf = buffer;

	if (!bytes || !tern_handle_valid(buf, TERN_HANDLE_BUFFER))
		return TERN_ERROR_INVALID_ARGUMENT;
	*bytes = buf->bytes;
	return TERN_SUCCESS;
}

TERN_API tern_status_t tern_buffer_device_address(tern_buffer_t buffer,
						  uint64_t *va)
{
	struct tern_buffer *buf = buffer;

	if (!va || !tern_handle_valid(buf, TERN_HANDLE_BUFFER))
		return TERN_ERROR_INVALID_ARGUMENT;
	*va = buf->be->va;
	return TERN_SUCCESS;
}
