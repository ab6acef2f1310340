// SPDX-License-Identifier: MIT
/*
 * Buffers: device or host memory with a device virtual address.
 *
 * The backend rounds sizes up to pages; the library remembers the size the
 * caller asked for and checks every copy against it.
 */
#include <stdlib.h>

#include "internal.h"

TERN_API tern_status_t tern_buffer_alloc(tern_device_t device,
					 tern_memory_kind_t kind, size_t bytes,
					 tern_buffer_t *buffer)
{
	struct tern_device *dev = device;
	struct tern_buffer *buf;
	tern_status_t status;

	if (!buffer)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (!tern_handle_valid(dev, TERN_HANDLE_DEVICE) || bytes == 0 ||
	    (kind != TERN_MEMORY_DEVICE && kind != TERN_MEMORY_HOST))
		return TERN_ERROR_INVALID_ARGUMENT;
	if (kind == TERN_MEMORY_HOST &&
	    !(dev->info.capabilities & TERN_DEVICE_CAP_HOST_MEMORY))
		return TERN_ERROR_NOT_SUPPORTED;

	buf = calloc(1, sizeof(*buf));
	if (!buf)
		return TERN_ERROR_OUT_OF_MEMORY;
	buf->device = dev;
	buf->bytes = bytes;
	buf->kind = kind;
	status = dev->ops->buffer_create(dev->be, kind, bytes, &buf->be);
	if (status)
		goto err_free;
	status = tern_handle_register(buf, TERN_HANDLE_BUFFER);
	if (status)
		goto err_destroy;
	pthread_mutex_lock(&dev->lock);
	tern_list_add_tail(&dev->buffers, &buf->node);
	pthread_mutex_unlock(&dev->lock);
	*buffer = buf;
	return TERN_SUCCESS;

err_destroy:
	dev->ops->buffer_free(dev->be, buf->be);
err_free:
	free(buf);
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
