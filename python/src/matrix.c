// SPDX-License-Identifier: MIT
/*
 * tern.Matrix: a matrix in a tern.Buffer, as the compute kernels take it
 * (tern_matrix_t): rows x cols elements of a dtype from a byte offset,
 * row r starting ld elements after row r - 1. It only describes: the
 * kernels check it against its buffer when they run.
 */
#include "pytern.h"

#include <structmember.h>

static PyObject *tern_py_matrix_new(PyTypeObject *type, PyObject *args,
				    PyObject *kwargs)
{
	static char *kw[] = { "buffer", "rows", "cols", "dtype", "offset",
			      "ld", NULL };
	PyObject *buf, *rows_obj, *cols_obj, *dtype_obj = NULL;
	PyObject *offset_obj = NULL, *ld_obj = Py_None;
	size_t rows, cols, ld, offset = 0;
	tern_dtype_t dtype = TERN_FLOAT32;
	tern_py_matrix *m;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|OOO:Matrix", kw,
					 &buf, &rows_obj, &cols_obj, &dtype_obj,
					 &offset_obj, &ld_obj))
		return NULL;
	if (!PyObject_TypeCheck(buf, &tern_py_buffer_type))
		return tern_py_invalid("buffer must be a tern.Buffer, not %s",
				       Py_TYPE(buf)->tp_name);
	if (!tern_py_size(rows_obj, "rows", &rows) ||
	    !tern_py_size(cols_obj, "cols", &cols) ||
	    (dtype_obj && !tern_py_dtype(dtype_obj, &dtype)) ||
	    (offset_obj && !tern_py_size(offset_obj, "offset", &offset)))
		return NULL;
	ld = cols;
	if (ld_obj != Py_None && !tern_py_size(ld_obj, "ld", &ld))
		return NULL;
	if (rows < 1 || rows > UINT32_MAX || cols < 1 || cols > UINT32_MAX)
		return tern_py_invalid("a matrix is 1 to 2**32 - 1 rows and columns, not %zu x %zu",
				       rows, cols);
	if (ld < cols || ld > UINT32_MAX)
		return tern_py_invalid("ld must be at least cols (%zu) and below 2**32, not %zu",
				       cols, ld);
	m = (tern_py_matrix *)type->tp_alloc(type, 0);
	if (!m)
		return NULL;
	Py_INCREF(buf);
	m->buffer = (tern_py_buffer *)buf;
	m->offset = offset;
	m->dtype = dtype;
	m->rows = (uint32_t)rows;
	m->cols = (uint32_t)cols;
	m->ld = (uint32_t)ld;
	return (PyObject *)m;
}

static void tern_py_matrix_dealloc(PyObject *self)
{
	tern_py_matrix *m = (tern_py_matrix *)self;

	Py_XDECREF(m->buffer);
	Py_TYPE(self)->tp_free(self);
}

static PyObject *tern_py_matrix_repr(PyObject *self)
{
	tern_py_matrix *m = (tern_py_matrix *)self;

	return PyUnicode_FromFormat("tern.Matrix(%u x %u %s at offset %zu, ld %u)",
				    m->rows, m->cols,
				    tern_dtype_name(m->dtype), m->offset,
				    m->ld);
}

static PyObject *tern_py_matrix_dtype(PyObject *self, void *unused)
{
	(void)unused;
	return PyUnicode_FromString(
		tern_dtype_name(((tern_py_matrix *)self)->dtype));
}

static PyObject *tern_py_matrix_nbytes(PyObject *self, void *unused)
{
	tern_py_matrix *m = (tern_py_matrix *)self;
	size_t es = 0;

	(void)unused;
	tern_dtype_size(m->dtype, &es);
	return PyLong_FromSize_t(((size_t)(m->rows - 1) * m->ld + m->cols) *
				 es);
}

static PyMemberDef tern_py_matrix_members[] = {
	{ "buffer", T_OBJECT, offsetof(tern_py_matrix, buffer), READONLY,
	  "the tern.Buffer it lies in" },
	{ "offset", T_ULONG, offsetof(tern_py_matrix, offset), READONLY,
	  "bytes into the buffer of its first element" },
	{ "rows", T_UINT, offsetof(tern_py_matrix, rows), READONLY, NULL },
	{ "cols", T_UINT, offsetof(tern_py_matrix, cols), READONLY, NULL },
	{ "ld", T_UINT, offsetof(tern_py_matrix, ld), READONLY,
	  "elements from one row's start to the next's" },
	{ NULL, 0, 0, 0, NULL }
};

static PyGetSetDef tern_py_matrix_getset[] = {
	{ "dtype", tern_py_matrix_dtype, NULL, "its element type's name",
	  NULL },
	{ "nbytes", tern_py_matrix_nbytes, NULL,
	  "bytes from its first element to its last one's end", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

PyTypeObject tern_py_matrix_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "tern.Matrix",
	.tp_doc = "Matrix(buffer, rows, cols, dtype='float32', offset=0, "
		  "ld=cols): a matrix in a tern.Buffer for the compute "
		  "kernels; row r starts ld elements after row r - 1.",
	.tp_basicsize = sizeof(tern_py_matrix),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_new = tern_py_matrix_new,
	.tp_dealloc = tern_py_matrix_dealloc,
	.tp_repr = tern_py_matrix_repr,
	.tp_members = tern_py_matrix_members,
	.tp_getset = tern_py_matrix_getset,
};

bool tern_py_matrix_of(PyObject *obj, const char *what, tern_matrix_t *out,
		       struct tern_py_hold *hold)
{
	tern_py_matrix *m;

	if (!PyObject_TypeCheck(obj, &tern_py_matrix_type)) {
		tern_py_invalid("%s must be a tern.Matrix, not %s", what,
				Py_TYPE(obj)->tp_name);
		return false;
	}
	m = (tern_py_matrix *)obj;
	if (!tern_py_place((PyObject *)m->buffer, what, &out->ptr, hold))
		return false;
	out->ptr.offset = m->offset;
	out->dtype = m->dtype;
	out->rows = m->rows;
	out->cols = m->cols;
	out->ld = m->ld;
	return true;
}
