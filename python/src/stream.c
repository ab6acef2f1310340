// SPDX-License-Identifier: MIT
/*
 * tern.Stream(device) and tern.Event(device): a device's queue of work
 * and a point in one, as libtern's. Waits release the GIL, holding what
 * they wait on (guard.c).
 */
#include "pytern.h"

/* Parses (device) for a Stream's or Event's constructor. */
static tern_py_device *tern_py_queue_device(PyObject *args, PyObject *kwargs,
					    const char *fmt)
{
	static char *kw[] = { "device", NULL };
	PyObject *obj;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, fmt, kw, &obj))
		return NULL;
	if (!PyObject_TypeCheck(obj, &tern_py_device_type)) {
		tern_py_invalid("device must be a tern.Device, not %s",
				Py_TYPE(obj)->tp_name);
		return NULL;
	}
	if (!tern_py_device_open((tern_py_device *)obj))
		return NULL;
	return (tern_py_device *)obj;
}

/* ---- streams ---- */

static void tern_py_stream_reap(tern_py_stream *s, bool all);

static int tern_py_stream_init(PyObject *self, PyObject *args, PyObject *kwargs)
{
	tern_py_stream *s = (tern_py_stream *)self;
	tern_py_device *d = tern_py_queue_device(args, kwargs, "O:Stream");
	tern_status_t st;

	if (!d)
		return -1;
	if (s->device) {
		tern_py_invalid("a Stream is made once");
		return -1;
	}
	st = tern_stream_create(d->dev, &s->stream);
	if (st) {
		tern_py_raise(st);
		return -1;
	}
	Py_INCREF(d);
	s->device = d;
	return 0;
}

/*
 * Whether @s can be used; raises tern.Error if not. @hold, if any, holds
 * it and its device.
 */
static bool tern_py_stream_live(tern_py_stream *s, struct tern_py_hold *hold)
{
	if (!s->device || !s->stream) {
		tern_py_invalid("the stream is destroyed");
		return false;
	}
	if (!tern_py_device_hold(s->device, hold))
		return false;
	if (hold)
		tern_py_hold_add(hold, &s->busy);
	return true;
}

bool tern_py_stream_of(PyObject *obj, tern_stream_t *out,
		       struct tern_py_hold *hold)
{
	if (!PyObject_TypeCheck(obj, &tern_py_stream_type)) {
		tern_py_invalid("stream must be a tern.Stream, not %s",
				Py_TYPE(obj)->tp_name);
		return false;
	}
	if (!tern_py_stream_live((tern_py_stream *)obj, hold))
		return false;
	*out = ((tern_py_stream *)obj)->stream;
	return true;
}

static PyObject *tern_py_stream_synchronize(PyObject *self, PyObject *unused)
{
	tern_py_stream *s = (tern_py_stream *)self;
	struct tern_py_hold hold = { .n = 0 };
	tern_stream_t stream;
	tern_status_t st;

	(void)unused;
	if (!tern_py_stream_live(s, &hold))
		return NULL;
	stream = s->stream;
	Py_BEGIN_ALLOW_THREADS
	st = tern_stream_synchronize(stream);
	tern_py_hold_end(&hold);
	Py_END_ALLOW_THREADS
	tern_py_stream_reap(s, false);
	if (st)
		return tern_py_raise(st);
	Py_RETURN_NONE;
}

/*
 * Drops what the completed work kept (@all: everything; the stream's work
 * is over). Under the GIL; the list is settled before any object goes,
 * since an object's end may let another thread in. A closed device's
 * events are gone with it.
 */
static void tern_py_stream_reap(tern_py_stream *s, bool all)
{
	bool open = s->device && s->device->dev;
	PyObject *done = PyList_New(0);
	size_t j = 0;

	for (size_t i = 0; i < s->kept_n; i++) {
		struct tern_py_kept *k = &s->kept[i];

		if (!done || (!all && open &&
			      tern_event_query(k->event) == TERN_ERROR_NOT_READY)) {
			s->kept[j++] = *k;
			continue;
		}
		if (open)
			tern_event_destroy(k->event);
		if (PyList_Append(done, k->objs))
			PyErr_Clear();	/* then it goes now */
		Py_DECREF(k->objs);
	}
	s->kept_n = j;
	if (all && !j) {
		PyMem_Free(s->kept);
		s->kept = NULL;
		s->kept_cap = 0;
	}
	Py_XDECREF(done);
}

bool tern_py_stream_keep(PyObject *obj, PyObject *objs)
{
	tern_py_stream *s = (tern_py_stream *)obj;
	tern_event_t event = NULL;
	tern_status_t st;

	/* destroyed meanwhile: its end waited for the work */
	if (!s->stream || !s->device || !s->device->dev)
		return true;
	tern_py_stream_reap(s, false);
	if (s->kept_n == s->kept_cap) {
		size_t cap = s->kept_cap ? 2 * s->kept_cap : 16;
		struct tern_py_kept *more = PyMem_Realloc(s->kept,
							  cap * sizeof(*more));

		if (more) {
			s->kept = more;
			s->kept_cap = cap;
		}
	}
	st = s->kept_n < s->kept_cap ?
	     tern_event_create(s->device->dev, &event) :
	     TERN_ERROR_OUT_OF_MEMORY;
	if (!st)
		st = tern_event_record(event, s->stream);
	if (st) {
		/* nothing to watch the work with: wait for it instead */
		if (event)
			tern_event_destroy(event);
		Py_BEGIN_ALLOW_THREADS
		st = tern_stream_synchronize(s->stream);
		Py_END_ALLOW_THREADS
		return st ? (tern_py_raise(st), false) : true;
	}
	Py_INCREF(objs);
	s->kept[s->kept_n].event = event;
	s->kept[s->kept_n++].objs = objs;
	return true;
}

static PyObject *tern_py_stream_query(PyObject *self, PyObject *unused)
{
	tern_py_stream *s = (tern_py_stream *)self;
	tern_status_t st;

	(void)unused;
	if (!tern_py_stream_live(s, NULL))
		return NULL;
	st = tern_stream_query(s->stream);
	if (st == TERN_ERROR_NOT_READY)
		Py_RETURN_FALSE;
	if (st)
		return tern_py_raise(st);
	Py_RETURN_TRUE;
}

static PyObject *tern_py_stream_destroy(PyObject *self, PyObject *unused)
{
	tern_py_stream *s = (tern_py_stream *)self;
	struct tern_py_hold hold = { .n = 0 };
	tern_stream_t stream = s->stream;
	tern_status_t st;

	(void)unused;
	/* libtern would launch on it at group_end as it was. */
	if (stream && s->grouped)
		return tern_py_invalid("the stream has collectives waiting for group_end()");
	s->stream = NULL;	/* no call holds it from now on */
	if (!stream || !s->device || !s->device->dev)
		Py_RETURN_NONE;
	tern_py_hold_add(&hold, &s->device->busy);
	Py_BEGIN_ALLOW_THREADS
	tern_py_drain(&s->busy);
	st = tern_stream_destroy(stream);
	tern_py_hold_end(&hold);
	Py_END_ALLOW_THREADS
	tern_py_stream_reap(s, true);
	if (st)
		return tern_py_raise(st);
	Py_RETURN_NONE;
}

static PyObject *tern_py_stream_copy(PyObject *self, PyObject *args,
				     PyObject *kwargs)
{
	static char *kw[] = { "dst", "src", "size", NULL };
	tern_py_stream *s = (tern_py_stream *)self;
	PyObject *dst_obj, *src_obj, *size_obj;
	tern_ptr_t dst, src;
	tern_status_t st;
	size_t size;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO:copy", kw,
					 &dst_obj, &src_obj, &size_obj) ||
	    !tern_py_stream_live(s, NULL) ||
	    !tern_py_place(dst_obj, "dst", &dst, NULL) ||
	    !tern_py_place(src_obj, "src", &src, NULL) ||
	    !tern_py_size(size_obj, "size", &size))
		return NULL;
	st = tern_memcpy_async(dst.buffer, dst.offset, src.buffer, src.offset,
			       size, s->stream);
	if (st)
		return tern_py_raise(st);
	if (!tern_py_stream_keep(self, args))
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *tern_py_stream_fill(PyObject *self, PyObject *args,
				     PyObject *kwargs)
{
	static char *kw[] = { "dst", "value", "size", NULL };
	tern_py_stream *s = (tern_py_stream *)self;
	PyObject *dst_obj, *size_obj;
	unsigned char value;
	tern_status_t st;
	tern_ptr_t dst;
	size_t size;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "ObO:fill", kw,
					 &dst_obj, &value, &size_obj) ||
	    !tern_py_stream_live(s, NULL) ||
	    !tern_py_place(dst_obj, "dst", &dst, NULL) ||
	    !tern_py_size(size_obj, "size", &size))
		return NULL;
	st = tern_memset_async(dst.buffer, dst.offset, value, size, s->stream);
	if (st)
		return tern_py_raise(st);
	if (!tern_py_stream_keep(self, args))
		return NULL;
	Py_RETURN_NONE;
}

static void tern_py_stream_dealloc(PyObject *self)
{
	tern_py_stream *s = (tern_py_stream *)self;
	struct tern_py_hold hold = { .n = 0 };

	/* No call holds it (each holds a reference); its device, others may. */
	if (s->stream && s->device && s->device->dev) {
		tern_py_hold_add(&hold, &s->device->busy);
		Py_BEGIN_ALLOW_THREADS
		tern_stream_destroy(s->stream);
		tern_py_hold_end(&hold);
		Py_END_ALLOW_THREADS
	}
	tern_py_stream_reap(s, true);
	Py_XDECREF(s->device);
	Py_TYPE(self)->tp_free(self);
}

static PyObject *tern_py_stream_wait(PyObject *self, PyObject *arg);

static PyMethodDef tern_py_stream_methods[] = {
	{ "synchronize", tern_py_stream_synchronize, METH_NOARGS,
	  "synchronize(): waits for its work; raises its error." },
	{ "query", tern_py_stream_query, METH_NOARGS,
	  "query() -> bool: whether its work is done; raises its error." },
	{ "destroy", tern_py_stream_destroy, METH_NOARGS,
	  "destroy(): waits for its work and ends it." },
	{ "copy", (PyCFunction)(void (*)(void))tern_py_stream_copy,
	  METH_VARARGS | METH_KEYWORDS,
	  "copy(dst, src, size): copies size bytes, in stream order; dst and "
	  "src are Buffers or (Buffer, offset)." },
	{ "fill", (PyCFunction)(void (*)(void))tern_py_stream_fill,
	  METH_VARARGS | METH_KEYWORDS,
	  "fill(dst, value, size): sets size bytes to value, in stream order." },
	{ "wait_event", tern_py_stream_wait, METH_O,
	  "wait_event(event): later work waits for the event." },
	{ NULL, NULL, 0, NULL }
};

PyTypeObject tern_py_stream_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "tern.Stream",
	.tp_doc = "Stream(device): a queue of work on a device.",
	.tp_basicsize = sizeof(tern_py_stream),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_new = PyType_GenericNew,
	.tp_init = tern_py_stream_init,
	.tp_dealloc = tern_py_stream_dealloc,
	.tp_methods = tern_py_stream_methods,
};

/* ---- events ---- */

static int tern_py_event_init(PyObject *self, PyObject *args, PyObject *kwargs)
{
	tern_py_event *e = (tern_py_event *)self;
	tern_py_device *d = tern_py_queue_device(args, kwargs, "O:Event");
	tern_status_t st;

	if (!d)
		return -1;
	if (e->device) {
		tern_py_invalid("an Event is made once");
		return -1;
	}
	st = tern_event_create(d->dev, &e->event);
	if (st) {
		tern_py_raise(st);
		return -1;
	}
	Py_INCREF(d);
	e->device = d;
	return 0;
}

/* @obj as a live event; raises tern.Error if it is not one. */
static tern_py_event *tern_py_event_of(PyObject *obj)
{
	tern_py_event *e = (tern_py_event *)obj;

	if (!PyObject_TypeCheck(obj, &tern_py_event_type)) {
		tern_py_invalid("event must be a tern.Event, not %s",
				Py_TYPE(obj)->tp_name);
		return NULL;
	}
	if (!e->device || !e->event) {
		tern_py_invalid("the event is destroyed");
		return NULL;
	}
	return tern_py_device_open(e->device) ? e : NULL;
}

static PyObject *tern_py_stream_wait(PyObject *self, PyObject *arg)
{
	tern_py_stream *s = (tern_py_stream *)self;
	tern_py_event *e = tern_py_event_of(arg);
	tern_status_t st;

	if (!e || !tern_py_stream_live(s, NULL))
		return NULL;
	st = tern_stream_wait_event(s->stream, e->event);
	if (st)
		return tern_py_raise(st);
	Py_RETURN_NONE;
}

static PyObject *tern_py_event_record(PyObject *self, PyObject *arg)
{
	tern_py_event *e = tern_py_event_of(self);
	tern_stream_t stream;
	tern_status_t st;

	if (!e || !tern_py_stream_of(arg, &stream, NULL))
		return NULL;
	st = tern_event_record(e->event, stream);
	if (st)
		return tern_py_raise(st);
	Py_RETURN_NONE;
}

static PyObject *tern_py_event_synchronize(PyObject *self, PyObject *unused)
{
	tern_py_event *e = tern_py_event_of(self);
	struct tern_py_hold hold = { .n = 0 };
	tern_status_t st;

	(void)unused;
	if (!e)
		return NULL;
	/* An event ends only with its device: holding that is enough. */
	tern_py_hold_add(&hold, &e->device->busy);
	Py_BEGIN_ALLOW_THREADS
	st = tern_event_synchronize(e->event);
	tern_py_hold_end(&hold);
	Py_END_ALLOW_THREADS
	if (st)
		return tern_py_raise(st);
	Py_RETURN_NONE;
}

static PyObject *tern_py_event_query(PyObject *self, PyObject *unused)
{
	tern_py_event *e = tern_py_event_of(self);
	tern_status_t st;

	(void)unused;
	if (!e)
		return NULL;
	st = tern_event_query(e->event);
	if (st == TERN_ERROR_NOT_READY)
		Py_RETURN_FALSE;
	if (st)
		return tern_py_raise(st);
	Py_RETURN_TRUE;
}

static PyObject *tern_py_event_elapsed(PyObject *self, PyObject *arg)
{
	tern_py_event *start = tern_py_event_of(self), *end;
	tern_status_t st;
	float ms;

	if (!start)
		return NULL;
	end = tern_py_event_of(arg);
	if (!end)
		return NULL;
	st = tern_event_elapsed_time(&ms, start->event, end->event);
	if (st)
		return tern_py_raise(st);
	return PyFloat_FromDouble(ms);
}

static void tern_py_event_dealloc(PyObject *self)
{
	tern_py_event *e = (tern_py_event *)self;

	if (e->event && e->device && e->device->dev)
		tern_event_destroy(e->event);
	Py_XDECREF(e->device);
	Py_TYPE(self)->tp_free(self);
}

static PyMethodDef tern_py_event_methods[] = {
	{ "record", tern_py_event_record, METH_O,
	  "record(stream): captures the stream's work so far." },
	{ "synchronize", tern_py_event_synchronize, METH_NOARGS,
	  "synchronize(): waits for the captured work; raises its error." },
	{ "query", tern_py_event_query, METH_NOARGS,
	  "query() -> bool: whether the captured work is done." },
	{ "elapsed_ms", tern_py_event_elapsed, METH_O,
	  "elapsed_ms(end) -> float: engine milliseconds from this event to end." },
	{ NULL, NULL, 0, NULL }
};

PyTypeObject tern_py_event_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "tern.Event",
	.tp_doc = "Event(device): a point in a stream's work.",
	.tp_basicsize = sizeof(tern_py_event),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_new = PyType_GenericNew,
	.tp_init = tern_py_event_init,
	.tp_dealloc = tern_py_event_dealloc,
	.tp_methods = tern_py_event_methods,
};
