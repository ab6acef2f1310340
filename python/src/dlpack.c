// SPDX-License-Identifier: MIT
/*
 * DLPack both ways. A Buffer is host-mapped memory (on the simulator and
 * on tern.ko alike), so __dlpack__ hands its bytes to torch.from_dlpack()
 * or numpy.from_dlpack() as a 1-D uint8 tensor on the CPU at the same
 * address, no copy; the tensor keeps the buffer (and so its memory)
 * alive. tern.from_dlpack() goes the other way with a copy: libtern
 * cannot map memory it did not allocate into a device's reach. What the
 * producer's capsule says is checked field by field before anything is
 * read, and the read itself cannot fault (foreign.c).
 */
#include <dlpack/dlpack.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pytern.h"

struct tern_py_dl {
	DLManagedTensor managed;
	int64_t shape[1];
	tern_py_buffer *buffer;		/* a reference */
};

/* The consumer is done with the tensor: let the buffer go. */
static void tern_py_dl_delete(DLManagedTensor *managed)
{
	struct tern_py_dl *dl = managed->manager_ctx;
	PyGILState_STATE gil = PyGILState_Ensure();	/* any thread may end it */

	tern_py_buffer_export(dl->buffer, -1);
	Py_DECREF(dl->buffer);
	PyMem_RawFree(dl);
	PyGILState_Release(gil);
}

/* A capsule nobody consumed ends with its tensor. */
static void tern_py_dl_capsule_free(PyObject *capsule)
{
	DLManagedTensor *managed;

	if (!PyCapsule_IsValid(capsule, "dltensor"))
		return;		/* consumed: "used_dltensor" */
	managed = PyCapsule_GetPointer(capsule, "dltensor");
	if (managed && managed->deleter)
		managed->deleter(managed);
}

PyObject *tern_py_buffer_dlpack(PyObject *self, PyObject *args,
				PyObject *kwargs)
{
	static char *kw[] = { "stream", NULL };
	tern_py_buffer *b = (tern_py_buffer *)self;
	PyObject *stream = Py_None, *capsule;
	struct tern_py_dl *dl;
	void *cpu;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$O:__dlpack__", kw,
					 &stream))
		return NULL;
	if (stream != Py_None && !PyLong_Check(stream))
		return tern_py_invalid("stream must be None or an int (the CPU has no streams)");
	cpu = tern_py_buffer_cpu(b);
	if (!cpu)
		return NULL;
	dl = PyMem_RawCalloc(1, sizeof(*dl));
	if (!dl)
		return PyErr_NoMemory();
	dl->shape[0] = (int64_t)b->size;
	dl->buffer = b;
	dl->managed.dl_tensor = (DLTensor){
		.data = cpu,
		.device = { .device_type = kDLCPU, .device_id = 0 },
		.ndim = 1,
		.dtype = { .code = kDLUInt, .bits = 8, .lanes = 1 },
		.shape = dl->shape,
	};
	dl->managed.manager_ctx = dl;
	dl->managed.deleter = tern_py_dl_delete;
	Py_INCREF(b);
	tern_py_buffer_export(b, 1);
	capsule = PyCapsule_New(&dl->managed, "dltensor",
				tern_py_dl_capsule_free);
	if (!capsule) {
		tern_py_buffer_export(b, -1);
		Py_DECREF(b);
		PyMem_RawFree(dl);
	}
	return capsule;
}

PyObject *tern_py_buffer_dlpack_device(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	return Py_BuildValue("(ii)", (int)kDLCPU, 0);
}

/* The most dimensions a tensor may have here, as numpy 2 allows. */
#define TERN_PY_DL_MAX_DIMS	64
/* kDLBool, from DLPack 0.8, which the installed header may predate. */
#define TERN_PY_DL_BOOL		6

static bool tern_py_dl_scalar(DLDataType dtype)
{
	switch (dtype.code) {
	case kDLInt:
	case kDLUInt:
	case kDLFloat:
	case kDLBfloat:
	case kDLComplex:
	case TERN_PY_DL_BOOL:
		return dtype.lanes == 1 && dtype.bits && dtype.bits % 8 == 0;
	default:
		return false;	/* an opaque handle, or a code we do not know */
	}
}

/*
 * Whether @t, a producer's word for its tensor, describes bytes we can
 * copy: a C-contiguous array of whole-byte scalars in CPU memory whose
 * size and address do not overflow. If so *@bytes is its size, else
 * @why says what is wrong. Whether the memory is really there is the
 * copy's to find out (tern_py_read_foreign).
 */
static bool tern_py_dl_check(const DLTensor *t, size_t *bytes, char *why,
			     size_t len)
{
	uint64_t n = 1, esize = t->dtype.bits / 8;
	uintptr_t start = (uintptr_t)t->data;

	if (t->device.device_type != kDLCPU &&
	    t->device.device_type != kDLCUDAHost) {
		snprintf(why, len, "the tensor is not in CPU memory (DLPack device type %d)",
			 (int)t->device.device_type);
		return false;
	}
	if (!tern_py_dl_scalar(t->dtype)) {
		snprintf(why, len, "its dtype (code %u, %u bits, %u lanes) is not a scalar of whole bytes",
			 t->dtype.code, t->dtype.bits, t->dtype.lanes);
		return false;
	}
	if (t->ndim < 0 || t->ndim > TERN_PY_DL_MAX_DIMS) {
		snprintf(why, len, "it has %d dimensions, not 0 to %d",
			 (int)t->ndim, TERN_PY_DL_MAX_DIMS);
		return false;
	}
	if (t->ndim > 0 && !t->shape) {
		snprintf(why, len, "it has %d dimensions but no shape",
			 (int)t->ndim);
		return false;
	}
	for (int i = 0; i < t->ndim; i++) {
		if (t->shape[i] < 0) {
			snprintf(why, len, "dimension %d is negative (%lld)", i,
				 (long long)t->shape[i]);
			return false;
		}
		if (t->shape[i] == 0) {
			snprintf(why, len, "it has no elements, and a Buffer holds at least one byte");
			return false;
		}
	}
	/* n: the elements of the dimensions past i, each row's stride. */
	for (int i = t->ndim - 1; i >= 0; i--) {
		uint64_t dim = (uint64_t)t->shape[i];

		if (t->strides && dim > 1 && t->strides[i] != (int64_t)n) {
			snprintf(why, len, "the tensor is not contiguous; call .contiguous() first");
			return false;
		}
		if (n > UINT64_MAX / dim) {
			snprintf(why, len, "its size is too large (its elements overflow 64 bits)");
			return false;
		}
		n *= dim;
	}
	if (n > (uint64_t)PY_SSIZE_T_MAX / esize) {
		snprintf(why, len, "its size is too large (%llu elements of %llu bytes)",
			 (unsigned long long)n, (unsigned long long)esize);
		return false;
	}
	*bytes = (size_t)(n * esize);
	if (!t->data) {
		snprintf(why, len, "it has NULL data and %zu bytes", *bytes);
		return false;
	}
	if (t->byte_offset > UINTPTR_MAX - start ||
	    *bytes - 1 > UINTPTR_MAX - start - t->byte_offset) {
		snprintf(why, len, "its data (byte offset %llu, %zu bytes) runs past the end of the address space",
			 (unsigned long long)t->byte_offset, *bytes);
		return false;
	}
	return true;
}

/*
 * Ends the producer's tensor. Its deleter may be Python code (a ctypes
 * callback), which must not run with an exception pending: whatever
 * from_dlpack raised waits aside, and an exception the deleter raises
 * is raised after it, as Python chains them.
 */
static void tern_py_dl_end(DLManagedTensor *managed)
{
	PyObject *type, *value, *tb, *dtype, *dvalue, *dtb;

	if (!managed->deleter)
		return;
	PyErr_Fetch(&type, &value, &tb);
	managed->deleter(managed);
	if (!PyErr_Occurred() || !type) {
		if (type)
			PyErr_Restore(type, value, tb);
		return;
	}
	PyErr_Fetch(&dtype, &dvalue, &dtb);
	PyErr_NormalizeException(&type, &value, &tb);
	PyErr_NormalizeException(&dtype, &dvalue, &dtb);
	if (tb)
		PyException_SetTraceback(value, tb);
	PyException_SetContext(dvalue, value);	/* takes value */
	Py_DECREF(type);
	Py_XDECREF(tb);
	PyErr_Restore(dtype, dvalue, dtb);
}

PyObject *tern_py_from_dlpack(PyObject *module, PyObject *args,
			      PyObject *kwargs)
{
	static char *kw[] = { "tensor", "device", NULL };
	PyObject *tensor, *device, *capsule, *buffer = NULL, *alloc;
	DLManagedTensor *managed;
	size_t bytes = 0;
	char why[256];
	void *cpu;
	int err;

	(void)module;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO:from_dlpack", kw,
					 &tensor, &device))
		return NULL;
	if (!PyObject_TypeCheck(device, &tern_py_device_type))
		return tern_py_invalid("from_dlpack: device must be a tern.Device, not %s",
				       Py_TYPE(device)->tp_name);
	if (PyCapsule_CheckExact(tensor)) {
		capsule = tensor;
		Py_INCREF(capsule);
	} else if (PyObject_HasAttrString(tensor, "__dlpack__")) {
		capsule = PyObject_CallMethod(tensor, "__dlpack__", NULL);
		if (!capsule)
			return NULL;
	} else {
		return tern_py_invalid("from_dlpack takes a DLPack capsule or an object with __dlpack__, not %s",
				       Py_TYPE(tensor)->tp_name);
	}
	managed = PyCapsule_GetPointer(capsule, "dltensor");
	if (!managed) {
		Py_DECREF(capsule);
		PyErr_Clear();
		return tern_py_invalid("from_dlpack: the capsule is not an unconsumed DLPack tensor");
	}
	if (!tern_py_dl_check(&managed->dl_tensor, &bytes, why, sizeof(why))) {
		tern_py_invalid("from_dlpack: %s", why);
	} else {
		alloc = PyObject_GetAttrString(device, "alloc");
		buffer = alloc ? PyObject_CallFunction(alloc, "n",
						       (Py_ssize_t)bytes) : NULL;
		Py_XDECREF(alloc);
		cpu = buffer ? tern_py_buffer_cpu((tern_py_buffer *)buffer) :
			       NULL;
		err = cpu ? tern_py_read_foreign(cpu,
				(char *)managed->dl_tensor.data +
				managed->dl_tensor.byte_offset, bytes) : 0;
		if (err)
			tern_py_invalid("from_dlpack: the tensor's %zu bytes at %p are not readable (%s)",
					bytes, (void *)((char *)managed->dl_tensor.data +
							managed->dl_tensor.byte_offset),
					strerror(err));
		if (!cpu || err)
			Py_CLEAR(buffer);
	}
	/* Consumed, copied or not: the tensor is ours to end. */
	PyCapsule_SetName(capsule, "used_dltensor");
	tern_py_dl_end(managed);
	Py_DECREF(capsule);
	if (PyErr_Occurred())
		Py_CLEAR(buffer);	/* the deleter raised */
	return buffer;
}
