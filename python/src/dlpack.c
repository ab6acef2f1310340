// SPDX-License-Identifier: MIT
/*
 * DLPack both ways. A Buffer is host-mapped memory (on the simulator and
 * on tern.ko alike), so __dlpack__ hands its bytes to torch.from_dlpack()
 * or numpy.from_dlpack() as a 1-D uint8 tensor on the CPU at the same
 * address, no copy; the tensor keeps the buffer (and so its memory)
 * alive. tern.from_dlpack() goes the other way with a copy: libtern
 * cannot map memory it did not allocate into a device's reach.
 */
#include <dlpack/dlpack.h>
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

/* The bytes of a compact (C-contiguous) @t in CPU memory, else NULL. */
static const char *tern_py_dl_bytes(const DLTensor *t, size_t *bytes)
{
	uint64_t n = 1, stride = 1;

	if (t->device.device_type != kDLCPU &&
	    t->device.device_type != kDLCUDAHost)
		return "the tensor is not in CPU memory";
	if (t->dtype.lanes != 1 || t->dtype.bits % 8)
		return "its elements are not whole bytes";
	for (int i = t->ndim - 1; i >= 0; i--) {
		if (t->shape[i] < 0)
			return "a dimension is negative";
		if (t->strides && t->shape[i] > 1 &&
		    t->strides[i] != (int64_t)stride)
			return "the tensor is not contiguous; call .contiguous() first";
		stride *= (uint64_t)t->shape[i];
		n *= (uint64_t)t->shape[i];
	}
	*bytes = (size_t)(n * (t->dtype.bits / 8));
	return NULL;
}

PyObject *tern_py_from_dlpack(PyObject *module, PyObject *args,
			      PyObject *kwargs)
{
	static char *kw[] = { "tensor", "device", NULL };
	PyObject *tensor, *device, *capsule, *buffer = NULL, *alloc;
	DLManagedTensor *managed;
	const char *why;
	size_t bytes = 0;
	void *cpu;

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
	why = tern_py_dl_bytes(&managed->dl_tensor, &bytes);
	if (why) {
		tern_py_invalid("from_dlpack: %s", why);
	} else {
		alloc = PyObject_GetAttrString(device, "alloc");
		buffer = alloc ? PyObject_CallFunction(alloc, "n",
						       (Py_ssize_t)bytes) : NULL;
		Py_XDECREF(alloc);
		cpu = buffer ? tern_py_buffer_cpu((tern_py_buffer *)buffer) :
			       NULL;
		if (cpu)
			memcpy(cpu, (char *)managed->dl_tensor.data +
				    managed->dl_tensor.byte_offset, bytes);
		else
			Py_CLEAR(buffer);
	}
	/* Consumed, copied or not: the tensor is ours to end. */
	PyCapsule_SetName(capsule, "used_dltensor");
	if (managed->deleter)
		managed->deleter(managed);
	Py_DECREF(capsule);
	return buffer;
}
