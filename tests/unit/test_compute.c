// SPDX-License-Identifier: MIT
/*
 * Unit tests of the compute packets in the device model alone, on a fake
 * chip of two cores: every validation rule, DMA_TILE's grids and casts,
 * MATMUL against a reference computed with the C library's fmaf, the
 * vector and scalar packets against references of their own, budgets
 * that stop a packet midway, and the accuracy of every activation
 * function against double precision.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "float_ref.h"
#include "tern_activate.h"
#include "tern_model.h"
#include "tern_reduce.h"

/* ---- a fake chip: one buffer of device memory, two cores ---- */

#define HBM_VA		0x100000ull
#define HBM_BYTES	(1u << 20)
#define SBUF_BYTES	(16u << 10)	/* a partition's */
#define PSUM_BYTES	(16u << 10)

static const struct tern_core_shape shape = {
	.cores = 2, .sbuf_partition_bytes = SBUF_BYTES,
	.psum_partition_bytes = PSUM_BYTES,
};

static u8 hbm[HBM_BYTES];
static u8 *onchip_mem[2][3];	/* [core][space] */
static bool onchip_fails;

static void *fake_translate(void *ctx, u64 va, u64 len, u32 *owner)
{
	(void)ctx;
	*owner = 0;
	if (va < HBM_VA || va - HBM_VA > HBM_BYTES || len > HBM_BYTES - (va - HBM_VA))
		return NULL;
	return hbm + (va - HBM_VA);
}

static u64 fake_clock(void *ctx)
{
	(void)ctx;
	return 0;
}

static u8 *fake_onchip(void *ctx, u32 core, u32 space)
{
	u32 bytes = space == DRM_TERN_SPACE_SBUF ? SBUF_BYTES : PSUM_BYTES;

	(void)ctx;
	assert_true(core < shape.cores);
	assert_true(space == DRM_TERN_SPACE_SBUF || space == DRM_TERN_SPACE_PSUM);
	if (onchip_fails)
		return NULL;
	if (!onchip_mem[core][space])
		onchip_mem[core][space] = calloc(DRM_TERN_PARTITIONS, bytes);
	return onchip_mem[core][space];
}

static int reset(void **state)
{
	(void)state;
	for (int c = 0; c < 2; c++)
		for (int s = 0; s < 3; s++) {
			free(onchip_mem[c][s]);
			onchip_mem[c][s] = NULL;
		}
	memset(hbm, 0, sizeof(hbm));
	onchip_fails = false;
	return 0;
}

static struct tern_model_target target_of(u32 type, u32 core)
{
	struct tern_model_target t = { .type = type, .core = core, .shape = &shape };

	return t;
}

/* Validates one packet of @bytes for an engine of @type. */
static int check_on(const void *packet, u32 bytes, u32 type)
{
	struct tern_model_target t = target_of(type, 1);

	return tern_model_validate_on(packet, bytes, &t, NULL);
}

/* Validates and runs one packet on core 1's engine of @type to its end. */
static int run_on(const void *packet, u32 bytes, u32 type, int *calls)
{
	struct tern_model_target t = target_of(type, 1);
	struct tern_model_mem mem = {
		.translate = fake_translate, .clock = fake_clock,
		.target = &t, .onchip = fake_onchip,
	};
	struct tern_model_job job;
	int ret, n = 0;

	assert_int_equal(tern_model_validate_on(packet, bytes, &t, NULL), 0);
	tern_model_job_init(&job, packet, bytes);
	do {
		ret = tern_model_run(&job, &mem);
		n++;
	} while (ret == TERN_MODEL_YIELD);
	if (calls)
		*calls = n;
	return ret;
}

static struct drm_tern_tile tile(u32 space, u32 dtype, u16 partition,
				 u16 partitions, u32 offset, u32 elements)
{
	struct drm_tern_tile t = {
		.offset = offset, .partition = partition,
		.partitions = partitions, .elements = elements,
		.space = (u8)space, .dtype = (u8)dtype,
	};

	return t;
}

static struct drm_tern_tile sbuf(u32 dtype, u16 partitions, u32 offset,
				 u32 elements)
{
	return tile(DRM_TERN_SPACE_SBUF, dtype, 0, partitions, offset, elements);
}

#define HEADER(type, op, flag_bits) \
	{ .opcode = (op), .length = sizeof(type) / 8, .flags = (flag_bits) }

/* Element [p][f] of a tile of core 1. */
static u8 *at(const struct drm_tern_tile *t, u32 p, u32 f)
{
	u32 bytes = t->space == DRM_TERN_SPACE_SBUF ? SBUF_BYTES : PSUM_BYTES;

	return fake_onchip(NULL, 1, t->space) + (u64)(t->partition + p) * bytes +
	       t->offset + (u64)f * tern_model_dtype_size(t->dtype);
}

static u32 get_bits(const u8 *p, u32 size)
{
	u32 v = 0;

	memcpy(&v, p, size);
	return v;
}

/* The reference formats of the float types, NULL for float32 and integers. */
static const struct ref_format *ref_of(u32 dtype)
{
	switch (dtype) {
	case DRM_TERN_DTYPE_FLOAT16:
		return &ref_f16;
	case DRM_TERN_DTYPE_BFLOAT16:
		return &ref_bf16;
	case DRM_TERN_DTYPE_FLOAT8_E4M3:
		return &ref_e4m3;
	case DRM_TERN_DTYPE_FLOAT8_E5M2:
		return &ref_e5m2;
	default:
		return NULL;
	}
}

/* The value of the element at @p, as the spec reads it: exactly, in double. */
static double ref_load(const u8 *p, u32 dtype)
{
	u32 w = get_bits(p, tern_model_dtype_size(dtype));

	switch (dtype) {
	case DRM_TERN_DTYPE_FLOAT32:
		return f32_of(w);
	case DRM_TERN_DTYPE_INT8:
		return (float)(s8)w;
	case DRM_TERN_DTYPE_UINT8:
		return (float)(u8)w;
	case DRM_TERN_DTYPE_INT32:
		return (float)(s32)w;	/* rounded to float32, as the spec says */
	case DRM_TERN_DTYPE_UINT32:
		return (float)w;
	default:
		return ref_widen(w, ref_of(dtype));
	}
}

/* Float32 @x stored as @dtype, the spec's way, as bits. */
static u32 ref_store(float x, u32 dtype)
{
	double r;

	switch (dtype) {
	case DRM_TERN_DTYPE_FLOAT32:
		return isnan(x) ? 0x7fc00000u : bits_of(x);
	case DRM_TERN_DTYPE_INT8:
	case DRM_TERN_DTYPE_UINT8:
	case DRM_TERN_DTYPE_INT32:
	case DRM_TERN_DTYPE_UINT32: {
		double lo = dtype == DRM_TERN_DTYPE_INT8 ? -128 :
			    dtype == DRM_TERN_DTYPE_INT32 ? -2147483648.0 : 0;
		double hi = dtype == DRM_TERN_DTYPE_INT8 ? 127 :
			    dtype == DRM_TERN_DTYPE_UINT8 ? 255 :
			    dtype == DRM_TERN_DTYPE_INT32 ? 2147483647.0 :
			    4294967295.0;

		if (isnan(x))
			return 0;
		r = nearbyint((double)x);
		r = r < lo ? lo : r > hi ? hi : r;
		return dtype == DRM_TERN_DTYPE_INT8 ? (u8)(s8)r :
		       dtype == DRM_TERN_DTYPE_INT32 ? (u32)(s32)r : (u32)r;
	}
	default:
		return ref_narrow(x, ref_of(dtype));
	}
}

/* A random element of @dtype at @p: mostly ordinary values. */
static void random_element(u8 *p, u32 dtype)
{
	u32 size = tern_model_dtype_size(dtype), w = (u32)rng();

	if (dtype == DRM_TERN_DTYPE_FLOAT32 && (rng() & 15))
		w = (w & 0x807fffffu) | (u32)(120 + rng() % 14) << 23;
	if (dtype == DRM_TERN_DTYPE_FLOAT16 && (rng() & 15))
		w = (w & 0x83ffu) | (u32)(10 + rng() % 10) << 10;
	if (dtype == DRM_TERN_DTYPE_BFLOAT16 && (rng() & 15))
		w = (w & 0x807fu) | (u32)(120 + rng() % 14) << 7;
	memcpy(p, &w, size);
}

static void fill_random(const struct drm_tern_tile *t)
{
	for (u32 p = 0; p < t->partitions; p++)
		for (u32 f = 0; f < t->elements; f++)
			random_element(at(t, p, f), t->dtype);
}

static const u32 float_types[] = {
	DRM_TERN_DTYPE_FLOAT32, DRM_TERN_DTYPE_BFLOAT16, DRM_TERN_DTYPE_FLOAT16,
	DRM_TERN_DTYPE_FLOAT8_E4M3, DRM_TERN_DTYPE_FLOAT8_E5M2,
};

static const u32 all_types[] = {
	DRM_TERN_DTYPE_FLOAT32, DRM_TERN_DTYPE_BFLOAT16, DRM_TERN_DTYPE_FLOAT16,
	DRM_TERN_DTYPE_FLOAT8_E4M3, DRM_TERN_DTYPE_FLOAT8_E5M2,
	DRM_TERN_DTYPE_INT32, DRM_TERN_DTYPE_UINT32, DRM_TERN_DTYPE_INT8,
	DRM_TERN_DTYPE_UINT8,
};

/* ---- MATMUL ---- */

static struct drm_tern_packet_matmul matmul(u32 st_type, u32 mv_type, u16 k,
					    u32 m, u32 n, bool accumulate)
{
	struct drm_tern_packet_matmul p = {
		.header = HEADER(struct drm_tern_packet_matmul, DRM_TERN_OP_MATMUL,
				 accumulate ? DRM_TERN_MATMUL_ACCUMULATE : 0),
		.stationary = sbuf(st_type, k, 0, m),
		.moving = sbuf(mv_type, k, 1024, n),
		.result = tile(DRM_TERN_SPACE_PSUM, DRM_TERN_DTYPE_FLOAT32, 0,
			       (u16)m, 2 * DRM_TERN_PSUM_BANK_BYTES, n),
	};

	return p;
}

/* Checks PSUM against fmaf in K order from @start (one per element). */
static void check_matmul(const struct drm_tern_packet_matmul *p,
			 const float *start)
{
	const struct drm_tern_tile *st = &p->stationary, *mv = &p->moving;

	for (u32 m = 0; m < st->elements; m++) {
		for (u32 n = 0; n < mv->elements; n++) {
			float acc = start[m * mv->elements + n];
			u32 got = get_bits(at(&p->result, m, n), 4), want;

			for (u32 k = 0; k < st->partitions; k++)
				acc = fmaf((float)ref_load(at(st, k, m), st->dtype),
					   (float)ref_load(at(mv, k, n), mv->dtype),
					   acc);
			want = isnan(acc) ? 0x7fc00000u : bits_of(acc);
			if (got != want)
				fail_msg("matmul %u x %u: [%u][%u] = 0x%08x, want 0x%08x",
					 st->dtype, mv->dtype, m, n, got, want);
		}
	}
}

static void test_matmul_reference(void **state)
{
	/*
	 * K x M x N: the simulator computes blocks of 6 rows by 16 columns,
	 * so shapes with rows and columns left over (and a job that stops
	 * in the middle of a row: test_matmul_yields).
	 */
	static const struct { u16 k; u32 m, n; } shapes[] = {
		{ 1, 1, 512 }, { 7, 5, 33 }, { 128, 128, 1 },
		{ 100, 128, 512 }, { 128, 127, 509 }, { 61, 13, 17 },
		{ 128, 6, 16 }, { 2, 128, 15 },
	};
	static float start[128 * 512];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(float_types); i++) {
		for (size_t s = 0; s < ARRAY_SIZE(shapes); s++) {
			u32 st_type = float_types[i];
			u32 mv_type = float_types[(i + s) % ARRAY_SIZE(float_types)];
			u32 m = shapes[s].m, n = shapes[s].n;
			struct drm_tern_packet_matmul p =
				matmul(st_type, mv_type, shapes[s].k, m, n,
				       false);

			fill_random(&p.stationary);
			fill_random(&p.moving);
			for (u32 e = 0; e < m * n; e++)
				start[e] = -0.0f;
			assert_int_equal(run_on(&p, sizeof(p),
						DRM_TERN_ENGINE_TENSOR, NULL), 0);
			check_matmul(&p, start);
			/* a second K tile adds to the first, in order */
			for (u32 e = 0; e < m * n; e++)
				start[e] = f32_of(get_bits(at(&p.result, e / n,
							      e % n), 4));
			p.header.flags = DRM_TERN_MATMUL_ACCUMULATE;
			fill_random(&p.stationary);
			assert_int_equal(run_on(&p, sizeof(p),
						DRM_TERN_ENGINE_TENSOR, NULL), 0);
			check_matmul(&p, start);
		}
	}
}

/*
 * A job of four whole MATMULs, more than one call's budget whichever way
 * the model computes: one stops in the middle of a row (a row is 500
 * elements) and goes on at the next call, with the same bits.
 */
static void test_matmul_yields(void **state)
{
	struct drm_tern_packet_matmul p[4];
	static float start[128 * 500];
	int calls;

	(void)state;
	for (u32 i = 0; i < ARRAY_SIZE(p); i++) {
		p[i] = matmul(DRM_TERN_DTYPE_FLOAT32, DRM_TERN_DTYPE_BFLOAT16,
			      128, 128, 500, false);
		p[i].stationary.offset = 2048 * i;
		p[i].moving.offset = 8192 + 1024 * i;
		p[i].result.offset = DRM_TERN_PSUM_BANK_BYTES * (2 * i);
		fill_random(&p[i].stationary);
		fill_random(&p[i].moving);
	}
	for (u32 e = 0; e < 128 * 500; e++)
		start[e] = -0.0f;
	assert_int_equal(run_on(p, sizeof(p), DRM_TERN_ENGINE_TENSOR, &calls), 0);
	assert_true(calls > 1);
	for (u32 i = 0; i < ARRAY_SIZE(p); i++)
		check_matmul(&p[i], start);
}

/* ---- DMA_TILE ---- */

static struct drm_tern_packet_dma_tile dma_tile(u64 va, u64 pstride,
						u32 estride, u32 mem_type,
						struct drm_tern_tile t,
						bool to_memory)
{
	struct drm_tern_packet_dma_tile p = {
		.header = HEADER(struct drm_tern_packet_dma_tile,
				 DRM_TERN_OP_DMA_TILE,
				 to_memory ? DRM_TERN_DMA_TILE_TO_MEMORY : 0),
		.va = va, .partition_stride = pstride, .element_stride = estride,
		.core = 1, .dtype = (u8)mem_type, .tile = t,
	};

	return p;
}

static void test_dma_tile_grids_and_casts(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(all_types); i++) {
		for (size_t j = 0; j < ARRAY_SIZE(all_types); j++) {
			u32 mt = all_types[i], tt = all_types[j];
			u32 ms = tern_model_dtype_size(mt);
			struct drm_tern_tile t = sbuf(tt, 9, 64, 13);
			/* rows of 13 with a pitch of 16, or columns */
			bool columns = (i + j) & 1;
			u64 ps = columns ? ms : 16 * ms;
			u32 es = columns ? 16 * ms : ms;
			struct drm_tern_packet_dma_tile in =
				dma_tile(HBM_VA + 256, ps, es, mt, t, false);
			struct drm_tern_packet_dma_tile out =
				dma_tile(HBM_VA + 65536, ps, es, mt, t, true);

			for (u32 b = 0; b < 4096; b++)
				random_element(hbm + 256 + b * ms, mt);
			assert_int_equal(run_on(&in, sizeof(in),
						DRM_TERN_ENGINE_DMA, NULL), 0);
			for (u32 p = 0; p < 9; p++)
				for (u32 f = 0; f < 13; f++) {
					u8 *m = hbm + 256 + p * ps + f * es;
					u32 want = mt == tt ? get_bits(m, ms) :
						   ref_store((float)ref_load(m, mt), tt);

					if (get_bits(at(&t, p, f), tern_model_dtype_size(tt)) != want)
						fail_msg("dma %u -> %u [%u][%u] = 0x%x, want 0x%x",
							 mt, tt, p, f,
							 get_bits(at(&t, p, f), tern_model_dtype_size(tt)),
							 want);
				}
			assert_int_equal(run_on(&out, sizeof(out),
						DRM_TERN_ENGINE_DMA, NULL), 0);
			for (u32 p = 0; p < 9; p++)
				for (u32 f = 0; f < 13; f++) {
					u8 *c = at(&t, p, f);
					u32 want = mt == tt ? get_bits(c, ms) :
						   ref_store((float)ref_load(c, tt), mt);

					assert_int_equal(get_bits(hbm + 65536 + p * ps + f * es, ms),
							 want);
				}
		}
	}
}

/*
 * A load of a matrix read transposed (partitions side by side in memory,
 * elements far apart) of each element size, from a first partition on,
 * as a job goes on after a step: every element in place, the partitions
 * before the first untouched. The model reads such tiles in squares.
 */
static void test_dma_tile_transposed(void **state)
{
	static const u32 types[] = {
		DRM_TERN_DTYPE_FLOAT8_E4M3, DRM_TERN_DTYPE_BFLOAT16,
		DRM_TERN_DTYPE_FLOAT32,
	};
	static const struct { u16 at, partitions; u32 elements, first; } shapes[] = {
		{ 0, 128, 100, 0 }, { 3, 70, 17, 0 }, { 0, 128, 16, 37 },
		{ 5, 1, 1, 0 }, { 0, 33, 300, 9 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
		for (size_t s = 0; s < ARRAY_SIZE(shapes); s++) {
			u32 size = tern_model_dtype_size(types[i]);
			u32 stride = 600 * size;
			struct drm_tern_tile t = tile(DRM_TERN_SPACE_SBUF, types[i],
						      shapes[s].at,
						      shapes[s].partitions, 64,
						      shapes[s].elements);
			struct drm_tern_packet_dma_tile p =
				dma_tile(HBM_VA + 128, size, stride, types[i],
					 t, false);
			struct tern_model_target target =
				target_of(DRM_TERN_ENGINE_DMA, 1);
			struct tern_model_mem mem = {
				.translate = fake_translate, .clock = fake_clock,
				.target = &target, .onchip = fake_onchip,
			};
			struct tern_model_job job;
			int ret;

			for (u32 b = 0; b < shapes[s].elements * 600; b++)
				random_element(hbm + 128 + b * size, types[i]);
			memset(fake_onchip(NULL, 1, DRM_TERN_SPACE_SBUF), 0xa5,
			       (size_t)DRM_TERN_PARTITIONS * SBUF_BYTES);
			assert_int_equal(check_on(&p, sizeof(p),
						  DRM_TERN_ENGINE_DMA), 0);
			tern_model_job_init(&job, &p, sizeof(p));
			job.progress = shapes[s].first;
			do {
				ret = tern_model_run(&job, &mem);
			} while (ret == TERN_MODEL_YIELD);
			assert_int_equal(ret, 0);
			for (u32 pt = 0; pt < t.partitions; pt++)
				for (u32 f = 0; f < t.elements; f++) {
					u32 got = get_bits(at(&t, pt, f), size);
					u32 want = pt < shapes[s].first ?
						   0xa5a5a5a5u >> (32 - 8 * size) :
						   get_bits(hbm + 128 + pt * size +
							    f * stride, size);

					if (got != want)
						fail_msg("transposed %u [%u][%u] = 0x%x, want 0x%x",
							 types[i], pt, f, got, want);
				}
		}
	}
}

static void test_dma_tile_faults(void **state)
{
	struct drm_tern_packet_dma_tile p =
		dma_tile(HBM_VA + HBM_BYTES - 64, 64, 4, DRM_TERN_DTYPE_FLOAT32,
			 sbuf(DRM_TERN_DTYPE_FLOAT32, 2, 0, 16), false);

	(void)state;
	/* the second row is past the buffer: the job fails, SBUF untouched */
	memset(hbm + HBM_BYTES - 64, 0x5a, 64);
	assert_int_equal(run_on(&p, sizeof(p), DRM_TERN_ENGINE_DMA, NULL),
			 -EFAULT);
	assert_int_equal(get_bits(at(&p.tile, 0, 0), 4), 0);
	/* on-chip memory that cannot be had fails the job too */
	p.va = HBM_VA;
	onchip_fails = true;
	assert_int_equal(run_on(&p, sizeof(p), DRM_TERN_ENGINE_DMA, NULL),
			 -ENOMEM);
}

/* ---- the vector and scalar engines ---- */

static void test_tensor_copy(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(all_types); i++) {
		for (size_t j = 0; j < ARRAY_SIZE(all_types); j++) {
			struct drm_tern_packet_tensor_copy p = {
				.header = HEADER(struct drm_tern_packet_tensor_copy,
						 DRM_TERN_OP_TENSOR_COPY,
						 (i + j) & 1 ?
						 DRM_TERN_TENSOR_COPY_TRANSPOSE : 0),
				.in = tile(DRM_TERN_SPACE_PSUM, all_types[i], 3,
					   20, 128, 37),
				.out = sbuf(all_types[j], 20, 4096, 37),
			};
			u32 os = tern_model_dtype_size(all_types[j]);

			if (p.header.flags) {
				p.out.partitions = 37;
				p.out.elements = 20;
			}
			fill_random(&p.in);
			assert_int_equal(run_on(&p, sizeof(p),
						DRM_TERN_ENGINE_VECTOR, NULL), 0);
			for (u32 pt = 0; pt < 20; pt++)
				for (u32 f = 0; f < 37; f++) {
					u8 *src = at(&p.in, pt, f);
					u8 *dst = p.header.flags ? at(&p.out, f, pt) :
						  at(&p.out, pt, f);
					u32 want = i == j ?
						   get_bits(src, os) :
						   ref_store((float)ref_load(src, all_types[i]),
							     all_types[j]);

					if (get_bits(dst, os) != want)
						fail_msg("copy %u -> %u [%u][%u] = 0x%x, want 0x%x",
							 all_types[i], all_types[j], pt, f,
							 get_bits(dst, os), want);
				}
		}
	}
}

static float ref_alu(u32 op, float a, float b)
{
	volatile float x = a, y = b;

	switch (op) {
	case DRM_TERN_ALU_ADD:
		return x + y;
	case DRM_TERN_ALU_SUBTRACT:
		return x - y;
	case DRM_TERN_ALU_MULTIPLY:
		return x * y;
	case DRM_TERN_ALU_MAX:
		return ref_max(x, y);
	default:
		return ref_min(x, y);
	}
}

static void test_tensor_tensor(void **state)
{
	(void)state;
	for (u32 op = DRM_TERN_ALU_ADD; op <= DRM_TERN_ALU_MIN; op++) {
		for (size_t i = 0; i < ARRAY_SIZE(all_types); i++) {
			u32 t0 = all_types[i];
			u32 t1 = all_types[(i + op) % ARRAY_SIZE(all_types)];
			u32 to = all_types[(i + 2 * op) % ARRAY_SIZE(all_types)];
			struct drm_tern_packet_tensor_tensor p = {
				.header = HEADER(struct drm_tern_packet_tensor_tensor,
						 DRM_TERN_OP_TENSOR_TENSOR, 0),
				.in0 = sbuf(t0, 128, 0, 50),
				.in1 = sbuf(t1, 128, 512, 50),
				.out = sbuf(to, 128, 1024, 50),
				.op = op,
			};

			fill_random(&p.in0);
			fill_random(&p.in1);
			assert_int_equal(run_on(&p, sizeof(p),
						DRM_TERN_ENGINE_VECTOR, NULL), 0);
			for (u32 pt = 0; pt < 128; pt++)
				for (u32 f = 0; f < 50; f++) {
					float v = ref_alu(op, (float)ref_load(at(&p.in0, pt, f), t0),
							  (float)ref_load(at(&p.in1, pt, f), t1));

					assert_int_equal(get_bits(at(&p.out, pt, f),
								  tern_model_dtype_size(to)),
							 ref_store(v, to));
				}
		}
	}
}

static void test_tensor_scalar_columns(void **state)
{
	struct drm_tern_packet_tensor_scalar p = {
		.header = HEADER(struct drm_tern_packet_tensor_scalar,
				 DRM_TERN_OP_TENSOR_SCALAR,
				 DRM_TERN_SCALAR_OPERAND1_COLUMN),
		.in = sbuf(DRM_TERN_DTYPE_BFLOAT16, 64, 0, 100),
		.out = sbuf(DRM_TERN_DTYPE_FLOAT32, 64, 0, 100),
		.op0 = DRM_TERN_ALU_MULTIPLY, .op1 = DRM_TERN_ALU_SUBTRACT,
		.operand0 = 0x3fc00000u,	/* 1.5 */
		.operand1 = 8192,
	};
	struct drm_tern_tile column = sbuf(DRM_TERN_DTYPE_FLOAT32, 64, 8192, 1);
	static float in_values[64][100];

	(void)state;
	/* out overlaps in partly (sizes differ): refused */
	assert_int_equal(check_on(&p, sizeof(p), DRM_TERN_ENGINE_VECTOR), -EINVAL);
	p.out.offset = 1024;
	fill_random(&p.in);
	fill_random(&column);
	for (u32 pt = 0; pt < 64; pt++)
		for (u32 f = 0; f < 100; f++)
			in_values[pt][f] = (float)ref_load(at(&p.in, pt, f),
							   DRM_TERN_DTYPE_BFLOAT16);
	/* the scalar engine runs it too */
	assert_int_equal(run_on(&p, sizeof(p), DRM_TERN_ENGINE_SCALAR, NULL), 0);
	for (u32 pt = 0; pt < 64; pt++) {
		float s1 = (float)ref_load(at(&column, pt, 0), DRM_TERN_DTYPE_FLOAT32);

		for (u32 f = 0; f < 100; f++) {
			float v = ref_alu(DRM_TERN_ALU_SUBTRACT,
					  ref_alu(DRM_TERN_ALU_MULTIPLY,
						  in_values[pt][f], 1.5f), s1);

			assert_int_equal(get_bits(at(&p.out, pt, f), 4),
					 ref_store(v, DRM_TERN_DTYPE_FLOAT32));
		}
	}
}

static void test_tensor_reduce_order(void **state)
{
	struct drm_tern_packet_tensor_reduce p = {
		.header = HEADER(struct drm_tern_packet_tensor_reduce,
				 DRM_TERN_OP_TENSOR_REDUCE, 0),
		.in = sbuf(DRM_TERN_DTYPE_FLOAT32, 128, 0, 300),
		.out = sbuf(DRM_TERN_DTYPE_FLOAT32, 128, 4096, 1),
		.op = DRM_TERN_ALU_ADD,
	};

	(void)state;
	for (int round = 0; round < 2; round++) {
		fill_random(&p.in);
		assert_int_equal(run_on(&p, sizeof(p), DRM_TERN_ENGINE_VECTOR,
					NULL), 0);
		for (u32 pt = 0; pt < 128; pt++) {
			float acc = (float)ref_load(at(&p.in, pt, 0),
						    DRM_TERN_DTYPE_FLOAT32);

			for (u32 f = 1; f < 300; f++)
				acc = ref_alu(p.op, acc,
					      (float)ref_load(at(&p.in, pt, f),
							      DRM_TERN_DTYPE_FLOAT32));
			assert_int_equal(get_bits(at(&p.out, pt, 0), 4),
					 ref_store(acc, DRM_TERN_DTYPE_FLOAT32));
		}
		p.op = DRM_TERN_ALU_MAX;
	}
}

/* Checks ACTIVATE @p's output and sums against fmaf and tern_activate(). */
static void check_activate(const struct drm_tern_packet_activate *p,
			   const struct drm_tern_tile *bias,
			   const struct drm_tern_tile *sums)
{
	for (u32 pt = 0; pt < 32; pt++) {
		u32 b = get_bits(at(bias, pt, 0), 4), sum = 0;

		for (u32 f = 0; f < 64; f++) {
			u32 x = bits_of((float)ref_load(at(&p->in, pt, f),
							DRM_TERN_DTYPE_FLOAT16));
			volatile float arg = fmaf(f32_of(x), f32_of(p->scale),
						  f32_of(b));
			u32 y = tern_activate(p->function, isnan(arg) ?
					      0x7fc00000u : bits_of(arg));

			sum = f ? bits_of(f32_of(sum) + f32_of(y)) : y;
			if (isnan(f32_of(sum)))
				sum = 0x7fc00000u;
			assert_int_equal(get_bits(at(&p->out, pt, f), 2),
					 ref_store(f32_of(y), DRM_TERN_DTYPE_BFLOAT16));
		}
		assert_int_equal(get_bits(at(sums, pt, 0), 4), sum);
	}
}

/* With a scale of 1, fma(x, 1, bias) is x + bias: the model adds. */
static void test_activate_scale_bias_sum(void **state)
{
	static const u32 scales[] = { 0xbf000000u, 0x3f800000u };	/* -0.5, 1 */
	struct drm_tern_packet_activate p = {
		.header = HEADER(struct drm_tern_packet_activate,
				 DRM_TERN_OP_ACTIVATE,
				 DRM_TERN_ACTIVATE_BIAS_COLUMN |
				 DRM_TERN_ACTIVATE_SUM),
		.in = sbuf(DRM_TERN_DTYPE_FLOAT16, 32, 0, 64),
		.out = sbuf(DRM_TERN_DTYPE_BFLOAT16, 32, 512, 64),
		.bias = 2048, .sum = 3072,
	};
	struct drm_tern_tile bias = sbuf(DRM_TERN_DTYPE_FLOAT32, 32, 2048, 1);
	struct drm_tern_tile sums = sbuf(DRM_TERN_DTYPE_FLOAT32, 32, 3072, 1);

	(void)state;
	for (u32 s = 0; s < ARRAY_SIZE(scales); s++) {
		for (u32 fn = DRM_TERN_ACT_IDENTITY; fn <= DRM_TERN_ACT_SQUARE; fn++) {
			p.scale = scales[s];
			p.function = (u16)fn;
			fill_random(&p.in);
			fill_random(&bias);
			assert_int_equal(run_on(&p, sizeof(p),
						DRM_TERN_ENGINE_SCALAR, NULL), 0);
			check_activate(&p, &bias, &sums);
		}
	}
}

/* ---- validation ---- */

/* Each packet kind, valid as built here, and the engines that run it. */
static struct drm_tern_packet_matmul v_matmul;
static struct drm_tern_packet_dma_tile v_dma;
static struct drm_tern_packet_tensor_copy v_copy;
static struct drm_tern_packet_tensor_tensor v_tt;
static struct drm_tern_packet_tensor_scalar v_ts;
static struct drm_tern_packet_tensor_reduce v_red;
static struct drm_tern_packet_activate v_act;

static void build_valid(void)
{
	v_matmul = matmul(DRM_TERN_DTYPE_BFLOAT16, DRM_TERN_DTYPE_FLOAT8_E4M3,
			  128, 128, 512, false);
	v_matmul.result.offset = 0;
	v_dma = dma_tile(HBM_VA, 4096, 2, DRM_TERN_DTYPE_BFLOAT16,
			 sbuf(DRM_TERN_DTYPE_FLOAT32, 128, 0, 1024), false);
	v_copy = (struct drm_tern_packet_tensor_copy){
		.header = HEADER(struct drm_tern_packet_tensor_copy,
				 DRM_TERN_OP_TENSOR_COPY, 0),
		.in = tile(DRM_TERN_SPACE_PSUM, DRM_TERN_DTYPE_FLOAT32, 0, 128, 0, 512),
		.out = sbuf(DRM_TERN_DTYPE_BFLOAT16, 128, 0, 512),
	};
	v_tt = (struct drm_tern_packet_tensor_tensor){
		.header = HEADER(struct drm_tern_packet_tensor_tensor,
				 DRM_TERN_OP_TENSOR_TENSOR, 0),
		.in0 = sbuf(DRM_TERN_DTYPE_FLOAT32, 128, 0, 64),
		.in1 = sbuf(DRM_TERN_DTYPE_FLOAT32, 128, 256, 64),
		.out = sbuf(DRM_TERN_DTYPE_FLOAT32, 128, 0, 64),	/* in place */
		.op = DRM_TERN_ALU_ADD,
	};
	v_ts = (struct drm_tern_packet_tensor_scalar){
		.header = HEADER(struct drm_tern_packet_tensor_scalar,
				 DRM_TERN_OP_TENSOR_SCALAR,
				 DRM_TERN_SCALAR_OPERAND0_COLUMN),
		.in = sbuf(DRM_TERN_DTYPE_FLOAT32, 128, 0, 64),
		.out = sbuf(DRM_TERN_DTYPE_FLOAT32, 128, 512, 64),
		.op0 = DRM_TERN_ALU_MULTIPLY, .operand0 = 1024,
	};
	v_red = (struct drm_tern_packet_tensor_reduce){
		.header = HEADER(struct drm_tern_packet_tensor_reduce,
				 DRM_TERN_OP_TENSOR_REDUCE, 0),
		.in = sbuf(DRM_TERN_DTYPE_FLOAT32, 128, 0, 64),
		.out = sbuf(DRM_TERN_DTYPE_FLOAT32, 128, 256, 1),
		.op = DRM_TERN_ALU_MAX,
	};
	v_act = (struct drm_tern_packet_activate){
		.header = HEADER(struct drm_tern_packet_activate,
				 DRM_TERN_OP_ACTIVATE, DRM_TERN_ACTIVATE_SUM),
		.in = sbuf(DRM_TERN_DTYPE_FLOAT32, 128, 0, 64),
		.out = sbuf(DRM_TERN_DTYPE_FLOAT32, 128, 0, 64),
		.function = DRM_TERN_ACT_GELU_TANH, .scale = 0x3f800000u,
		.sum = 256,
	};
}

struct packet_case {
	const char *name;
	void *packet;
	u32 bytes;
	u32 engines;	/* bits of the engine types that run it */
};

/*
 * The engines' numbers: the DMA engines, then each core's tensor, vector
 * and scalar engine, as tern.ko, tern-simd and libtern number them.
 */
static void test_engine_numbers(void **state)
{
	static const struct { u32 type, core; } want[] = {
		{ DRM_TERN_ENGINE_DMA, 0 }, { DRM_TERN_ENGINE_DMA, 0 },
		{ DRM_TERN_ENGINE_DMA, 0 }, { DRM_TERN_ENGINE_TENSOR, 0 },
		{ DRM_TERN_ENGINE_VECTOR, 0 }, { DRM_TERN_ENGINE_SCALAR, 0 },
		{ DRM_TERN_ENGINE_TENSOR, 1 }, { DRM_TERN_ENGINE_VECTOR, 1 },
		{ DRM_TERN_ENGINE_SCALAR, 1 },
	};
	struct tern_model_target target;

	(void)state;
	for (u32 e = 0; e < sizeof(want) / sizeof(want[0]); e++) {
		tern_model_engine_target(3, e, &shape, &target);
		assert_int_equal(target.type, want[e].type);
		assert_int_equal(target.core, want[e].core);
		assert_ptr_equal(target.shape, &shape);
	}
}

#define CASE(name, v, engines) { name, &(v), sizeof(v), (engines) }
#define ON(t) (1u << DRM_TERN_ENGINE_##t)

static void test_validate_engines(void **state)
{
	struct packet_case cases[] = {
		CASE("matmul", v_matmul, ON(TENSOR)),
		CASE("dma_tile", v_dma, ON(DMA)),
		CASE("tensor_copy", v_copy, ON(VECTOR) | ON(SCALAR)),
		CASE("tensor_tensor", v_tt, ON(VECTOR)),
		CASE("tensor_scalar", v_ts, ON(VECTOR) | ON(SCALAR)),
		CASE("tensor_reduce", v_red, ON(VECTOR)),
		CASE("activate", v_act, ON(SCALAR)),
	};

	(void)state;
	build_valid();
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		for (u32 type = 0; type <= DRM_TERN_ENGINE_SCALAR; type++) {
			int want = cases[i].engines & (1u << type) ? 0 : -EINVAL;

			if (check_on(cases[i].packet, cases[i].bytes, type) != want)
				fail_msg("%s on engine type %u: want %d",
					 cases[i].name, type, want);
		}
		/* a chip without cores runs none of them */
		assert_int_equal(tern_model_validate(cases[i].packet,
						     cases[i].bytes, NULL),
				 -EINVAL);
	}
}

/* One broken field of a valid packet: SUBMIT refuses it. */
static void refused(const char *what, const void *packet, u32 bytes, u32 type)
{
	if (check_on(packet, bytes, type) != -EINVAL)
		fail_msg("%s: accepted", what);
}

#define REFUSED(what, v, type, change) do {				\
		build_valid();						\
		change;							\
		refused(what, &(v), sizeof(v), DRM_TERN_ENGINE_##type);	\
	} while (0)

static void test_validate_rules(void **state)
{
	(void)state;
	/* tiles, as every packet checks them */
	REFUSED("tile pad", v_tt, VECTOR, v_tt.in0.pad = 1);
	REFUSED("no partitions", v_tt, VECTOR, v_tt.in0.partitions = 0);
	REFUSED("129 partitions", v_red, VECTOR,
		(v_red.in.partitions = 129, v_red.out.partitions = 129));
	REFUSED("past the last partition", v_tt, VECTOR, v_tt.in1.partition = 1);
	REFUSED("no elements", v_red, VECTOR, v_red.in.elements = 0);
	REFUSED("misaligned offset", v_tt, VECTOR, v_tt.in1.offset = 258);
	REFUSED("past the partition's end", v_tt, VECTOR,
		v_tt.in1.offset = SBUF_BYTES - 252);
	REFUSED("offset past the end", v_tt, VECTOR,
		v_tt.in1.offset = 0xfffffff0u);
	REFUSED("elements overflow", v_tt, VECTOR,
		v_tt.in1.elements = 0x40000001u);
	REFUSED("space 0", v_tt, VECTOR, v_tt.in1.space = 0);
	REFUSED("space 3", v_tt, VECTOR, v_tt.in1.space = 3);
	REFUSED("int64 tile", v_tt, VECTOR, v_tt.in1.dtype = DRM_TERN_DTYPE_INT64);
	REFUSED("unknown type", v_tt, VECTOR, v_tt.in1.dtype = 11);
	REFUSED("unknown flag", v_tt, VECTOR, v_tt.header.flags = 1);
	REFUSED("short length", v_tt, VECTOR, v_tt.header.length--);
	/* MATMUL */
	REFUSED("stationary in PSUM", v_matmul, TENSOR,
		v_matmul.stationary.space = DRM_TERN_SPACE_PSUM);
	REFUSED("integer moving", v_matmul, TENSOR,
		v_matmul.moving.dtype = DRM_TERN_DTYPE_INT8);
	REFUSED("result in SBUF", v_matmul, TENSOR,
		v_matmul.result.space = DRM_TERN_SPACE_SBUF);
	REFUSED("bfloat16 result", v_matmul, TENSOR,
		(v_matmul.result.dtype = DRM_TERN_DTYPE_BFLOAT16));
	REFUSED("K differs", v_matmul, TENSOR, v_matmul.moving.partitions = 64);
	REFUSED("M over 128", v_matmul, TENSOR,
		(v_matmul.stationary.elements = 129, v_matmul.result.partitions = 129));
	REFUSED("N over 512", v_matmul, TENSOR,
		(v_matmul.moving.elements = 513, v_matmul.result.elements = 513));
	REFUSED("result rows", v_matmul, TENSOR, v_matmul.result.partitions = 127);
	REFUSED("result across banks", v_matmul, TENSOR,
		(v_matmul.moving.elements = 256, v_matmul.result.elements = 256,
		 v_matmul.result.offset = 1024 + 4));
	/* DMA_TILE */
	REFUSED("dma core", v_dma, DMA, v_dma.core = 2);
	REFUSED("dma pad", v_dma, DMA, v_dma.pad = 1);
	REFUSED("dma into PSUM", v_dma, DMA, v_dma.tile.space = DRM_TERN_SPACE_PSUM);
	REFUSED("dma misaligned va", v_dma, DMA, v_dma.va++);
	REFUSED("dma misaligned stride", v_dma, DMA, v_dma.element_stride = 3);
	REFUSED("dma int64", v_dma, DMA, v_dma.dtype = DRM_TERN_DTYPE_INT64);
	REFUSED("dma past the address space", v_dma, DMA,
		v_dma.va = DRM_TERN_VA_LIMIT - 4096);
	REFUSED("dma huge stride", v_dma, DMA,
		v_dma.partition_stride = DRM_TERN_VA_LIMIT + 2);
	REFUSED("dma unknown flag", v_dma, DMA, v_dma.header.flags = 2);
	/* TENSOR_COPY */
	REFUSED("copy shapes", v_copy, VECTOR, v_copy.out.elements = 511);
	REFUSED("transpose on the scalar engine", v_copy, SCALAR,
		(v_copy.header.flags = DRM_TERN_TENSOR_COPY_TRANSPOSE,
		 v_copy.in.elements = 128, v_copy.out.elements = 128));
	REFUSED("transpose of 129 columns", v_copy, VECTOR,
		(v_copy.header.flags = DRM_TERN_TENSOR_COPY_TRANSPOSE,
		 v_copy.in.elements = 129, v_copy.in.partitions = 2,
		 v_copy.out.partitions = 129, v_copy.out.elements = 2));
	REFUSED("transpose in place", v_copy, VECTOR,
		(v_copy.header.flags = DRM_TERN_TENSOR_COPY_TRANSPOSE,
		 v_copy.in = sbuf(DRM_TERN_DTYPE_FLOAT32, 128, 0, 128),
		 v_copy.out = sbuf(DRM_TERN_DTYPE_FLOAT32, 128, 0, 128)));
	REFUSED("copy overlapping in part", v_copy, VECTOR,
		(v_copy.in = sbuf(DRM_TERN_DTYPE_FLOAT32, 128, 0, 64),
		 v_copy.out = sbuf(DRM_TERN_DTYPE_FLOAT32, 128, 4, 64)));
	REFUSED("copy in place, sizes differ", v_copy, VECTOR,
		(v_copy.in = sbuf(DRM_TERN_DTYPE_FLOAT32, 128, 0, 64),
		 v_copy.out = sbuf(DRM_TERN_DTYPE_BFLOAT16, 128, 0, 64)));
	/* TENSOR_TENSOR */
	REFUSED("no op", v_tt, VECTOR, v_tt.op = DRM_TERN_ALU_NONE);
	REFUSED("op 6", v_tt, VECTOR, v_tt.op = 6);
	REFUSED("tensor_tensor pad", v_tt, VECTOR, v_tt.pad = 1);
	REFUSED("shapes differ", v_tt, VECTOR, v_tt.in1.elements = 63);
	REFUSED("out overlaps in1", v_tt, VECTOR, v_tt.out.offset = 128);
	/* TENSOR_SCALAR */
	REFUSED("no first op", v_ts, VECTOR, v_ts.op0 = DRM_TERN_ALU_NONE);
	REFUSED("second op 9", v_ts, VECTOR, v_ts.op1 = 9);
	REFUSED("operand1 without op1", v_ts, VECTOR, v_ts.operand1 = 1);
	REFUSED("column1 without op1", v_ts, VECTOR,
		v_ts.header.flags |= DRM_TERN_SCALAR_OPERAND1_COLUMN);
	REFUSED("column past SBUF", v_ts, VECTOR, v_ts.operand0 = SBUF_BYTES);
	REFUSED("column misaligned", v_ts, VECTOR, v_ts.operand0 = 1026);
	REFUSED("column under out", v_ts, VECTOR, v_ts.operand0 = 516);
	REFUSED("tensor_scalar pad", v_ts, VECTOR, v_ts.pad = 1);
	/* TENSOR_REDUCE */
	REFUSED("reduce by subtraction", v_red, VECTOR,
		v_red.op = DRM_TERN_ALU_SUBTRACT);
	REFUSED("two results a partition", v_red, VECTOR, v_red.out.elements = 2);
	REFUSED("result rows differ", v_red, VECTOR, v_red.out.partitions = 127);
	REFUSED("result inside in", v_red, VECTOR, v_red.out.offset = 252);
	REFUSED("tensor_reduce pad", v_red, VECTOR, v_red.pad = 1);
	/* ACTIVATE */
	REFUSED("function 10", v_act, SCALAR, v_act.function = 10);
	REFUSED("activate pad", v_act, SCALAR, v_act.pad = 1);
	REFUSED("sum offset without the flag", v_act, SCALAR,
		v_act.header.flags = 0);
	REFUSED("sums inside the tile", v_act, SCALAR, v_act.sum = 128);
	REFUSED("sums past SBUF", v_act, SCALAR, v_act.sum = SBUF_BYTES - 2);
	REFUSED("scale column under out", v_act, SCALAR,
		(v_act.header.flags |= DRM_TERN_ACTIVATE_SCALE_COLUMN,
		 v_act.scale = 0));
	REFUSED("bias column past SBUF", v_act, SCALAR,
		(v_act.header.flags |= DRM_TERN_ACTIVATE_BIAS_COLUMN,
		 v_act.bias = SBUF_BYTES));
	/* and each valid one is accepted, so the refusals above are theirs */
	build_valid();
	assert_int_equal(check_on(&v_matmul, sizeof(v_matmul), DRM_TERN_ENGINE_TENSOR), 0);
	assert_int_equal(check_on(&v_dma, sizeof(v_dma), DRM_TERN_ENGINE_DMA), 0);
	assert_int_equal(check_on(&v_copy, sizeof(v_copy), DRM_TERN_ENGINE_VECTOR), 0);
	assert_int_equal(check_on(&v_tt, sizeof(v_tt), DRM_TERN_ENGINE_VECTOR), 0);
	assert_int_equal(check_on(&v_ts, sizeof(v_ts), DRM_TERN_ENGINE_VECTOR), 0);
	assert_int_equal(check_on(&v_red, sizeof(v_red), DRM_TERN_ENGINE_VECTOR), 0);
	assert_int_equal(check_on(&v_act, sizeof(v_act), DRM_TERN_ENGINE_SCALAR), 0);
}

/* ---- the timing model ---- */

static struct tern_fabric timing_fabric;
static struct tern_timing timing;

/* A fresh timing model of one device. */
static void timing_reset(void)
{
	assert_int_equal(tern_fabric_init(&timing_fabric, 1, "none"), 0);
	tern_timing_init(&timing, &timing_fabric);
}

/* Runs @packets on @engine, core 1's of type @type, to the job's end. */
static void run_timed(const void *packets, u32 bytes, u32 type,
		      struct tern_timing_engine *engine)
{
	struct tern_model_target t = target_of(type, 1);
	struct tern_model_mem mem = {
		.translate = fake_translate, .clock = fake_clock,
		.target = &t, .onchip = fake_onchip, .timing = &timing,
		.engine = engine,
	};
	struct tern_model_job job;
	int ret;

	assert_int_equal(tern_model_validate_on(packets, bytes, &t, NULL), 0);
	tern_model_job_init(&job, packets, bytes);
	do {
		ret = tern_model_run(&job, &mem);
	} while (ret == TERN_MODEL_YIELD);
	assert_int_equal(ret, 0);
	tern_timing_job_end(engine);
}

/* Modelled ns of @packet on a fresh engine of core 1 of type @type. */
static u64 modelled_ns(const void *packet, u32 bytes, u32 type)
{
	struct tern_timing_engine engine = { 0 };

	timing_reset();
	run_timed(packet, bytes, type, &engine);
	return engine.now;
}

/* ceil(cycles / 2.4 GHz): the cycles alone, no decode on a core's engines. */
static u64 formula_ns(u64 cycles)
{
	return (cycles * 1000 + 2399) / 2400;
}

static void test_timing_costs(void **state)
{
	struct drm_tern_packet_matmul mm = matmul(DRM_TERN_DTYPE_BFLOAT16,
						  DRM_TERN_DTYPE_FLOAT8_E4M3,
						  128, 128, 512, false);
	struct drm_tern_packet_activate act = {
		.header = HEADER(struct drm_tern_packet_activate,
				 DRM_TERN_OP_ACTIVATE, 0),
		.in = sbuf(DRM_TERN_DTYPE_FLOAT32, 128, 0, 100),
		.out = sbuf(DRM_TERN_DTYPE_BFLOAT16, 128, 4096, 100),
		.function = DRM_TERN_ACT_GELU_TANH, .scale = 0x3f800000u,
	};
	struct drm_tern_packet_tensor_tensor tt = {
		.header = HEADER(struct drm_tern_packet_tensor_tensor,
				 DRM_TERN_OP_TENSOR_TENSOR, 0),
		.in0 = sbuf(DRM_TERN_DTYPE_FLOAT32, 16, 0, 300),
		.in1 = sbuf(DRM_TERN_DTYPE_FLOAT32, 16, 2048, 300),
		.out = sbuf(DRM_TERN_DTYPE_FLOAT32, 16, 4096, 300),
		.op = DRM_TERN_ALU_ADD,
	};

	(void)state;
	/* max(N, 64) cycles; float32 inputs at a quarter of the rate */
	assert_int_equal(modelled_ns(&mm, sizeof(mm), DRM_TERN_ENGINE_TENSOR),
			 formula_ns(512));
	mm.moving.elements = mm.result.elements = 10;
	assert_int_equal(modelled_ns(&mm, sizeof(mm), DRM_TERN_ENGINE_TENSOR),
			 formula_ns(64));
	mm.stationary.dtype = DRM_TERN_DTYPE_FLOAT32;
	assert_int_equal(modelled_ns(&mm, sizeof(mm), DRM_TERN_ENGINE_TENSOR),
			 formula_ns(256));
	/* N elements a partition and a fixed 64; two inputs, 2N */
	assert_int_equal(modelled_ns(&act, sizeof(act), DRM_TERN_ENGINE_SCALAR),
			 formula_ns(100 + 64));
	assert_int_equal(modelled_ns(&tt, sizeof(tt), DRM_TERN_ENGINE_VECTOR),
			 formula_ns(600 + 64));
	/* and the same again */
	assert_int_equal(modelled_ns(&tt, sizeof(tt), DRM_TERN_ENGINE_VECTOR),
			 formula_ns(600 + 64));
}

/* Semaphores of the timing tests, at the end of device memory. */
#define SEM_VA		(HBM_VA + HBM_BYTES - 64)
#define ABORT_VA	(HBM_VA + HBM_BYTES - 56)

/* A pipeline's step on the tensor engine: its waits, MATMUL, a signal. */
struct matmul_step {
	struct drm_tern_packet_sem_wait wait;
	struct drm_tern_packet_sem_wait_abort wait_abort;
	struct drm_tern_packet_matmul mm;
	struct drm_tern_packet_sem_signal signal;
};

static struct matmul_step matmul_step(u64 wait_for)
{
	struct matmul_step s = {
		.wait = {
			.header = HEADER(struct drm_tern_packet_sem_wait,
					 DRM_TERN_OP_SEM_WAIT, 0),
			.addr = SEM_VA, .value = wait_for,
		},
		.wait_abort = {
			.header = HEADER(struct drm_tern_packet_sem_wait_abort,
					 DRM_TERN_OP_SEM_WAIT_ABORT, 0),
			.addr = SEM_VA, .value = wait_for, .abort = ABORT_VA,
		},
		.mm = matmul(DRM_TERN_DTYPE_BFLOAT16, DRM_TERN_DTYPE_BFLOAT16,
			     128, 128, 512, false),
		.signal = {
			.header = HEADER(struct drm_tern_packet_sem_signal,
					 DRM_TERN_OP_SEM_SIGNAL,
					 DRM_TERN_SEM_SIGNAL_ADD),
			.addr = SEM_VA + 16, .value = 1,
		},
	};

	return s;
}

/*
 * On a core's engines a packet costs its cycles and nothing more: the
 * published figures include the issue, and waits that have passed and
 * signals are free, as fields of a chip's instructions are.
 */
static void test_timing_no_decode_on_cores(void **state)
{
	struct matmul_step steps[2] = { matmul_step(0), matmul_step(0) };
	struct drm_tern_packet_timestamp stamp = {
		.header = HEADER(struct drm_tern_packet_timestamp,
				 DRM_TERN_OP_TIMESTAMP, 0),
		.dst = SEM_VA + 24,
	};

	(void)state;
	/* 512 cycles are 213.3 ns: 214 each, whatever surrounds them */
	assert_int_equal(modelled_ns(&steps[0].mm, sizeof(steps[0].mm),
				     DRM_TERN_ENGINE_TENSOR), 214);
	assert_int_equal(modelled_ns(steps, sizeof(steps),
				     DRM_TERN_ENGINE_TENSOR),
			 2 * formula_ns(512));
	assert_int_equal(modelled_ns(&stamp, sizeof(stamp),
				     DRM_TERN_ENGINE_VECTOR), 0);
	/* a DMA engine still decodes each packet */
	assert_int_equal(modelled_ns(&stamp, sizeof(stamp),
				     DRM_TERN_ENGINE_DMA),
			 TERN_TIMING_PACKET_NS);
}

/* A wait on a core's engine still waits for its semaphore's signal. */
static void test_timing_wait_still_waits(void **state)
{
	struct drm_tern_packet_sem_signal signal = {
		.header = HEADER(struct drm_tern_packet_sem_signal,
				 DRM_TERN_OP_SEM_SIGNAL, 0),
		.addr = SEM_VA, .value = 1,
	};
	struct matmul_step step = matmul_step(1);
	struct tern_timing_engine dma = { .now = 1000 }, tensor = { 0 };

	(void)state;
	timing_reset();
	run_timed(&signal, sizeof(signal), DRM_TERN_ENGINE_DMA, &dma);
	assert_int_equal(dma.now, 1000 + TERN_TIMING_PACKET_NS);
	/* the signal landed at 1000; the MATMUL follows it at once */
	run_timed(&step, sizeof(step), DRM_TERN_ENGINE_TENSOR, &tensor);
	assert_int_equal(tensor.now, 1000 + formula_ns(512));
}

/* ---- the activation functions against double precision ---- */

static double ref_function(u32 fn, double x)
{
	switch (fn) {
	case DRM_TERN_ACT_RELU:
		return x > 0 ? x : 0;
	case DRM_TERN_ACT_GELU_TANH: {
		/* x (1 + tanh y) / 2, without the cancellation of 1 + tanh y */
		double y = sqrt(2 / M_PI) * (x + 0.044715 * x * x * x);

		return x / (1 + exp(-2 * y));
	}
	case DRM_TERN_ACT_SILU:
		return x / (1 + exp(-x));
	case DRM_TERN_ACT_SIGMOID:
		return 1 / (1 + exp(-x));
	case DRM_TERN_ACT_TANH:
		return tanh(x);
	case DRM_TERN_ACT_EXP:
		return exp(x);
	case DRM_TERN_ACT_LOG:
		return log(x);
	case DRM_TERN_ACT_RSQRT:
		return 1 / sqrt(x);
	case DRM_TERN_ACT_SQUARE:
		return x * x;
	default:
		return x;
	}
}

/* The distance from float32 @got to @want in units of @want's last place. */
static double ulp_error(float got, double want)
{
	int exp;

	if (isnan(want))
		return isnan(got) ? 0 : INFINITY;
	if (isinf(want) || fabs(want) > FLT_MAX)
		return got == (float)want ? 0 : INFINITY;
	frexp(want, &exp);
	if (exp < -125)
		exp = -125;	/* subnormals: a fixed quantum */
	return fabs((double)got - want) / ldexp(1, exp - 24);
}

/*
 * Every function over a sweep of inputs, with the measured worst error,
 * which Documentation/compute.rst states; the bounds here are those
 * figures rounded up. gelu and silu are measured where |x| >= 2^-20
 * (below, their results are x/2), and every function where its result
 * is 0 or a normal float.
 */
static void test_activation_accuracy(void **state)
{
	static const struct { u32 fn; const char *name; double bound; } fns[] = {
		{ DRM_TERN_ACT_IDENTITY, "identity", 0 },
		{ DRM_TERN_ACT_RELU, "relu", 0 },
		{ DRM_TERN_ACT_SQUARE, "square", 0.5 },
		{ DRM_TERN_ACT_RSQRT, "rsqrt", 1.5 },
		{ DRM_TERN_ACT_EXP, "exp", 2 },
		{ DRM_TERN_ACT_LOG, "log", 2 },
		{ DRM_TERN_ACT_TANH, "tanh", 4 },
		{ DRM_TERN_ACT_SIGMOID, "sigmoid", 4 },
		{ DRM_TERN_ACT_SILU, "silu", 4 },
		/* ill-conditioned below -4: |x f'(x) / f(x)| is 180 at -9 */
		{ DRM_TERN_ACT_GELU_TANH, "gelu_tanh", 256 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(fns); i++) {
		double worst = 0, worst_x = 0;

		for (int n = 0; n < 2000000; n++) {
			u32 xb = (u32)rng();
			float x, got;
			double want, err;

			/* mostly the interesting range, |x| in 2^-20 .. 2^7 */
			if (n % 4)
				xb = (xb & 0x807fffffu) | (u32)(107 + rng() % 27) << 23;
			x = f32_of(xb);
			if (isnan(x))
				continue;
			if ((fns[i].fn == DRM_TERN_ACT_GELU_TANH ||
			     fns[i].fn == DRM_TERN_ACT_SILU) && fabsf(x) < 0x1p-20f)
				continue;
			got = f32_of(tern_activate(fns[i].fn, xb));
			want = ref_function(fns[i].fn, x);
			/* results in the normal range: below, products of
			 * subnormals carry absolute, not relative, error */
			if (want != 0 && fabs(want) < 0x1p-126)
				continue;
			err = ulp_error(got, want);
			if (err > worst) {
				worst = err;
				worst_x = x;
			}
		}
		print_message("%-10s max %.2f ulp (at %a)\n", fns[i].name, worst,
			      worst_x);
		if (worst > fns[i].bound)
			fail_msg("%s: %.2f ulp at %a, over %.1f", fns[i].name,
				 worst, worst_x, fns[i].bound);
	}
}

/* ---- one workload, for comparing builds ---- */

static u64 digest_add(u64 h, const u8 *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* The digest of core 1's memories after @packet ran. */
static u64 digest_packet(u64 h, const void *packet, u32 bytes, u32 type)
{
	assert_int_equal(run_on(packet, bytes, type, NULL), 0);
	h = digest_add(h, fake_onchip(NULL, 1, DRM_TERN_SPACE_SBUF),
		       (size_t)DRM_TERN_PARTITIONS * SBUF_BYTES);
	return digest_add(h, fake_onchip(NULL, 1, DRM_TERN_SPACE_PSUM),
			  (size_t)DRM_TERN_PARTITIONS * PSUM_BYTES);
}

/*
 * Every compute packet on random tiles, some millions of elements of
 * each: the digest of what they leave is the same whether the model
 * computes with the FPU or with tern.ko's integers (make check compares
 * test_compute --digest with test_compute_soft --digest).
 */
static int digest_main(void)
{
	u64 h = 0xcbf29ce484222325ull, elements[4] = { 0 };

	reset(NULL);
	for (int round = 0; round < 4; round++) {
		for (size_t i = 0; i < ARRAY_SIZE(float_types); i++) {
			struct drm_tern_packet_matmul p =
				matmul(float_types[i],
				       float_types[(i + round) % ARRAY_SIZE(float_types)],
				       128, 128, 512, round & 1);

			fill_random(&p.stationary);
			fill_random(&p.moving);
			h = digest_packet(h, &p, sizeof(p), DRM_TERN_ENGINE_TENSOR);
			elements[0] += 128ull * 128 * 512;
		}
		for (u32 op = DRM_TERN_ALU_ADD; op <= DRM_TERN_ALU_MIN; op++) {
			struct drm_tern_packet_tensor_tensor p = {
				.header = HEADER(struct drm_tern_packet_tensor_tensor,
						 DRM_TERN_OP_TENSOR_TENSOR, 0),
				.in0 = sbuf(all_types[op], 128, 0, 1024),
				.in1 = sbuf(DRM_TERN_DTYPE_FLOAT32, 128, 4096, 1024),
				.out = sbuf(all_types[op + round], 128, 8192, 1024),
				.op = op,
			};

			fill_random(&p.in0);
			fill_random(&p.in1);
			h = digest_packet(h, &p, sizeof(p), DRM_TERN_ENGINE_VECTOR);
			elements[1] += 128 * 1024;
		}
		for (u32 fn = 0; fn <= DRM_TERN_ACT_SQUARE; fn++) {
			struct drm_tern_packet_activate p = {
				.header = HEADER(struct drm_tern_packet_activate,
						 DRM_TERN_OP_ACTIVATE,
						 DRM_TERN_ACTIVATE_SUM),
				.in = sbuf(float_types[round], 128, 0, 2048),
				.out = sbuf(DRM_TERN_DTYPE_BFLOAT16, 128, 8192, 2048),
				.function = (u16)fn, .scale = 0x3fc00000u,
				.bias = 0xbf000000u, .sum = 12288,
			};

			fill_random(&p.in);
			h = digest_packet(h, &p, sizeof(p), DRM_TERN_ENGINE_SCALAR);
			elements[2] += 128 * 2048;
		}
		{
			struct drm_tern_packet_tensor_reduce p = {
				.header = HEADER(struct drm_tern_packet_tensor_reduce,
						 DRM_TERN_OP_TENSOR_REDUCE, 0),
				.in = sbuf(DRM_TERN_DTYPE_BFLOAT16, 128, 0, 4096),
				.out = sbuf(DRM_TERN_DTYPE_FLOAT32, 128, 8192, 1),
				.op = DRM_TERN_ALU_ADD,
			};

			fill_random(&p.in);
			h = digest_packet(h, &p, sizeof(p), DRM_TERN_ENGINE_VECTOR);
			elements[3] += 128 * 4096;
		}
	}
	printf("digest %016llx: matmul %llu multiply-adds, tensor_tensor %llu, "
	       "activate %llu, tensor_reduce %llu elements\n",
	       (unsigned long long)h, (unsigned long long)elements[0],
	       (unsigned long long)elements[1], (unsigned long long)elements[2],
	       (unsigned long long)elements[3]);
	reset(NULL);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_matmul_reference, reset),
		cmocka_unit_test_setup(test_matmul_yields, reset),
		cmocka_unit_test_setup(test_dma_tile_grids_and_casts, reset),
		cmocka_unit_test_setup(test_dma_tile_transposed, reset),
		cmocka_unit_test_setup(test_dma_tile_faults, reset),
		cmocka_unit_test_setup(test_tensor_copy, reset),
		cmocka_unit_test_setup(test_tensor_tensor, reset),
		cmocka_unit_test_setup(test_tensor_scalar_columns, reset),
		cmocka_unit_test_setup(test_tensor_reduce_order, reset),
		cmocka_unit_test_setup(test_activate_scale_bias_sum, reset),
		cmocka_unit_test_setup(test_timing_costs, reset),
		cmocka_unit_test_setup(test_timing_no_decode_on_cores, reset),
		cmocka_unit_test_setup(test_timing_wait_still_waits, reset),
		cmocka_unit_test(test_engine_numbers),
		cmocka_unit_test(test_validate_engines),
		cmocka_unit_test(test_validate_rules),
		cmocka_unit_test(test_activation_accuracy),
	};

	if (argc == 2 && !strcmp(argv[1], "--digest"))
		return digest_main();
	return cmocka_run_group_tests(tests, NULL, reset);
}
