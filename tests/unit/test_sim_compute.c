// SPDX-License-Identifier: MIT
/*
 * The compute engines on a simulated machine of chips with two cores:
 * the shape libtern sees, a matmul pipelined over four engines of one
 * core (DMA in, tensor, vector, DMA out) that order themselves through
 * semaphores, checked bit for bit against fmaf in K order; on-chip
 * memory that is each context's own; and packets refused on engines that
 * do not run them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "float_ref.h"
#include "internal.h"
#include "netlink.h"
#include "packets.h"
#include "sim_test.h"
#include "submit.h"
#include "compute/compute.h"
#include "tern_sim.h"

#define CORE		1
#define K		96
#define M		40
#define N		200

static uint32_t engine_of(const tern_device_properties_t *props, uint32_t type)
{
	/* the engines past the 4 DMA engines: 3 per core */
	return props->engine_count - 3 * 2 + 3 * CORE + type - 1;
}

static struct drm_tern_tile sbuf(uint8_t dtype, uint16_t partitions,
				 uint32_t offset, uint32_t elements)
{
	struct drm_tern_tile t = {
		.offset = offset, .partitions = partitions,
		.elements = elements, .space = DRM_TERN_SPACE_SBUF,
		.dtype = dtype,
	};

	return t;
}

struct rig {
	tern_device_t dev;
	tern_buffer_t buf;
	uint8_t *cpu;
	uint64_t va;
};

#define BUF_BYTES	(1u << 20)
#define A_AT		0		/* [K][M] bfloat16 */
#define B_AT		65536		/* [K][N] float32 */
#define C_AT		262144		/* [M][N] float32, written back */
#define SEM_AT		(BUF_BYTES - 64)

static void rig_open(struct rig *r)
{
	void *cpu;

	assert_ok(tern_device_open(0, &r->dev));
	assert_ok(tern_buffer_alloc(r->dev, TERN_MEMORY_DEVICE, BUF_BYTES,
				    &r->buf));
	assert_ok(tern_buffer_map(r->buf, &cpu));
	r->cpu = cpu;
	assert_ok(tern_buffer_device_address(r->buf, &r->va));
	memset(r->cpu, 0, BUF_BYTES);
}

static void rig_close(struct rig *r)
{
	assert_ok(tern_buffer_free(r->buf));
	assert_ok(tern_device_close(r->dev));
}

/* Submits @b's stream on @engine and returns its stream (to sync). */
static struct tern_stream *run_on(struct rig *r, uint32_t engine,
				  const struct tern_packet_builder *b)
{
	struct tern_stream *s;

	assert_ok(tern_stream_create_on(r->dev, engine, &s));
	assert_false(b->overflow);
	assert_ok(tern_stream_submit(s, b->buf, b->size, NULL, 0, NULL));
	return s;
}

static void test_shape(void **state)
{
	tern_device_properties_t props;
	struct rig r;

	(void)state;
	rig_open(&r);
	assert_ok(tern_device_get_properties(r.dev, &props));
	assert_int_equal(props.engine_count, 4 + 3 * 2);
	assert_true(props.capabilities & TERN_DEVICE_CAP_COMPUTE);
	rig_close(&r);
}

/*
 * DMA loads A and B, signals 1; the tensor engine waits, multiplies, signals
 * 2; the vector engine waits, copies PSUM to SBUF, signals 3; DMA waits and
 * stores C. All four submitted at once.
 */
static void test_pipeline(void **state)
{
	static uint64_t words[4][32];
	struct drm_tern_tile a = sbuf(DRM_TERN_DTYPE_BFLOAT16, K, 0, M);
	struct drm_tern_tile bt = sbuf(DRM_TERN_DTYPE_FLOAT32, K, 1024, N);
	struct drm_tern_tile c = sbuf(DRM_TERN_DTYPE_FLOAT32, M, 4096, N);
	struct drm_tern_tile psum = {
		.partitions = M, .elements = N, .space = DRM_TERN_SPACE_PSUM,
		.dtype = DRM_TERN_DTYPE_FLOAT32,
	};
	tern_device_properties_t props;
	struct tern_packet_builder b[4];
	struct tern_stream *s[4];
	uint16_t *a_mem;
	float *b_mem, *c_mem;
	struct rig r;

	(void)state;
	rig_open(&r);
	assert_ok(tern_device_get_properties(r.dev, &props));
	a_mem = (uint16_t *)(r.cpu + A_AT);
	b_mem = (float *)(r.cpu + B_AT);
	c_mem = (float *)(r.cpu + C_AT);
	for (int i = 0; i < K * M; i++)
		a_mem[i] = (uint16_t)(0x3c00 + rng() % 0x800) ^
			   (uint16_t)(rng() & 0x8000);
	for (int i = 0; i < K * N; i++)
		b_mem[i] = (float)((int)(rng() % 2001) - 1000) / 256.0f;

	for (int i = 0; i < 4; i++)
		tern_packets_init(&b[i], words[i], sizeof(words[i]));
	tern_packet_dma_tile(&b[0], r.va + A_AT, M * 2, 2,
			     DRM_TERN_DTYPE_BFLOAT16, CORE, &a, false);
	tern_packet_dma_tile(&b[0], r.va + B_AT, N * 4, 4,
			     DRM_TERN_DTYPE_FLOAT32, CORE, &bt, false);
	tern_packet_sem_signal(&b[0], r.va + SEM_AT, 1, false);
	tern_packet_sem_wait(&b[1], r.va + SEM_AT, 1, false);
	tern_packet_matmul(&b[1], &a, &bt, &psum, false);
	tern_packet_sem_signal(&b[1], r.va + SEM_AT, 2, false);
	tern_packet_sem_wait(&b[2], r.va + SEM_AT, 2, false);
	tern_packet_tensor_copy(&b[2], &psum, &c, 0);
	tern_packet_sem_signal(&b[2], r.va + SEM_AT, 3, false);
	tern_packet_sem_wait(&b[3], r.va + SEM_AT, 3, false);
	tern_packet_dma_tile(&b[3], r.va + C_AT, N * 4, 4,
			     DRM_TERN_DTYPE_FLOAT32, CORE, &c, true);
	/* consumers first, so that they really wait */
	s[3] = run_on(&r, 1, &b[3]);
	s[2] = run_on(&r, engine_of(&props, DRM_TERN_ENGINE_VECTOR), &b[2]);
	s[1] = run_on(&r, engine_of(&props, DRM_TERN_ENGINE_TENSOR), &b[1]);
	s[0] = run_on(&r, 0, &b[0]);
	for (int i = 0; i < 4; i++) {
		assert_ok(tern_stream_synchronize(s[i]));
		assert_ok(tern_stream_destroy(s[i]));
	}
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++) {
			float acc = -0.0f;

			for (int k = 0; k < K; k++)
				acc = fmaf((float)ref_widen(a_mem[k * M + m], &ref_bf16),
					   b_mem[k * N + n], acc);
			if (bits_of(c_mem[m * N + n]) != bits_of(acc))
				fail_msg("C[%d][%d] = %a, want %a", m, n,
					 c_mem[m * N + n], acc);
		}
	rig_close(&r);
}

/* A second context of the device reads zeros where the first wrote. */
static void test_onchip_is_each_contexts(void **state)
{
	static uint64_t words[2][16];
	struct drm_tern_tile t = sbuf(DRM_TERN_DTYPE_FLOAT32, 128, 0, 64);
	struct tern_packet_builder b;
	struct tern_stream *s;
	struct rig one, two;

	(void)state;
	rig_open(&one);
	rig_open(&two);
	memset(one.cpu, 0x5a, 128 * 64 * 4);
	memset(two.cpu, 0xa5, 128 * 64 * 4);
	tern_packets_init(&b, words[0], sizeof(words[0]));
	tern_packet_dma_tile(&b, one.va, 256, 4, DRM_TERN_DTYPE_FLOAT32, CORE,
			     &t, false);
	s = run_on(&one, 0, &b);
	assert_ok(tern_stream_synchronize(s));
	assert_ok(tern_stream_destroy(s));
	tern_packets_init(&b, words[1], sizeof(words[1]));
	tern_packet_dma_tile(&b, two.va, 256, 4, DRM_TERN_DTYPE_FLOAT32, CORE,
			     &t, true);
	s = run_on(&two, 0, &b);
	assert_ok(tern_stream_synchronize(s));
	assert_ok(tern_stream_destroy(s));
	for (int i = 0; i < 128 * 64 * 4; i++)
		if (two.cpu[i])
			fail_msg("byte %d of the second context's SBUF is 0x%02x",
				 i, two.cpu[i]);
	rig_close(&two);
	rig_close(&one);
}

/* Each compute packet on an engine that does not run it: refused. */
static void test_wrong_engine(void **state)
{
	static uint64_t words[16];
	struct drm_tern_tile in = sbuf(DRM_TERN_DTYPE_FLOAT32, 8, 0, 8);
	struct drm_tern_tile out = sbuf(DRM_TERN_DTYPE_FLOAT32, 8, 64, 1);
	tern_device_properties_t props;
	struct tern_packet_builder b;
	struct tern_stream *s;
	struct rig r;

	(void)state;
	rig_open(&r);
	assert_ok(tern_device_get_properties(r.dev, &props));
	tern_packets_init(&b, words, sizeof(words));
	tern_packet_tensor_reduce(&b, &in, &out, DRM_TERN_ALU_ADD);
	for (uint32_t e = 0; e < props.engine_count; e++) {
		bool vector = e == engine_of(&props, DRM_TERN_ENGINE_VECTOR) ||
			      e == engine_of(&props, DRM_TERN_ENGINE_VECTOR) - 3;

		assert_ok(tern_stream_create_on(r.dev, e, &s));
		assert_int_equal(tern_stream_submit(s, b.buf, b.size, NULL, 0,
						    NULL),
				 vector ? TERN_SUCCESS :
				 TERN_ERROR_INVALID_ARGUMENT);
		assert_ok(tern_stream_synchronize(s));
		assert_ok(tern_stream_destroy(s));
	}
	assert_int_equal(tern_stream_create_on(r.dev, props.engine_count, &s),
			 TERN_ERROR_INVALID_ARGUMENT);
	rig_close(&r);
}

/* The instruction @i of @p's program order. */
static const struct tern_insn *insn_at(tern_program_t p, uint32_t i)
{
	assert_true(i < p->count);
	return &p->insns[i];
}

/*
 * The waits a program gets from the tiles: read after write, write after
 * read, write after write; none between disjoint tiles, and none that an
 * engine already knows of through another's wait.
 */
static void test_program_waits(void **state)
{
	tern_tile_t x = { TERN_SBUF, TERN_FLOAT32, 0, 64, 0, 64 };
	tern_tile_t y = { TERN_SBUF, TERN_FLOAT32, 64, 64, 0, 64 };
	tern_tile_t z = { TERN_SBUF, TERN_FLOAT32, 0, 64, 4096, 64 };
	tern_tile_t acc = { TERN_PSUM, TERN_FLOAT32, 0, 64, 0, 64 };
	tern_view_t v;
	tern_program_t p;
	struct rig r;

	(void)state;
	rig_open(&r);
	v.ptr = tern_ptr(r.buf, 0);
	v.partition_stride = 256;
	v.element_stride = 4;
	v.dtype = TERN_FLOAT32;
	assert_ok(tern_program_create(r.dev, CORE, &p));
	assert_ok(tern_program_load(p, &x, &v));			/* 0 */
	assert_ok(tern_program_matmul(p, &acc, &x, &x, false));	/* 1 */
	assert_ok(tern_program_load(p, &y, &v));			/* 2 */
	assert_ok(tern_program_load(p, &x, &v));			/* 3 */
	assert_ok(tern_program_copy(p, TERN_ENGINE_VECTOR, &z, &acc,
				    false));			/* 4 */
	assert_ok(tern_program_tensor_tensor(p, &z, &z, TERN_ALU_ADD,
					     &x));			/* 5 */
	assert_ok(tern_program_store(p, &v, &z));			/* 6 */

	/* the matmul reads what load 0 wrote */
	assert_int_equal(insn_at(p, 1)->wait[TERN_ENGINE_DMA], 1);
	assert_true(insn_at(p, 0)->signal);
	/* load 2 touches another partition range: no wait */
	assert_int_equal(insn_at(p, 2)->wait[TERN_ENGINE_TENSOR], 0);
	/* load 3 overwrites x the matmul reads */
	assert_int_equal(insn_at(p, 3)->wait[TERN_ENGINE_TENSOR], 1);
	assert_true(insn_at(p, 1)->signal);
	/* the copy reads PSUM; through the matmul it knows load 0 is done */
	assert_int_equal(insn_at(p, 4)->wait[TERN_ENGINE_TENSOR], 1);
	assert_int_equal(insn_at(p, 4)->wait[TERN_ENGINE_DMA], 0);
	/* the add reads the new x: DMA's third instruction */
	assert_int_equal(insn_at(p, 5)->wait[TERN_ENGINE_DMA], 3);
	assert_int_equal(insn_at(p, 5)->wait[TERN_ENGINE_TENSOR], 0);
	/* the store reads z the vector engine wrote last */
	assert_int_equal(insn_at(p, 6)->wait[TERN_ENGINE_VECTOR], 2);
	assert_false(insn_at(p, 4)->signal);
	assert_true(insn_at(p, 5)->signal);
	assert_false(insn_at(p, 2)->signal);
	assert_ok(tern_program_destroy(p));
	rig_close(&r);
}

/*
 * A job of a program's engine that fails is the launching stream's error,
 * never a success with the data unwritten; the next launch on the core
 * starts afresh and is right. The failure is the core's tensor engine
 * hung by the simulator's fault injection: its job times out.
 */
static void test_program_failure(void **state)
{
	tern_tile_t x = { TERN_SBUF, TERN_FLOAT32, 0, 4, 0, 4 };
	tern_tile_t acc = { TERN_PSUM, TERN_FLOAT32, 0, 4, 0, 4 };
	tern_tile_t out = { TERN_SBUF, TERN_FLOAT32, 0, 4, 8192, 4 };
	tern_device_properties_t props;
	tern_program_t p;
	tern_stream_t stream;
	tern_view_t v;
	char engine[16];
	struct rig r;
	float *got;

	(void)state;
	rig_open(&r);
	assert_ok(tern_device_get_properties(r.dev, &props));
	for (int i = 0; i < 16; i++)		/* x: a 4 x 4 of ones */
		((float *)r.cpu)[(i / 4) * 4 + i % 4] = 1.0f;
	v.ptr = tern_ptr(r.buf, 0);
	v.partition_stride = 16;
	v.element_stride = 4;
	v.dtype = TERN_FLOAT32;
	assert_ok(tern_stream_create(r.dev, &stream));
	assert_ok(tern_program_create(r.dev, CORE, &p));
	assert_ok(tern_program_load(p, &x, &v));
	assert_ok(tern_program_matmul(p, &acc, &x, &x, false));
	assert_ok(tern_program_copy(p, TERN_ENGINE_VECTOR, &out, &acc, false));
	v.ptr.offset = C_AT;
	assert_ok(tern_program_store(p, &v, &out));

	snprintf(engine, sizeof(engine), "%u",
		 engine_of(&props, DRM_TERN_ENGINE_TENSOR));
	assert_ok(tern_sim_inject_fault(0, "engine_hang", engine));
	memset(r.cpu + C_AT, 0, 64);
	assert_ok(tern_program_launch(p, stream));
	assert_status(tern_stream_synchronize(stream), TERN_ERROR_TIMEOUT);
	got = (float *)(r.cpu + C_AT);
	assert_true(got[0] == 0.0f);

	/* the engine was reset: the same program, afresh, is right */
	assert_ok(tern_program_launch(p, stream));
	assert_ok(tern_stream_synchronize(stream));
	for (int i = 0; i < 16; i++)
		assert_true(got[i] == 4.0f);
	assert_ok(tern_program_destroy(p));
	assert_ok(tern_stream_destroy(stream));
	rig_close(&r);
}

/* Walks @attrs of a device message: each engine nest's state, by index. */
static uint32_t read_engines(const struct sim_nl_msg *msg,
			     struct tern_state_engine *engines, uint32_t max)
{
	struct sim_nl_attr attr;
	uint32_t at = 0, n = 0;

	while (sim_nl_next_attr(msg->attrs, msg->attrs_len, &at, &attr)) {
		struct tern_state_engine engine;

		if (attr.type != DRM_TERN_A_DEV_ENGINE)
			continue;
		memset(&engine, 0, sizeof(engine));
		assert_int_equal(sim_nl_get_state(&tern_state_engine_set,
						  &engine, attr.data, attr.len,
						  0, NULL, NULL), 0);
		assert_true(engine.index < max);
		engines[engine.index] = engine;
		n++;
	}
	return n;
}

/*
 * The machine says what each engine is, as tern.ko's netlink family does:
 * the DMA engines of no core, then each core's tensor, vector, scalar.
 */
static void test_engines_reported(void **state)
{
	static const struct { uint32_t type, core; } want[4 + 3 * 2] = {
		{ DRM_TERN_ENGINE_DMA, DRM_TERN_ENGINE_NO_CORE },
		{ DRM_TERN_ENGINE_DMA, DRM_TERN_ENGINE_NO_CORE },
		{ DRM_TERN_ENGINE_DMA, DRM_TERN_ENGINE_NO_CORE },
		{ DRM_TERN_ENGINE_DMA, DRM_TERN_ENGINE_NO_CORE },
		{ DRM_TERN_ENGINE_TENSOR, 0 }, { DRM_TERN_ENGINE_VECTOR, 0 },
		{ DRM_TERN_ENGINE_SCALAR, 0 }, { DRM_TERN_ENGINE_TENSOR, 1 },
		{ DRM_TERN_ENGINE_VECTOR, 1 }, { DRM_TERN_ENGINE_SCALAR, 1 },
	};
	struct tern_state_engine engines[4 + 3 * 2];
	struct sim_nl_msg msg;
	uint32_t off = 0;
	size_t len;
	void *msgs;

	(void)state;
	assert_ok(tern_sim_netlink_dump(DRM_TERN_CMD_DEVICE_GET, 0, &msgs,
					&len));
	assert_true(sim_nl_next_msg(msgs, (uint32_t)len, &off, &msg));
	assert_int_equal(read_engines(&msg, engines, 4 + 3 * 2), 4 + 3 * 2);
	for (uint32_t e = 0; e < 4 + 3 * 2; e++) {
		assert_int_equal(engines[e].type, want[e].type);
		assert_int_equal(engines[e].core, want[e].core);
	}
	free(msgs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shape),
		cmocka_unit_test(test_pipeline),
		cmocka_unit_test(test_onchip_is_each_contexts),
		cmocka_unit_test(test_wrong_engine),
		cmocka_unit_test(test_program_waits),
		cmocka_unit_test(test_program_failure),
		cmocka_unit_test(test_engines_reported),
	};
	char name[64];

	if (sim_own_machine("compute", name, sizeof(name), "2", "64"))
		return 1;
	setenv("TERN_SIM_CORES", "2", 1);
	setenv("TERN_SIM_SBUF_KB", "64", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
