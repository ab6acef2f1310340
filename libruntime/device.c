// SPDX-License-Identifier: MIT
/*
 * Devices: enumerate, open, close, describe.
 *
 * Each tern_device_open() is a fresh context on the device (with the kernel
 * backend, a fresh open file): its buffers, streams and events are its own
 * and go away with tern_device_close().
 */
#include <stdlib.h>
#include <string.h>

#include "compute/compute.h"
#include "internal.h"

TERN_API tern_status_t tern_device_count(int *count)
{
	const struct tern_backend_ops *ops;
	tern_status_t status;

	if (!count)
		return TERN_ERROR_INVALID_ARGUMENT;
	*count = 0;
	status = tern_backend_ops_get(&ops);
	if (status)
		return status;
	return ops->device_count(count);
}

void tern_device_target(const struct tern_device *dev, uint32_t engine,
			struct tern_model_target *target)
{
	tern_model_engine_target(dev->info.dma_engine_count, engine,
				 &dev->info.cores, target);
}

TERN_API tern_status_t tern_device_open(int index, tern_device_t *device)
{
	const struct tern_backend_ops *ops;
	struct tern_device *dev;
	tern_status_t status;
	int count;

	if (!device)
		return TERN_ERROR_INVALID_ARGUMENT;
	status = tern_backend_ops_get(&ops);
	if (status)
		return status;
	status = ops->device_count(&count);
	if (status)
		return status;
	if (index < 0 || index >= count)
		return TERN_ERROR_INVALID_DEVICE;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return TERN_ERROR_OUT_OF_MEMORY;
	dev->ops = ops;
	dev->index = index;
	pthread_mutex_init(&dev->lock, NULL);
	tern_list_init(&dev->buffers);
	tern_list_init(&dev->streams);
	tern_list_init(&dev->events);

	status = ops->device_open(index, &dev->be);
	if (status)
		goto err_free;
	status = ops->device_query(dev->be, &dev->info);
	if (status)
		goto err_close;
	/* a driver from before cores: every engine is a DMA engine */
	if (!dev->info.dma_engine_count)
		dev->info.dma_engine_count = dev->info.engine_count;
	if (!dev->info.dma_engine_count) {
		status = TERN_ERROR_NOT_SUPPORTED;
		goto err_close;
	}
	status = tern_handle_register(dev, TERN_HANDLE_DEVICE);
	if (status)
		goto err_close;
	*device = dev;
	return TERN_SUCCESS;

err_close:
	ops->device_close(dev->be);
err_free:
	pthread_mutex_destroy(&dev->lock);
	free(dev);
	return status;
}

/* Unlinks the first node of @list, or returns NULL. */
static struct tern_list *tern_device_pop(struct tern_device *dev,
					 struct tern_list *list)
{
	struct tern_list *node = NULL;

	pthread_mutex_lock(&dev->lock);
	if (!tern_list_empty(list)) {
		node = list->next;
		tern_list_del(node);
	}
	pthread_mutex_unlock(&dev->lock);
	return node;
}

TERN_API tern_status_t tern_device_close(tern_device_t device)
{
	struct tern_device *dev = device;
	struct tern_list *node;

	if (!tern_handle_valid(dev, TERN_HANDLE_DEVICE))
		return TERN_ERROR_INVALID_ARGUMENT;
	tern_handle_unregister(dev);

	/* Streams first: once they are idle nothing uses the rest. */
	while ((node = tern_device_pop(dev, &dev->streams))) {
		struct tern_stream *s =
			tern_container_of(node, struct tern_stream, node);

		tern_handle_unregister(s);
		tern_stream_release(s);
	}
	tern_compute_release(dev);
	while ((node = tern_device_pop(dev, &dev->events))) {
		struct tern_event *e =
			tern_container_of(node, struct tern_event, node);

		tern_handle_unregister(e);
		pthread_mutex_lock(&dev->lock);
		tern_event_release(e);
		pthread_mutex_unlock(&dev->lock);
	}
	while ((node = tern_device_pop(dev, &dev->buffers))) {
		struct tern_buffer *b =
			tern_container_of(node, struct tern_buffer, node);

		tern_handle_unregister(b);
		tern_buffer_release(b);
	}
	pthread_mutex_lock(&dev->lock);
	tern_slot_pool_destroy(dev);
	pthread_mutex_unlock(&dev->lock);

	dev->ops->device_close(dev->be);
	pthread_mutex_destroy(&dev->lock);
	free(dev);
	return TERN_SUCCESS;
}

TERN_API tern_status_t tern_device_get_properties(tern_device_t device,
						  tern_device_properties_t *props)
{
	struct tern_device *dev = device;

	if (!props || !tern_handle_valid(dev, TERN_HANDLE_DEVICE))
		return TERN_ERROR_INVALID_ARGUMENT;
	memset(props, 0, sizeof(*props));
	props->index = dev->index;
	memcpy(props->node, dev->info.node, sizeof(props->node));
	props->node[sizeof(props->node) - 1] = '\0';
	props->memory_bytes = dev->info.memory_bytes;
	props->engine_count = dev->info.engine_count;
	props->fabric_port_count = dev->info.fabric_port_count;
	props->capabilities = dev->info.capabilities;
	props->clock_hz = dev->info.clock_hz;
	props->fabric_id = dev->info.fabric_id;
	return TERN_SUCCESS;
}

TERN_API tern_status_t tern_device_memory_usage(tern_device_t device,
						uint64_t *used, uint64_t *total)
{
	struct tern_device *dev = device;
	uint64_t u, t;
	tern_status_t status;

	if (!used || !total || !tern_handle_valid(dev, TERN_HANDLE_DEVICE))
		return TERN_ERROR_INVALID_ARGUMENT;
	status = dev->ops->memory_usage(dev->be, &u, &t);
	if (status)
		return status;
	*used = u;
	*total = t;
	return TERN_SUCCESS;
}
