// SPDX-License-Identifier: MIT
/*
 * The compute kernels of tern_compute.h as module functions: matrices are
 * tern.Matrix, vectors a Buffer or (Buffer, offset), each queued on a
 * stream with the GIL released. Activations and ALU operations are named
 * as tern_compute.h does, lower case ("gelu", "add"), or given as ints.
 */
#include "pytern.h"

static const char *const tern_py_activation_names[TERN_ACTIVATION_COUNT] = {
	[TERN_ACT_IDENTITY] = "identity", [TERN_ACT_RELU] = "relu",
	[TERN_ACT_GELU_TANH] = "gelu", [TERN_ACT_SILU] = "silu",
	[TERN_ACT_SIGMOID] = "sigmoid", [TERN_ACT_TANH] = "tanh",
	[TERN_ACT_EXP] = "exp", [TERN_ACT_LOG] = "log",
	[TERN_ACT_RSQRT] = "rsqrt", [TERN_ACT_SQUARE] = "square",
};

/* The elementwise ops, from TERN_ALU_ADD. */
static const char *const tern_py_alu_names[] = {
	"add", "subtract", "multiply", "max", "min",
};

static const char *tern_py_activation_name(int i)
{
	return tern_py_activation_names[i];
}

static const char *tern_py_alu_name(int i)
{
	return tern_py_alu_names[i];
}

/* What a kernel call holds while the GIL is released. */
struct tern_py_call {
	struct tern_py_hold hold;
	tern_stream_t stream;
};

/* Matrix @obj named @what into @out, held by @c; false raised. */
static bool tern_py_call_matrix(struct tern_py_call *c, PyObject *obj,
				const char *what, tern_matrix_t *out)
{
	return tern_py_matrix_of(obj, what, out, &c->hold);
}

static bool tern_py_call_place(struct tern_py_call *c, PyObject *obj,
			       const char *what, tern_ptr_t *out)
{
	return tern_py_place(obj, what, out, &c->hold);
}

static bool tern_py_call_stream(struct tern_py_call *c, PyObject *obj)
{
	return tern_py_stream_of(obj, &c->stream, &c->hold);
}

/* Ends a call that failed before it ran: what it held, and NULL. */
static PyObject *tern_py_call_fail(struct tern_py_call *c)
{
	tern_py_hold_end(&c->hold);
	return NULL;
}

/*
 * A call's end once it ran (the hold ended): tern.Error, or None with its
 * arguments kept until the work is done, temporaries included.
 */
static PyObject *tern_py_call_done(tern_status_t st, PyObject *stream,
				   PyObject *args, PyObject *kwargs)
{
	PyObject *objs;
	bool kept;

	if (st)
		return tern_py_raise(st);
	objs = PyTuple_Pack(2, args, kwargs ? kwargs : Py_None);
	if (!objs)
		return NULL;
	kept = tern_py_stream_keep(stream, objs);
	Py_DECREF(objs);
	if (!kept)
		return NULL;
	Py_RETURN_NONE;
}

static bool tern_py_activation(PyObject *obj, tern_activation_t *out)
{
	int v;

	if (!tern_py_enum(obj, tern_py_activation_name, TERN_ACTIVATION_COUNT,
			  "activation", &v))
		return false;
	*out = (tern_activation_t)v;
	return true;
}

static PyObject *tern_py_gemm(PyObject *m, PyObject *args, PyObject *kwargs)
{
	static char *kw[] = { "a", "b", "c", "stream", "transpose_a",
			      "transpose_b", "alpha", "beta", "scale_a",
			      "scale_b", "bias", "activation", "cores", NULL };
	PyObject *a_obj, *b_obj, *c_obj, *s_obj, *bias_obj = Py_None;
	PyObject *act_obj = NULL;
	struct tern_py_call c = { .hold = { .n = 0 } };
	int ta = 0, tb = 0;
	unsigned int cores = 0;
	tern_gemm_options_t o;
	tern_matrix_t a, b, cm;
	tern_ptr_t bias;
	tern_status_t st;

	(void)m;
	tern_gemm_options_init(&o);
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOO|$ppffffOOI:gemm",
					 kw, &a_obj, &b_obj, &c_obj, &s_obj,
					 &ta, &tb, &o.alpha, &o.beta,
					 &o.scale_a, &o.scale_b, &bias_obj,
					 &act_obj, &cores))
		return NULL;
	o.transpose_a = ta;
	o.transpose_b = tb;
	o.cores = cores;
	if (act_obj && !tern_py_activation(act_obj, &o.activation))
		return NULL;
	if (!tern_py_call_matrix(&c, a_obj, "a", &a) ||
	    !tern_py_call_matrix(&c, b_obj, "b", &b) ||
	    !tern_py_call_matrix(&c, c_obj, "c", &cm) ||
	    (bias_obj != Py_None &&
	     !tern_py_call_place(&c, bias_obj, "bias", &bias)) ||
	    !tern_py_call_stream(&c, s_obj))
		return tern_py_call_fail(&c);
	if (bias_obj != Py_None)
		o.bias = &bias;
	Py_BEGIN_ALLOW_THREADS
	st = tern_gemm(&a, &b, &cm, &o, c.stream);
	tern_py_hold_end(&c.hold);
	Py_END_ALLOW_THREADS
	return tern_py_call_done(st, s_obj, args, kwargs);
}

/* activation(x, y, function, stream) and its backward (x, dy, dx, ...). */
static PyObject *tern_py_activation_call(PyObject *args, PyObject *kwargs,
					 bool backward)
{
	static char *kw[] = { "x", "y", "function", "stream", NULL };
	static char *kw_back[] = { "x", "dy", "dx", "function", "stream",
				   NULL };
	PyObject *x_obj, *y_obj, *dx_obj = NULL, *fn_obj, *s_obj;
	struct tern_py_call c = { .hold = { .n = 0 } };
	tern_matrix_t x, y, dx;
	tern_activation_t fn;
	tern_status_t st;
	bool ok;

	ok = backward ?
	     PyArg_ParseTupleAndKeywords(args, kwargs,
					 "OOOOO:activation_backward", kw_back,
					 &x_obj, &y_obj, &dx_obj, &fn_obj,
					 &s_obj) :
	     PyArg_ParseTupleAndKeywords(args, kwargs, "OOOO:activation", kw,
					 &x_obj, &y_obj, &fn_obj, &s_obj);
	if (!ok || !tern_py_activation(fn_obj, &fn))
		return NULL;
	if (!tern_py_call_matrix(&c, x_obj, "x", &x) ||
	    !tern_py_call_matrix(&c, y_obj, backward ? "dy" : "y", &y) ||
	    (backward && !tern_py_call_matrix(&c, dx_obj, "dx", &dx)) ||
	    !tern_py_call_stream(&c, s_obj))
		return tern_py_call_fail(&c);
	Py_BEGIN_ALLOW_THREADS
	st = backward ? tern_activation_backward(&x, &y, &dx, fn, c.stream) :
	     tern_activation(&x, &y, fn, c.stream);
	tern_py_hold_end(&c.hold);
	Py_END_ALLOW_THREADS
	return tern_py_call_done(st, s_obj, args, kwargs);
}

static PyObject *tern_py_activation_fn(PyObject *m, PyObject *args,
				       PyObject *kwargs)
{
	(void)m;
	return tern_py_activation_call(args, kwargs, false);
}

static PyObject *tern_py_activation_backward(PyObject *m, PyObject *args,
					     PyObject *kwargs)
{
	(void)m;
	return tern_py_activation_call(args, kwargs, true);
}

static PyObject *tern_py_elementwise(PyObject *m, PyObject *args,
				     PyObject *kwargs)
{
	static char *kw[] = { "a", "op", "b", "out", "stream", NULL };
	PyObject *a_obj, *op_obj, *b_obj, *out_obj, *s_obj;
	struct tern_py_call c = { .hold = { .n = 0 } };
	tern_matrix_t a, b, out;
	tern_status_t st;
	int op;

	(void)m;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOO:elementwise", kw,
					 &a_obj, &op_obj, &b_obj, &out_obj,
					 &s_obj))
		return NULL;
	/* names from "add"; an int is tern_alu_op_t's own number */
	if (PyLong_Check(op_obj)) {
		op = (int)PyLong_AsLong(op_obj) - TERN_ALU_ADD;
		if (op < 0 || op > TERN_ALU_MIN - TERN_ALU_ADD) {
			PyErr_Clear();
			return tern_py_invalid("op must be from %d (add) to %d (min)",
					       TERN_ALU_ADD, TERN_ALU_MIN);
		}
	} else if (!tern_py_enum(op_obj, tern_py_alu_name,
				 TERN_ALU_MIN - TERN_ALU_ADD + 1, "op", &op)) {
		return NULL;
	}
	if (!tern_py_call_matrix(&c, a_obj, "a", &a) ||
	    !tern_py_call_matrix(&c, b_obj, "b", &b) ||
	    !tern_py_call_matrix(&c, out_obj, "out", &out) ||
	    !tern_py_call_stream(&c, s_obj))
		return tern_py_call_fail(&c);
	Py_BEGIN_ALLOW_THREADS
	st = tern_elementwise(&a, (tern_alu_op_t)(op + TERN_ALU_ADD), &b, &out,
			      c.stream);
	tern_py_hold_end(&c.hold);
	Py_END_ALLOW_THREADS
	return tern_py_call_done(st, s_obj, args, kwargs);
}

/* softmax(x, y, stream, log=False); softmax_backward(y, dy, dx, ...). */
static PyObject *tern_py_softmax_call(PyObject *args, PyObject *kwargs,
				      bool backward)
{
	static char *kw[] = { "x", "y", "stream", "log", NULL };
	static char *kw_back[] = { "y", "dy", "dx", "stream", "log", NULL };
	PyObject *a_obj, *b_obj, *dx_obj = NULL, *s_obj;
	struct tern_py_call c = { .hold = { .n = 0 } };
	tern_matrix_t a, b, dx;
	tern_status_t st;
	int log = 0;
	bool ok;

	ok = backward ?
	     PyArg_ParseTupleAndKeywords(args, kwargs,
					 "OOOO|$p:softmax_backward", kw_back,
					 &a_obj, &b_obj, &dx_obj, &s_obj,
					 &log) :
	     PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|$p:softmax", kw,
					 &a_obj, &b_obj, &s_obj, &log);
	if (!ok)
		return NULL;
	if (!tern_py_call_matrix(&c, a_obj, backward ? "y" : "x", &a) ||
	    !tern_py_call_matrix(&c, b_obj, backward ? "dy" : "y", &b) ||
	    (backward && !tern_py_call_matrix(&c, dx_obj, "dx", &dx)) ||
	    !tern_py_call_stream(&c, s_obj))
		return tern_py_call_fail(&c);
	Py_BEGIN_ALLOW_THREADS
	st = backward ? tern_softmax_backward(&a, &b, &dx, log, c.stream) :
	     tern_softmax(&a, &b, log, c.stream);
	tern_py_hold_end(&c.hold);
	Py_END_ALLOW_THREADS
	return tern_py_call_done(st, s_obj, args, kwargs);
}

static PyObject *tern_py_softmax(PyObject *m, PyObject *args,
				 PyObject *kwargs)
{
	(void)m;
	return tern_py_softmax_call(args, kwargs, false);
}

static PyObject *tern_py_softmax_backward(PyObject *m, PyObject *args,
					  PyObject *kwargs)
{
	(void)m;
	return tern_py_softmax_call(args, kwargs, true);
}

/*
 * attention_softmax(x, y, scale, stream, *, mask=None) and
 * attention_softmax_backward(y, dy, dx, scale, stream).
 */
static PyObject *tern_py_attention_call(PyObject *args, PyObject *kwargs,
					bool backward)
{
	static char *kw[] = { "x", "y", "scale", "stream", "mask", NULL };
	static char *kw_back[] = { "y", "dy", "dx", "scale", "stream", NULL };
	PyObject *a_obj, *b_obj, *dx_obj = NULL, *s_obj, *mask_obj = Py_None;
	struct tern_py_call c = { .hold = { .n = 0 } };
	tern_matrix_t a, b, dx, mask;
	tern_status_t st;
	float scale;
	bool ok;

	ok = backward ?
	     PyArg_ParseTupleAndKeywords(args, kwargs,
					 "OOOfO:attention_softmax_backward",
					 kw_back, &a_obj, &b_obj, &dx_obj,
					 &scale, &s_obj) :
	     PyArg_ParseTupleAndKeywords(args, kwargs,
					 "OOfO|$O:attention_softmax", kw,
					 &a_obj, &b_obj, &scale, &s_obj,
					 &mask_obj);
	if (!ok)
		return NULL;
	if (!tern_py_call_matrix(&c, a_obj, backward ? "y" : "x", &a) ||
	    !tern_py_call_matrix(&c, b_obj, backward ? "dy" : "y", &b) ||
	    (backward && !tern_py_call_matrix(&c, dx_obj, "dx", &dx)) ||
	    (mask_obj != Py_None &&
	     !tern_py_call_matrix(&c, mask_obj, "mask", &mask)) ||
	    !tern_py_call_stream(&c, s_obj))
		return tern_py_call_fail(&c);
	Py_BEGIN_ALLOW_THREADS
	st = backward ?
	     tern_attention_softmax_backward(&a, &b, scale, &dx, c.stream) :
	     tern_attention_softmax(&a, mask_obj != Py_None ? &mask : NULL,
				    scale, &b, c.stream);
	tern_py_hold_end(&c.hold);
	Py_END_ALLOW_THREADS
	return tern_py_call_done(st, s_obj, args, kwargs);
}

static PyObject *tern_py_attention_softmax(PyObject *m, PyObject *args,
					   PyObject *kwargs)
{
	(void)m;
	return tern_py_attention_call(args, kwargs, false);
}

static PyObject *tern_py_attention_softmax_backward(PyObject *m,
						    PyObject *args,
						    PyObject *kwargs)
{
	(void)m;
	return tern_py_attention_call(args, kwargs, true);
}

static PyObject *tern_py_layer_norm(PyObject *m, PyObject *args,
				    PyObject *kwargs)
{
	static char *kw[] = { "x", "gamma", "beta", "y", "mean", "rstd",
			      "stream", "eps", NULL };
	PyObject *x_obj, *g_obj, *b_obj, *y_obj, *mean_obj, *rstd_obj, *s_obj;
	struct tern_py_call c = { .hold = { .n = 0 } };
	tern_ptr_t gamma, beta, mean, rstd;
	tern_matrix_t x, y;
	float eps = 1e-5f;
	tern_status_t st;

	(void)m;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOOOO|$f:layer_norm",
					 kw, &x_obj, &g_obj, &b_obj, &y_obj,
					 &mean_obj, &rstd_obj, &s_obj, &eps))
		return NULL;
	if (!tern_py_call_matrix(&c, x_obj, "x", &x) ||
	    !tern_py_call_place(&c, g_obj, "gamma", &gamma) ||
	    !tern_py_call_place(&c, b_obj, "beta", &beta) ||
	    !tern_py_call_matrix(&c, y_obj, "y", &y) ||
	    !tern_py_call_place(&c, mean_obj, "mean", &mean) ||
	    !tern_py_call_place(&c, rstd_obj, "rstd", &rstd) ||
	    !tern_py_call_stream(&c, s_obj))
		return tern_py_call_fail(&c);
	Py_BEGIN_ALLOW_THREADS
	st = tern_layer_norm(&x, gamma, beta, eps, &y, mean, rstd, c.stream);
	tern_py_hold_end(&c.hold);
	Py_END_ALLOW_THREADS
	return tern_py_call_done(st, s_obj, args, kwargs);
}

static PyObject *tern_py_layer_norm_backward(PyObject *m, PyObject *args,
					     PyObject *kwargs)
{
	static char *kw[] = { "x", "gamma", "mean", "rstd", "dy", "dx",
			      "dgamma", "dbeta", "stream", NULL };
	PyObject *x_obj, *g_obj, *mean_obj, *rstd_obj, *dy_obj, *dx_obj;
	PyObject *dg_obj, *db_obj, *s_obj;
	struct tern_py_call c = { .hold = { .n = 0 } };
	tern_ptr_t gamma, mean, rstd, dgamma, dbeta;
	tern_matrix_t x, dy, dx;
	tern_status_t st;

	(void)m;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs,
					 "OOOOOOOOO:layer_norm_backward", kw,
					 &x_obj, &g_obj, &mean_obj, &rstd_obj,
					 &dy_obj, &dx_obj, &dg_obj, &db_obj,
					 &s_obj))
		return NULL;
	if (!tern_py_call_matrix(&c, x_obj, "x", &x) ||
	    !tern_py_call_place(&c, g_obj, "gamma", &gamma) ||
	    !tern_py_call_place(&c, mean_obj, "mean", &mean) ||
	    !tern_py_call_place(&c, rstd_obj, "rstd", &rstd) ||
	    !tern_py_call_matrix(&c, dy_obj, "dy", &dy) ||
	    !tern_py_call_matrix(&c, dx_obj, "dx", &dx) ||
	    !tern_py_call_place(&c, dg_obj, "dgamma", &dgamma) ||
	    !tern_py_call_place(&c, db_obj, "dbeta", &dbeta) ||
	    !tern_py_call_stream(&c, s_obj))
		return tern_py_call_fail(&c);
	Py_BEGIN_ALLOW_THREADS
	st = tern_layer_norm_backward(&x, gamma, mean, rstd, &dy, &dx, dgamma,
				      dbeta, c.stream);
	tern_py_hold_end(&c.hold);
	Py_END_ALLOW_THREADS
	return tern_py_call_done(st, s_obj, args, kwargs);
}

static PyObject *tern_py_cross_entropy(PyObject *m, PyObject *args,
				       PyObject *kwargs)
{
	static char *kw[] = { "logits", "targets", "loss", "stream",
			      "dlogits", "grad_scale", NULL };
	PyObject *l_obj, *t_obj, *loss_obj, *s_obj, *dl_obj = Py_None;
	struct tern_py_call c = { .hold = { .n = 0 } };
	tern_matrix_t logits, targets, dlogits;
	float grad_scale = 1.0f;
	tern_ptr_t loss;
	tern_status_t st;

	(void)m;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs,
					 "OOOO|$Of:cross_entropy", kw, &l_obj,
					 &t_obj, &loss_obj, &s_obj, &dl_obj,
					 &grad_scale))
		return NULL;
	if (!tern_py_call_matrix(&c, l_obj, "logits", &logits) ||
	    !tern_py_call_matrix(&c, t_obj, "targets", &targets) ||
	    !tern_py_call_place(&c, loss_obj, "loss", &loss) ||
	    (dl_obj != Py_None &&
	     !tern_py_call_matrix(&c, dl_obj, "dlogits", &dlogits)) ||
	    !tern_py_call_stream(&c, s_obj))
		return tern_py_call_fail(&c);
	Py_BEGIN_ALLOW_THREADS
	st = tern_cross_entropy(&logits, &targets, loss,
				dl_obj != Py_None ? &dlogits : NULL,
				grad_scale, c.stream);
	tern_py_hold_end(&c.hold);
	Py_END_ALLOW_THREADS
	return tern_py_call_done(st, s_obj, args, kwargs);
}

static PyObject *tern_py_sum_rows(PyObject *m, PyObject *args,
				  PyObject *kwargs)
{
	static char *kw[] = { "x", "sums", "stream", NULL };
	PyObject *x_obj, *sums_obj, *s_obj;
	struct tern_py_call c = { .hold = { .n = 0 } };
	tern_matrix_t x;
	tern_ptr_t sums;
	tern_status_t st;

	(void)m;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO:sum_rows", kw,
					 &x_obj, &sums_obj, &s_obj))
		return NULL;
	if (!tern_py_call_matrix(&c, x_obj, "x", &x) ||
	    !tern_py_call_place(&c, sums_obj, "sums", &sums) ||
	    !tern_py_call_stream(&c, s_obj))
		return tern_py_call_fail(&c);
	Py_BEGIN_ALLOW_THREADS
	st = tern_sum_rows(&x, sums, c.stream);
	tern_py_hold_end(&c.hold);
	Py_END_ALLOW_THREADS
	return tern_py_call_done(st, s_obj, args, kwargs);
}

static PyObject *tern_py_sgd_step(PyObject *m, PyObject *args,
				  PyObject *kwargs)
{
	static char *kw[] = { "param", "grad", "count", "stream", "lr",
			      "velocity", "momentum", "dampening",
			      "weight_decay", "nesterov", "step", NULL };
	PyObject *p_obj, *g_obj, *n_obj, *s_obj, *v_obj = Py_None;
	struct tern_py_call c = { .hold = { .n = 0 } };
	tern_sgd_options_t o = { .lr = -1.0f, .step = 1 };
	tern_ptr_t param, grad, vel = { NULL, 0 };
	unsigned long long step = 1;
	tern_status_t st;
	int nesterov = 0;
	size_t count;

	(void)m;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs,
					 "OOOO|$fOfffpK:sgd_step", kw, &p_obj,
					 &g_obj, &n_obj, &s_obj, &o.lr, &v_obj,
					 &o.momentum, &o.dampening,
					 &o.weight_decay, &nesterov, &step))
		return NULL;
	if (o.lr == -1.0f)
		return tern_py_invalid("sgd_step: lr= is required");
	o.nesterov = nesterov;
	o.step = step;
	if (!tern_py_size(n_obj, "count", &count))
		return NULL;
	if (o.momentum != 0.0f && v_obj == Py_None)
		return tern_py_invalid("sgd_step: momentum needs a velocity buffer");
	if (!tern_py_call_place(&c, p_obj, "param", &param) ||
	    !tern_py_call_place(&c, g_obj, "grad", &grad) ||
	    (v_obj != Py_None &&
	     !tern_py_call_place(&c, v_obj, "velocity", &vel)) ||
	    !tern_py_call_stream(&c, s_obj))
		return tern_py_call_fail(&c);
	Py_BEGIN_ALLOW_THREADS
	st = tern_sgd_step(param, grad, vel, count, &o, c.stream);
	tern_py_hold_end(&c.hold);
	Py_END_ALLOW_THREADS
	return tern_py_call_done(st, s_obj, args, kwargs);
}

static PyObject *tern_py_adam_step(PyObject *m, PyObject *args,
				   PyObject *kwargs)
{
	static char *kw[] = { "param", "grad", "m", "v", "count", "stream",
			      "lr", "beta1", "beta2", "eps", "weight_decay",
			      "decoupled", "step", NULL };
	PyObject *p_obj, *g_obj, *m_obj, *v_obj, *n_obj, *s_obj;
	struct tern_py_call c = { .hold = { .n = 0 } };
	tern_adam_options_t o = {
		.lr = -1.0f, .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f,
		.step = 1,
	};
	tern_ptr_t param, grad, mom, var;
	unsigned long long step = 1;
	tern_status_t st;
	int decoupled = 0;
	size_t count;

	(void)m;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs,
					 "OOOOOO|$fffffpK:adam_step", kw,
					 &p_obj, &g_obj, &m_obj, &v_obj, &n_obj,
					 &s_obj, &o.lr, &o.beta1, &o.beta2,
					 &o.eps, &o.weight_decay, &decoupled,
					 &step))
		return NULL;
	if (o.lr == -1.0f)
		return tern_py_invalid("adam_step: lr= is required");
	o.decoupled = decoupled;
	o.step = step;
	if (!tern_py_size(n_obj, "count", &count))
		return NULL;
	if (!tern_py_call_place(&c, p_obj, "param", &param) ||
	    !tern_py_call_place(&c, g_obj, "grad", &grad) ||
	    !tern_py_call_place(&c, m_obj, "m", &mom) ||
	    !tern_py_call_place(&c, v_obj, "v", &var) ||
	    !tern_py_call_stream(&c, s_obj))
		return tern_py_call_fail(&c);
	Py_BEGIN_ALLOW_THREADS
	st = tern_adam_step(param, grad, mom, var, count, &o, c.stream);
	tern_py_hold_end(&c.hold);
	Py_END_ALLOW_THREADS
	return tern_py_call_done(st, s_obj, args, kwargs);
}

#define TERN_PY_KW(f) ((PyCFunction)(void (*)(void))(f))

PyMethodDef tern_py_compute_functions[] = {
	{ "gemm", TERN_PY_KW(tern_py_gemm), METH_VARARGS | METH_KEYWORDS,
	  "gemm(a, b, c, stream, *, transpose_a=False, transpose_b=False, "
	  "alpha=1.0, beta=0.0, scale_a=1.0, scale_b=1.0, bias=None, "
	  "activation='identity', cores=0): c = act(alpha * op(a) . op(b) "
	  "+ beta * c + bias) on the device's cores (tern_gemm)." },
	{ "activation", TERN_PY_KW(tern_py_activation_fn),
	  METH_VARARGS | METH_KEYWORDS,
	  "activation(x, y, function, stream): y = function(x)." },
	{ "activation_backward", TERN_PY_KW(tern_py_activation_backward),
	  METH_VARARGS | METH_KEYWORDS,
	  "activation_backward(x, dy, dx, function, stream): dx = dy * "
	  "function'(x)." },
	{ "elementwise", TERN_PY_KW(tern_py_elementwise),
	  METH_VARARGS | METH_KEYWORDS,
	  "elementwise(a, op, b, out, stream): out = a op b, op one of add, "
	  "subtract, multiply, max, min." },
	{ "softmax", TERN_PY_KW(tern_py_softmax), METH_VARARGS | METH_KEYWORDS,
	  "softmax(x, y, stream, *, log=False): each row's softmax, or its "
	  "log-softmax." },
	{ "softmax_backward", TERN_PY_KW(tern_py_softmax_backward),
	  METH_VARARGS | METH_KEYWORDS,
	  "softmax_backward(y, dy, dx, stream, *, log=False): dx from the "
	  "forward's output y." },
	{ "attention_softmax", TERN_PY_KW(tern_py_attention_softmax),
	  METH_VARARGS | METH_KEYWORDS,
	  "attention_softmax(x, y, scale, stream, *, mask=None): y = "
	  "softmax(x * scale + mask), mask 0 or -inf (a causal mask)." },
	{ "attention_softmax_backward",
	  TERN_PY_KW(tern_py_attention_softmax_backward),
	  METH_VARARGS | METH_KEYWORDS,
	  "attention_softmax_backward(y, dy, dx, scale, stream): the "
	  "scores' gradient, times the scale." },
	{ "layer_norm", TERN_PY_KW(tern_py_layer_norm),
	  METH_VARARGS | METH_KEYWORDS,
	  "layer_norm(x, gamma, beta, y, mean, rstd, stream, *, eps=1e-5): "
	  "gamma, beta a float32 per column; mean, rstd one per row." },
	{ "layer_norm_backward", TERN_PY_KW(tern_py_layer_norm_backward),
	  METH_VARARGS | METH_KEYWORDS,
	  "layer_norm_backward(x, gamma, mean, rstd, dy, dx, dgamma, dbeta, "
	  "stream)." },
	{ "cross_entropy", TERN_PY_KW(tern_py_cross_entropy),
	  METH_VARARGS | METH_KEYWORDS,
	  "cross_entropy(logits, targets, loss, stream, *, dlogits=None, "
	  "grad_scale=1.0): loss a float32 per row; targets a probability "
	  "per class." },
	{ "sum_rows", TERN_PY_KW(tern_py_sum_rows),
	  METH_VARARGS | METH_KEYWORDS,
	  "sum_rows(x, sums, stream): sums (a float32 per column) = the sum "
	  "of x's rows." },
	{ "sgd_step", TERN_PY_KW(tern_py_sgd_step),
	  METH_VARARGS | METH_KEYWORDS,
	  "sgd_step(param, grad, count, stream, *, lr, velocity=None, "
	  "momentum=0, dampening=0, weight_decay=0, nesterov=False, step=1): "
	  "torch.optim.SGD's step on count float32 in place." },
	{ "adam_step", TERN_PY_KW(tern_py_adam_step),
	  METH_VARARGS | METH_KEYWORDS,
	  "adam_step(param, grad, m, v, count, stream, *, lr, beta1=0.9, "
	  "beta2=0.999, eps=1e-8, weight_decay=0, decoupled=False, step=1): "
	  "torch.optim.Adam's (AdamW's, decoupled) step in place." },
	{ NULL, NULL, 0, NULL }
};
