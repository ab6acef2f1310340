// SPDX-License-Identifier: MIT
/*
 * Programs on a core (tern_compute.h): instructions of every engine
 * launched on a stream, ordered by libtern from the tiles they touch,
 * checked bit for bit against the spec's arithmetic; launches in stream
 * order and one core at a time; every bad argument refused.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.h"
#include "tern_compute.h"

#define EINVAL_ TERN_ERROR_INVALID_ARGUMENT

static tern_tile_t sbuf(tern_dtype_t dtype, uint32_t partitions,
			uint32_t offset, uint32_t elements)
{
	tern_tile_t t = {
		.space = TERN_SBUF, .dtype = dtype, .partitions = partitions,
		.offset = offset, .elements = elements,
	};

	return t;
}

static tern_tile_t psum(uint32_t partitions, uint32_t offset,
			uint32_t elements)
{
	tern_tile_t t = sbuf(TERN_FLOAT32, partitions, offset, elements);

	t.space = TERN_PSUM;
	return t;
}

/* A row-major matrix of @cols columns of @dtype at @offset of @buf. */
static tern_view_t rows(tern_buffer_t buf, size_t offset, tern_dtype_t dtype,
			size_t cols)
{
	size_t es = 0;
	tern_view_t v;

	tern_dtype_size(dtype, &es);
	v.ptr = tern_ptr(buf, offset);
	v.partition_stride = cols * es;
	v.element_stride = es;
	v.dtype = dtype;
	return v;
}

static float bf16_to_f32(uint16_t h)
{
	uint32_t bits = (uint32_t)h << 16;
	float f;

	memcpy(&f, &bits, 4);
	return f;
}

/* Values exact in bfloat16: small integers over a power of two. */
static uint16_t bf16_value(uint32_t *seed)
{
	float f;
	uint32_t bits;

	*seed = *seed * 1103515245u + 12345u;
	f = (float)((int)(*seed >> 16) % 255 - 127) / 64.0f;
	memcpy(&bits, &f, 4);
	return (uint16_t)(bits >> 16);
}

#define K	200	/* two K tiles: 128 and 72 */
#define M	40
#define N	100

/*
 * C = A^T . B over two K tiles accumulated in PSUM, read out as float32:
 * each element the fused multiply-adds in K order from -0.
 */
static void test_matmul_program(void **state)
{
	const size_t a_at = 0, b_at = 65536, c_at = 262144;
	tern_tile_t a0 = sbuf(TERN_BFLOAT16, 128, 0, M);
	tern_tile_t a1 = sbuf(TERN_BFLOAT16, K - 128, 4096, M);
	tern_tile_t b0 = sbuf(TERN_BFLOAT16, 128, 8192, N);
	tern_tile_t b1 = sbuf(TERN_BFLOAT16, K - 128, 16384, N);
	tern_tile_t c = sbuf(TERN_FLOAT32, M, 32768, N);
	tern_tile_t acc = psum(M, 0, N);
	tern_view_t av = rows(NULL, a_at, TERN_BFLOAT16, M);
	tern_view_t bv = rows(NULL, b_at, TERN_BFLOAT16, N);
	tern_view_t cv = rows(NULL, c_at, TERN_FLOAT32, N);
	uint16_t *a, *b;
	uint32_t seed = 7, counts[4];
	tern_program_t p;
	tern_stream_t s;
	tern_buffer_t buf;
	uint8_t *cpu;
	float *c_mem;

	uint32_t cores;

	(void)state;
	cores = conf_need_compute();
	buf = conf_alloc(TERN_MEMORY_DEVICE, 1 << 20, &cpu);
	a = (uint16_t *)(cpu + a_at);
	b = (uint16_t *)(cpu + b_at);
	c_mem = (float *)(cpu + c_at);
	for (int i = 0; i < K * M; i++)
		a[i] = bf16_value(&seed);
	for (int i = 0; i < K * N; i++)
		b[i] = bf16_value(&seed);
	memset(c_mem, 0xff, (size_t)M * N * 4);
	av.ptr.buffer = bv.ptr.buffer = cv.ptr.buffer = buf;

	assert_ok(tern_stream_create(conf.dev, &s));
	assert_ok(tern_program_create(conf.dev, cores - 1, &p));
	assert_ok(tern_program_load(p, &a0, &av));
	av.ptr.offset += 128 * M * 2;
	assert_ok(tern_program_load(p, &a1, &av));
	assert_ok(tern_program_load(p, &b0, &bv));
	bv.ptr.offset += 128 * N * 2;
	assert_ok(tern_program_load(p, &b1, &bv));
	assert_ok(tern_program_matmul(p, &acc, &a0, &b0, false));
	assert_ok(tern_program_matmul(p, &acc, &a1, &b1, true));
	assert_ok(tern_program_copy(p, TERN_ENGINE_VECTOR, &c, &acc, false));
	assert_ok(tern_program_store(p, &cv, &c));
	assert_ok(tern_program_count(p, counts));
	assert_int_equal(counts[TERN_ENGINE_DMA], 5);
	assert_int_equal(counts[TERN_ENGINE_TENSOR], 2);
	assert_int_equal(counts[TERN_ENGINE_VECTOR], 1);
	assert_int_equal(counts[TERN_ENGINE_SCALAR], 0);
	/* twice: a program runs as often as it is launched */
	for (int round = 0; round < 2; round++) {
		memset(c_mem, 0xff, (size_t)M * N * 4);
		assert_ok(tern_program_launch(p, s));
		assert_ok(tern_stream_synchronize(s));
		for (int m = 0; m < M; m++)
			for (int n = 0; n < N; n++) {
				float want = -0.0f;

				for (int k = 0; k < K; k++)
					want = fmaf(bf16_to_f32(a[k * M + m]),
						    bf16_to_f32(b[k * N + n]),
						    want);
				if (memcmp(&want, &c_mem[m * N + n], 4))
					fail_msg("C[%d][%d] = %a, want %a", m, n,
						 (double)c_mem[m * N + n],
						 (double)want);
			}
	}
	assert_ok(tern_program_destroy(p));
	assert_ok(tern_stream_destroy(s));
	assert_ok(tern_buffer_free(buf));
}

#define ROWS	100
#define COLS	40

/*
 * The vector and scalar engines in a chain that reuses one tile: x is
 * loaded, y = relu(2x - 1) on the scalar engine, z = y * x + y on the
 * vector engine, x is loaded again over the first x (after z has read
 * it), and the row sums and row maxima of z and x are stored.
 */
static void test_vector_scalar_chain(void **state)
{
	tern_tile_t x = sbuf(TERN_FLOAT32, ROWS, 0, COLS);
	tern_tile_t y = sbuf(TERN_FLOAT32, ROWS, 1024, COLS);
	tern_tile_t z = sbuf(TERN_FLOAT32, ROWS, 2048, COLS);
	tern_tile_t maxes = sbuf(TERN_FLOAT32, ROWS, 3076, 1);
	tern_tile_t x_max = sbuf(TERN_FLOAT32, ROWS, 3080, 1);
	tern_tile_t out = sbuf(TERN_FLOAT32, ROWS, 3072, 3);
	tern_view_t in0 = rows(NULL, 0, TERN_FLOAT32, COLS);
	tern_view_t in1 = rows(NULL, 65536, TERN_FLOAT32, COLS);
	tern_view_t ov = rows(NULL, 131072, TERN_FLOAT32, 3);
	float *first, *second, *got;
	tern_program_t p;
	tern_stream_t s;
	tern_buffer_t buf;
	uint8_t *cpu;
	uint32_t sum_at = 3072;

	(void)state;
	conf_need_compute();
	buf = conf_alloc(TERN_MEMORY_DEVICE, 1 << 18, &cpu);
	in0.ptr.buffer = in1.ptr.buffer = ov.ptr.buffer = buf;
	first = (float *)cpu;
	second = (float *)(cpu + 65536);
	got = (float *)(cpu + 131072);
	for (int i = 0; i < ROWS * COLS; i++) {
		first[i] = (float)(i % 13) / 4.0f - 1.0f;
		second[i] = (float)(i % 7) - 3.0f;
	}
	assert_ok(tern_stream_create(conf.dev, &s));
	assert_ok(tern_program_create(conf.dev, 0, &p));
	assert_ok(tern_program_load(p, &x, &in0));
	assert_ok(tern_program_activate(p, &y, &x, TERN_ACT_RELU,
					tern_value(2.0f), tern_value(-1.0f),
					NULL));
	assert_ok(tern_program_tensor_tensor(p, &z, &y, TERN_ALU_MULTIPLY, &x));
	assert_ok(tern_program_tensor_tensor(p, &z, &z, TERN_ALU_ADD, &y));
	assert_ok(tern_program_load(p, &x, &in1));
	assert_ok(tern_program_activate(p, &y, &z, TERN_ACT_IDENTITY,
					tern_value(1.0f), tern_value(0.0f),
					&sum_at));
	assert_ok(tern_program_reduce(p, &maxes, &z, TERN_ALU_MAX));
	assert_ok(tern_program_reduce(p, &x_max, &x, TERN_ALU_MAX));
	assert_ok(tern_program_store(p, &ov, &out));
	assert_ok(tern_program_launch(p, s));
	assert_ok(tern_stream_synchronize(s));
	for (int r = 0; r < ROWS; r++) {
		float sum = 0.0f, max = -INFINITY, xmax = -INFINITY;

		for (int f = 0; f < COLS; f++) {
			float v = first[r * COLS + f];
			float yv = fmaf(v, 2.0f, -1.0f) > 0 ?
				   fmaf(v, 2.0f, -1.0f) : 0.0f;
			float prod = yv * v;
			float zv = prod + yv;

			sum = f ? sum + zv : zv;
			max = zv > max ? zv : max;
			xmax = second[r * COLS + f] > xmax ?
			       second[r * COLS + f] : xmax;
		}
		if (got[r * 3] != sum || got[r * 3 + 1] != max ||
		    got[r * 3 + 2] != xmax)
			fail_msg("row %d: sum %a max %a x max %a, want %a %a %a",
				 r, (double)got[r * 3], (double)got[r * 3 + 1],
				 (double)got[r * 3 + 2], (double)sum,
				 (double)max, (double)xmax);
	}
	assert_ok(tern_program_destroy(p));
	assert_ok(tern_stream_destroy(s));
	assert_ok(tern_buffer_free(buf));
}

/*
 * A launch starts after the stream's earlier work and later work waits
 * for it: a copy into the input before, a copy of the output after.
 */
static void test_launch_in_stream_order(void **state)
{
	tern_tile_t t = sbuf(TERN_FLOAT32, 64, 0, 256);
	tern_view_t in = rows(NULL, 0, TERN_FLOAT32, 256);
	tern_view_t out = rows(NULL, 65536, TERN_FLOAT32, 256);
	tern_buffer_t buf, staging;
	uint8_t *cpu, *hcpu;
	tern_program_t p;
	tern_stream_t s;

	(void)state;
	conf_need_compute();
	buf = conf_alloc(TERN_MEMORY_DEVICE, 1 << 18, &cpu);
	staging = conf_alloc(TERN_MEMORY_DEVICE, 1 << 18, &hcpu);
	in.ptr.buffer = out.ptr.buffer = buf;
	for (int i = 0; i < 64 * 256; i++)
		((float *)hcpu)[i] = (float)i;
	memset(cpu, 0, 1 << 18);
	assert_ok(tern_stream_create(conf.dev, &s));
	assert_ok(tern_program_create(conf.dev, 0, &p));
	assert_ok(tern_program_load(p, &t, &in));
	assert_ok(tern_program_tensor_scalar(p, TERN_ENGINE_SCALAR, &t, &t,
					     TERN_ALU_MULTIPLY, tern_value(3.0f),
					     TERN_ALU_ADD, tern_value(1.0f)));
	assert_ok(tern_program_store(p, &out, &t));
	for (int round = 0; round < 3; round++) {
		assert_ok(tern_memcpy_async(buf, 0, staging, 0, 64 * 256 * 4,
					    s));
		assert_ok(tern_program_launch(p, s));
		assert_ok(tern_memcpy_async(staging, 65536, buf, 65536,
					    64 * 256 * 4, s));
		assert_ok(tern_stream_synchronize(s));
		for (int i = 0; i < 64 * 256; i++)
			if (((float *)(hcpu + 65536))[i] !=
			    (float)(i + round) * 3 + 1)
				fail_msg("round %d element %d: %f", round, i,
					 (double)((float *)(hcpu + 65536))[i]);
		for (int i = 0; i < 64 * 256; i++)
			((float *)hcpu)[i] += 1.0f;
	}
	assert_ok(tern_program_destroy(p));
	assert_ok(tern_stream_destroy(s));
	assert_ok(tern_buffer_free(staging));
	assert_ok(tern_buffer_free(buf));
}

/* Every bad argument: a status, the program as it was. */
static void test_program_refusals(void **state)
{
	tern_tile_t ok = sbuf(TERN_FLOAT32, 4, 0, 8);
	tern_tile_t bad[] = {
		sbuf(TERN_FLOAT32, 0, 0, 8),		/* no partitions */
		sbuf(TERN_FLOAT32, 129, 0, 8),		/* too many */
		sbuf(TERN_FLOAT32, 4, 2, 8),		/* misaligned */
		sbuf(TERN_FLOAT32, 4, 0, 0),		/* no elements */
		sbuf(TERN_FLOAT32, 4, 0xfffffff0u, 8),	/* past SBUF */
		sbuf(TERN_DTYPE_COUNT, 4, 0, 8),	/* no such type */
		{ .space = 9, .dtype = TERN_FLOAT32, .partitions = 4,
		  .elements = 8 },			/* no such space */
	};
	tern_tile_t big_m = sbuf(TERN_FLOAT32, 4, 0, 129);
	tern_tile_t acc = psum(8, 0, 8);
	tern_tile_t past_bank = psum(8, 0, 513);
	tern_view_t v = rows(NULL, 0, TERN_FLOAT32, 8);
	tern_compute_info_t info;
	tern_buffer_t buf;
	tern_program_t p;
	tern_stream_t s;
	uint32_t counts[4];

	(void)state;
	conf_need_compute();
	buf = conf_alloc(TERN_MEMORY_DEVICE, 4096, NULL);
	v.ptr.buffer = buf;
	assert_ok(tern_device_get_compute(conf.dev, &info));
	assert_true(info.cores >= 1);
	assert_int_equal(info.partitions, TERN_PARTITIONS);
	assert_status(tern_device_get_compute(conf.dev, NULL), EINVAL_);
	assert_status(tern_device_get_compute(NULL, &info), EINVAL_);
	assert_status(tern_program_create(conf.dev, info.cores, &p), EINVAL_);
	assert_status(tern_program_create(NULL, 0, &p), EINVAL_);
	assert_status(tern_program_create(conf.dev, 0, NULL), EINVAL_);
	assert_ok(tern_program_create(conf.dev, 0, &p));
	assert_ok(tern_stream_create(conf.dev, &s));

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_status(tern_program_load(p, &bad[i], &v), EINVAL_);
		assert_status(tern_program_copy(p, TERN_ENGINE_VECTOR, &ok,
						&bad[i], false), EINVAL_);
		assert_status(tern_program_tensor_tensor(p, &ok, &ok,
							 TERN_ALU_ADD, &bad[i]),
			      EINVAL_);
		assert_status(tern_program_activate(p, &bad[i], &ok,
						    TERN_ACT_RELU,
						    tern_value(1), tern_value(0),
						    NULL), EINVAL_);
	}
	/* shapes */
	assert_status(tern_program_matmul(p, &acc, &big_m, &ok, false),
		      EINVAL_);
	assert_status(tern_program_matmul(p, &past_bank, &ok, &ok, false),
		      EINVAL_);
	assert_status(tern_program_matmul(p, &ok, &ok, &ok, false), EINVAL_);
	assert_status(tern_program_tensor_tensor(p, &ok, &ok, TERN_ALU_NONE,
						 &ok), EINVAL_);
	assert_status(tern_program_tensor_tensor(p, &ok, &ok, 99, &ok),
		      EINVAL_);
	assert_status(tern_program_reduce(p, &ok, &ok, TERN_ALU_MAX), EINVAL_);
	assert_status(tern_program_activate(p, &ok, &ok, TERN_ACTIVATION_COUNT,
					    tern_value(1), tern_value(0), NULL),
		      EINVAL_);
	assert_status(tern_program_copy(p, TERN_ENGINE_TENSOR, &ok, &ok, false),
		      EINVAL_);
	assert_status(tern_program_tensor_scalar(p, TERN_ENGINE_DMA, &ok, &ok,
						 TERN_ALU_ADD, tern_value(1),
						 TERN_ALU_NONE, tern_value(0)),
		      EINVAL_);
	/* views: outside the buffer, a freed one, no buffer */
	v.ptr.offset = 4096 - 8 * 4 * 4 + 4;
	assert_status(tern_program_load(p, &ok, &v), TERN_ERROR_OUT_OF_RANGE);
	assert_non_null(strstr(tern_get_last_error(), "past the buffer"));
	v.ptr.offset = 2;			/* not a float's place */
	assert_status(tern_program_load(p, &ok, &v), EINVAL_);
	assert_non_null(strstr(tern_get_last_error(), "multiple of 4"));
	v.ptr.offset = 0;
	v.partition_stride = SIZE_MAX / 2;	/* past any address */
	assert_status(tern_program_load(p, &ok, &v), EINVAL_);
	v.partition_stride = 2048;
	assert_status(tern_program_load(p, &ok, &v), TERN_ERROR_OUT_OF_RANGE);
	v.partition_stride = 32;
	v.dtype = TERN_DTYPE_COUNT;
	assert_status(tern_program_load(p, &ok, &v), EINVAL_);
	v.dtype = TERN_FLOAT32;
	v.ptr.buffer = NULL;
	assert_status(tern_program_store(p, &v, &ok), EINVAL_);
	v.ptr.buffer = buf;
	assert_status(tern_program_load(p, NULL, &v), EINVAL_);
	assert_status(tern_program_load(p, &ok, NULL), EINVAL_);

	/* nothing was added by the refusals */
	assert_ok(tern_program_count(p, counts));
	for (int e = 0; e < 4; e++)
		assert_int_equal(counts[e], 0);

	/* a buffer freed after the program named it: refused at launch */
	assert_ok(tern_program_load(p, &ok, &v));
	assert_ok(tern_buffer_free(buf));
	assert_status(tern_program_launch(p, s), EINVAL_);
	assert_status(tern_program_launch(p, NULL), EINVAL_);
	assert_status(tern_program_launch(NULL, s), EINVAL_);
	assert_status(tern_program_count(p, NULL), EINVAL_);
	assert_ok(tern_program_destroy(p));
	assert_status(tern_program_destroy(p), EINVAL_);
	assert_status(tern_program_launch(p, s), EINVAL_);
	assert_status(tern_program_load(p, &ok, &v), EINVAL_);
	assert_ok(tern_stream_destroy(s));
}

/* Round to nearest even, as the device rounds float32 to bfloat16. */
static uint16_t f32_to_bf16(float f)
{
	uint32_t bits;

	memcpy(&bits, &f, 4);
	return (uint16_t)((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

/* OCP E4M3 (no infinities; S.1111.111 is NaN, never made here). */
static float e4m3_to_f32(uint8_t v)
{
	int e = (v >> 3) & 15, m = v & 7;
	float f = e ? ldexpf(1.0f + m / 8.0f, e - 7) : ldexpf(m / 8.0f, -6);

	return v & 0x80 ? -f : f;
}

/* OCP E5M2 (S.11111.xx, infinities and NaN, never made here). */
static float e5m2_to_f32(uint8_t v)
{
	int e = (v >> 2) & 31, m = v & 3;
	float f = e ? ldexpf(1.0f + m / 4.0f, e - 15) : ldexpf(m / 4.0f, -14);

	return v & 0x80 ? -f : f;
}

/* @f rounded to float16, to nearest even, as the device rounds. */
static uint16_t f32_to_f16(float f)
{
	_Float16 h = (_Float16)f;
	uint16_t bits;

	memcpy(&bits, &h, 2);
	return bits;
}

static float f16_to_f32(uint16_t bits)
{
	_Float16 h;

	memcpy(&h, &bits, 2);
	return (float)h;
}

struct gemm_case {
	uint32_t m, n, k;
	bool ta, tb;
	tern_dtype_t at, bt, ct;
	float alpha, beta;
	bool bias;
	tern_activation_t act;
	uint32_t cores;
};

static float elem(const uint8_t *base, tern_dtype_t t, size_t i)
{
	float f;

	switch (t) {
	case TERN_BFLOAT16:
		return bf16_to_f32(((const uint16_t *)base)[i]);
	case TERN_FLOAT16:
		return f16_to_f32(((const uint16_t *)base)[i]);
	case TERN_FLOAT8_E4M3:
		return e4m3_to_f32(base[i]);
	case TERN_FLOAT8_E5M2:
		return e5m2_to_f32(base[i]);
	default:
		memcpy(&f, base + 4 * i, 4);
		return f;
	}
}

static void fill(uint8_t *base, tern_dtype_t t, size_t count, uint32_t *seed)
{
	for (size_t i = 0; i < count; i++) {
		float f;

		*seed = *seed * 1103515245u + 12345u;
		f = (float)((int)(*seed >> 8) % 100003 - 50001) / 32768.0f;
		if (t == TERN_BFLOAT16)
			((uint16_t *)base)[i] = f32_to_bf16(f);
		else if (t == TERN_FLOAT16)
			((uint16_t *)base)[i] = f32_to_f16(f);
		else if (t == TERN_FLOAT8_E4M3)
			base[i] = (uint8_t)((*seed >> 12) % 0x7f) |
				  (uint8_t)(*seed & 0x80);
		else if (t == TERN_FLOAT8_E5M2)
			base[i] = (uint8_t)((*seed >> 12) % 0x7c) |
				  (uint8_t)(*seed & 0x80);
		else
			memcpy(base + 4 * i, &f, 4);
	}
}

/* One GEMM against the spec's sequence of roundings, bit for bit. */
static void run_gemm(const struct gemm_case *gc)
{
	size_t es_a = 0, es_b = 0, es_c = 0;
	size_t a_at = 0, b_at, c_at, bias_at, bytes, old_bytes;
	tern_ptr_t bias_ptr;
	tern_matrix_t a, b, c;
	tern_gemm_options_t o;
	uint8_t *cpu, *old;
	tern_buffer_t buf;
	tern_stream_t s;
	uint32_t seed = gc->m * 31 + gc->n * 7 + gc->k;

	assert_ok(tern_dtype_size(gc->at, &es_a));
	assert_ok(tern_dtype_size(gc->bt, &es_b));
	assert_ok(tern_dtype_size(gc->ct, &es_c));
	b_at = (a_at + (size_t)gc->m * gc->k * es_a + 64) & ~(size_t)7;
	c_at = (b_at + (size_t)gc->k * gc->n * es_b + 64) & ~(size_t)7;
	bias_at = (c_at + (size_t)gc->m * gc->n * es_c + 64) & ~(size_t)7;
	bytes = bias_at + gc->n * 4 + 64;
	buf = conf_alloc(TERN_MEMORY_DEVICE, bytes, &cpu);
	fill(cpu + a_at, gc->at, (size_t)gc->m * gc->k, &seed);
	fill(cpu + b_at, gc->bt, (size_t)gc->k * gc->n, &seed);
	fill(cpu + c_at, gc->ct, (size_t)gc->m * gc->n, &seed);
	fill(cpu + bias_at, TERN_FLOAT32, gc->n, &seed);
	old_bytes = (size_t)gc->m * gc->n * es_c;
	old = malloc(old_bytes);
	assert_non_null(old);
	memcpy(old, cpu + c_at, old_bytes);

	a = gc->ta ? tern_matrix(tern_ptr(buf, a_at), gc->at, gc->k, gc->m) :
		     tern_matrix(tern_ptr(buf, a_at), gc->at, gc->m, gc->k);
	b = gc->tb ? tern_matrix(tern_ptr(buf, b_at), gc->bt, gc->n, gc->k) :
		     tern_matrix(tern_ptr(buf, b_at), gc->bt, gc->k, gc->n);
	c = tern_matrix(tern_ptr(buf, c_at), gc->ct, gc->m, gc->n);
	bias_ptr = tern_ptr(buf, bias_at);
	tern_gemm_options_init(&o);
	o.transpose_a = gc->ta;
	o.transpose_b = gc->tb;
	o.alpha = gc->alpha;
	o.beta = gc->beta;
	o.bias = gc->bias ? &bias_ptr : NULL;
	o.activation = gc->act;
	o.cores = gc->cores;
	if (gc->at == TERN_FLOAT8_E4M3)
		o.scale_a = 0.25f;
	assert_ok(tern_stream_create(conf.dev, &s));
	if (tern_gemm(&a, &b, &c, &o, s))
		fail_msg("%ux%ux%u: %s", gc->m, gc->n, gc->k,
			 tern_get_last_error());
	assert_ok(tern_stream_synchronize(s));
	for (uint32_t m = 0; m < gc->m; m++)
		for (uint32_t n = 0; n < gc->n; n++) {
			float acc = -0.0f, t, got, want;
			float alpha = o.alpha * (o.scale_a * o.scale_b);

			for (uint32_t k = 0; k < gc->k; k++)
				acc = fmaf(elem(cpu + a_at, gc->at,
						gc->ta ? (size_t)k * gc->m + m :
							 (size_t)m * gc->k + k),
					   elem(cpu + b_at, gc->bt,
						gc->tb ? (size_t)n * gc->k + k :
							 (size_t)k * gc->n + n),
					   acc);
			t = acc * alpha;
			if (gc->beta != 0.0f) {
				float cb = elem(old, gc->ct,
						(size_t)m * gc->n + n) * gc->beta;

				t = t + cb;
			}
			if (gc->bias)
				t = t + elem(cpu + bias_at, TERN_FLOAT32, n);
			if (gc->act == TERN_ACT_RELU)
				t = t > 0.0f ? t : 0.0f;
			want = gc->ct == TERN_BFLOAT16 ?
			       bf16_to_f32(f32_to_bf16(t)) :
			       gc->ct == TERN_FLOAT16 ?
			       f16_to_f32(f32_to_f16(t)) : t;
			got = elem(cpu + c_at, gc->ct, (size_t)m * gc->n + n);
			if (memcmp(&got, &want, 4))
				fail_msg("%ux%ux%u C[%u][%u] = %a, want %a",
					 gc->m, gc->n, gc->k, m, n, (double)got,
					 (double)want);
		}
	free(old);
	assert_ok(tern_stream_destroy(s));
	assert_ok(tern_buffer_free(buf));
}

/*
 * Shapes from one element to past each tile (M 128, N 512, K 128) and
 * odd ones, transposes, each input type, beta, bias and an activation,
 * on one core and on all.
 */
static void test_gemm(void **state)
{
	static const struct gemm_case cases[] = {
		{ 1, 1, 1, false, false, TERN_FLOAT32, TERN_FLOAT32,
		  TERN_FLOAT32, 1.0f, 0.0f, false, TERN_ACT_IDENTITY, 1 },
		{ 130, 40, 100, false, false, TERN_FLOAT32, TERN_BFLOAT16,
		  TERN_FLOAT32, 1.0f, 0.0f, false, TERN_ACT_IDENTITY, 0 },
		{ 40, 520, 50, false, true, TERN_FLOAT32, TERN_FLOAT32,
		  TERN_FLOAT32, -2.0f, 1.0f, true, TERN_ACT_IDENTITY, 0 },
		{ 30, 33, 300, true, false, TERN_BFLOAT16, TERN_FLOAT32,
		  TERN_BFLOAT16, 0.5f, 0.75f, true, TERN_ACT_RELU, 1 },
		{ 64, 20, 256, true, true, TERN_FLOAT8_E4M3, TERN_BFLOAT16,
		  TERN_FLOAT32, 1.0f, 0.0f, false, TERN_ACT_RELU, 0 },
		{ 50, 70, 140, false, false, TERN_FLOAT16, TERN_FLOAT8_E5M2,
		  TERN_FLOAT16, 0.25f, 0.5f, true, TERN_ACT_IDENTITY, 0 },
	};
	/* past every tile at once: the simulator only (see below) */
	static const struct gemm_case big[] = {
		{ 130, 520, 200, false, false, TERN_FLOAT32, TERN_BFLOAT16,
		  TERN_FLOAT32, 1.0f, 0.0f, false, TERN_ACT_IDENTITY, 0 },
		{ 129, 600, 129, true, true, TERN_BFLOAT16, TERN_FLOAT32,
		  TERN_BFLOAT16, 0.5f, 0.75f, true, TERN_ACT_RELU, 1 },
	};

	(void)state;
	conf_need_compute();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_gemm(&cases[i]);
	/*
	 * tern.ko's integer arithmetic under the VM's emulation runs a
	 * matmul of millions of multiply-adds for longer than the VM's 2 s
	 * job timeout, which an engine waiting for it counts against.
	 */
	if (conf.backend != TERN_BACKEND_SIM)
		return;
	for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++)
		run_gemm(&big[i]);
}

/* Shapes that do not agree, types it does not take, overlap, bad handles. */
static void test_gemm_refusals(void **state)
{
	tern_matrix_t a, b, c, bad;
	tern_gemm_options_t o;
	tern_ptr_t bias;
	tern_buffer_t buf;
	tern_stream_t s;

	(void)state;
	conf_need_compute();
	buf = conf_alloc(TERN_MEMORY_DEVICE, 1 << 16, NULL);
	assert_ok(tern_stream_create(conf.dev, &s));
	a = tern_matrix(tern_ptr(buf, 0), TERN_FLOAT32, 8, 16);
	b = tern_matrix(tern_ptr(buf, 4096), TERN_FLOAT32, 16, 4);
	c = tern_matrix(tern_ptr(buf, 8192), TERN_FLOAT32, 8, 4);
	tern_gemm_options_init(&o);
	assert_ok(tern_gemm(&a, &b, &c, NULL, s));
	assert_ok(tern_gemm(&a, &b, &c, &o, s));
	bad = b;
	bad.rows = 15;					/* K differs */
	assert_status(tern_gemm(&a, &bad, &c, &o, s), EINVAL_);
	assert_non_null(strstr(tern_get_last_error(), "M x K"));
	bad = c;
	bad.cols = 5;					/* N differs */
	assert_status(tern_gemm(&a, &b, &bad, &o, s), EINVAL_);
	bad = c;
	bad.dtype = TERN_FLOAT8_E4M3;			/* no 8-bit output */
	assert_status(tern_gemm(&a, &b, &bad, &o, s), EINVAL_);
	bad = a;
	bad.dtype = TERN_INT32;
	assert_status(tern_gemm(&bad, &b, &c, &o, s), EINVAL_);
	bad = a;
	bad.ld = 15;					/* rows overlap */
	assert_status(tern_gemm(&bad, &b, &c, &o, s), EINVAL_);
	bad = a;
	bad.rows = 0;
	assert_status(tern_gemm(&bad, &b, &c, &o, s), EINVAL_);
	bad = c;
	bad.ptr.offset = (1 << 16) - 64;		/* past the buffer */
	assert_status(tern_gemm(&a, &b, &bad, &o, s), EINVAL_);
	assert_non_null(strstr(tern_get_last_error(), "past its buffer"));
	bad = c;
	bad.ptr.offset = 4096 + 32;			/* over B */
	assert_status(tern_gemm(&a, &b, &bad, &o, s), EINVAL_);
	bad = a;
	bad.ptr.buffer = NULL;
	assert_status(tern_gemm(&bad, &b, &c, &o, s), EINVAL_);
	bad = b;
	bad.ptr.offset += 2;				/* not a float's place */
	assert_status(tern_gemm(&a, &bad, &c, &o, s), EINVAL_);
	assert_non_null(strstr(tern_get_last_error(), "no place for a float32"));
	bias = tern_ptr(buf, 8192);			/* the bias over C */
	o.bias = &bias;
	assert_status(tern_gemm(&a, &b, &c, &o, s), EINVAL_);
	bias = tern_ptr(buf, (1 << 16) - 8);		/* past the buffer */
	assert_status(tern_gemm(&a, &b, &c, &o, s), EINVAL_);
	o.bias = NULL;
	o.activation = TERN_ACTIVATION_COUNT;
	assert_status(tern_gemm(&a, &b, &c, &o, s), EINVAL_);
	o.activation = TERN_ACT_IDENTITY;
	o.cores = 65;
	assert_status(tern_gemm(&a, &b, &c, &o, s), EINVAL_);
	o.cores = 0;
	assert_status(tern_gemm(NULL, &b, &c, &o, s), EINVAL_);
	assert_status(tern_gemm(&a, &b, &c, &o, NULL), EINVAL_);
	assert_ok(tern_stream_synchronize(s));
	assert_ok(tern_stream_destroy(s));
	assert_ok(tern_buffer_free(buf));
}

#define KR	130	/* rows: past one block of 128 */
#define KC	37

/* A float32 matrix of KR x KC at float @at of @cpu, filled from @seed. */
static tern_matrix_t kmat(tern_buffer_t buf, float *cpu, size_t at,
			  uint32_t seed, float lo, float hi)
{
	for (size_t i = 0; i < (size_t)KR * KC; i++) {
		seed = seed * 1103515245u + 12345u;
		cpu[at + i] = lo + (hi - lo) * (float)(seed >> 8) / 16777216.0f;
	}
	return tern_matrix(tern_ptr(buf, at * 4), TERN_FLOAT32, KR, KC);
}

static void assert_near(double got, double want, double rel, const char *what,
			size_t i)
{
	double tol = rel * fabs(want) + 1e-6;

	if (!(fabs(got - want) <= tol))
		fail_msg("%s element %zu: %.9g, want %.9g", what, i, got, want);
}

static double act_ref(tern_activation_t f, double x)
{
	switch (f) {
	case TERN_ACT_RELU: return x > 0 ? x : 0;
	case TERN_ACT_SIGMOID: return 1 / (1 + exp(-x));
	case TERN_ACT_TANH: return tanh(x);
	case TERN_ACT_EXP: return exp(x);
	case TERN_ACT_LOG: return log(x);
	case TERN_ACT_RSQRT: return 1 / sqrt(x);
	case TERN_ACT_SQUARE: return x * x;
	case TERN_ACT_SILU: return x / (1 + exp(-x));
	case TERN_ACT_GELU_TANH:
		return 0.5 * x * (1 + tanh(0.7978845608028654 *
					   (x + 0.044715 * x * x * x)));
	default: return x;
	}
}

/* f'(x), by a central difference of the double reference. */
static double act_grad_ref(tern_activation_t f, double x)
{
	double h = 1e-6 * (fabs(x) + 1);

	if (f == TERN_ACT_RELU)
		return x > 0;
	return (act_ref(f, x + h) - act_ref(f, x - h)) / (2 * h);
}

/* Every activation forward and backward, within a few ulp of doubles. */
static void test_activation_kernels(void **state)
{
	float *cpu;
	tern_buffer_t buf;
	tern_stream_t s;
	size_t n = (size_t)KR * KC;

	(void)state;
	conf_need_compute();
	buf = conf_alloc(TERN_MEMORY_DEVICE, 4 * 4 * n, (uint8_t **)&cpu);
	assert_ok(tern_stream_create(conf.dev, &s));
	for (int f = 0; f < TERN_ACTIVATION_COUNT; f++) {
		bool positive = f == TERN_ACT_LOG || f == TERN_ACT_RSQRT;
		tern_matrix_t x = kmat(buf, cpu, 0, 3 + f, positive ? 0.25f : -4,
				       4);
		tern_matrix_t dy = kmat(buf, cpu, n, 11, -1, 1);
		tern_matrix_t y = kmat(buf, cpu, 2 * n, 1, 0, 0);
		tern_matrix_t dx = kmat(buf, cpu, 3 * n, 1, 0, 0);

		assert_ok(tern_activation(&x, &y, (tern_activation_t)f, s));
		assert_ok(tern_activation_backward(&x, &dy, &dx,
						   (tern_activation_t)f, s));
		assert_ok(tern_stream_synchronize(s));
		for (size_t i = 0; i < n; i++) {
			double xv = cpu[i];

			assert_near(cpu[2 * n + i], act_ref(f, xv), 2e-5,
				    "activation", i);
			assert_near(cpu[3 * n + i],
				    cpu[n + i] * act_grad_ref(f, xv), 2e-4,
				    "activation backward", i);
		}
	}
	assert_ok(tern_stream_destroy(s));
	assert_ok(tern_buffer_free(buf));
}

/* Elementwise ops and sums down the rows: exact. */
static void test_elementwise_kernels(void **state)
{
	static const tern_alu_op_t ops[] = { TERN_ALU_ADD, TERN_ALU_SUBTRACT,
		TERN_ALU_MULTIPLY, TERN_ALU_MAX, TERN_ALU_MIN };
	size_t n = (size_t)KR * KC;
	tern_buffer_t buf;
	tern_stream_t s;
	float *cpu;

	(void)state;
	conf_need_compute();
	buf = conf_alloc(TERN_MEMORY_DEVICE, 4 * (3 * n + KC), (uint8_t **)&cpu);
	assert_ok(tern_stream_create(conf.dev, &s));
	for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
		tern_matrix_t a = kmat(buf, cpu, 0, 5, -3, 3);
		tern_matrix_t b = kmat(buf, cpu, n, 9, -3, 3);
		tern_matrix_t c = kmat(buf, cpu, 2 * n, 1, 0, 0);

		assert_ok(tern_elementwise(&a, ops[o], &b, &c, s));
		assert_ok(tern_stream_synchronize(s));
		for (size_t i = 0; i < n; i++) {
			float x = cpu[i], y = cpu[n + i], want;

			want = ops[o] == TERN_ALU_ADD ? x + y :
			       ops[o] == TERN_ALU_SUBTRACT ? x - y :
			       ops[o] == TERN_ALU_MULTIPLY ? x * y :
			       ops[o] == TERN_ALU_MAX ? (x > y ? x : y) :
			       (x < y ? x : y);
			if (cpu[2 * n + i] != want)
				fail_msg("op %d element %zu: %a, want %a",
					 (int)ops[o], i, (double)cpu[2 * n + i],
					 (double)want);
		}
	}
	/* sums down the rows, in row order */
	{
		tern_matrix_t a = kmat(buf, cpu, 0, 5, -3, 3);

		assert_ok(tern_sum_rows(&a, tern_ptr(buf, 3 * n * 4), s));
		assert_ok(tern_stream_synchronize(s));
		for (int c = 0; c < KC; c++) {
			float want = -0.0f;

			for (int r = 0; r < KR; r++)
				want = want + cpu[r * KC + c];
			if (cpu[3 * n + c] != want)
				fail_msg("column %d sum %a, want %a", c,
					 (double)cpu[3 * n + c], (double)want);
		}
	}
	assert_status(tern_elementwise(NULL, TERN_ALU_ADD, NULL, NULL, s),
		      EINVAL_);
	assert_ok(tern_stream_destroy(s));
	assert_ok(tern_buffer_free(buf));
}

/* Softmax, log-softmax, their backward and cross-entropy against doubles. */
static void test_softmax_kernels(void **state)
{
	size_t n = (size_t)KR * KC;
	tern_buffer_t buf;
	tern_stream_t s;
	float *cpu;

	(void)state;
	conf_need_compute();
	buf = conf_alloc(TERN_MEMORY_DEVICE, 4 * (6 * n + KR), (uint8_t **)&cpu);
	assert_ok(tern_stream_create(conf.dev, &s));
	for (int lg = 0; lg < 2; lg++) {
		tern_matrix_t x = kmat(buf, cpu, 0, 21, -20, 20);
		tern_matrix_t dy = kmat(buf, cpu, n, 23, -1, 1);
		tern_matrix_t y = kmat(buf, cpu, 2 * n, 1, 0, 0);
		tern_matrix_t dx = kmat(buf, cpu, 3 * n, 1, 0, 0);

		assert_ok(tern_softmax(&x, &y, lg, s));
		assert_ok(tern_softmax_backward(&y, &dy, &dx, lg, s));
		assert_ok(tern_stream_synchronize(s));
		for (int r = 0; r < KR; r++) {
			double m = -INFINITY, sum = 0, dot = 0, dsum = 0;
			const float *xr = cpu + r * KC;

			for (int c = 0; c < KC; c++)
				m = xr[c] > m ? xr[c] : m;
			for (int c = 0; c < KC; c++)
				sum += exp(xr[c] - m);
			for (int c = 0; c < KC; c++) {
				double p = exp(xr[c] - m) / sum;

				dot += cpu[n + r * KC + c] * p;
				dsum += cpu[n + r * KC + c];
			}
			for (int c = 0; c < KC; c++) {
				size_t i = (size_t)r * KC + c;
				double p = exp(xr[c] - m) / sum;
				double want = lg ? xr[c] - m - log(sum) : p;
				double grad = lg ? cpu[n + i] - p * dsum :
					      (cpu[n + i] - dot) * p;

				assert_near(cpu[2 * n + i], want, 1e-5,
					    lg ? "log-softmax" : "softmax", i);
				assert_near(cpu[3 * n + i], grad, 1e-4,
					    "softmax backward", i);
			}
		}
	}
	{
		tern_matrix_t x = kmat(buf, cpu, 0, 31, -5, 5);
		tern_matrix_t t = kmat(buf, cpu, n, 1, 0, 0);
		tern_matrix_t dx = kmat(buf, cpu, 2 * n, 1, 0, 0);
		tern_ptr_t loss = tern_ptr(buf, 6 * n * 4);

		for (int r = 0; r < KR; r++)		/* one-hot labels */
			cpu[n + r * KC + (r * 7) % KC] = 1.0f;
		assert_ok(tern_cross_entropy(&x, &t, loss, &dx, 1.0f / KR, s));
		assert_ok(tern_stream_synchronize(s));
		for (int r = 0; r < KR; r++) {
			const float *xr = cpu + r * KC;
			double m = -INFINITY, sum = 0;
			int label = (r * 7) % KC;

			for (int c = 0; c < KC; c++)
				m = xr[c] > m ? xr[c] : m;
			for (int c = 0; c < KC; c++)
				sum += exp(xr[c] - m);
			assert_near(cpu[6 * n + r], m + log(sum) - xr[label],
				    1e-5, "cross-entropy", r);
			for (int c = 0; c < KC; c++)
				assert_near(cpu[2 * n + r * KC + c],
					    (exp(xr[c] - m) / sum -
					     (c == label)) / KR, 1e-4,
					    "cross-entropy gradient", c);
		}
		assert_status(tern_cross_entropy(&x, &t, loss, &dx, 0.0f, s),
			      EINVAL_);
	}
	assert_ok(tern_stream_destroy(s));
	assert_ok(tern_buffer_free(buf));
}

/*
 * Attention's probabilities: softmax(x * scale + mask) with a causal mask
 * (-infinity past each row's own column, so every row keeps column 0),
 * and without one; the backward, times the scale, from the device's y.
 */
static void test_attention_softmax(void **state)
{
	const float scale = 0.125f;
	size_t n = (size_t)KR * KC;
	tern_buffer_t buf;
	tern_stream_t s;
	float *cpu;

	(void)state;
	conf_need_compute();
	buf = conf_alloc(TERN_MEMORY_DEVICE, 4 * 5 * n, (uint8_t **)&cpu);
	assert_ok(tern_stream_create(conf.dev, &s));
	for (int masked = 0; masked < 2; masked++) {
		tern_matrix_t x = kmat(buf, cpu, 0, 41, -30, 30);
		tern_matrix_t dy = kmat(buf, cpu, n, 43, -1, 1);
		tern_matrix_t mask = kmat(buf, cpu, 2 * n, 1, 0, 0);
		tern_matrix_t y = kmat(buf, cpu, 3 * n, 1, 0, 0);
		tern_matrix_t dx = kmat(buf, cpu, 4 * n, 1, 0, 0);

		for (int r = 0; r < KR; r++)
			for (int c = 0; c < KC; c++)
				cpu[2 * n + r * KC + c] = c > r % KC ?
							  -INFINITY : 0.0f;
		assert_ok(tern_attention_softmax(&x, masked ? &mask : NULL,
						 scale, &y, s));
		assert_ok(tern_attention_softmax_backward(&y, &dy, scale, &dx,
							  s));
		assert_ok(tern_stream_synchronize(s));
		for (int r = 0; r < KR; r++) {
			double t[KC], m = -INFINITY, sum = 0, dot = 0;

			for (int c = 0; c < KC; c++) {
				t[c] = (double)cpu[r * KC + c] * scale;
				if (masked)
					t[c] += cpu[2 * n + r * KC + c];
				m = t[c] > m ? t[c] : m;
			}
			for (int c = 0; c < KC; c++)
				sum += exp(t[c] - m);
			for (int c = 0; c < KC; c++)
				dot += (double)cpu[n + r * KC + c] *
				       cpu[3 * n + r * KC + c];
			for (int c = 0; c < KC; c++) {
				size_t i = (size_t)r * KC + c;
				double yv = cpu[3 * n + i];

				assert_near(yv, exp(t[c] - m) / sum, 1e-5,
					    "attention softmax", i);
				if (masked && c > r % KC && yv != 0.0f)
					fail_msg("masked element %zu is %g", i,
						 yv);
				assert_near(cpu[4 * n + i],
					    scale * (cpu[n + i] - dot) * yv,
					    1e-4, "attention backward", i);
			}
		}
	}
	assert_status(tern_attention_softmax(&(tern_matrix_t){ 0 }, NULL,
					     NAN, &(tern_matrix_t){ 0 }, s),
		      EINVAL_);
	assert_true(strstr(tern_get_last_error(), "scale"));
	assert_status(tern_attention_softmax_backward(NULL, NULL, 1.0f, NULL,
						      s), EINVAL_);
	assert_ok(tern_stream_destroy(s));
	assert_ok(tern_buffer_free(buf));
}

/* Layer norm forward and backward against doubles. */
static void test_layer_norm_kernels(void **state)
{
	size_t n = (size_t)KR * KC, v = 6 * n;
	tern_buffer_t buf;
	tern_stream_t s;
	float *cpu;

	(void)state;
	conf_need_compute();
	buf = conf_alloc(TERN_MEMORY_DEVICE, 4 * (v + 4 * KC + 2 * KR),
			 (uint8_t **)&cpu);
	assert_ok(tern_stream_create(conf.dev, &s));
	{
		tern_matrix_t x = kmat(buf, cpu, 0, 41, -3, 5);
		tern_matrix_t dy = kmat(buf, cpu, n, 43, -1, 1);
		tern_matrix_t y = kmat(buf, cpu, 2 * n, 1, 0, 0);
		tern_matrix_t dx = kmat(buf, cpu, 3 * n, 1, 0, 0);
		tern_ptr_t gamma = tern_ptr(buf, v * 4);
		tern_ptr_t beta = tern_ptr(buf, (v + KC) * 4);
		tern_ptr_t dgamma = tern_ptr(buf, (v + 2 * KC) * 4);
		tern_ptr_t dbeta = tern_ptr(buf, (v + 3 * KC) * 4);
		tern_ptr_t mean = tern_ptr(buf, (v + 4 * KC) * 4);
		tern_ptr_t rstd = tern_ptr(buf, (v + 4 * KC + KR) * 4);
		double dg[KC] = { 0 }, db[KC] = { 0 };

		for (int c = 0; c < KC; c++) {
			cpu[v + c] = 0.5f + c / 16.0f;
			cpu[v + KC + c] = c / 8.0f - 2;
		}
		assert_ok(tern_layer_norm(&x, gamma, beta, 1e-5f, &y, mean,
					  rstd, s));
		assert_ok(tern_layer_norm_backward(&x, gamma, mean, rstd, &dy,
						   &dx, dgamma, dbeta, s));
		assert_ok(tern_stream_synchronize(s));
		for (int r = 0; r < KR; r++) {
			const float *xr = cpu + r * KC, *dyr = cpu + n + r * KC;
			double mu = 0, var = 0, rs, a = 0, c2 = 0;

			for (int c = 0; c < KC; c++)
				mu += xr[c] / KC;
			for (int c = 0; c < KC; c++)
				var += (xr[c] - mu) * (xr[c] - mu) / KC;
			rs = 1 / sqrt(var + 1e-5);
			assert_near(cpu[v + 4 * KC + r], mu, 1e-5, "mean", r);
			assert_near(cpu[v + 4 * KC + KR + r], rs, 1e-5, "rstd",
				    r);
			for (int c = 0; c < KC; c++) {
				double xh = (xr[c] - mu) * rs;
				double g = dyr[c] * cpu[v + c];

				assert_near(cpu[2 * n + r * KC + c],
					    xh * cpu[v + c] + cpu[v + KC + c],
					    1e-5, "layer norm", c);
				a += g / KC;
				c2 += g * xh / KC;
				dg[c] += dyr[c] * xh;
				db[c] += dyr[c];
			}
			for (int c = 0; c < KC; c++) {
				double xh = (xr[c] - mu) * rs;
				double g = dyr[c] * cpu[v + c];

				assert_near(cpu[3 * n + r * KC + c],
					    (g - a - xh * c2) * rs, 1e-4,
					    "layer norm backward", c);
			}
		}
		for (int c = 0; c < KC; c++) {
			assert_near(cpu[v + 2 * KC + c], dg[c], 1e-4, "dgamma", c);
			assert_near(cpu[v + 3 * KC + c], db[c], 1e-4, "dbeta", c);
		}
		assert_status(tern_layer_norm(&x, gamma, beta, -1.0f, &y, mean,
					      rstd, s), EINVAL_);
	}
	assert_ok(tern_stream_destroy(s));
	assert_ok(tern_buffer_free(buf));
}

/*
 * The row kernels on narrower types: bfloat16 in and float16 out give the
 * float32 kernel's results on the same values, rounded once to float16.
 */
static void test_row_kernel_types(void **state)
{
	size_t n = (size_t)KR * KC, v = 8 * n;
	tern_buffer_t buf;
	tern_stream_t s;
	float *cpu;

	(void)state;
	conf_need_compute();
	buf = conf_alloc(TERN_MEMORY_DEVICE, 4 * (v + 2 * KC + 4 * KR),
			 (uint8_t **)&cpu);
	assert_ok(tern_stream_create(conf.dev, &s));
	for (int kernel = 0; kernel < 3; kernel++) {
		tern_matrix_t x32 = kmat(buf, cpu, 0, 51 + kernel, -3, 3);
		tern_matrix_t y32 = kmat(buf, cpu, n, 1, 0, 0);
		tern_matrix_t x16 = tern_matrix(tern_ptr(buf, 2 * n * 4),
						TERN_BFLOAT16, KR, KC);
		tern_matrix_t y16 = tern_matrix(tern_ptr(buf, 3 * n * 4),
						TERN_FLOAT16, KR, KC);
		uint16_t *xb = (uint16_t *)(cpu + 2 * n);
		uint16_t *yh = (uint16_t *)(cpu + 3 * n);
		tern_ptr_t gamma = tern_ptr(buf, v * 4);
		tern_ptr_t beta = tern_ptr(buf, (v + KC) * 4);
		tern_ptr_t stats = tern_ptr(buf, (v + 2 * KC) * 4);
		tern_ptr_t stats2 = tern_ptr(buf, (v + 2 * KC + KR) * 4);

		for (size_t i = 0; i < n; i++) {	/* x32 = the bfloat16 x */
			xb[i] = f32_to_bf16(cpu[i]);
			cpu[i] = bf16_to_f32(xb[i]);
		}
		for (int c = 0; c < KC; c++) {
			cpu[v + c] = 1.0f + c / 32.0f;
			cpu[v + KC + c] = c / 16.0f;
		}
		for (int t = 0; t < 2; t++) {
			const tern_matrix_t *x = t ? &x16 : &x32;
			const tern_matrix_t *y = t ? &y16 : &y32;

			if (kernel == 0)
				assert_ok(tern_activation(x, y,
							  TERN_ACT_GELU_TANH, s));
			else if (kernel == 1)
				assert_ok(tern_softmax(x, y, false, s));
			else
				assert_ok(tern_layer_norm(x, gamma, beta, 1e-5f,
							  y, stats, stats2, s));
		}
		assert_ok(tern_stream_synchronize(s));
		for (size_t i = 0; i < n; i++)
			if (yh[i] != f32_to_f16(cpu[n + i]))
				fail_msg("kernel %d element %zu: 0x%04x, want 0x%04x",
					 kernel, i, yh[i],
					 f32_to_f16(cpu[n + i]));
	}
	assert_ok(tern_stream_destroy(s));
	assert_ok(tern_buffer_free(buf));
}

/* The row kernels' refusals: shapes, overlap, types, rows too wide. */
static void test_row_kernel_refusals(void **state)
{
	size_t n = (size_t)KR * KC;
	tern_matrix_t x, y, bad;
	tern_buffer_t buf;
	tern_stream_t s;
	float *cpu;

	(void)state;
	conf_need_compute();
	buf = conf_alloc(TERN_MEMORY_DEVICE, 4 * 3 * n, (uint8_t **)&cpu);
	assert_ok(tern_stream_create(conf.dev, &s));
	x = kmat(buf, cpu, 0, 3, -1, 1);
	y = kmat(buf, cpu, n, 1, 0, 0);
	bad = y;
	bad.cols = KC - 1;				/* another shape */
	assert_status(tern_softmax(&x, &bad, false, s), EINVAL_);
	assert_non_null(strstr(tern_get_last_error(), "of one shape"));
	bad = y;
	bad.ptr.offset = 4 * 10;			/* over x, not x */
	assert_status(tern_activation(&x, &bad, TERN_ACT_RELU, s), EINVAL_);
	assert_non_null(strstr(tern_get_last_error(), "overlaps"));
	bad = y;
	bad.dtype = TERN_INT32;
	assert_status(tern_activation(&x, &bad, TERN_ACT_RELU, s), EINVAL_);
	assert_status(tern_activation(&x, &y, TERN_ACTIVATION_COUNT, s),
		      EINVAL_);
	assert_status(tern_elementwise(&x, TERN_ALU_NONE, &x, &y, s), EINVAL_);
	assert_status(tern_sum_rows(&x, tern_ptr(buf, 3 * n * 4 - 8), s),
		      EINVAL_);
	assert_status(tern_activation(&x, &y, TERN_ACT_RELU, NULL), EINVAL_);
	bad = tern_matrix(tern_ptr(buf, 0), TERN_FLOAT32, 1, 3 * (uint32_t)n);
	assert_status(tern_softmax(&bad, &bad, false, s),
		      TERN_ERROR_NOT_SUPPORTED);	/* a row past SBUF */
	assert_non_null(strstr(tern_get_last_error(), "SBUF"));
	/* in place is allowed, and nothing above ran */
	assert_ok(tern_activation(&x, &x, TERN_ACT_RELU, s));
	assert_ok(tern_stream_synchronize(s));
	assert_ok(tern_stream_destroy(s));
	assert_ok(tern_buffer_free(buf));
}

int conformance_compute_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matmul_program),
		cmocka_unit_test(test_vector_scalar_chain),
		cmocka_unit_test(test_launch_in_stream_order),
		cmocka_unit_test(test_program_refusals),
		cmocka_unit_test(test_gemm),
		cmocka_unit_test(test_gemm_refusals),
		cmocka_unit_test(test_activation_kernels),
		cmocka_unit_test(test_elementwise_kernels),
		cmocka_unit_test(test_softmax_kernels),
		cmocka_unit_test(test_attention_softmax),
		cmocka_unit_test(test_layer_norm_kernels),
		cmocka_unit_test(test_row_kernel_types),
		cmocka_unit_test(test_row_kernel_refusals),
	};

	return cmocka_run_group_tests_name("conformance_compute", tests,
					   conformance_open, conformance_close);
}
