// SPDX-License-Identifier: MIT
/*
 * Raw submissions and internal buffers for libtern's higher layers
 * (submit.h).
 */
#include "submit.h"
#include "tern_accel.h"
#include "tern_model.h"

size_t tern_packets_fit(const uint8_t *packets, size_t size, size_t at,
			size_t limit)
{
	size_t end = at;

	while (end < size) {
		const struct drm_tern_packet_header *h =
			(const void *)(packets + end);
		size_t bytes = (size_t)h->length * 8;

		if (bytes == 0 || bytes > size - end || end - at + bytes > limit)
			break;
		end += bytes;
	}
	return end - at;
}

tern_status_t tern_stream_submit(struct tern_stream *s, const void *packets,
				 size_t size, struct tern_fence *const *waits,
				 uint32_t wait_count, struct tern_fence **fence)
{
	const uint8_t *bytes = packets;
	size_t limit = s->device->info.max_submit_bytes, at, part;
	tern_status_t status = TERN_SUCCESS;
	uint32_t i;

	if (!size || size % 8 || (uintptr_t)packets % 8)
		return TERN_ERROR_INVALID_ARGUMENT;
	/* Check every piece first, so a bad stream runs nothing. */
	for (at = 0; at < size; at += part) {
		part = tern_packets_fit(bytes, size, at, limit);
		if (!part || tern_model_validate_on(bytes + at, (u32)part,
						    &s->queue->target, NULL))
			return TERN_ERROR_INVALID_ARGUMENT;
	}

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < wait_count && status == TERN_SUCCESS; i++)
		status = tern_stream_add_wait_locked(s, waits[i]);
	for (at = 0; at < size && status == TERN_SUCCESS; at += part) {
		part = tern_packets_fit(bytes, size, at, limit);
		status = tern_stream_submit_locked(s, bytes + at, (uint32_t)part,
						   NULL, NULL);
	}
	if (status == TERN_SUCCESS && fence)
		*fence = tern_fence_get(s->last);
	pthread_mutex_unlock(&s->lock);
	return status;
}

struct tern_fence *tern_stream_last_fence(struct tern_stream *s)
{
	struct tern_fence *fence;

	pthread_mutex_lock(&s->lock);
	fence = s->last ? tern_fence_get(s->last) : NULL;
	pthread_mutex_unlock(&s->lock);
	return fence;
}

tern_status_t tern_buffer_alloc_internal(struct tern_device *dev,
					 tern_memory_kind_t kind, size_t bytes,
					 struct tern_buffer **out, void **cpu)
{
	struct tern_buffer *buf;
	tern_status_t status;
	void *ptr;

	if (bytes == 0)
		return TERN_ERROR_INVALID_ARGUMENT;
	status = tern_buffer_create(dev, kind, bytes, &buf);
	if (status)
		return status;
	if (cpu) {
		status = tern_buffer_map(buf, &ptr);
		if (status) {
			tern_buffer_free(buf);
			return status;
		}
		*cpu = ptr;
	}
	*out = buf;
	return TERN_SUCCESS;
}

tern_status_t tern_buffer_va_on(const struct tern_buffer *buf,
				const struct tern_device *dev, size_t offset,
				uint64_t *va)
{
	if (buf->device != dev)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (offset > buf->bytes)
		return TERN_ERROR_OUT_OF_RANGE;
	*va = buf->be->va + offset;
	return TERN_SUCCESS;
}
