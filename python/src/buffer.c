// SPDX-License-Identifier: MIT
/*
 * tern.Buffer: memory of a device (Device.alloc). Python's buffer
 * protocol shows it as writable bytes without a copy (memoryview, numpy),
 * as DLPack does (dlpack.c); either keeps the memory from being freed
 * while it lives.
 */
#include "pytern.h"

/* Whether @b can still be used; raises tern.Error if not. */
static bool tern_py_buffer_live(tern_py_buffer *b)
{
	if (!b->buf) {
		tern_py_invalid("the buffer is freed");
		return false;
	}
	return tern_py_device_open(b->device);
}

void *tern_py_buffer_cpu(tern_py_buffer *b)
{
	tern_status_t st;

	if (!tern_py_buffer_live(b))
		return NULL;
	if (!b->cpu) {
		st = tern_buffer_map(b->buf, &b->cpu);
		if (st) {
			b->cpu = NULL;
			tern_py_raise(st);
			return NULL;
		}
	}
	return b->cpu;
}

void tern_py_buffer_export(tern_py_buffer *b, int delta)
{
	b->exports += delta;
	b->device->exports += delta;
}

bool tern_py_place(PyObject *obj, const char *what, tern_ptr_t *out,
		   struct tern_py_hold *hold)
{
	PyObject *buf = obj, *off = NULL;
	tern_py_buffer *b;
	size_t offset = 0;

	if (PyTuple_Check(obj) && PyTuple_GET_SIZE(obj) == 2) {
		buf = PyTuple_GET_ITEM(obj, 0);
		off = PyTuple_GET_ITEM(obj, 1);
	}
	if (!PyObject_TypeCheck(buf, &tern_py_buffer_type)) {
		tern_py_invalid("%s must be a tern.Buffer or (Buffer, offset), not %s",
				what, Py_TYPE(obj)->tp_name);
		return false;
	}
	b = (tern_py_buffer *)buf;
	if ((off && !tern_py_size(off, "offset", &offset)) ||
	    !tern_py_buffer_live(b))
		return false;
	if (hold) {
		tern_py_hold_add(hold, &b->device->busy);
		tern_py_hold_add(hold, &b->busy);
	}
	out->buffer = b->buf;
	out->offset = offset;
	return true;
}

static PyObject *tern_py_buffer_free(PyObject *self, PyObject *unused)
{
	tern_py_buffer *b = (tern_py_buffer *)self;
	struct tern_py_hold hold = { .n = 0 };
	tern_buffer_t buf = b->buf;
	tern_status_t st;

	(void)unused;
	if (!b->buf)
		Py_RETURN_NONE;
	if (b->exports) {
		PyErr_Format(PyExc_BufferError,
			     "%zd views or tensors of the buffer are still alive",
			     b->exports);
		return NULL;
	}
	b->buf = NULL;		/* no call holds it from now on */
	b->cpu = NULL;
	if (!b->device->dev)
		Py_RETURN_NONE;	/* gone with its device */
	tern_py_hold_add(&hold, &b->device->busy);
	Py_BEGIN_ALLOW_THREADS
	tern_py_drain(&b->busy);
	st = tern_buffer_free(buf);
	tern_py_hold_end(&hold);
	Py_END_ALLOW_THREADS
	if (st)
		return tern_py_raise(st);
	Py_RETURN_NONE;
}

static void tern_py_buffer_dealloc(PyObject *self)
{
	tern_py_buffer *b = (tern_py_buffer *)self;

	/* No view is left: each holds a reference to us. */
	if (b->buf && b->device->dev)
		tern_buffer_free(b->buf);
	Py_DECREF(b->device);
	Py_TYPE(self)->tp_free(self);
}

static int tern_py_buffer_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
	tern_py_buffer *b = (tern_py_buffer *)self;
	void *cpu = tern_py_buffer_cpu(b);

	if (!cpu) {
		view->obj = NULL;
		return -1;
	}
	if (PyBuffer_FillInfo(view, self, cpu, (Py_ssize_t)b->size, 0, flags))
		return -1;
	tern_py_buffer_export(b, 1);
	return 0;
}

static void tern_py_buffer_releasebuffer(PyObject *self, Py_buffer *view)
{
	(void)view;
	tern_py_buffer_export((tern_py_buffer *)self, -1);
}

static PyBufferProcs tern_py_buffer_procs = {
	.bf_getbuffer = tern_py_buffer_getbuffer,
	.bf_releasebuffer = tern_py_buffer_releasebuffer,
};

static PyObject *tern_py_buffer_get_size(PyObject *self, void *closure)
{
	(void)closure;
	return PyLong_FromSize_t(((tern_py_buffer *)self)->size);
}

static PyObject *tern_py_buffer_get_address(PyObject *self, void *closure)
{
	tern_py_buffer *b = (tern_py_buffer *)self;
	tern_status_t st;
	uint64_t va;

	(void)closure;
	if (!tern_py_buffer_live(b))
		return NULL;
	st = tern_buffer_device_address(b->buf, &va);
	if (st)
		return tern_py_raise(st);
	return PyLong_FromUnsignedLongLong(va);
}

static PyObject *tern_py_buffer_get_device(PyObject *self, void *closure)
{
	tern_py_buffer *b = (tern_py_buffer *)self;

	(void)closure;
	Py_INCREF(b->device);
	return (PyObject *)b->device;
}

static PyObject *tern_py_buffer_get_freed(PyObject *self, void *closure)
{
	tern_py_buffer *b = (tern_py_buffer *)self;

	(void)closure;
	return PyBool_FromLong(!b->buf || !b->device->dev);
}

static PyObject *tern_py_buffer_get_host(PyObject *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(((tern_py_buffer *)self)->host);
}

static PyGetSetDef tern_py_buffer_getset[] = {
	{ "size", tern_py_buffer_get_size, NULL, "Its bytes.", NULL },
	{ "address", tern_py_buffer_get_address, NULL,
	  "Its first byte's address on the device.", NULL },
	{ "device", tern_py_buffer_get_device, NULL, "Its Device.", NULL },
	{ "host", tern_py_buffer_get_host, NULL,
	  "Whether it is host memory the device reaches.", NULL },
	{ "freed", tern_py_buffer_get_freed, NULL,
	  "Whether it is freed (or its device closed).", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

static PyObject *tern_py_buffer_enter(PyObject *self, PyObject *unused)
{
	(void)unused;
	Py_INCREF(self);
	return self;
}

static PyObject *tern_py_buffer_exit(PyObject *self, PyObject *args)
{
	(void)args;
	return tern_py_buffer_free(self, NULL);
}

static PyMethodDef tern_py_buffer_methods[] = {
	{ "free", tern_py_buffer_free, METH_NOARGS,
	  "free(): frees it; work using it must have completed. Refused "
	  "(BufferError) while a view or tensor of it lives." },
	{ "__dlpack__", (PyCFunction)(void (*)(void))tern_py_buffer_dlpack,
	  METH_VARARGS | METH_KEYWORDS,
	  "__dlpack__(stream=None): a DLPack capsule of its bytes, uint8, "
	  "on the CPU (the memory is host-mapped), without a copy." },
	{ "__dlpack_device__", tern_py_buffer_dlpack_device, METH_NOARGS,
	  "__dlpack_device__() -> (kDLCPU, 0)." },
	{ "__enter__", tern_py_buffer_enter, METH_NOARGS, NULL },
	{ "__exit__", tern_py_buffer_exit, METH_VARARGS, NULL },
	{ NULL, NULL, 0, NULL }
};

static PyObject *tern_py_buffer_repr(PyObject *self)
{
	tern_py_buffer *b = (tern_py_buffer *)self;

	return PyUnicode_FromFormat("<tern.Buffer %zu bytes of %s memory on device %d%s>",
				    b->size, b->host ? "host" : "device",
				    b->device->index,
				    b->buf && b->device->dev ? "" : " (freed)");
}

static PyObject *tern_py_buffer_new(PyTypeObject *type, PyObject *args,
				    PyObject *kwargs)
{
	(void)type;
	(void)args;
	(void)kwargs;
	return tern_py_invalid("buffers come from Device.alloc()");
}

PyTypeObject tern_py_buffer_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "tern.Buffer",
	.tp_doc = "Memory of a device, from Device.alloc(); a bytes-like "
		  "object and a DLPack producer.",
	.tp_basicsize = sizeof(tern_py_buffer),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_new = tern_py_buffer_new,
	.tp_dealloc = tern_py_buffer_dealloc,
	.tp_repr = tern_py_buffer_repr,
	.tp_as_buffer = &tern_py_buffer_procs,
	.tp_methods = tern_py_buffer_methods,
	.tp_getset = tern_py_buffer_getset,
};
