// SPDX-License-Identifier: MIT
/*
 * tern._tern: the module, its error and constants, and what is no
 * object's: the backend, device count, unique ids (groups: group.c).
 *
 * Every failure is a tern.Error whose args are (message,) and whose
 * .status is the status's name ("TERN_ERROR_INVALID_ARGUMENT") and .code
 * its number: an argument Python cannot even hand libtern (a negative
 * count, a dtype that is no dtype) is INVALID_ARGUMENT too.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pytern.h"

static PyObject *tern_py_error;

static PyObject *tern_py_raise_text(tern_status_t status, const char *text)
{
	PyObject *err = PyObject_CallFunction(tern_py_error, "s", text);

	if (!err)
		return NULL;
	if (PyObject_SetAttrString(err, "status",
				   PyUnicode_FromString(tern_status_name(status))) ||
	    PyObject_SetAttrString(err, "code", PyLong_FromLong(status))) {
		Py_DECREF(err);
		return NULL;
	}
	PyErr_SetObject(tern_py_error, err);
	Py_DECREF(err);
	return NULL;
}

PyObject *tern_py_raise(tern_status_t status)
{
	const char *why = tern_get_last_error();
	char text[1024];

	if (why && *why)
		snprintf(text, sizeof(text), "%s: %s (%s)",
			 tern_status_name(status), tern_status_string(status),
			 why);
	else
		snprintf(text, sizeof(text), "%s: %s",
			 tern_status_name(status), tern_status_string(status));
	return tern_py_raise_text(status, text);
}

PyObject *tern_py_invalid(const char *fmt, ...)
{
	char text[512], full[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	snprintf(full, sizeof(full), "%s: %s",
		 tern_status_name(TERN_ERROR_INVALID_ARGUMENT), text);
	return tern_py_raise_text(TERN_ERROR_INVALID_ARGUMENT, full);
}

bool tern_py_size(PyObject *obj, const char *what, size_t *out)
{
	if (!PyLong_Check(obj)) {
		tern_py_invalid("%s must be an int, not %s", what,
				Py_TYPE(obj)->tp_name);
		return false;
	}
	*out = PyLong_AsSize_t(obj);
	if (*out == (size_t)-1 && PyErr_Occurred()) {
		PyErr_Clear();
		tern_py_invalid("%s must be from 0 to 2**64 - 2", what);
		return false;
	}
	return true;
}

static const char *const tern_py_redop_names[TERN_REDOP_COUNT] = {
	[TERN_SUM] = "sum", [TERN_PROD] = "prod", [TERN_MIN] = "min",
	[TERN_MAX] = "max", [TERN_AVG] = "avg",
};

/* Element types by libtern's names, as torch and numpy spell them. */
static const char *tern_py_dtype_name(int i)
{
	return tern_dtype_name((tern_dtype_t)i);
}

static const char *tern_py_redop_name(int i)
{
	return tern_py_redop_names[i];
}

bool tern_py_enum(PyObject *obj, const char *(*name)(int), int n,
			 const char *what, int *out)
{
	if (PyLong_Check(obj)) {
		long v = PyLong_AsLong(obj);

		if (v >= 0 && v < n) {
			*out = (int)v;
			return true;
		}
		PyErr_Clear();
	} else if (PyUnicode_Check(obj)) {
		const char *s = PyUnicode_AsUTF8(obj);

		for (int i = 0; s && i < n; i++) {
			if (strcmp(s, name(i)) == 0) {
				*out = i;
				return true;
			}
		}
		PyErr_Clear();
	}
	tern_py_invalid("%s must be one of tern's %ss (0 to %d, or a name such as '%s')",
			what, what, n - 1, name(0));
	return false;
}

bool tern_py_dtype(PyObject *obj, tern_dtype_t *out)
{
	int v;

	if (!tern_py_enum(obj, tern_py_dtype_name, TERN_DTYPE_COUNT, "dtype",
			  &v))
		return false;
	*out = (tern_dtype_t)v;
	return true;
}

bool tern_py_redop(PyObject *obj, tern_redop_t *out)
{
	int v;

	if (!tern_py_enum(obj, tern_py_redop_name, TERN_REDOP_COUNT, "op",
			  &v))
		return false;
	*out = (tern_redop_t)v;
	return true;
}

static PyObject *tern_py_device_count(PyObject *m, PyObject *unused)
{
	tern_status_t st;
	int n = 0;

	(void)m;
	(void)unused;
	Py_BEGIN_ALLOW_THREADS
	st = tern_device_count(&n);
	Py_END_ALLOW_THREADS
	if (st)
		return tern_py_raise(st);
	return PyLong_FromLong(n);
}

static PyObject *tern_py_backend(PyObject *m, PyObject *unused)
{
	tern_backend_t backend;
	tern_status_t st;

	(void)m;
	(void)unused;
	Py_BEGIN_ALLOW_THREADS
	st = tern_get_backend(&backend);
	Py_END_ALLOW_THREADS
	if (st)
		return tern_py_raise(st);
	return PyUnicode_FromString(tern_backend_name(backend));
}

static PyObject *tern_py_unique_id(PyObject *m, PyObject *unused)
{
	tern_unique_id_t id;
	tern_status_t st;

	(void)m;
	(void)unused;
	st = tern_get_unique_id(&id);
	if (st)
		return tern_py_raise(st);
	return PyBytes_FromStringAndSize(id.internal, sizeof(id.internal));
}

static PyObject *tern_py_unique_id_public(PyObject *m, PyObject *arg)
{
	tern_unique_id_t id, pub;
	Py_buffer view;
	tern_status_t st;

	(void)m;
	if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE))
		return NULL;
	if (view.len != (Py_ssize_t)sizeof(id.internal)) {
		PyBuffer_Release(&view);
		return tern_py_invalid("id must be the %zu bytes of tern.unique_id(), not %zd",
				       sizeof(id.internal), view.len);
	}
	memcpy(id.internal, view.buf, sizeof(id.internal));
	PyBuffer_Release(&view);
	st = tern_unique_id_public(&id, &pub);
	if (st)
		return tern_py_raise(st);
	return PyBytes_FromStringAndSize(pub.internal, sizeof(pub.internal));
}

static PyObject *tern_py_dtype_size(PyObject *m, PyObject *arg)
{
	tern_dtype_t dtype;
	size_t bytes = 0;

	(void)m;
	if (!tern_py_dtype(arg, &dtype))
		return NULL;
	tern_dtype_size(dtype, &bytes);
	return PyLong_FromSize_t(bytes);
}

static PyObject *tern_py_status_name(PyObject *m, PyObject *arg)
{
	long v = PyLong_AsLong(arg);

	(void)m;
	if (v == -1 && PyErr_Occurred())
		return NULL;
	return PyUnicode_FromString(tern_status_name((tern_status_t)v));
}

static PyMethodDef tern_py_functions[] = {
	{ "device_count", tern_py_device_count, METH_NOARGS,
	  "device_count() -> int: the devices of the backend." },
	{ "backend", tern_py_backend, METH_NOARGS,
	  "backend() -> 'kernel' or 'sim': the backend libtern chose." },
	{ "unique_id", tern_py_unique_id, METH_NOARGS,
	  "unique_id() -> bytes: an id for Comm(); rank 0 makes it and hands "
	  "it to every rank as it is: whoever holds it may join." },
	{ "unique_id_public", tern_py_unique_id_public, METH_O,
	  "unique_id_public(id) -> bytes: id without its secret, for a place "
	  "others can read; every rank joins with it and takes the secret "
	  "from TERN_COMM_SECRET, or on this host from the user's own file." },
	{ "dtype_size", tern_py_dtype_size, METH_O,
	  "dtype_size(dtype) -> int: bytes of one element." },
	{ "status_name", tern_py_status_name, METH_O,
	  "status_name(code) -> str: the name of a status number." },
	{ "from_dlpack", (PyCFunction)(void (*)(void))tern_py_from_dlpack,
	  METH_VARARGS | METH_KEYWORDS,
	  "from_dlpack(tensor, device) -> Buffer: a Tern buffer holding a "
	  "copy of a DLPack tensor's bytes (Tern cannot map foreign memory)." },
	{ NULL, NULL, 0, NULL }
};

static struct PyModuleDef tern_py_module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "tern._tern",
	.m_doc = "libtern from Python: devices, buffers, streams, events, "
		 "communicators, collectives and the compute kernels.",
	.m_size = -1,
	.m_methods = tern_py_functions,
};

static int tern_py_add_type(PyObject *m, PyTypeObject *type, const char *name)
{
	if (PyType_Ready(type) < 0)
		return -1;
	Py_INCREF(type);
	if (PyModule_AddObject(m, name, (PyObject *)type) < 0) {
		Py_DECREF(type);
		return -1;
	}
	return 0;
}

static int tern_py_add_constants(PyObject *m)
{
	for (int i = 0; i < TERN_DTYPE_COUNT; i++) {
		char name[32];

		snprintf(name, sizeof(name), "%s", tern_py_dtype_name(i));
		for (char *c = name; *c; c++)
			*c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
		if (PyModule_AddIntConstant(m, name, i))
			return -1;
	}
	for (int i = 0; i < TERN_REDOP_COUNT; i++) {
		char name[32];

		snprintf(name, sizeof(name), "%s", tern_py_redop_names[i]);
		for (char *c = name; *c; c++)
			*c = (char)(*c - 32);
		if (PyModule_AddIntConstant(m, name, i))
			return -1;
	}
	return 0;
}

PyMODINIT_FUNC PyInit__tern(void)
{
	PyObject *m = PyModule_Create(&tern_py_module);
	char version[32];

	if (!m)
		return NULL;
	tern_py_error = PyErr_NewExceptionWithDoc("tern.Error",
		"A libtern call failed: .status is the status's name, .code its number.",
		NULL, NULL);
	Py_XINCREF(tern_py_error);	/* ours; the module takes the other */
	snprintf(version, sizeof(version), "%d.%d.%d", TERN_VERSION_MAJOR,
		 TERN_VERSION_MINOR, TERN_VERSION_PATCH);
	if (!tern_py_error || PyModule_AddObject(m, "Error", tern_py_error) ||
	    PyModule_AddStringConstant(m, "__version__", version) ||
	    tern_py_add_constants(m) ||
	    tern_py_add_type(m, &tern_py_device_type, "Device") ||
	    tern_py_add_type(m, &tern_py_buffer_type, "Buffer") ||
	    tern_py_add_type(m, &tern_py_stream_type, "Stream") ||
	    tern_py_add_type(m, &tern_py_event_type, "Event") ||
	    tern_py_add_type(m, &tern_py_comm_type, "Comm") ||
	    tern_py_add_type(m, &tern_py_matrix_type, "Matrix") ||
	    PyModule_AddFunctions(m, tern_py_compute_functions) ||
	    PyModule_AddFunctions(m, tern_py_comm_functions) ||
	    PyModule_AddFunctions(m, tern_py_group_functions)) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
