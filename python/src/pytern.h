/* SPDX-License-Identifier: MIT */
/*
 * The Python module tern (tern._tern): libtern's devices, buffers,
 * streams, events, communicators and compute kernels as Python objects,
 * written against the CPython API in C, as libtern is.
 *
 * Lifetimes follow libtern's: an object keeps the device it was made on
 * alive; closing a device ends what was made on it, and the handles its
 * objects hold then fail (libtern's handle registry says so) with
 * tern.Error, never a crash. Memory a Python view or a DLPack tensor
 * still shows is never freed under it: freeing its buffer, or closing its
 * device, is refused while one lives. Ending an object waits for the
 * calls that use it with the GIL released (guard.c).
 */
#ifndef TERN_PY_H
#define TERN_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdbool.h>

#include "tern.h"
#include "tern_compute.h"

typedef struct {
	PyObject_HEAD
	tern_device_t dev;	/* NULL once closed */
	bool opened;		/* once: a closed one never opens again */
	int index;
	Py_ssize_t exports;	/* live views and tensors of its buffers */
	Py_ssize_t busy;	/* calls holding it (guard.c) */
} tern_py_device;

typedef struct {
	PyObject_HEAD
	tern_py_device *device;	/* a reference */
	tern_buffer_t buf;	/* NULL once freed */
	size_t size;
	int host;		/* TERN_MEMORY_HOST */
	void *cpu;		/* mapped on first need */
	Py_ssize_t exports;	/* its live views and tensors */
	Py_ssize_t busy;	/* calls holding it (guard.c) */
} tern_py_buffer;

/* Objects queued work uses, kept until @event has completed. */
struct tern_py_kept {
	tern_event_t event;
	PyObject *objs;
};

typedef struct {
	PyObject_HEAD
	tern_py_device *device;
	tern_stream_t stream;	/* NULL once destroyed */
	Py_ssize_t busy;	/* calls holding it (guard.c) */
	Py_ssize_t grouped;	/* its collectives in open groups (group.c) */
	struct tern_py_kept *kept;	/* under the GIL */
	size_t kept_n, kept_cap;
} tern_py_stream;

typedef struct {
	PyObject_HEAD
	tern_py_device *device;
	tern_event_t event;
} tern_py_event;

typedef struct {
	PyObject_HEAD
	tern_py_device *device;
	tern_comm_t comm;	/* NULL once destroyed or aborted */
	int rank, size;
	Py_ssize_t busy;	/* calls holding it (guard.c) */
	/* Held while its collectives are enqueued or launched (group.c). */
	pthread_mutex_t order;
} tern_py_comm;

typedef struct {
	PyObject_HEAD
	tern_py_buffer *buffer;	/* a reference */
	size_t offset;
	tern_dtype_t dtype;
	uint32_t rows, cols, ld;
} tern_py_matrix;

extern PyTypeObject tern_py_device_type, tern_py_buffer_type,
	tern_py_stream_type, tern_py_event_type, tern_py_comm_type,
	tern_py_matrix_type;

/* ---- module.c ---- */

/* Raises tern.Error for @status, with libtern's last error if any; NULL. */
PyObject *tern_py_raise(tern_status_t status);
/* Raises tern.Error(INVALID_ARGUMENT) saying @fmt; NULL. */
PyObject *tern_py_invalid(const char *fmt, ...);
/* @obj as a byte count or element count; false (tern.Error) if none. */
bool tern_py_size(PyObject *obj, const char *what, size_t *out);
/*
 * @obj as one of @n values named by @name(i): an int, or a name; false
 * (tern.Error naming @what) if neither.
 */
bool tern_py_enum(PyObject *obj, const char *(*name)(int), int n,
		  const char *what, int *out);
/* @obj (an int or a name like "float32") as a dtype; false if none. */
bool tern_py_dtype(PyObject *obj, tern_dtype_t *out);
/* @obj (an int or a name like "sum") as a reduction; false if none. */
bool tern_py_redop(PyObject *obj, tern_redop_t *out);

/* ---- guard.c ---- */

/*
 * The most one call holds: a kernel's stream and nine buffers, and their
 * devices.
 */
#define TERN_PY_HOLD_MAX	24

/* The objects (their busy counts) a call holds while the GIL is released. */
struct tern_py_hold {
	Py_ssize_t *busy[TERN_PY_HOLD_MAX];
	int n;
};

/* Under the GIL, the object just seen alive: the call holds it. */
void tern_py_hold_add(struct tern_py_hold *h, Py_ssize_t *busy);
/* With the GIL or without: the call is done with all it holds. */
void tern_py_hold_end(struct tern_py_hold *h);
/*
 * Without the GIL, the object marked dead under it (so that no call
 * holds it again): waits until no call holds it.
 */
void tern_py_drain(Py_ssize_t *busy);

/* ---- device.c ---- */

/*
 * Whether @d is open, else raises tern.Error: what was made on a device
 * is gone with it, its handles never to be handed to libtern again.
 */
bool tern_py_device_open(tern_py_device *d);
/* As tern_py_device_open, and if it is, @hold (if any) holds @d. */
bool tern_py_device_hold(tern_py_device *d, struct tern_py_hold *hold);

/* ---- buffer.c ---- */

/*
 * @obj as a place for a collective: a Buffer, or (Buffer, offset).
 * false (tern.Error) if it is neither or its buffer is freed. @hold, if
 * any, holds the buffer and its device.
 */
bool tern_py_place(PyObject *obj, const char *what, tern_ptr_t *out,
		   struct tern_py_hold *hold);
/* The CPU address of @b's first byte, mapping it; NULL (raised) if none. */
void *tern_py_buffer_cpu(tern_py_buffer *b);
/* A view (or tensor) of @b starts or ends: counted on it and its device. */
void tern_py_buffer_export(tern_py_buffer *b, int delta);

/* ---- dlpack.c ---- */

PyObject *tern_py_buffer_dlpack(PyObject *self, PyObject *args,
				PyObject *kwargs);
PyObject *tern_py_buffer_dlpack_device(PyObject *self, PyObject *unused);
PyObject *tern_py_from_dlpack(PyObject *module, PyObject *args,
			      PyObject *kwargs);

/* ---- foreign.c ---- */

/*
 * Copies @bytes from @src, memory nobody vouches for, to @dst: 0, or the
 * errno (EFAULT: not all of it is readable) and @dst partly written.
 */
int tern_py_read_foreign(void *dst, const void *src, size_t bytes);

/* ---- stream.c ---- */

/*
 * @obj as a live stream; false (tern.Error) if it is not one. @hold, if
 * any, holds the stream and its device.
 */
bool tern_py_stream_of(PyObject *obj, tern_stream_t *out,
		       struct tern_py_hold *hold);

/* ---- matrix.c ---- */

/*
 * @obj as a tern.Matrix's tern_matrix_t; false (tern.Error) if it is not
 * one or its buffer is freed. @hold, if any, holds the buffer and device.
 */
bool tern_py_matrix_of(PyObject *obj, const char *what, tern_matrix_t *out,
		       struct tern_py_hold *hold);

/* ---- compute.c ---- */

extern PyMethodDef tern_py_compute_functions[];

/*
 * Keeps @objs (the arguments of work just queued on @stream, a live
 * tern.Stream) alive until that work completes, so that temporaries
 * (tern.Matrix(dev.alloc(...), ...)) are not freed under it. false
 * (raised) only if it could neither keep them nor wait for the work.
 */
bool tern_py_stream_keep(PyObject *stream, PyObject *objs);

/* ---- comm.c ---- */

extern PyMethodDef tern_py_comm_functions[];

/* ---- group.c ---- */

extern PyMethodDef tern_py_group_functions[];

/* Whether this thread is between group_start() and group_end(). */
bool tern_py_in_group(void);
/*
 * A collective on @comm and @stream was kept by this thread's open
 * group (if any); false (raised) if it cannot be noted.
 */
bool tern_py_group_note(tern_py_comm *comm, tern_py_stream *stream);

#endif
