// SPDX-License-Identifier: MIT
/*
 * Optimizer steps (SGD with momentum, Adam and AdamW) as row kernels: the
 * flat vectors of parameters, gradients and state are cut into rows of
 * OPT_COLS (and a last, shorter row), updated in place. The engines have
 * no division and no square root, so Adam's m / (sqrt(v / bc2) + eps)
 * is m * r * r with r = rsqrt(exp(log(v) / 2 - log(bc2) / 2) + eps);
 * Documentation/libtern.rst gives every rounding.
 */
#include <float.h>
#include <math.h>

#include "rows.h"

#define OPT_COLS	512
#define OPT_VECTORS	4

/* The vectors of a step: parameters, gradients, then the state. */
struct opt_vectors {
	const char *kernel;
	const char *names[OPT_VECTORS];
	tern_ptr_t ptr[OPT_VECTORS];
	uint32_t n;
};

/* Each vector inside its buffer, and no two of them meeting. */
static tern_status_t opt_check(const struct opt_vectors *v, size_t count,
			       const struct tern_device *dev)
{
	tern_matrix_t m[OPT_VECTORS];

	if (count == 0 || count > UINT32_MAX) {
		tern_set_last_error("%s: %zu parameters; it takes 1 to %u",
				    v->kernel, count, UINT32_MAX);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	for (uint32_t i = 0; i < v->n; i++) {
		if (!tern_vector_ok(v->ptr[i], (uint32_t)count, dev, v->kernel,
				    v->names[i]))
			return TERN_ERROR_INVALID_ARGUMENT;
		m[i] = tern_matrix(v->ptr[i], TERN_FLOAT32, 1,
				   (uint32_t)count);
		for (uint32_t j = 0; j < i; j++)
			if (tern_matrices_overlap(&m[i], &m[j])) {
				tern_set_last_error("%s: %s and %s overlap",
						    v->kernel, v->names[j],
						    v->names[i]);
				return TERN_ERROR_INVALID_ARGUMENT;
			}
	}
	return TERN_SUCCESS;
}

/*
 * Runs kernel @k over @count elements of the vectors @v: input i is
 * vector i; the outputs, in place, are the parameters and the state
 * (every vector but the gradients, vector 1).
 */
static tern_status_t opt_run(struct rows_kernel *k,
			     const struct opt_vectors *v, size_t count,
			     tern_stream_t stream)
{
	size_t rows = count / OPT_COLS, tail = count % OPT_COLS;
	tern_matrix_t m[OPT_VECTORS];
	tern_status_t s = TERN_SUCCESS;

	if (!tern_handle_valid(stream, TERN_HANDLE_STREAM))
		return TERN_ERROR_INVALID_ARGUMENT;
	s = opt_check(v, count, stream->device);
	for (int part = 0; part < 2 && !s; part++) {
		uint32_t r = part ? (tail ? 1 : 0) : (uint32_t)rows;
		uint32_t c = part ? (uint32_t)tail : OPT_COLS;
		size_t at = part ? rows * OPT_COLS * 4 : 0;

		if (!r || !c)
			continue;
		for (uint32_t i = 0; i < v->n; i++) {
			tern_ptr_t p = v->ptr[i];

			p.offset += at;
			m[i] = tern_matrix(p, TERN_FLOAT32, r, c);
		}
		for (uint32_t i = 0; i < k->n_in; i++)
			k->in[i] = &m[i];
		for (uint32_t i = 0; i < k->n_out; i++)
			k->out[i] = &m[i ? i + 1 : 0];
		s = rows_run(k, stream);
	}
	return s;
}

/* @out = @in @op @value on the scalar engine (the vector one is busier). */
static tern_status_t opt_scale(struct rows_block *b, const tern_tile_t *out,
			       const tern_tile_t *in, tern_alu_op_t op,
			       float value)
{
	return tern_program_tensor_scalar(b->p, TERN_ENGINE_SCALAR, out, in, op,
					  tern_value(value), TERN_ALU_NONE,
					  tern_value(0.0f));
}

static tern_status_t opt_tt(struct rows_block *b, const tern_tile_t *out,
			    const tern_tile_t *in0, tern_alu_op_t op,
			    const tern_tile_t *in1)
{
	return tern_program_tensor_tensor(b->p, out, in0, op, in1);
}

/* What the bodies need: the options, and the constants rounded once. */
struct opt_arg {
	const tern_sgd_options_t *sgd;
	const tern_adam_options_t *adam;
	float decay;		/* AdamW: 1 - lr * weight_decay */
	float one_b1, one_b2;	/* 1 - beta1, 1 - beta2 */
	float half_log_bc2;	/* -log(1 - beta2^step) / 2 */
	float step_size;	/* lr / (1 - beta1^step) */
};

/* in: param, grad, velocity; out: param, velocity. */
static tern_status_t sgd_body(struct rows_block *b, const void *arg)
{
	const tern_sgd_options_t *o = ((const struct opt_arg *)arg)->sgd;
	const tern_tile_t *p = &b->in[0], *g = &b->in[1], *vel = &b->in[2];
	const tern_tile_t *t = &b->tmp[0], *update = g;
	tern_status_t s = TERN_SUCCESS;

	if (o->weight_decay != 0.0f) {
		s = opt_scale(b, t, p, TERN_ALU_MULTIPLY, o->weight_decay);
		if (!s)
			s = opt_tt(b, g, g, TERN_ALU_ADD, t);
	}
	if (!s && o->momentum != 0.0f) {
		const tern_tile_t *v = &b->out[1];

		if (o->step == 1) {
			s = tern_program_copy(b->p, TERN_ENGINE_VECTOR, v, g,
					      false);
		} else {
			s = opt_scale(b, v, vel, TERN_ALU_MULTIPLY,
				      o->momentum);
			if (!s && o->dampening != 0.0f) {
				s = opt_scale(b, t, g, TERN_ALU_MULTIPLY,
					      1.0f - o->dampening);
				if (!s)
					s = opt_tt(b, v, v, TERN_ALU_ADD, t);
			} else if (!s) {
				s = opt_tt(b, v, v, TERN_ALU_ADD, g);
			}
		}
		update = v;
		if (!s && o->nesterov) {
			s = opt_scale(b, t, v, TERN_ALU_MULTIPLY, o->momentum);
			if (!s)
				s = opt_tt(b, g, g, TERN_ALU_ADD, t);
			update = g;
		}
	}
	if (!s)
		s = opt_scale(b, t, update, TERN_ALU_MULTIPLY, o->lr);
	return s ? s : opt_tt(b, &b->out[0], p, TERN_ALU_SUBTRACT, t);
}

/* in: param, grad, m, v; out: param, m, v. */
static tern_status_t adam_body(struct rows_block *b, const void *arg)
{
	const struct opt_arg *a = arg;
	const tern_adam_options_t *o = a->adam;
	const tern_tile_t *p = &b->in[0], *g = &b->in[1];
	const tern_tile_t *m = &b->out[1], *v = &b->out[2];
	const tern_tile_t *t = &b->tmp[0], *r = &b->tmp[1];
	tern_status_t s = TERN_SUCCESS;

	if (o->weight_decay != 0.0f && o->decoupled)
		s = opt_scale(b, p, p, TERN_ALU_MULTIPLY, a->decay);
	else if (o->weight_decay != 0.0f) {
		s = opt_scale(b, t, p, TERN_ALU_MULTIPLY, o->weight_decay);
		if (!s)
			s = opt_tt(b, g, g, TERN_ALU_ADD, t);
	}
	/* m + (g - m) * (1 - beta1), as torch's lerp */
	if (!s)
		s = opt_tt(b, t, g, TERN_ALU_SUBTRACT, &b->in[2]);
	if (!s)
		s = opt_scale(b, t, t, TERN_ALU_MULTIPLY, a->one_b1);
	if (!s)
		s = opt_tt(b, m, &b->in[2], TERN_ALU_ADD, t);
	/* v * beta2 + (g * g) * (1 - beta2) */
	if (!s)
		s = opt_tt(b, t, g, TERN_ALU_MULTIPLY, g);
	if (!s)
		s = opt_scale(b, t, t, TERN_ALU_MULTIPLY, a->one_b2);
	if (!s)
		s = opt_scale(b, v, &b->in[3], TERN_ALU_MULTIPLY, o->beta2);
	if (!s)
		s = opt_tt(b, v, v, TERN_ALU_ADD, t);
	/* r = rsqrt(sqrt(v / bc2) + eps) */
	if (!s)
		s = tern_program_activate(b->p, r, v, TERN_ACT_LOG,
					  tern_value(1.0f), tern_value(0.0f),
					  NULL);
	if (!s)
		s = tern_program_activate(b->p, r, r, TERN_ACT_EXP,
					  tern_value(0.5f),
					  tern_value(a->half_log_bc2), NULL);
	if (!s)
		s = opt_scale(b, r, r, TERN_ALU_ADD, o->eps);
	if (!s)
		s = tern_program_activate(b->p, r, r, TERN_ACT_RSQRT,
					  tern_value(1.0f), tern_value(0.0f),
					  NULL);
	/* param - (m * r * r) * step_size */
	if (!s)
		s = opt_tt(b, t, m, TERN_ALU_MULTIPLY, r);
	if (!s)
		s = opt_tt(b, t, t, TERN_ALU_MULTIPLY, r);
	if (!s)
		s = opt_scale(b, t, t, TERN_ALU_MULTIPLY, a->step_size);
	return s ? s : opt_tt(b, &b->out[0], p, TERN_ALU_SUBTRACT, t);
}

/* A float option that must be finite and within [@lo, @hi]. */
static bool opt_in_range(const char *kernel, const char *name, float x,
			 float lo, float hi)
{
	if (x >= lo && x <= hi)
		return true;
	tern_set_last_error("%s: %s is %g; it takes %g to %g", kernel, name,
			    (double)x, (double)lo, (double)hi);
	return false;
}

static bool opt_step_ok(const char *kernel, uint64_t step)
{
	if (step)
		return true;
	tern_set_last_error("%s: step is 0; the first step is 1", kernel);
	return false;
}

TERN_API tern_status_t tern_sgd_step(tern_ptr_t param, tern_ptr_t grad,
				     tern_ptr_t velocity, size_t count,
				     const tern_sgd_options_t *options,
				     tern_stream_t stream)
{
	struct opt_vectors v = {
		.kernel = "tern_sgd_step",
		.names = { "the parameters", "the gradients", "the velocity" },
		.ptr = { param, grad, velocity }, .n = 3,
	};
	struct opt_arg a = { .sgd = options };
	struct rows_kernel k = {
		.name = "tern_sgd_step", .n_in = 3, .n_out = 2, .scratch = 1,
		.body = sgd_body, .arg = &a,
	};
	const char *name = v.kernel;

	if (!options)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (!opt_in_range(name, "lr", options->lr, 0.0f, FLT_MAX) ||
	    !opt_in_range(name, "momentum", options->momentum, 0.0f, 1.0f) ||
	    !opt_in_range(name, "dampening", options->dampening, 0.0f, 1.0f) ||
	    !opt_in_range(name, "weight_decay", options->weight_decay, 0.0f,
			  FLT_MAX))
		return TERN_ERROR_INVALID_ARGUMENT;
	if (!opt_step_ok(name, options->step))
		return TERN_ERROR_INVALID_ARGUMENT;
	if (options->nesterov && (options->momentum == 0.0f ||
				  options->dampening != 0.0f)) {
		tern_set_last_error("%s: Nesterov momentum needs a momentum and no dampening",
				    name);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	if (options->momentum == 0.0f) {
		v.n = 2;
		k.n_in = 2;
		k.n_out = 1;
	}
	return opt_run(&k, &v, count, stream);
}

TERN_API tern_status_t tern_adam_step(tern_ptr_t param, tern_ptr_t grad,
				      tern_ptr_t m, tern_ptr_t v, size_t count,
				      const tern_adam_options_t *options,
				      tern_stream_t stream)
{
	struct opt_vectors vecs = {
		.kernel = "tern_adam_step",
		.names = { "the parameters", "the gradients",
			   "the first moments", "the second moments" },
		.ptr = { param, grad, m, v }, .n = 4,
	};
	struct opt_arg a = { .adam = options };
	struct rows_kernel k = {
		.name = "tern_adam_step", .n_in = 4, .n_out = 3, .scratch = 2,
		.body = adam_body, .arg = &a,
	};
	const char *name = vecs.kernel;
	double t;

	if (!options)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (!opt_in_range(name, "lr", options->lr, 0.0f, FLT_MAX) ||
	    !opt_in_range(name, "beta1", options->beta1, 0.0f,
			  nextafterf(1.0f, 0.0f)) ||
	    !opt_in_range(name, "beta2", options->beta2, 0.0f,
			  nextafterf(1.0f, 0.0f)) ||
	    !opt_in_range(name, "eps", options->eps, FLT_MIN, FLT_MAX) ||
	    !opt_in_range(name, "weight_decay", options->weight_decay, 0.0f,
			  FLT_MAX))
		return TERN_ERROR_INVALID_ARGUMENT;
	if (!opt_step_ok(name, options->step))
		return TERN_ERROR_INVALID_ARGUMENT;
	/* the constants in double, each rounded once to float32 */
	t = (double)options->step;
	a.decay = (float)(1.0 - (double)options->lr * options->weight_decay);
	a.one_b1 = (float)(1.0 - options->beta1);
	a.one_b2 = (float)(1.0 - options->beta2);
	a.half_log_bc2 = (float)(-0.5 * log(1.0 - pow(options->beta2, t)));
	a.step_size = (float)(options->lr / (1.0 - pow(options->beta1, t)));
	return opt_run(&k, &vecs, count, stream);
}
