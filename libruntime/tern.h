/* SPDX-License-Identifier: MIT */
/*
 * libtern: the Tern runtime.
 *
 * Devices, buffers, streams and events over tern.ko (the "kernel" backend)
 * or over in-process simulated devices built from the same device model
 * (the "sim" backend). Every call returns a tern_status_t; none prints or
 * aborts on bad arguments. Calls are thread-safe unless noted.
 *
 * Backend choice happens once per process, at the first call:
 *   TERN_BACKEND=kernel|sim forces one; otherwise the kernel backend is used
 *   when a Tern device node exists and the simulator when none does.
 *   TERN_SIM_DEVICES=N (default 4, 1..64) and TERN_SIM_MEM_MB=M (default
 *   256) size the simulator; TERN_SIM_JOB_TIMEOUT_MS (default 5000, as the
 *   driver's job_timeout_ms) bounds a simulated job. An unknown or
 *   out-of-range value makes every call return TERN_ERROR_INVALID_ARGUMENT
 *   rather than silently picking something else.
 *
 * Output arguments are written only when a call succeeds (tern_device_count
 * also sets *count to 0 on failure). Handles are checked against the live
 * ones, so a freed handle is reported as TERN_ERROR_INVALID_ARGUMENT as long
 * as its memory has not been reused for a new handle of the same kind.
 */
#ifndef TERN_H
#define TERN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TERN_VERSION_MAJOR 0
#define TERN_VERSION_MINOR 1
#define TERN_VERSION_PATCH 0

typedef enum tern_status {
	TERN_SUCCESS = 0,
	TERN_ERROR_INVALID_ARGUMENT = 1,  /* NULL, freed or mismatched argument */
	TERN_ERROR_INVALID_DEVICE = 2,    /* device index out of range */
	TERN_ERROR_NO_DEVICE = 3,         /* backend has no devices */
	TERN_ERROR_OUT_OF_MEMORY = 4,     /* device (or host) memory exhausted */
	TERN_ERROR_NOT_READY = 5,         /* query: work still pending */
	TERN_ERROR_DEVICE_FAULT = 6,      /* a job addressed memory outside its buffers */
	TERN_ERROR_TIMEOUT = 7,           /* a job exceeded the job timeout */
	TERN_ERROR_CANCELLED = 8,         /* a job was dropped before it ran */
	TERN_ERROR_PERMISSION = 9,        /* no access to the device node */
	TERN_ERROR_NOT_SUPPORTED = 10,    /* the device or backend cannot do this */
	TERN_ERROR_BACKEND = 11,          /* unexpected driver or OS error */
	TERN_ERROR_OUT_OF_RANGE = 12,     /* offset/size outside a buffer */
} tern_status_t;

/* A sentence describing @status; never NULL. */
const char *tern_status_string(tern_status_t status);
/* The enumerator's name, e.g. "TERN_ERROR_TIMEOUT"; never NULL. */
const char *tern_status_name(tern_status_t status);

typedef enum tern_backend {
	TERN_BACKEND_KERNEL = 1,
	TERN_BACKEND_SIM = 2,
} tern_backend_t;

/* Selects the backend (once) and reports it. */
tern_status_t tern_get_backend(tern_backend_t *backend);
/* "kernel" or "sim"; "unknown" for anything else. */
const char *tern_backend_name(tern_backend_t backend);

/* ---- devices ---- */

typedef struct tern_device *tern_device_t;

#define TERN_DEVICE_CAP_MOCK        (1ull << 0)
#define TERN_DEVICE_CAP_HOST_MEMORY (1ull << 1)
#define TERN_DEVICE_CAP_SEMAPHORE   (1ull << 2)
#define TERN_DEVICE_CAP_TIMESTAMP   (1ull << 3)

typedef struct tern_device_properties {
	int index;
	char node[64];             /* "/dev/accel/accel0", "/dev/dri/renderD128", "sim:0" */
	uint64_t memory_bytes;     /* device memory */
	uint32_t engine_count;
	uint32_t fabric_port_count;
	uint64_t capabilities;     /* TERN_DEVICE_CAP_* */
	uint64_t clock_hz;         /* engine clock used by timestamps */
} tern_device_properties_t;

tern_status_t tern_device_count(int *count);
tern_status_t tern_device_open(int index, tern_device_t *device);
/* Waits for the device's streams, then frees everything opened through it. */
tern_status_t tern_device_close(tern_device_t device);
tern_status_t tern_device_get_properties(tern_device_t device,
					 tern_device_properties_t *props);
/* Device memory in use by every process (@used) and in all (@total). */
tern_status_t tern_device_memory_usage(tern_device_t device, uint64_t *used,
				       uint64_t *total);

/* ---- buffers ---- */

typedef struct tern_buffer *tern_buffer_t;

typedef enum tern_memory_kind {
	TERN_MEMORY_DEVICE = 0,  /* the device's own memory */
	TERN_MEMORY_HOST = 1,    /* host memory the device reaches */
} tern_memory_kind_t;

tern_status_t tern_buffer_alloc(tern_device_t device, tern_memory_kind_t kind,
				size_t bytes, tern_buffer_t *buffer);
/* Frees @buffer; work still using it must have completed. */
tern_status_t tern_buffer_free(tern_buffer_t buffer);
/* A CPU pointer to the buffer's first byte, valid until it is freed. */
tern_status_t tern_buffer_map(tern_buffer_t buffer, void **ptr);
tern_status_t tern_buffer_size(tern_buffer_t buffer, size_t *bytes);
tern_status_t tern_buffer_device_address(tern_buffer_t buffer, uint64_t *va);

/* ---- streams ---- */

typedef struct tern_stream *tern_stream_t;

tern_status_t tern_stream_create(tern_device_t device, tern_stream_t *stream);
/* Waits for the stream's work, then destroys it. */
tern_status_t tern_stream_destroy(tern_stream_t stream);
/*
 * Waits for all work enqueued so far. Returns the error of the first job
 * that failed since the previous synchronize, or TERN_SUCCESS.
 */
tern_status_t tern_stream_synchronize(tern_stream_t stream);
/* TERN_SUCCESS when all work is done, TERN_ERROR_NOT_READY otherwise. */
tern_status_t tern_stream_query(tern_stream_t stream);

/*
 * Copies @bytes from @src at @src_offset to @dst at @dst_offset, in stream
 * order. Both buffers must be on the stream's device; ranges may overlap.
 */
tern_status_t tern_memcpy_async(tern_buffer_t dst, size_t dst_offset,
				tern_buffer_t src, size_t src_offset,
				size_t bytes, tern_stream_t stream);
/* Sets @bytes of @dst from @offset to @value, in stream order. */
tern_status_t tern_memset_async(tern_buffer_t dst, size_t offset,
				uint8_t value, size_t bytes,
				tern_stream_t stream);
/* Repeats the little-endian 32-bit @pattern from @offset, in stream order. */
tern_status_t tern_memset32_async(tern_buffer_t dst, size_t offset,
				  uint32_t pattern, size_t bytes,
				  tern_stream_t stream);

/* ---- events ---- */

typedef struct tern_event *tern_event_t;

tern_status_t tern_event_create(tern_device_t device, tern_event_t *event);
tern_status_t tern_event_destroy(tern_event_t event);
/* Captures the work enqueued on @stream so far, and the time it ends. */
tern_status_t tern_event_record(tern_event_t event, tern_stream_t stream);
/* Work enqueued on @stream after this call starts after @event completes. */
tern_status_t tern_stream_wait_event(tern_stream_t stream, tern_event_t event);
/* Waits for @event; returns the error of the work it captured, if any. */
tern_status_t tern_event_synchronize(tern_event_t event);
/* TERN_SUCCESS if complete (or never recorded), TERN_ERROR_NOT_READY if not. */
tern_status_t tern_event_query(tern_event_t event);
/*
 * Milliseconds of engine time between two completed events recorded on the
 * same device. TERN_ERROR_NOT_READY if either has not completed;
 * TERN_ERROR_INVALID_ARGUMENT if either was never recorded or they were
 * recorded on different devices.
 */
tern_status_t tern_event_elapsed_time(float *ms, tern_event_t start,
				      tern_event_t end);

#ifdef __cplusplus
}
#endif

#endif /* TERN_H */
