// SPDX-License-Identifier: MIT
/*
 * tern.Device(index): an open device; alloc() its buffers, stream() and
 * event() its queues, properties and memory_usage() what it is.
 */
#include "pytern.h"

static int tern_py_device_init(PyObject *self, PyObject *args,
			       PyObject *kwargs)
{
	static char *kw[] = { "index", NULL };
	tern_py_device *d = (tern_py_device *)self;
	tern_status_t st;
	tern_device_t dev;
	int index;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "i:Device", kw, &index))
		return -1;
	if (d->opened) {
		tern_py_invalid("a Device is opened once");
		return -1;
	}
	Py_BEGIN_ALLOW_THREADS
	st = tern_device_open(index, &dev);
	Py_END_ALLOW_THREADS
	if (st) {
		tern_py_raise(st);
		return -1;
	}
	d->dev = dev;
	d->opened = true;
	d->index = index;
	return 0;
}

bool tern_py_device_open(tern_py_device *d)
{
	if (d->dev)
		return true;
	tern_py_invalid("the device is closed");
	return false;
}

bool tern_py_device_hold(tern_py_device *d, struct tern_py_hold *hold)
{
	if (!tern_py_device_open(d))
		return false;
	if (hold)
		tern_py_hold_add(hold, &d->busy);
	return true;
}

static PyObject *tern_py_device_close(PyObject *self, PyObject *unused)
{
	tern_py_device *d = (tern_py_device *)self;
	tern_device_t dev = d->dev;
	tern_status_t st;

	(void)unused;
	if (!dev)
		Py_RETURN_NONE;
	if (d->exports) {
		PyErr_Format(PyExc_BufferError,
			     "%zd views or tensors of the device's buffers are still alive",
			     d->exports);
		return NULL;
	}
	d->dev = NULL;		/* no call holds it from now on */
	Py_BEGIN_ALLOW_THREADS
	tern_py_drain(&d->busy);
	st = tern_device_close(dev);
	Py_END_ALLOW_THREADS
	if (st)
		return tern_py_raise(st);
	Py_RETURN_NONE;
}

static void tern_py_device_dealloc(PyObject *self)
{
	tern_py_device *d = (tern_py_device *)self;

	/* Nothing can show its memory: each view holds a buffer, which holds us. */
	if (d->dev) {
		Py_BEGIN_ALLOW_THREADS
		tern_device_close(d->dev);
		Py_END_ALLOW_THREADS
	}
	Py_TYPE(self)->tp_free(self);
}

static PyObject *tern_py_device_properties(PyObject *self, void *closure)
{
	tern_py_device *d = (tern_py_device *)self;
	tern_device_properties_t p;
	tern_status_t st;

	(void)closure;
	if (!tern_py_device_open(d))
		return NULL;
	st = tern_device_get_properties(d->dev, &p);
	if (st)
		return tern_py_raise(st);
	return Py_BuildValue("{s:i,s:s,s:K,s:I,s:I,s:K,s:K,s:i}",
			     "index", p.index, "node", p.node,
			     "memory_bytes", (unsigned long long)p.memory_bytes,
			     "engine_count", p.engine_count,
			     "fabric_port_count", p.fabric_port_count,
			     "capabilities", (unsigned long long)p.capabilities,
			     "clock_hz", (unsigned long long)p.clock_hz,
			     "fabric_id", p.fabric_id);
}

static PyObject *tern_py_device_memory_usage(PyObject *self, PyObject *unused)
{
	tern_py_device *d = (tern_py_device *)self;
	uint64_t used, total;
	tern_status_t st;

	(void)unused;
	if (!tern_py_device_open(d))
		return NULL;
	st = tern_device_memory_usage(d->dev, &used, &total);
	if (st)
		return tern_py_raise(st);
	return Py_BuildValue("(KK)", (unsigned long long)used,
			     (unsigned long long)total);
}

static PyObject *tern_py_device_alloc(PyObject *self, PyObject *args,
				      PyObject *kwargs)
{
	static char *kw[] = { "size", "host", NULL };
	tern_py_device *d = (tern_py_device *)self;
	struct tern_py_hold hold = { .n = 0 };
	PyObject *size_obj;
	tern_device_t dev;
	tern_py_buffer *b;
	tern_status_t st;
	tern_buffer_t buf;
	int host = 0;
	size_t size;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|p:alloc", kw,
					 &size_obj, &host) ||
	    !tern_py_size(size_obj, "size", &size) ||
	    !tern_py_device_hold(d, &hold))
		return NULL;
	dev = d->dev;
	Py_BEGIN_ALLOW_THREADS
	st = tern_buffer_alloc(dev, host ? TERN_MEMORY_HOST :
				      TERN_MEMORY_DEVICE, size, &buf);
	tern_py_hold_end(&hold);
	Py_END_ALLOW_THREADS
	if (st)
		return tern_py_raise(st);
	b = PyObject_New(tern_py_buffer, &tern_py_buffer_type);
	if (!b) {
		if (d->dev)	/* else gone with it, closed meanwhile */
			tern_buffer_free(buf);
		return NULL;
	}
	Py_INCREF(d);
	b->device = d;
	b->buf = buf;
	b->size = size;
	b->host = host;
	b->cpu = NULL;
	b->exports = 0;
	b->busy = 0;
	return (PyObject *)b;
}

/* A new object of @type (a Stream or an Event) on @d. */
static PyObject *tern_py_device_queue(tern_py_device *d, PyTypeObject *type)
{
	PyObject *args = Py_BuildValue("(O)", (PyObject *)d);
	PyObject *obj;

	if (!args)
		return NULL;
	obj = PyObject_CallObject((PyObject *)type, args);
	Py_DECREF(args);
	return obj;
}

static PyObject *tern_py_device_stream(PyObject *self, PyObject *unused)
{
	(void)unused;
	return tern_py_device_queue((tern_py_device *)self,
				    &tern_py_stream_type);
}

static PyObject *tern_py_device_event(PyObject *self, PyObject *unused)
{
	(void)unused;
	return tern_py_device_queue((tern_py_device *)self,
				    &tern_py_event_type);
}

static PyObject *tern_py_device_enter(PyObject *self, PyObject *unused)
{
	(void)unused;
	Py_INCREF(self);
	return self;
}

static PyObject *tern_py_device_exit(PyObject *self, PyObject *args)
{
	(void)args;
	return tern_py_device_close(self, NULL);
}

static PyObject *tern_py_device_repr(PyObject *self)
{
	tern_py_device *d = (tern_py_device *)self;

	return PyUnicode_FromFormat("<tern.Device %d%s>", d->index,
				    d->dev ? "" : " (closed)");
}

static PyMethodDef tern_py_device_methods[] = {
	{ "close", tern_py_device_close, METH_NOARGS,
	  "close(): waits for its streams and frees all made on it." },
	{ "alloc", (PyCFunction)(void (*)(void))tern_py_device_alloc,
	  METH_VARARGS | METH_KEYWORDS,
	  "alloc(size, host=False) -> Buffer: device memory, or host memory "
	  "the device reaches." },
	{ "stream", tern_py_device_stream, METH_NOARGS,
	  "stream() -> Stream: a new stream of this device." },
	{ "event", tern_py_device_event, METH_NOARGS,
	  "event() -> Event: a new event of this device." },
	{ "memory_usage", tern_py_device_memory_usage, METH_NOARGS,
	  "memory_usage() -> (used, total): bytes of device memory." },
	{ "__enter__", tern_py_device_enter, METH_NOARGS, NULL },
	{ "__exit__", tern_py_device_exit, METH_VARARGS, NULL },
	{ NULL, NULL, 0, NULL }
};

static PyObject *tern_py_device_get_index(PyObject *self, void *closure)
{
	(void)closure;
	return PyLong_FromLong(((tern_py_device *)self)->index);
}

static PyObject *tern_py_device_get_closed(PyObject *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(((tern_py_device *)self)->dev == NULL);
}

static PyGetSetDef tern_py_device_getset[] = {
	{ "index", tern_py_device_get_index, NULL, "The device's index.",
	  NULL },
	{ "closed", tern_py_device_get_closed, NULL, "Whether it is closed.",
	  NULL },
	{ "properties", tern_py_device_properties, NULL,
	  "A dict of tern_device_properties_t's fields.", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

PyTypeObject tern_py_device_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "tern.Device",
	.tp_doc = "Device(index): an open Tern device.",
	.tp_basicsize = sizeof(tern_py_device),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_new = PyType_GenericNew,
	.tp_init = tern_py_device_init,
	.tp_dealloc = tern_py_device_dealloc,
	.tp_repr = tern_py_device_repr,
	.tp_methods = tern_py_device_methods,
	.tp_getset = tern_py_device_getset,
};
