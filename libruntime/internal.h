/* SPDX-License-Identifier: MIT */
/*
 * libtern internals shared by the files of the library (not installed).
 */
#ifndef TERN_INTERNAL_H
#define TERN_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "tern.h"
#include "tern_model_port.h"

/* Marks the definitions of the public API; everything else stays hidden. */
#define TERN_API __attribute__((visibility("default")))

#define tern_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* ---- intrusive doubly linked lists ---- */

struct tern_list {
	struct tern_list *prev, *next;
};

static inline void tern_list_init(struct tern_list *head)
{
	head->prev = head;
	head->next = head;
}

static inline bool tern_list_empty(const struct tern_list *head)
{
	return head->next == head;
}

static inline void tern_list_add_tail(struct tern_list *head,
				      struct tern_list *node)
{
	node->prev = head->prev;
	node->next = head;
	head->prev->next = node;
	head->prev = node;
}

static inline void tern_list_del(struct tern_list *node)
{
	node->prev->next = node->next;
	node->next->prev = node->prev;
	node->prev = node;
	node->next = node;
}

/* ---- diagnostics (stderr, as TERN_DEBUG asks: debug.c) ---- */

/* A choice libtern made, with TERN_DEBUG=1. */
void tern_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Records what tern_get_last_error() tells: why the backend refused the
 * process, in words saying what to do (also passed to tern_debug).
 */
void tern_set_last_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/*
 * The backend refused the process with @status: its sentence (the last
 * error's, else @status's) on stderr unless TERN_DEBUG=0. Once, where the
 * backend is chosen.
 */
void tern_report_refusal(tern_status_t status);

/* ---- handle registry (handle.c) ---- */

enum tern_handle_kind {
	TERN_HANDLE_DEVICE = 1,
	TERN_HANDLE_BUFFER,
	TERN_HANDLE_STREAM,
	TERN_HANDLE_EVENT,
	TERN_HANDLE_PROGRAM,
};

tern_status_t tern_handle_register(const void *handle,
				   enum tern_handle_kind kind);
void tern_handle_unregister(const void *handle);
/* True if @handle is live and of @kind (NULL never is). */
bool tern_handle_valid(const void *handle, enum tern_handle_kind kind);

/* ---- timestamp slots: 8-byte cells in device-reachable host memory ---- */

struct tern_slot_chunk {
	struct tern_be_buffer *buffer;
	uint64_t *cpu;
};

struct tern_retired_slot {
	uint32_t slot;
	struct tern_fence *fence;	/* the slot is free once this signals */
};

struct tern_slot_pool {
	struct tern_slot_chunk *chunks;
	uint32_t chunk_count;
	uint32_t *free_slots;		/* stack of free slot numbers */
	uint32_t free_count, free_cap;
	struct tern_retired_slot *retired;
	uint32_t retired_count, retired_cap;
};

struct tern_device;

/* All slot_pool calls need the device lock held. */
tern_status_t tern_slot_alloc(struct tern_device *dev, uint32_t *slot);
/* Frees @slot once @fence (may be NULL) signals; takes its own reference. */
void tern_slot_release(struct tern_device *dev, uint32_t slot,
		       struct tern_fence *fence);
uint64_t tern_slot_va(struct tern_device *dev, uint32_t slot);
uint64_t tern_slot_read(struct tern_device *dev, uint32_t slot);
void tern_slot_write(struct tern_device *dev, uint32_t slot, uint64_t value);
/* Frees everything; every retired fence has signalled. */
void tern_slot_pool_destroy(struct tern_device *dev);

/* ---- work log: the fences of a stream's jobs and which of them failed ---- */

struct tern_worklog;

struct tern_worklog *tern_worklog_create(const struct tern_backend_ops *ops);
void tern_worklog_get(struct tern_worklog *log);
void tern_worklog_put(struct tern_worklog *log);
/* Makes room for one append, so that the append after a submit cannot fail. */
tern_status_t tern_worklog_reserve(struct tern_worklog *log);
/* Logs the job of @fence (takes a reference); returns its sequence number. */
uint64_t tern_worklog_append(struct tern_worklog *log, struct tern_fence *fence);
/* Sequence number of the first job of the current epoch (see worklog.c). */
uint64_t tern_worklog_epoch(struct tern_worklog *log);
/*
 * The first failure among the completed jobs of the current epoch, or
 * TERN_SUCCESS; a failure returned counts as reported, so the next append
 * starts a new epoch.
 */
tern_status_t tern_worklog_stream_error(struct tern_worklog *log);
/*
 * Once jobs up to @to have completed: the first failure among the jobs
 * numbered @from..@to, or TERN_SUCCESS.
 */
tern_status_t tern_worklog_error_between(struct tern_worklog *log,
					 uint64_t from, uint64_t to);

/* ---- the handles ---- */

struct tern_device {
	pthread_mutex_t lock;		/* the lists, every event, the slots */
	const struct tern_backend_ops *ops;
	struct tern_be_device *be;
	struct tern_be_info info;
	int index;
	uint32_t next_engine;		/* streams go round-robin over engines */
	struct tern_list buffers;
	struct tern_list streams;
	struct tern_list events;
	struct tern_slot_pool slots;
	struct tern_compute *compute;	/* made by the first program launch */
};

/*
 * What @dev's engine @engine is: DMA engines first, then a tensor, a
 * vector and a scalar engine per core (Documentation/compute.rst).
 */
void tern_device_target(const struct tern_device *dev, uint32_t engine,
			struct tern_model_target *target);

/*
 * A stream on @dev's engine @engine (tern_stream_create() takes the DMA
 * engines in turn): compute runs on a core's engines this way.
 */
tern_status_t tern_stream_create_on(struct tern_device *dev, uint32_t engine,
				    struct tern_stream **stream);

/* The application saw @fence end (backend.h: fence_seen). */
static inline void tern_fence_seen(struct tern_device *dev,
				   struct tern_fence *fence)
{
	if (dev->ops->fence_seen)
		dev->ops->fence_seen(fence);
}

struct tern_buffer {
	struct tern_device *device;
	struct tern_list node;
	struct tern_be_buffer *be;
	size_t bytes;			/* as requested */
	tern_memory_kind_t kind;
	void *cpu;			/* mapped on first use, under device lock */
};

struct tern_stream {
	struct tern_device *device;
	struct tern_list node;
	pthread_mutex_t lock;		/* everything below */
	struct tern_be_queue *queue;
	struct tern_fence *last;	/* newest job's fence, or NULL */
	struct tern_fence **waits;	/* for the next submission */
	uint32_t wait_count, wait_cap;
	struct tern_worklog *log;
};

struct tern_event {
	struct tern_device *device;
	struct tern_list node;
	/* The rest is protected by the device lock. */
	bool recorded;
	uint32_t slot;			/* receives the end time */
	struct tern_fence *fence;	/* of the TIMESTAMP job */
	struct tern_worklog *log;	/* of the stream recorded on */
	uint64_t from_seq, to_seq;	/* the jobs the event captured */
};

/*
 * Submits @packets on @stream, consuming its pending waits. The caller
 * holds stream->lock. *@fence (optional) receives a reference to the job's
 * fence and *@seq (optional) its work log sequence number.
 */
tern_status_t tern_stream_submit_locked(struct tern_stream *stream,
					const void *packets, uint32_t size,
					struct tern_fence **fence,
					uint64_t *seq);
/*
 * Makes the next submission on @stream wait for @fence (of any device of
 * this backend; imported here). The caller holds stream->lock.
 */
tern_status_t tern_stream_add_wait_locked(struct tern_stream *stream,
					  struct tern_fence *fence);
/* Waits for and tears down @stream (caller unlinked and unregistered it). */
void tern_stream_release(struct tern_stream *stream);
/* Frees @event (caller unlinked and unregistered it; device lock held). */
void tern_event_release(struct tern_event *event);
/* Frees @buffer (caller unlinked and unregistered it). */
void tern_buffer_release(struct tern_buffer *buffer);
/* tern_buffer_alloc without the handle check on @dev (buffer.c). */
tern_status_t tern_buffer_create(struct tern_device *dev,
				 tern_memory_kind_t kind, size_t bytes,
				 struct tern_buffer **out);
/* Bytes of one @dtype element, 0 for an unknown type (dtype.c). */
size_t tern_dtype_bytes(tern_dtype_t dtype);
/* Whether REDUCE, and so a collective, takes @dtype (not the 8-bit floats). */
bool tern_dtype_reducible(tern_dtype_t dtype);

#endif /* TERN_INTERNAL_H */
