// SPDX-License-Identifier: MIT
/*
 * tern.group_start() and group_end(). libtern keeps the collectives a
 * thread calls in between and launches them at the outermost end, one
 * communicator after another. Two threads ending groups on the same
 * ranks at once would interleave there (rank 0 launching A's group then
 * B's, rank 1 B's then A's), and every rank would pair another thread's
 * operation with its own: wrong results, and no error. So the end of a
 * group takes the order lock of every communicator it launches on, in
 * one order for all threads (by address), as a collective outside a
 * group takes its own comm's (comm.c): one group's launch is whole
 * before another's starts.
 *
 * A group also holds, until its end, the Comms and Streams its
 * collectives named: libtern launches on those streams as they were, so
 * destroying one of them is refused until then.
 */
#include <stdint.h>
#include <stdlib.h>

#include "pytern.h"

/* This thread's groups: how deep, and the (Comm, Stream) of each op. */
static _Thread_local int tern_py_group_depth;
static _Thread_local PyObject *tern_py_group_ops;

bool tern_py_in_group(void)
{
	return tern_py_group_depth > 0;
}

bool tern_py_group_note(tern_py_comm *comm, tern_py_stream *stream)
{
	PyObject *op;
	int err;

	if (!tern_py_group_depth)
		return true;
	if (!tern_py_group_ops) {
		tern_py_group_ops = PyList_New(0);
		if (!tern_py_group_ops)
			return false;
	}
	op = PyTuple_Pack(2, (PyObject *)comm, (PyObject *)stream);
	if (!op)
		return false;
	err = PyList_Append(tern_py_group_ops, op);
	Py_DECREF(op);
	if (err)
		return false;
	stream->grouped++;
	return true;
}

static PyObject *tern_py_group_start(PyObject *m, PyObject *unused)
{
	tern_status_t st = tern_group_start();

	(void)m;
	(void)unused;
	if (st)
		return tern_py_raise(st);
	tern_py_group_depth++;
	Py_RETURN_NONE;
}

static int tern_py_comm_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(tern_py_comm *const *)a;
	uintptr_t y = (uintptr_t)*(tern_py_comm *const *)b;

	return x < y ? -1 : x > y;
}

/*
 * The outermost end: @ops' communicators, each once and by address,
 * held with their stream and locked while libtern launches.
 */
static tern_status_t tern_py_group_launch(PyObject *ops)
{
	Py_ssize_t n = PyList_GET_SIZE(ops), k = 0;
	struct tern_py_hold *holds;
	tern_py_comm **comms;
	tern_status_t st;

	comms = PyMem_Calloc((size_t)n + 1, sizeof(*comms));
	holds = PyMem_Calloc((size_t)n + 1, sizeof(*holds));
	if (!comms || !holds) {
		PyMem_Free(comms);
		PyMem_Free(holds);
		PyErr_NoMemory();
		return TERN_ERROR_OUT_OF_MEMORY;
	}
	for (Py_ssize_t i = 0; i < n; i++)
		comms[i] = (tern_py_comm *)PyTuple_GET_ITEM(
			PyList_GET_ITEM(ops, i), 0);
	qsort(comms, (size_t)n, sizeof(*comms), tern_py_comm_cmp);
	for (Py_ssize_t i = 0; i < n; i++) {
		tern_py_comm *c = comms[i];

		/* Once each; and one gone (libtern skips it) needs no lock. */
		if ((k && comms[k - 1] == c) || !c->comm || !c->device->dev)
			continue;
		tern_py_hold_add(&holds[k], &c->device->busy);
		tern_py_hold_add(&holds[k], &c->busy);
		comms[k++] = c;
	}
	/* Each comm's ops are on one stream (libtern refuses others). */
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *op = PyList_GET_ITEM(ops, i);
		tern_py_comm *c = (tern_py_comm *)PyTuple_GET_ITEM(op, 0);
		tern_py_stream *s = (tern_py_stream *)PyTuple_GET_ITEM(op, 1);
		tern_py_comm **at = bsearch(&c, comms, (size_t)k, sizeof(*comms),
					    tern_py_comm_cmp);

		if (at && holds[at - comms].n == 2 && s->stream &&
		    s->device->dev) {
			tern_py_hold_add(&holds[at - comms], &s->device->busy);
			tern_py_hold_add(&holds[at - comms], &s->busy);
		}
	}
	Py_BEGIN_ALLOW_THREADS
	for (Py_ssize_t i = 0; i < k; i++)
		pthread_mutex_lock(&comms[i]->order);
	st = tern_group_end();
	for (Py_ssize_t i = k - 1; i >= 0; i--)
		pthread_mutex_unlock(&comms[i]->order);
	for (Py_ssize_t i = 0; i < k; i++)
		tern_py_hold_end(&holds[i]);
	Py_END_ALLOW_THREADS
	PyMem_Free(comms);
	PyMem_Free(holds);
	return st;
}

static PyObject *tern_py_group_end(PyObject *m, PyObject *unused)
{
	PyObject *ops = tern_py_group_ops;
	tern_status_t st;

	(void)m;
	(void)unused;
	if (tern_py_group_depth != 1) {
		st = tern_group_end();	/* an inner end, or one without a start */
		if (st)
			return tern_py_raise(st);
		if (tern_py_group_depth)
			tern_py_group_depth--;
		Py_RETURN_NONE;
	}
	if (!ops) {
		Py_BEGIN_ALLOW_THREADS
		st = tern_group_end();
		Py_END_ALLOW_THREADS
	} else {
		st = tern_py_group_launch(ops);
		if (st == TERN_ERROR_OUT_OF_MEMORY && PyErr_Occurred())
			return NULL;	/* nothing launched: the group stays open */
	}
	tern_py_group_depth = 0;
	tern_py_group_ops = NULL;
	for (Py_ssize_t i = 0; ops && i < PyList_GET_SIZE(ops); i++)
		((tern_py_stream *)PyTuple_GET_ITEM(PyList_GET_ITEM(ops, i), 1))
			->grouped--;
	Py_XDECREF(ops);
	if (st)
		return tern_py_raise(st);
	Py_RETURN_NONE;
}

PyMethodDef tern_py_group_functions[] = {
	{ "group_start", tern_py_group_start, METH_NOARGS,
	  "group_start(): collectives until group_end() launch together." },
	{ "group_end", tern_py_group_end, METH_NOARGS,
	  "group_end(): launches the group's collectives, whole before "
	  "another thread's group on the same communicators." },
	{ NULL, NULL, 0, NULL }
};
