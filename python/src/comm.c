// SPDX-License-Identifier: MIT
/*
 * tern.Comm: a communicator, one rank per process (Comm(nranks, id,
 * rank, device), the id from tern.unique_id()) or one per device of this
 * process (tern.init_all(devices)), and its collectives, each enqueued on
 * a stream of the comm's device. Places are Buffers or (Buffer, offset);
 * counts are elements; dtypes and ops tern's constants or their names.
 * Calls that may wait (init, destroy, the enqueues) release the GIL,
 * holding what they use (guard.c). A comm's collectives are enqueued one
 * at a time, under its order lock, whichever threads call them.
 */
#include <stdio.h>
#include <string.h>

#include "pytern.h"

/* A communicator libtern made, and what it says of itself. */
struct tern_py_made {
	tern_comm_t comm;
	int rank, size;
};

/* Asks @m->comm its rank and size: while its device is held. */
static void tern_py_comm_ask(struct tern_py_made *m)
{
	tern_comm_rank(m->comm, &m->rank);
	tern_comm_count(m->comm, &m->size);
}

/* The Comm of @m on @d (which may have closed since: it is gone then). */
static PyObject *tern_py_comm_wrap(tern_py_device *d,
				   const struct tern_py_made *m)
{
	tern_py_comm *c = PyObject_New(tern_py_comm, &tern_py_comm_type);

	if (!c) {
		if (d->dev)
			tern_comm_destroy(m->comm);
		return NULL;
	}
	Py_INCREF(d);
	c->device = d;
	c->comm = m->comm;
	c->rank = m->rank;
	c->size = m->size;
	c->busy = 0;
	pthread_mutex_init(&c->order, NULL);
	return (PyObject *)c;
}

static PyObject *tern_py_comm_new(PyTypeObject *type, PyObject *args,
				  PyObject *kwargs)
{
	static char *kw[] = { "nranks", "id", "rank", "device", NULL };
	struct tern_py_hold hold = { .n = 0 };
	struct tern_py_made made;
	tern_py_device *d;
	PyObject *dev_obj;
	tern_unique_id_t id;
	tern_device_t dev;
	tern_status_t st;
	const char *bytes;
	Py_ssize_t len;
	int nranks, rank;

	(void)type;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "iy#iO:Comm", kw,
					 &nranks, &bytes, &len, &rank,
					 &dev_obj))
		return NULL;
	if (len != (Py_ssize_t)sizeof(id.internal))
		return tern_py_invalid("id must be the %zu bytes of tern.unique_id(), not %zd",
				       sizeof(id.internal), len);
	if (!PyObject_TypeCheck(dev_obj, &tern_py_device_type))
		return tern_py_invalid("device must be a tern.Device, not %s",
				       Py_TYPE(dev_obj)->tp_name);
	d = (tern_py_device *)dev_obj;
	if (!tern_py_device_hold(d, &hold))
		return NULL;
	dev = d->dev;
	memcpy(id.internal, bytes, sizeof(id.internal));
	Py_BEGIN_ALLOW_THREADS
	st = tern_comm_init_rank(&made.comm, nranks, &id, rank, dev);
	if (st == TERN_SUCCESS)
		tern_py_comm_ask(&made);
	tern_py_hold_end(&hold);
	Py_END_ALLOW_THREADS
	if (st)
		return tern_py_raise(st);
	return tern_py_comm_wrap(d, &made);
}

/* Ends the first @n of @holds. */
static void tern_py_holds_end(struct tern_py_hold *holds, Py_ssize_t n)
{
	for (Py_ssize_t i = 0; i < n; i++)
		tern_py_hold_end(&holds[i]);
}

static PyObject *tern_py_init_all(PyObject *m, PyObject *arg)
{
	struct tern_py_hold hold[64];	/* a device each */
	struct tern_py_made made[64];
	tern_device_t devs[64];
	tern_comm_t comms[64];
	PyObject *seq, *list;
	tern_status_t st;
	Py_ssize_t n;

	(void)m;
	seq = PySequence_Fast(arg, "init_all takes a sequence of Devices");
	if (!seq)
		return NULL;
	n = PySequence_Fast_GET_SIZE(seq);
	if (n < 1 || n > 64) {
		Py_DECREF(seq);
		return tern_py_invalid("init_all takes 1 to 64 Devices, not %zd",
				       n);
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *o = PySequence_Fast_GET_ITEM(seq, i);

		hold[i].n = 0;
		if (!PyObject_TypeCheck(o, &tern_py_device_type)) {
			tern_py_holds_end(hold, i);
			Py_DECREF(seq);
			return tern_py_invalid("init_all: item %zd is a %s, not a tern.Device",
					       i, Py_TYPE(o)->tp_name);
		}
		if (!tern_py_device_hold((tern_py_device *)o, &hold[i])) {
			tern_py_holds_end(hold, i);
			Py_DECREF(seq);
			return NULL;
		}
		devs[i] = ((tern_py_device *)o)->dev;
	}
	Py_BEGIN_ALLOW_THREADS
	st = tern_comm_init_all(comms, (int)n, devs);
	for (Py_ssize_t i = 0; st == TERN_SUCCESS && i < n; i++) {
		made[i].comm = comms[i];
		tern_py_comm_ask(&made[i]);
	}
	tern_py_holds_end(hold, n);
	Py_END_ALLOW_THREADS
	if (st) {
		Py_DECREF(seq);
		return tern_py_raise(st);
	}
	list = PyList_New(n);
	for (Py_ssize_t i = 0; i < n; i++) {
		tern_py_device *d =
			(tern_py_device *)PySequence_Fast_GET_ITEM(seq, i);
		PyObject *c = NULL;

		if (list)
			c = tern_py_comm_wrap(d, &made[i]);
		else if (d->dev)
			tern_comm_destroy(comms[i]);
		if (list && !c) {
			Py_CLEAR(list);
			continue;
		}
		if (list)
			PyList_SET_ITEM(list, i, c);
	}
	Py_DECREF(seq);
	return list;
}

/*
 * Whether @c can be used; raises tern.Error if not. @hold, if any, holds
 * it and its device.
 */
static bool tern_py_comm_live(tern_py_comm *c, struct tern_py_hold *hold)
{
	if (!c->comm) {
		tern_py_invalid("the communicator is destroyed");
		return false;
	}
	if (!tern_py_device_hold(c->device, hold))
		return false;
	if (hold)
		tern_py_hold_add(hold, &c->busy);
	return true;
}

/*
 * Ends the comm by @end (destroy or abort), once, after the calls in
 * flight on it; raises its error.
 */
static PyObject *tern_py_comm_end(PyObject *self,
				  tern_status_t (*end)(tern_comm_t))
{
	tern_py_comm *c = (tern_py_comm *)self;
	struct tern_py_hold hold = { .n = 0 };
	tern_comm_t comm = c->comm;
	tern_status_t st;

	c->comm = NULL;		/* no call holds it from now on */
	if (!comm || !c->device->dev)
		Py_RETURN_NONE;
	tern_py_hold_add(&hold, &c->device->busy);
	Py_BEGIN_ALLOW_THREADS
	tern_py_drain(&c->busy);
	st = end(comm);
	tern_py_hold_end(&hold);
	Py_END_ALLOW_THREADS
	if (st)
		return tern_py_raise(st);
	Py_RETURN_NONE;
}

static PyObject *tern_py_comm_destroy(PyObject *self, PyObject *unused)
{
	(void)unused;
	return tern_py_comm_end(self, tern_comm_destroy);
}

static PyObject *tern_py_comm_abort(PyObject *self, PyObject *unused)
{
	(void)unused;
	return tern_py_comm_end(self, tern_comm_abort);
}

static PyObject *tern_py_comm_async_error(PyObject *self, PyObject *unused)
{
	tern_py_comm *c = (tern_py_comm *)self;
	tern_status_t st, error;

	(void)unused;
	if (!tern_py_comm_live(c, NULL))
		return NULL;
	st = tern_comm_get_async_error(c->comm, &error);
	if (st)
		return tern_py_raise(st);
	if (error == TERN_SUCCESS)
		Py_RETURN_NONE;
	return PyUnicode_FromString(tern_status_name(error));
}

static PyObject *tern_py_comm_split(PyObject *self, PyObject *args)
{
	tern_py_comm *c = (tern_py_comm *)self;
	struct tern_py_hold hold = { .n = 0 };
	struct tern_py_made made = { .comm = NULL };
	tern_comm_t comm;
	tern_status_t st;
	int color, key;

	if (!PyArg_ParseTuple(args, "ii:split", &color, &key))
		return NULL;
	/* libtern would hand the new comm over at group_end, to a Comm not made. */
	if (tern_py_in_group())
		return tern_py_invalid("split cannot be called between group_start() and group_end()");
	if (!tern_py_comm_live(c, &hold))
		return NULL;
	comm = c->comm;
	Py_BEGIN_ALLOW_THREADS
	st = tern_comm_split(comm, color, key, &made.comm);
	if (st == TERN_SUCCESS && made.comm)
		tern_py_comm_ask(&made);
	tern_py_hold_end(&hold);
	Py_END_ALLOW_THREADS
	if (st)
		return tern_py_raise(st);
	if (!made.comm)
		Py_RETURN_NONE;
	return tern_py_comm_wrap(c->device, &made);
}

/* What a collective's call gives, parsed and checked. */
struct tern_py_call {
	tern_comm_t comm;
	tern_ptr_t send, recv;
	size_t count;
	tern_dtype_t dtype;
	tern_redop_t op;
	int root;
	tern_stream_t stream;
};

enum tern_py_kind {
	PY_ALL_REDUCE, PY_ALL_GATHER, PY_REDUCE_SCATTER, PY_BROADCAST,
	PY_REDUCE, PY_ALL_TO_ALL, PY_SEND, PY_RECV,
};

/* The keywords of each kind, in their order. */
static char *tern_py_kw[][8] = {
	[PY_ALL_REDUCE] = { "send", "recv", "count", "dtype", "op", "stream", NULL },
	[PY_ALL_GATHER] = { "send", "recv", "count", "dtype", "stream", NULL },
	[PY_REDUCE_SCATTER] = { "send", "recv", "count", "dtype", "op", "stream", NULL },
	[PY_BROADCAST] = { "send", "recv", "count", "dtype", "root", "stream", NULL },
	[PY_REDUCE] = { "send", "recv", "count", "dtype", "op", "root", "stream", NULL },
	[PY_ALL_TO_ALL] = { "send", "recv", "count", "dtype", "stream", NULL },
	[PY_SEND] = { "send", "count", "dtype", "peer", "stream", NULL },
	[PY_RECV] = { "recv", "count", "dtype", "peer", "stream", NULL },
};

static PyObject *tern_py_collective(PyObject *self, PyObject *args,
				    PyObject *kwargs, enum tern_py_kind kind,
				    const char *name)
{
	tern_py_comm *c = (tern_py_comm *)self;
	struct tern_py_hold hold = { .n = 0 };
	PyObject *o[8] = { NULL };
	struct tern_py_call k = { .root = 0 };
	char *const *kw = tern_py_kw[kind];
	char fmt[64] = "";
	int n = 0, at = 0;
	tern_status_t st;
	bool ok = true;

	while (kw[n])
		n++;
	for (int i = 0; i < n; i++)
		fmt[i] = 'O';
	snprintf(fmt + n, sizeof(fmt) - (size_t)n, ":%s", name);
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, fmt, (char **)kw,
					 &o[0], &o[1], &o[2], &o[3], &o[4],
					 &o[5], &o[6]) ||
	    !tern_py_comm_live(c, &hold))
		return NULL;
	k.comm = c->comm;
	if (kind != PY_RECV)
		ok = tern_py_place(o[at++], "send", &k.send, &hold);
	if (ok && kind != PY_SEND)
		ok = tern_py_place(o[at++], "recv", &k.recv, &hold);
	ok = ok && tern_py_size(o[at++], "count", &k.count) &&
	     tern_py_dtype(o[at++], &k.dtype);
	if (ok && (kind == PY_ALL_REDUCE || kind == PY_REDUCE_SCATTER ||
		   kind == PY_REDUCE))
		ok = tern_py_redop(o[at++], &k.op);
	if (ok && (kind == PY_BROADCAST || kind == PY_REDUCE ||
		   kind == PY_SEND || kind == PY_RECV)) {
		long root = PyLong_Check(o[at]) ? PyLong_AsLong(o[at]) : -1;

		at++;
		if (root < 0 || root >= c->size) {
			PyErr_Clear();
			tern_py_invalid("%s must be a rank from 0 to %d",
					kind >= PY_SEND ? "peer" : "root",
					c->size - 1);
			ok = false;
		}
		k.root = (int)root;
	}
	/* Noted before libtern keeps it: one it refuses costs group_end a lock. */
	if (!ok || !tern_py_stream_of(o[at], &k.stream, &hold) ||
	    !tern_py_group_note(c, (tern_py_stream *)o[at])) {
		tern_py_hold_end(&hold);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	pthread_mutex_lock(&c->order);
	switch (kind) {
	case PY_ALL_REDUCE:
		st = tern_all_reduce(k.send, k.recv, k.count, k.dtype, k.op,
				     k.comm, k.stream);
		break;
	case PY_ALL_GATHER:
		st = tern_all_gather(k.send, k.recv, k.count, k.dtype, k.comm,
				     k.stream);
		break;
	case PY_REDUCE_SCATTER:
		st = tern_reduce_scatter(k.send, k.recv, k.count, k.dtype,
					 k.op, k.comm, k.stream);
		break;
	case PY_BROADCAST:
		st = tern_broadcast(k.send, k.recv, k.count, k.dtype, k.root,
				    k.comm, k.stream);
		break;
	case PY_REDUCE:
		st = tern_reduce(k.send, k.recv, k.count, k.dtype, k.op,
				 k.root, k.comm, k.stream);
		break;
	case PY_ALL_TO_ALL:
		st = tern_all_to_all(k.send, k.recv, k.count, k.dtype, k.comm,
				     k.stream);
		break;
	case PY_SEND:
		st = tern_send(k.send, k.count, k.dtype, k.root, k.comm,
			       k.stream);
		break;
	default:
		st = tern_recv(k.recv, k.count, k.dtype, k.root, k.comm,
			       k.stream);
		break;
	}
	pthread_mutex_unlock(&c->order);
	tern_py_hold_end(&hold);
	Py_END_ALLOW_THREADS
	if (st)
		return tern_py_raise(st);
	Py_RETURN_NONE;
}

#define TERN_PY_COLLECTIVE(name, kind) \
	static PyObject *tern_py_##name(PyObject *self, PyObject *args, \
					PyObject *kwargs) \
	{ \
		return tern_py_collective(self, args, kwargs, kind, #name); \
	}

TERN_PY_COLLECTIVE(all_reduce, PY_ALL_REDUCE)
TERN_PY_COLLECTIVE(all_gather, PY_ALL_GATHER)
TERN_PY_COLLECTIVE(reduce_scatter, PY_REDUCE_SCATTER)
TERN_PY_COLLECTIVE(broadcast, PY_BROADCAST)
TERN_PY_COLLECTIVE(reduce, PY_REDUCE)
TERN_PY_COLLECTIVE(all_to_all, PY_ALL_TO_ALL)
TERN_PY_COLLECTIVE(send, PY_SEND)
TERN_PY_COLLECTIVE(recv, PY_RECV)

#define TERN_PY_METHOD(name, doc) \
	{ #name, (PyCFunction)(void (*)(void))tern_py_##name, \
	  METH_VARARGS | METH_KEYWORDS, doc }

static PyMethodDef tern_py_comm_methods[] = {
	TERN_PY_METHOD(all_reduce, "all_reduce(send, recv, count, dtype, op, stream)"),
	TERN_PY_METHOD(all_gather, "all_gather(send, recv, count, dtype, stream): count a rank"),
	TERN_PY_METHOD(reduce_scatter, "reduce_scatter(send, recv, count, dtype, op, stream): count a rank"),
	TERN_PY_METHOD(broadcast, "broadcast(send, recv, count, dtype, root, stream)"),
	TERN_PY_METHOD(reduce, "reduce(send, recv, count, dtype, op, root, stream)"),
	TERN_PY_METHOD(all_to_all, "all_to_all(send, recv, count, dtype, stream): count a rank"),
	TERN_PY_METHOD(send, "send(send, count, dtype, peer, stream)"),
	TERN_PY_METHOD(recv, "recv(recv, count, dtype, peer, stream)"),
	{ "destroy", tern_py_comm_destroy, METH_NOARGS,
	  "destroy(): waits for its work and frees it; raises its error." },
	{ "abort", tern_py_comm_abort, METH_NOARGS,
	  "abort(): cancels its work at once, tells its peers, frees it." },
	{ "async_error", tern_py_comm_async_error, METH_NOARGS,
	  "async_error() -> None or the status name that put it in error." },
	{ "split", tern_py_comm_split, METH_VARARGS,
	  "split(color, key) -> Comm or None (color -1)." },
	{ NULL, NULL, 0, NULL }
};

static PyObject *tern_py_comm_get_rank(PyObject *self, void *closure)
{
	(void)closure;
	return PyLong_FromLong(((tern_py_comm *)self)->rank);
}

static PyObject *tern_py_comm_get_size(PyObject *self, void *closure)
{
	(void)closure;
	return PyLong_FromLong(((tern_py_comm *)self)->size);
}

static PyGetSetDef tern_py_comm_getset[] = {
	{ "rank", tern_py_comm_get_rank, NULL, "Its rank.", NULL },
	{ "size", tern_py_comm_get_size, NULL, "Its ranks.", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

static void tern_py_comm_dealloc(PyObject *self)
{
	tern_py_comm *c = (tern_py_comm *)self;
	struct tern_py_hold hold = { .n = 0 };

	/* No call holds it (each holds a reference); its device, others may. */
	if (c->comm && c->device->dev) {
		tern_py_hold_add(&hold, &c->device->busy);
		Py_BEGIN_ALLOW_THREADS
		tern_comm_destroy(c->comm);
		tern_py_hold_end(&hold);
		Py_END_ALLOW_THREADS
	}
	pthread_mutex_destroy(&c->order);
	Py_DECREF(c->device);
	Py_TYPE(self)->tp_free(self);
}

PyTypeObject tern_py_comm_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "tern.Comm",
	.tp_doc = "Comm(nranks, id, rank, device): this process's rank of a "
		  "communicator.",
	.tp_basicsize = sizeof(tern_py_comm),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_new = tern_py_comm_new,
	.tp_dealloc = tern_py_comm_dealloc,
	.tp_methods = tern_py_comm_methods,
	.tp_getset = tern_py_comm_getset,
};

PyMethodDef tern_py_comm_functions[] = {
	{ "init_all", tern_py_init_all, METH_O,
	  "init_all(devices) -> [Comm]: a communicator of this process's "
	  "devices, a rank each." },
	{ NULL, NULL, 0, NULL }
};
