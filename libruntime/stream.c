// SPDX-License-Identifier: MIT
/*
 * Streams: a queue on one engine (streams take the engines in turn), the
 * newest job's fence, the waits the next submission must honour, and the
 * work log that remembers failures (worklog.c says for how long).
 */
#include <stdlib.h>

#include "internal.h"
#include "packets.h"

TERN_API tern_status_t tern_stream_create(tern_device_t device,
					  tern_stream_t *stream)
{
	struct tern_device *dev = device;
	uint32_t engine;

	if (!stream)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (!tern_handle_valid(dev, TERN_HANDLE_DEVICE))
		return TERN_ERROR_INVALID_ARGUMENT;
	/* streams of copies and collectives: the DMA engines in turn */
	pthread_mutex_lock(&dev->lock);
	engine = dev->next_engine++ % dev->info.dma_engine_count;
	pthread_mutex_unlock(&dev->lock);
	return tern_stream_create_on(dev, engine, stream);
}

tern_status_t tern_stream_create_on(struct tern_device *dev, uint32_t engine,
				    struct tern_stream **stream)
{
	struct tern_stream *s;
	tern_status_t status;

	if (engine >= dev->info.engine_count)
		return TERN_ERROR_INVALID_ARGUMENT;
	s = calloc(1, sizeof(*s));
	if (!s)
		return TERN_ERROR_OUT_OF_MEMORY;
	s->device = dev;
	pthread_mutex_init(&s->lock, NULL);
	s->log = tern_worklog_create(dev->ops);
	if (!s->log) {
		status = TERN_ERROR_OUT_OF_MEMORY;
		goto err_free;
	}
	status = dev->ops->queue_create(dev->be, engine, &s->queue);
	if (status)
		goto err_log;
	tern_device_target(dev, engine, &s->queue->target);
	status = tern_handle_register(s, TERN_HANDLE_STREAM);
	if (status)
		goto err_queue;
	pthread_mutex_lock(&dev->lock);
	tern_list_add_tail(&dev->streams, &s->node);
	pthread_mutex_unlock(&dev->lock);
	*stream = s;
	return TERN_SUCCESS;

err_queue:
	dev->ops->queue_destroy(dev->be, s->queue);
err_log:
	tern_worklog_put(s->log);
err_free:
	pthread_mutex_destroy(&s->lock);
	free(s);
	return status;
}

/* Waits for the newest job; the stream lock is not held. */
static tern_status_t tern_stream_wait_idle(struct tern_stream *s)
{
	struct tern_fence *last;
	tern_status_t status = TERN_SUCCESS;

	pthread_mutex_lock(&s->lock);
	last = s->last ? tern_fence_get(s->last) : NULL;
	pthread_mutex_unlock(&s->lock);
	if (last) {
		status = s->device->ops->fence_wait(last, TERN_WAIT_FOREVER);
		tern_fence_seen(s->device, last);
		tern_fence_put(last);
	}
	return status == TERN_SUCCESS ? TERN_SUCCESS : TERN_ERROR_BACKEND;
}

void tern_stream_release(struct tern_stream *s)
{
	struct tern_device *dev = s->device;
	uint32_t i;

	/* Nothing to report to: a failed wait still tears down. */
	tern_stream_wait_idle(s);
	dev->ops->queue_destroy(dev->be, s->queue);
	for (i = 0; i < s->wait_count; i++)
		tern_fence_put(s->waits[i]);
	free(s->waits);
	tern_fence_put(s->last);
	/* Completes the log, dropping its fences before the device goes. */
	tern_worklog_stream_error(s->log);
	tern_worklog_put(s->log);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

TERN_API tern_status_t tern_stream_destroy(tern_stream_t stream)
{
	struct tern_stream *s = stream;
	struct tern_device *dev;

	if (!tern_handle_valid(s, TERN_HANDLE_STREAM))
		return TERN_ERROR_INVALID_ARGUMENT;
	tern_handle_unregister(s);
	dev = s->device;
	pthread_mutex_lock(&dev->lock);
	tern_list_del(&s->node);
	pthread_mutex_unlock(&dev->lock);
	tern_stream_release(s);
	return TERN_SUCCESS;
}

TERN_API tern_status_t tern_stream_synchronize(tern_stream_t stream)
{
	struct tern_stream *s = stream;
	tern_status_t status;

	if (!tern_handle_valid(s, TERN_HANDLE_STREAM))
		return TERN_ERROR_INVALID_ARGUMENT;
	status = tern_stream_wait_idle(s);
	if (status)
		return status;
	return tern_worklog_stream_error(s->log);
}

TERN_API tern_status_t tern_stream_query(tern_stream_t stream)
{
	struct tern_stream *s = stream;
	tern_status_t status;
	bool pending;

	if (!tern_handle_valid(s, TERN_HANDLE_STREAM))
		return TERN_ERROR_INVALID_ARGUMENT;
	pthread_mutex_lock(&s->lock);
	pending = s->last &&
		  s->device->ops->fence_status(s->last) == TERN_ERROR_NOT_READY;
	if (s->last && !pending)
		tern_fence_seen(s->device, s->last);
	/* A failure already known is reported even while work is pending. */
	status = tern_worklog_stream_error(s->log);
	pthread_mutex_unlock(&s->lock);
	if (status == TERN_SUCCESS && pending)
		status = TERN_ERROR_NOT_READY;
	return status;
}

tern_status_t tern_stream_submit_locked(struct tern_stream *s,
					const void *packets, uint32_t size,
					struct tern_fence **fence, uint64_t *seq)
{
	struct tern_device *dev = s->device;
	struct tern_fence *out;
	tern_status_t status;
	uint64_t n;
	uint32_t i;

	status = tern_worklog_reserve(s->log);
	if (status)
		return status;
	status = dev->ops->submit(dev->be, s->queue, packets, size, s->waits,
				  s->wait_count, &out);
	if (status)
		return status;
	for (i = 0; i < s->wait_count; i++)
		tern_fence_put(s->waits[i]);
	s->wait_count = 0;
	n = tern_worklog_append(s->log, out);
	tern_fence_put(s->last);
	s->last = out;
	if (fence)
		*fence = tern_fence_get(out);
	if (seq)
		*seq = n;
	return TERN_SUCCESS;
}

/* Makes room for one more wait, folding a full list into a NOP job. */
static tern_status_t tern_stream_wait_room(struct tern_stream *s)
{
	uint64_t nop[1];
	struct tern_packet_builder b;

	if (s->wait_count && s->wait_count >= s->device->info.max_waits) {
		tern_status_t status;

		tern_packets_init(&b, nop, sizeof(nop));
		tern_packet_nop(&b, 1);
		status = tern_stream_submit_locked(s, nop, (uint32_t)b.size,
						   NULL, NULL);
		if (status)
			return status;
	}
	if (s->wait_count == s->wait_cap) {
		uint32_t cap = s->wait_cap ? s->wait_cap * 2 : 4;
		struct tern_fence **bigger =
			realloc(s->waits, cap * sizeof(*bigger));

		if (!bigger)
			return TERN_ERROR_OUT_OF_MEMORY;
		s->waits = bigger;
		s->wait_cap = cap;
	}
	return TERN_SUCCESS;
}

tern_status_t tern_stream_add_wait_locked(struct tern_stream *s,
					 struct tern_fence *fence)
{
	struct tern_fence *imported;
	tern_status_t status = tern_stream_wait_room(s);

	if (status == TERN_SUCCESS)
		status = s->device->ops->fence_import(s->device->be, fence,
						      &imported);
	if (status == TERN_SUCCESS)
		s->waits[s->wait_count++] = imported;
	return status;
}

TERN_API tern_status_t tern_stream_wait_event(tern_stream_t stream,
					      tern_event_t event)
{
	struct tern_stream *s = stream;
	struct tern_event *e = event;
	struct tern_fence *fence = NULL;
	tern_status_t status;

	if (!tern_handle_valid(s, TERN_HANDLE_STREAM) ||
	    !tern_handle_valid(e, TERN_HANDLE_EVENT))
		return TERN_ERROR_INVALID_ARGUMENT;
	pthread_mutex_lock(&e->device->lock);
	if (e->fence)
		fence = tern_fence_get(e->fence);
	pthread_mutex_unlock(&e->device->lock);
	if (!fence)
		return TERN_SUCCESS;	/* never recorded: nothing to wait for */
	if (e->device->ops->fence_status(fence) != TERN_ERROR_NOT_READY) {
		tern_fence_put(fence);	/* complete: nothing to wait for */
		return TERN_SUCCESS;
	}

	pthread_mutex_lock(&s->lock);
	status = tern_stream_add_wait_locked(s, fence);
	pthread_mutex_unlock(&s->lock);
	tern_fence_put(fence);
	return status;
}
