// SPDX-License-Identifier: MIT
/*
 * Copies and fills. Arguments are checked here, before anything reaches
 * the device, so a bad call returns a status and submits nothing. One COPY
 * or FILL packet carries any size: the engine splits the work itself.
 */
#include "internal.h"
#include "packets.h"

/* @offset..@offset+@bytes lies inside @buf (no wraparound). */
static bool tern_range_inside(const struct tern_buffer *buf, size_t offset,
			      size_t bytes)
{
	return offset <= buf->bytes && bytes <= buf->bytes - offset;
}

static tern_status_t tern_check_buffer(const struct tern_buffer *buf,
				       const struct tern_stream *s)
{
	if (!tern_handle_valid(buf, TERN_HANDLE_BUFFER) ||
	    buf->device != s->device)
		return TERN_ERROR_INVALID_ARGUMENT;
	return TERN_SUCCESS;
}

static tern_status_t tern_submit_one(struct tern_stream *s,
				     struct tern_packet_builder *b)
{
	tern_status_t status;

	pthread_mutex_lock(&s->lock);
	status = tern_stream_submit_locked(s, b->buf, (uint32_t)b->size,
					   NULL, NULL);
	pthread_mutex_unlock(&s->lock);
	return status;
}

TERN_API tern_status_t tern_memcpy_async(tern_buffer_t dst, size_t dst_offset,
					 tern_buffer_t src, size_t src_offset,
					 size_t bytes, tern_stream_t stream)
{
	uint64_t packets[TERN_PACKET_MAX_BYTES / 8];
	struct tern_packet_builder b;
	struct tern_stream *s = stream;

	if (!tern_handle_valid(s, TERN_HANDLE_STREAM) ||
	    tern_check_buffer(dst, s) || tern_check_buffer(src, s))
		return TERN_ERROR_INVALID_ARGUMENT;
	if (!tern_range_inside(dst, dst_offset, bytes) ||
	    !tern_range_inside(src, src_offset, bytes))
		return TERN_ERROR_OUT_OF_RANGE;
	if (bytes == 0)
		return TERN_SUCCESS;
	tern_packets_init(&b, packets, sizeof(packets));
	tern_packet_copy(&b, dst->be->va + dst_offset, src->be->va + src_offset,
			 bytes);
	return tern_submit_one(s, &b);
}

static tern_status_t tern_fill(struct tern_buffer *dst, size_t offset,
			       uint32_t pattern, size_t bytes,
			       struct tern_stream *s)
{
	uint64_t packets[TERN_PACKET_MAX_BYTES / 8];
	struct tern_packet_builder b;

	if (!tern_handle_valid(s, TERN_HANDLE_STREAM) ||
	    tern_check_buffer(dst, s))
		return TERN_ERROR_INVALID_ARGUMENT;
	if (!tern_range_inside(dst, offset, bytes))
		return TERN_ERROR_OUT_OF_RANGE;
	if (bytes == 0)
		return TERN_SUCCESS;
	tern_packets_init(&b, packets, sizeof(packets));
	tern_packet_fill(&b, dst->be->va + offset, bytes, pattern);
	return tern_submit_one(s, &b);
}

TERN_API tern_status_t tern_memset_async(tern_buffer_t dst, size_t offset,
					 uint8_t value, size_t bytes,
					 tern_stream_t stream)
{
	return tern_fill(dst, offset, value * 0x01010101u, bytes, stream);
}

TERN_API tern_status_t tern_memset32_async(tern_buffer_t dst, size_t offset,
					   uint32_t pattern, size_t bytes,
					   tern_stream_t stream)
{
	return tern_fill(dst, offset, pattern, bytes, stream);
}
