// SPDX-License-Identifier: MIT
/*
 * The optimizer steps (tern_sgd_step, tern_adam_step): SGD's every bit
 * against its float32 sequence, Adam's moments to the bit and its
 * parameters against PyTorch's formula in double, over several steps and
 * lengths that end inside a row and span cores; every bad argument
 * refused, with the vectors left as they were.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.h"
#include "tern_compute.h"

#define EINVAL_ TERN_ERROR_INVALID_ARGUMENT
#define STEPS	3

/*
 * Lengths: one row and a short one, and many rows over every core. The
 * second only on the simulator: tern.ko's integer exp and log under the
 * VM's emulation take longer than its 2 s job timeout for a block of 128
 * rows.
 */
static const size_t lengths[] = { 1000, 128 * 512 + 37 };

static size_t length_count(void)
{
	return conf.backend == TERN_BACKEND_SIM ? 2 : 1;
}

static float randf(uint32_t *seed, float scale)
{
	*seed = *seed * 1103515245u + 12345u;
	return scale * (float)((int)(*seed >> 8) % 20001 - 10000) / 10000.0f;
}

/* Four vectors of @n float32 in one buffer, each its own 64 KiB pages. */
struct vecs {
	tern_buffer_t buf;
	float *v[4];
	tern_ptr_t ptr[4];
	size_t n;
};

static void vecs_alloc(struct vecs *x, size_t n)
{
	size_t stride = (n * 4 + 65535) & ~(size_t)65535;
	uint8_t *cpu;

	x->n = n;
	x->buf = conf_alloc(TERN_MEMORY_DEVICE, 4 * stride, &cpu);
	for (int i = 0; i < 4; i++) {
		x->v[i] = (float *)(cpu + i * stride);
		x->ptr[i] = tern_ptr(x->buf, i * stride);
	}
}

/* The float32 sequence tern_sgd_step documents, one element. */
static void sgd_ref(const tern_sgd_options_t *o, float *p, float g, float *v)
{
	float t, update;

	if (o->weight_decay != 0.0f) {
		t = *p * o->weight_decay;
		g = g + t;
	}
	update = g;
	if (o->momentum != 0.0f) {
		if (o->step == 1) {
			*v = g;
		} else {
			*v = *v * o->momentum;
			if (o->dampening != 0.0f) {
				t = g * (1.0f - o->dampening);
				*v = *v + t;
			} else {
				*v = *v + g;
			}
		}
		update = *v;
		if (o->nesterov) {
			t = *v * o->momentum;
			g = g + t;
			update = g;
		}
	}
	t = update * o->lr;
	*p = *p - t;
}

static void test_sgd_step(void **state)
{
	static const tern_sgd_options_t cases[] = {
		{ .lr = 0.1f },
		{ .lr = 0.05f, .momentum = 0.9f, .weight_decay = 0.01f },
		{ .lr = 0.05f, .momentum = 0.9f, .dampening = 0.5f },
		{ .lr = 0.01f, .momentum = 0.8f, .nesterov = true,
		  .weight_decay = 0.001f },
	};
	tern_stream_t s;

	(void)state;
	conf_need_compute();
	assert_ok(tern_stream_create(conf.dev, &s));
	for (size_t l = 0; l < length_count(); l++)
		for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
			size_t n = lengths[l];
			struct vecs x;
			float *p_ref = malloc(n * 4), *v_ref = malloc(n * 4);
			uint32_t seed = (uint32_t)(l * 16 + c + 1);

			assert_non_null(p_ref);
			assert_non_null(v_ref);
			vecs_alloc(&x, n);
			for (size_t i = 0; i < n; i++) {
				x.v[0][i] = p_ref[i] = randf(&seed, 2.0f);
				x.v[2][i] = v_ref[i] = 0.0f;
			}
			for (uint64_t step = 1; step <= STEPS; step++) {
				tern_sgd_options_t o = cases[c];

				o.step = step;
				for (size_t i = 0; i < n; i++) {
					x.v[1][i] = randf(&seed, 1.0f);
					sgd_ref(&o, &p_ref[i], x.v[1][i],
						&v_ref[i]);
				}
				assert_ok(tern_sgd_step(x.ptr[0], x.ptr[1],
							x.ptr[2], n, &o, s));
				assert_ok(tern_stream_synchronize(s));
			}
			for (size_t i = 0; i < n; i++)
				if (memcmp(&x.v[0][i], &p_ref[i], 4) ||
				    (cases[c].momentum != 0.0f &&
				     memcmp(&x.v[2][i], &v_ref[i], 4)))
					fail_msg("sgd case %zu, %zu elements: [%zu] param %a velocity %a, want %a %a",
						 c, n, i, (double)x.v[0][i],
						 (double)x.v[2][i],
						 (double)p_ref[i],
						 (double)v_ref[i]);
			free(p_ref);
			free(v_ref);
			assert_ok(tern_buffer_free(x.buf));
		}
	assert_ok(tern_stream_destroy(s));
}

/*
 * One step of PyTorch's Adam in double for parameter @p (the device's, as
 * it was before the step); the moments in the float32 sequence
 * tern_adam_step documents, which the device must match exactly.
 */
static double adam_ref(const tern_adam_options_t *o, float p, float g,
		       float *m, float *v)
{
	double bc1 = 1.0 - pow(o->beta1, (double)o->step);
	double bc2 = 1.0 - pow(o->beta2, (double)o->step);
	double pd = p;
	float t;

	if (o->decoupled)
		pd *= 1.0 - (double)o->lr * o->weight_decay;
	else if (o->weight_decay != 0.0f)
		g = g + p * o->weight_decay;
	t = g - *m;
	t = t * (float)(1.0 - o->beta1);
	*m = *m + t;
	t = g * g;
	t = t * (float)(1.0 - o->beta2);
	*v = *v * o->beta2;
	*v = *v + t;
	return pd - o->lr / bc1 * *m / (sqrt(*v / bc2) + o->eps);
}

static void test_adam_step(void **state)
{
	static const tern_adam_options_t cases[] = {
		{ .lr = 0.001f, .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f },
		{ .lr = 0.01f, .beta1 = 0.9f, .beta2 = 0.99f, .eps = 1e-6f,
		  .weight_decay = 0.1f, .decoupled = true },
		{ .lr = 0.003f, .beta1 = 0.5f, .beta2 = 0.9f, .eps = 1e-8f,
		  .weight_decay = 0.01f },
	};
	tern_stream_t s;

	(void)state;
	conf_need_compute();
	assert_ok(tern_stream_create(conf.dev, &s));
	for (size_t l = 0; l < length_count(); l++)
		for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
			size_t n = lengths[l];
			struct vecs x;
			double *p_ref = malloc(n * sizeof(double));
			float *m_ref = malloc(n * 4), *v_ref = malloc(n * 4);
			uint32_t seed = (uint32_t)(l * 16 + c + 100);
			double worst = 0;

			assert_non_null(p_ref);
			assert_non_null(m_ref);
			assert_non_null(v_ref);
			vecs_alloc(&x, n);
			for (size_t i = 0; i < n; i++) {
				x.v[0][i] = randf(&seed, 2.0f);
				x.v[2][i] = m_ref[i] = 0.0f;
				x.v[3][i] = v_ref[i] = 0.0f;
			}
			for (uint64_t step = 1; step <= STEPS; step++) {
				tern_adam_options_t o = cases[c];

				o.step = step;
				for (size_t i = 0; i < n; i++) {
					x.v[1][i] = randf(&seed, 1.0f);
					p_ref[i] = adam_ref(&o, x.v[0][i],
							    x.v[1][i], &m_ref[i],
							    &v_ref[i]);
				}
				assert_ok(tern_adam_step(x.ptr[0], x.ptr[1],
							 x.ptr[2], x.ptr[3], n,
							 &o, s));
				assert_ok(tern_stream_synchronize(s));
				/*
				 * A step moves a parameter by about lr, within
				 * 1e-6 of it (the device's rsqrt, exp and log
				 * are a few ulp), and rounds it to float32 up to
				 * three times (decay, update, subtraction).
				 */
				for (size_t i = 0; i < n; i++) {
					double err = fabs((double)x.v[0][i] -
							  p_ref[i]);
					double bound = 3 * fabs(p_ref[i]) *
						       ldexp(1.0, -24) +
						       1e-6 * o.lr;

					if (memcmp(&x.v[2][i], &m_ref[i], 4) ||
					    memcmp(&x.v[3][i], &v_ref[i], 4))
						fail_msg("adam case %zu step %u: [%zu] m %a v %a, want %a %a",
							 c, (unsigned int)step,
							 i, (double)x.v[2][i],
							 (double)x.v[3][i],
							 (double)m_ref[i],
							 (double)v_ref[i]);
					if (!(err <= bound))
						fail_msg("adam case %zu step %u: parameter %zu is %a, %g from PyTorch's %a",
							 c, (unsigned int)step,
							 i, (double)x.v[0][i],
							 err, p_ref[i]);
					if (err > worst)
						worst = err;
				}
			}
			print_message("adam case %zu, %zu elements: largest error a step %.3g (lr %g)\n",
				      c, n, worst, (double)cases[c].lr);
			free(p_ref);
			free(m_ref);
			free(v_ref);
			assert_ok(tern_buffer_free(x.buf));
		}
	assert_ok(tern_stream_destroy(s));
}

/* Every bad argument: a status and a sentence, the vectors untouched. */
static void test_optimizer_refusals(void **state)
{
	tern_sgd_options_t sgd = { .lr = 0.1f, .momentum = 0.9f, .step = 1 };
	tern_adam_options_t adam = {
		.lr = 0.001f, .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f,
		.step = 1,
	};
	tern_sgd_options_t bad_sgd[6];
	tern_adam_options_t bad_adam[5];
	const size_t n = 1000;
	struct vecs x;
	tern_stream_t s;
	tern_ptr_t past;

	(void)state;
	conf_need_compute();
	assert_ok(tern_stream_create(conf.dev, &s));
	vecs_alloc(&x, n);
	for (size_t i = 0; i < n; i++)
		x.v[0][i] = 1.5f;
	for (size_t i = 0; i < 6; i++)
		bad_sgd[i] = sgd;
	bad_sgd[0].step = 0;
	bad_sgd[1].lr = NAN;
	bad_sgd[2].momentum = 1.5f;
	bad_sgd[3].nesterov = true, bad_sgd[3].dampening = 0.5f;
	bad_sgd[4].weight_decay = -1.0f;
	bad_sgd[5].dampening = -0.5f;
	for (size_t i = 0; i < 6; i++) {
		assert_status(tern_sgd_step(x.ptr[0], x.ptr[1], x.ptr[2], n,
					    &bad_sgd[i], s), EINVAL_);
		assert_true(strstr(tern_get_last_error(), "tern_sgd_step"));
	}
	for (size_t i = 0; i < 5; i++)
		bad_adam[i] = adam;
	bad_adam[0].step = 0;
	bad_adam[1].beta1 = 1.0f;
	bad_adam[2].beta2 = -0.1f;
	bad_adam[3].eps = 0.0f;
	bad_adam[4].lr = INFINITY;
	for (size_t i = 0; i < 5; i++)
		assert_status(tern_adam_step(x.ptr[0], x.ptr[1], x.ptr[2],
					     x.ptr[3], n, &bad_adam[i], s),
			      EINVAL_);
	assert_status(tern_sgd_step(x.ptr[0], x.ptr[1], x.ptr[2], n, NULL, s),
		      EINVAL_);
	assert_status(tern_adam_step(x.ptr[0], x.ptr[1], x.ptr[2], x.ptr[3], 0,
				     &adam, s), EINVAL_);
	/* the gradients are the parameters; the moments overlap */
	assert_status(tern_sgd_step(x.ptr[0], x.ptr[0], x.ptr[2], n, &sgd, s),
		      EINVAL_);
	assert_true(strstr(tern_get_last_error(), "overlap"));
	past = x.ptr[2];
	past.offset += 4;
	assert_status(tern_adam_step(x.ptr[0], x.ptr[1], x.ptr[2], past, n,
				     &adam, s), EINVAL_);
	/* past the end of the buffer */
	past = x.ptr[3];
	past.offset += 65536 - 8;
	assert_status(tern_adam_step(x.ptr[0], x.ptr[1], x.ptr[2], past, n,
				     &adam, s), EINVAL_);
	assert_status(tern_adam_step(x.ptr[0], x.ptr[1], x.ptr[2], x.ptr[3], n,
				     &adam, NULL), EINVAL_);
	assert_ok(tern_stream_synchronize(s));
	for (size_t i = 0; i < n; i++)
		if (x.v[0][i] != 1.5f)
			fail_msg("a refused step changed parameter %zu", i);
	assert_ok(tern_buffer_free(x.buf));
	assert_ok(tern_stream_destroy(s));
}

int conformance_optimizer_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sgd_step),
		cmocka_unit_test(test_adam_step),
		cmocka_unit_test(test_optimizer_refusals),
	};

	return cmocka_run_group_tests_name("conformance_optimizer", tests,
					   conformance_open, conformance_close);
}
