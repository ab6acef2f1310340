/* SPDX-License-Identifier: MIT */
/*
 * What libtern's own higher layers (collectives) build on: raw packet
 * streams on streams, fences across devices, internal buffers and device
 * addresses. Internal (hidden in libtern.so, linkable from libtern.a).
 *
 * Every function takes live internal objects (a tern_device_t is a struct
 * tern_device *, and so on): arguments are the caller's to check.
 */
#ifndef TERN_SUBMIT_H
#define TERN_SUBMIT_H

#include "internal.h"
#include "packets.h"

/*
 * Runs @size bytes of packets (whole packets, built with packets.h) on
 * @stream, in stream order, after the stream's pending waits and after
 * every fence in @waits, which may belong to any device of this backend.
 * Streams longer than the device's submission limit are split at packet
 * boundaries into jobs that run back to back. Failures of the jobs are
 * reported by tern_stream_synchronize() and by events like any other work.
 * *@fence (optional) receives a reference to the last job's fence.
 * TERN_ERROR_INVALID_ARGUMENT for a malformed stream (nothing runs).
 */
tern_status_t tern_stream_submit(struct tern_stream *stream,
				 const void *packets, size_t size,
				 struct tern_fence *const *waits,
				 uint32_t wait_count, struct tern_fence **fence);

/*
 * Bytes of the whole packets of @packets (@size bytes) from offset @at
 * that fit in @limit bytes: where a stream longer than a job is cut.
 */
size_t tern_packets_fit(const uint8_t *packets, size_t size, size_t at,
			size_t limit);

/* A reference to the newest job's fence on @stream, or NULL if none. */
struct tern_fence *tern_stream_last_fence(struct tern_stream *stream);

/*
 * TERN_SUCCESS once @fence has signalled (whatever its job's result),
 * TERN_ERROR_NOT_READY when @timeout_ns (relative; TERN_WAIT_FOREVER)
 * passed first.
 */
static inline tern_status_t tern_fence_wait(const struct tern_device *dev,
					    struct tern_fence *fence,
					    int64_t timeout_ns)
{
	return dev->ops->fence_wait(fence, timeout_ns);
}

/* TERN_ERROR_NOT_READY, TERN_SUCCESS or the job's error. */
static inline tern_status_t tern_fence_status(const struct tern_device *dev,
					      struct tern_fence *fence)
{
	return dev->ops->fence_status(fence);
}

/*
 * A buffer of @dev that the caller uses internally: like tern_buffer_alloc
 * (registered, freed by tern_buffer_free or with the device) and mapped:
 * *@cpu (optional) receives its CPU address.
 */
tern_status_t tern_buffer_alloc_internal(struct tern_device *dev,
					 tern_memory_kind_t kind, size_t bytes,
					 struct tern_buffer **out, void **cpu);

/*
 * The device address of byte @offset of @buffer as @dev's packets name it:
 * @buffer must be @dev's, created there or imported there (with
 * tern_buffer_import or tern_buffer_import_peer); otherwise
 * TERN_ERROR_INVALID_ARGUMENT. TERN_ERROR_OUT_OF_RANGE if @offset lies
 * beyond the buffer.
 */
tern_status_t tern_buffer_va_on(const struct tern_buffer *buffer,
				 const struct tern_device *dev, size_t offset,
				 uint64_t *va);

/*
 * A buffer of @dev over @peer's memory (any device's), for @dev's packets
 * to read and write over the fabric: export and import in one step. It is
 * independent of @peer: free both, in any order.
 */
tern_status_t tern_buffer_import_peer(struct tern_device *dev,
				      struct tern_buffer *peer,
				      struct tern_buffer **out);

/* The fabric id of @dev (-1 when the device has no fabric). */
static inline int tern_device_fabric_id(const struct tern_device *dev)
{
	return dev->info.fabric_id;
}

#endif /* TERN_SUBMIT_H */
