// SPDX-License-Identifier: MIT
/*
 * Events. Recording submits a TIMESTAMP job that writes the engine clock
 * into a slot from the device's slot pool; the event keeps that job's
 * fence (its completion means all earlier work on the stream is done, as a
 * queue runs its jobs in order) and the range of the stream's work log it
 * captured: the jobs enqueued since the stream's previous synchronize, up
 * to the TIMESTAMP job. tern_event_synchronize() reports the first failure
 * among them.
 *
 * tern_event_elapsed_time() of an event never recorded is
 * TERN_ERROR_INVALID_ARGUMENT: there is no time to subtract.
 */
#include <stdlib.h>

#include "internal.h"
#include "packets.h"

TERN_API tern_status_t tern_event_create(tern_device_t device,
					 tern_event_t *event)
{
	struct tern_device *dev = device;
	struct tern_event *e;
	tern_status_t status;

	if (!event)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (!tern_handle_valid(dev, TERN_HANDLE_DEVICE))
		return TERN_ERROR_INVALID_ARGUMENT;
	e = calloc(1, sizeof(*e));
	if (!e)
		return TERN_ERROR_OUT_OF_MEMORY;
	e->device = dev;
	status = tern_handle_register(e, TERN_HANDLE_EVENT);
	if (status) {
		free(e);
		return status;
	}
	pthread_mutex_lock(&dev->lock);
	tern_list_add_tail(&dev->events, &e->node);
	pthread_mutex_unlock(&dev->lock);
	*event = e;
	return TERN_SUCCESS;
}

/* Forgets the current recording. Device lock held. */
static void tern_event_forget(struct tern_event *e)
{
	if (!e->recorded)
		return;
	/* A pending TIMESTAMP job keeps its slot until it has run. */
	tern_slot_release(e->device, e->slot, e->fence);
	tern_fence_put(e->fence);
	tern_worklog_put(e->log);
	e->fence = NULL;
	e->log = NULL;
	e->recorded = false;
}

void tern_event_release(struct tern_event *e)
{
	tern_event_forget(e);
	free(e);
}

TERN_API tern_status_t tern_event_destroy(tern_event_t event)
{
	struct tern_event *e = event;
	struct tern_device *dev;

	if (!tern_handle_valid(e, TERN_HANDLE_EVENT))
		return TERN_ERROR_INVALID_ARGUMENT;
	tern_handle_unregister(e);
	dev = e->device;
	pthread_mutex_lock(&dev->lock);
	tern_list_del(&e->node);
	tern_event_release(e);
	pthread_mutex_unlock(&dev->lock);
	return TERN_SUCCESS;
}

TERN_API tern_status_t tern_event_record(tern_event_t event,
					 tern_stream_t stream)
{
	struct tern_event *e = event;
	struct tern_stream *s = stream;
	uint64_t packets[TERN_PACKET_MAX_BYTES / 8], from, seq, va;
	struct tern_packet_builder b;
	struct tern_device *dev;
	struct tern_fence *fence;
	tern_status_t status;
	uint32_t slot;

	if (!tern_handle_valid(e, TERN_HANDLE_EVENT) ||
	    !tern_handle_valid(s, TERN_HANDLE_STREAM) ||
	    e->device != s->device)
		return TERN_ERROR_INVALID_ARGUMENT;
	dev = e->device;

	pthread_mutex_lock(&dev->lock);
	status = tern_slot_alloc(dev, &slot);
	va = status ? 0 : tern_slot_va(dev, slot);
	pthread_mutex_unlock(&dev->lock);
	if (status)
		return status;

	tern_packets_init(&b, packets, sizeof(packets));
	tern_packet_timestamp(&b, va);
	pthread_mutex_lock(&s->lock);
	from = tern_worklog_epoch(s->log);
	status = tern_stream_submit_locked(s, b.buf, (uint32_t)b.size, &fence,
					   &seq);
	pthread_mutex_unlock(&s->lock);

	pthread_mutex_lock(&dev->lock);
	if (status) {
		tern_slot_release(dev, slot, NULL);
	} else {
		tern_event_forget(e);
		e->recorded = true;
		e->slot = slot;
		e->fence = fence;
		tern_worklog_get(s->log);
		e->log = s->log;
		e->from_seq = from;
		e->to_seq = seq;
	}
	pthread_mutex_unlock(&dev->lock);
	return status;
}

TERN_API tern_status_t tern_event_synchronize(tern_event_t event)
{
	struct tern_event *e = event;
	struct tern_worklog *log;
	struct tern_fence *fence;
	tern_status_t status;
	uint64_t from, to;

	if (!tern_handle_valid(e, TERN_HANDLE_EVENT))
		return TERN_ERROR_INVALID_ARGUMENT;
	pthread_mutex_lock(&e->device->lock);
	if (!e->recorded) {
		pthread_mutex_unlock(&e->device->lock);
		return TERN_SUCCESS;
	}
	fence = tern_fence_get(e->fence);
	log = e->log;
	tern_worklog_get(log);
	from = e->from_seq;
	to = e->to_seq;
	pthread_mutex_unlock(&e->device->lock);

	status = e->device->ops->fence_wait(fence, TERN_WAIT_FOREVER);
	tern_fence_seen(e->device, fence);
	if (status == TERN_SUCCESS)
		status = tern_worklog_error_between(log, from, to);
	else
		status = TERN_ERROR_BACKEND;
	tern_worklog_put(log);
	tern_fence_put(fence);
	return status;
}

TERN_API tern_status_t tern_event_query(tern_event_t event)
{
	struct tern_event *e = event;
	tern_status_t status = TERN_SUCCESS;
	struct tern_worklog *log = NULL;
	uint64_t from = 0, to = 0;

	if (!tern_handle_valid(e, TERN_HANDLE_EVENT))
		return TERN_ERROR_INVALID_ARGUMENT;
	pthread_mutex_lock(&e->device->lock);
	if (e->recorded &&
	    e->device->ops->fence_status(e->fence) == TERN_ERROR_NOT_READY) {
		status = TERN_ERROR_NOT_READY;
	} else if (e->recorded) {
		tern_fence_seen(e->device, e->fence);
		log = e->log;
		tern_worklog_get(log);
		from = e->from_seq;
		to = e->to_seq;
	}
	pthread_mutex_unlock(&e->device->lock);
	/* Complete: what it captured failed or not, every time it is asked. */
	if (log) {
		status = tern_worklog_error_between(log, from, to);
		tern_worklog_put(log);
	}
	return status;
}

/* The end time of @e, once recorded and complete. Device lock held. */
static tern_status_t tern_event_time(struct tern_event *e, uint64_t *ticks)
{
	tern_status_t status;

	if (!e->recorded)
		return TERN_ERROR_INVALID_ARGUMENT;
	status = e->device->ops->fence_status(e->fence);
	if (status)
		return status;
	*ticks = tern_slot_read(e->device, e->slot);
	return TERN_SUCCESS;
}

TERN_API tern_status_t tern_event_elapsed_time(float *ms, tern_event_t start,
					       tern_event_t end)
{
	struct tern_event *s = start, *e = end;
	struct tern_device *dev;
	uint64_t t0 = 0, t1 = 0;
	tern_status_t status;

	if (!ms || !tern_handle_valid(s, TERN_HANDLE_EVENT) ||
	    !tern_handle_valid(e, TERN_HANDLE_EVENT) || s->device != e->device)
		return TERN_ERROR_INVALID_ARGUMENT;
	dev = s->device;
	if (!dev->info.clock_hz)
		return TERN_ERROR_NOT_SUPPORTED;
	pthread_mutex_lock(&dev->lock);
	status = tern_event_time(s, &t0);
	if (status == TERN_SUCCESS)
		status = tern_event_time(e, &t1);
	pthread_mutex_unlock(&dev->lock);
	if (status)
		return status;
	/* Signed: an end recorded before its start gives a negative time. */
	*ms = (float)((double)(int64_t)(t1 - t0) * 1e3 /
		      (double)dev->info.clock_hz);
	return TERN_SUCCESS;
}
