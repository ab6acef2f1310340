// SPDX-License-Identifier: MIT
/*
 * Unit tests of REDUCE: its float kernels against the machine's own
 * float32 and an independent rounding to float16 and bfloat16 (the
 * arithmetic itself is test_softfloat's), the integer kernels, and the
 * packet through tern_model_run() with operands in the executing
 * device's memory and in peers' memory reached over a fabric.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "test.h"
#include "tern_model.h"
#include "tern_reduce.h"
#include "tern_softfloat.h"
#include "float_ref.h"

/* ---- float16 and bfloat16, against an independent rounding ---- */

static double ref_op(double a, double b, u32 op)
{
	/* in float32, on the machine */
	volatile float x = (float)a, y = (float)b;

	switch (op) {
	case DRM_TERN_REDOP_SUM:
		return x + y;
	case DRM_TERN_REDOP_PROD:
		return x * y;
	case DRM_TERN_REDOP_MIN:
		return ref_min(x, y);
	default:
		return ref_max(x, y);
	}
}

static u16 random_half(const struct ref_format *fmt)
{
	u16 h = (u16)rng();

	/* fewer NaNs and infinities than uniform bits would give */
	if ((h >> fmt->mant_bits & ((1 << fmt->exp_bits) - 1)) ==
	    (1 << fmt->exp_bits) - 1 && (rng() & 7))
		h ^= (u16)(1 << (fmt->mant_bits + 1));
	return h;
}

static void check_half_ops(u32 dtype, const struct ref_format *fmt)
{
	enum { N = 4096 };
	static u16 a[N], b[N], d[N];

	for (int round = 0; round < 100; round++) {
		for (u32 op = 0; op < TERN_MODEL_REDOP_COUNT; op++) {
			for (int i = 0; i < N; i++) {
				a[i] = random_half(fmt);
				/* often a close value, to reach every rounding */
				b[i] = rng() & 1 ? random_half(fmt) :
				       (u16)(a[i] + (rng() % 64) - 32);
			}
			tern_model_reduce(d, a, b, N, dtype, op);
			for (int i = 0; i < N; i++) {
				u16 want = ref_narrow(ref_op(ref_widen(a[i], fmt),
							     ref_widen(b[i], fmt),
							     op), fmt);

				if (d[i] != want)
					fail_msg("dtype %u op %u (0x%04x, 0x%04x) = 0x%04x, want 0x%04x",
						 dtype, op, a[i], b[i], d[i], want);
			}
		}
	}
}

static void test_reduce_f16(void **state)
{
	(void)state;
	check_half_ops(DRM_TERN_DTYPE_FLOAT16, &ref_f16);
}

static void test_reduce_bf16(void **state)
{
	(void)state;
	check_half_ops(DRM_TERN_DTYPE_BFLOAT16, &ref_bf16);
}

static void test_f32_kernel(void **state)
{
	enum { N = 1024 };
	static u32 a[N], b[N], d[N];

	(void)state;
	for (u32 op = 0; op < TERN_MODEL_REDOP_COUNT; op++) {
		for (int i = 0; i < N; i++) {
			a[i] = (u32)rng();
			b[i] = random_f32(a[i]);
		}
		tern_model_reduce(d, a, b, N, DRM_TERN_DTYPE_FLOAT32, op);
		for (int i = 0; i < N; i++) {
			volatile float x = f32_of(a[i]), y = f32_of(b[i]);
			float want = op == DRM_TERN_REDOP_SUM ? x + y :
				     op == DRM_TERN_REDOP_PROD ? x * y :
				     op == DRM_TERN_REDOP_MIN ? ref_min(x, y) :
				     ref_max(x, y);

			check_f32("kernel", a[i], b[i], d[i], want);
		}
	}
}

/* ---- SUM divided (DRM_TERN_REDUCE_DIVIDE) ---- */

static const u32 divisors[] = {
	1, 2, 3, 4, 5, 7, 8, 10, 16, 100, 255, 256, 1000, 65535, 65536,
	(1u << 24) - 1, 1u << 24, (1u << 24) + 1, (1u << 24) + 3,
	0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu,
};

#define DIVISOR_COUNT (ARRAY_SIZE(divisors))

/* A divisor: one of the edges, or a random one, mostly small. */
static u32 random_divisor(void)
{
	if (rng() & 1)
		return divisors[rng() % DIVISOR_COUNT];
	return 1 + (u32)(rng() >> (32 + rng() % 32));
}

/*
 * The reference float32 average: the sum rounded in float32, the divisor
 * converted by C (to nearest), the quotient rounded; all on the FPU.
 */
static float ref_avg(float a, float b, u32 divisor)
{
	volatile float sum = a + b, by = (float)divisor;

	return sum / by;
}

static void test_divide_f32(void **state)
{
	enum { N = 1024 };
	static u32 a[N], b[N], d[N];

	(void)state;
	for (int round = 0; round < 400; round++) {
		u32 divisor = round < (int)DIVISOR_COUNT ? divisors[round] :
			      random_divisor();

		for (int i = 0; i < N; i++) {
			a[i] = i < (int)f32_special_count ? f32_special[i] :
			       (u32)rng();
			b[i] = rng() & 1 ? random_f32(a[i]) :
			       f32_special[rng() % f32_special_count];
		}
		tern_model_reduce_divide(d, a, b, N, DRM_TERN_DTYPE_FLOAT32, divisor);
		for (int i = 0; i < N; i++) {
			float want = ref_avg(f32_of(a[i]), f32_of(b[i]), divisor);
			/* what the kernel computes, with integers only */
			u32 soft = tern_f32_div(tern_f32_add(a[i], b[i]),
						tern_u32_to_f32(divisor));

			check_f32("avg", a[i], b[i], d[i], want);
			check_f32("soft avg", a[i], b[i], soft, want);
		}
	}
}

static u32 widen(u16 h, const struct ref_format *fmt)
{
	return fmt == &ref_f16 ? tern_f16_to_f32(h) : tern_bf16_to_f32(h);
}

static u16 narrow(u32 f, const struct ref_format *fmt)
{
	return fmt == &ref_f16 ? tern_f32_to_f16(f) : tern_f32_to_bf16(f);
}

static void check_divide_half(u32 dtype, const struct ref_format *fmt)
{
	enum { N = 4096 };
	static u16 a[N], b[N], d[N];

	for (int round = 0; round < 200; round++) {
		u32 divisor = round < (int)DIVISOR_COUNT ? divisors[round] :
			      random_divisor();

		for (int i = 0; i < N; i++) {
			a[i] = random_half(fmt);
			b[i] = rng() & 1 ? random_half(fmt) :
			       (u16)(a[i] + (rng() % 64) - 32);
		}
		tern_model_reduce_divide(d, a, b, N, dtype, divisor);
		for (int i = 0; i < N; i++) {
			u16 want = ref_narrow(ref_avg((float)ref_widen(a[i], fmt),
						      (float)ref_widen(b[i], fmt),
						      divisor), fmt);
			u16 soft = narrow(tern_f32_div(tern_f32_add(widen(a[i], fmt),
								    widen(b[i], fmt)),
						       tern_u32_to_f32(divisor)), fmt);

			if (d[i] != want || soft != want)
				fail_msg("dtype %u (0x%04x + 0x%04x) / %u = 0x%04x (soft 0x%04x), want 0x%04x",
					 dtype, a[i], b[i], divisor, d[i], soft, want);
		}
	}
}

static void test_divide_halves(void **state)
{
	(void)state;
	check_divide_half(DRM_TERN_DTYPE_FLOAT16, &ref_f16);
	check_divide_half(DRM_TERN_DTYPE_BFLOAT16, &ref_bf16);
}

static void test_divide_float_edges(void **state)
{
	u32 f[4] = { bits_of(3.0f), bits_of(-3.0f), bits_of(1.0f), 0x7f7fffff };
	u32 g[4] = { bits_of(4.0f), bits_of(-4.0f), bits_of(0.0f), 0x7f7fffff };
	u32 d[4];
	u16 h[2] = { 0x7bff, 0x3c00 }, k[2] = { 0x7bff, 0x3c00 }, hd[2];

	(void)state;
	tern_model_reduce_divide(d, f, g, 4, DRM_TERN_DTYPE_FLOAT32, 2);
	assert_int_equal(d[0], bits_of(3.5f));
	assert_int_equal(d[1], bits_of(-3.5f));
	assert_int_equal(d[2], bits_of(0.5f));
	/* the sum overflows float32 before the division: infinity stays */
	assert_int_equal(d[3], 0x7f800000);
	tern_model_reduce_divide(d, f, g, 4, DRM_TERN_DTYPE_FLOAT32, 3);
	assert_int_equal(d[0], bits_of(7.0f / 3.0f));
	assert_int_equal(d[2], 0x3eaaaaab);	/* 1/3 */
	/* float16: 65504 + 65504 is no float16, but is a float32: 65504 */
	tern_model_reduce_divide(hd, h, k, 2, DRM_TERN_DTYPE_FLOAT16, 2);
	assert_int_equal(hd[0], 0x7bff);
	assert_int_equal(hd[1], 0x3c00);
	/* in place */
	tern_model_reduce_divide(f, f, g, 4, DRM_TERN_DTYPE_FLOAT32, 1);
	assert_int_equal(f[0], bits_of(7.0f));
	assert_int_equal(f[3], 0x7f800000);
}

/* One element of @dtype: the wrapped sum, divided truncating toward 0. */
static u64 ref_int_divide(u32 dtype, u64 x, u64 y, u32 divisor)
{
#define REF(type, utype) do {						\
		type sum = (type)(utype)((utype)x + (utype)y);		\
		return (utype)(type)((s64)sum / (s64)divisor);		\
	} while (0)
	switch (dtype) {
	case DRM_TERN_DTYPE_INT8: REF(int8_t, uint8_t);
	case DRM_TERN_DTYPE_UINT8: REF(uint8_t, uint8_t);
	case DRM_TERN_DTYPE_INT32: REF(int32_t, uint32_t);
	case DRM_TERN_DTYPE_UINT32: REF(uint32_t, uint32_t);
	case DRM_TERN_DTYPE_INT64: REF(int64_t, uint64_t);
	default:
		return (x + y) / divisor;	/* unsigned 64-bit */
	}
#undef REF
}

/* ---- integers ---- */

static const u32 int_dtypes[] = {
	DRM_TERN_DTYPE_INT8, DRM_TERN_DTYPE_UINT8, DRM_TERN_DTYPE_INT32,
	DRM_TERN_DTYPE_UINT32, DRM_TERN_DTYPE_INT64, DRM_TERN_DTYPE_UINT64,
};

/* One element of @dtype, computed with C's own types. */
static u64 ref_int(u32 dtype, u32 op, u64 x, u64 y)
{
#define REF(type, utype) do {						\
		type a = (type)x, b = (type)y;				\
		switch (op) {						\
		case DRM_TERN_REDOP_SUM: return (utype)((utype)a + (utype)b); \
		case DRM_TERN_REDOP_PROD: return (utype)((utype)a * (utype)b); \
		case DRM_TERN_REDOP_MIN: return (utype)(a < b ? a : b);	\
		default: return (utype)(a > b ? a : b);			\
		}							\
	} while (0)
	switch (dtype) {
	case DRM_TERN_DTYPE_INT8: REF(int8_t, uint8_t);
	case DRM_TERN_DTYPE_UINT8: REF(uint8_t, uint8_t);
	case DRM_TERN_DTYPE_INT32: REF(int32_t, uint32_t);
	case DRM_TERN_DTYPE_UINT32: REF(uint32_t, uint32_t);
	case DRM_TERN_DTYPE_INT64: REF(int64_t, uint64_t);
	default: REF(uint64_t, uint64_t);
	}
#undef REF
}

static u64 get_elem(const u8 *p, u32 size)
{
	u64 v = 0;

	memcpy(&v, p, size);	/* little endian host */
	return v;
}

static void test_integers(void **state)
{
	enum { N = 2048 };
	static u8 a[N * 8], b[N * 8], d[N * 8];

	(void)state;
	assert_int_equal(tern_model_dtype_size(TERN_MODEL_DTYPE_COUNT), 0);
	for (size_t t = 0; t < ARRAY_SIZE(int_dtypes); t++) {
		u32 dtype = int_dtypes[t], size = tern_model_dtype_size(dtype);

		for (u32 op = 0; op < TERN_MODEL_REDOP_COUNT; op++) {
			for (size_t i = 0; i < sizeof(a); i++) {
				a[i] = (u8)rng();
				b[i] = (u8)rng();
			}
			tern_model_reduce(d, a, b, N, dtype, op);
			for (u32 i = 0; i < N; i++) {
				u64 x = get_elem(a + i * size, size);
				u64 y = get_elem(b + i * size, size);
				u64 got = get_elem(d + i * size, size);
				u64 want = ref_int(dtype, op, x, y);

				if (got != want)
					fail_msg("dtype %u op %u: %llx, %llx gives %llx, want %llx",
						 dtype, op, (unsigned long long)x,
						 (unsigned long long)y,
						 (unsigned long long)got,
						 (unsigned long long)want);
			}
		}
	}
}

static void test_integer_edges(void **state)
{
	int8_t i8[2] = { 127, -128 }, i8b[2] = { 1, 127 }, i8d[2];
	uint8_t u8a[2] = { 255, 0x80 }, u8b[2] = { 1, 2 }, u8d[2];
	int32_t i32[2] = { -1, INT32_MIN }, i32b[2] = { 1, INT32_MAX }, i32d[2];
	uint32_t u32a[2] = { 0xffffffffu, 0 }, u32b[2] = { 1, 1 }, u32d[2];
	int64_t i64[2] = { INT64_MIN, -5 }, i64b[2] = { -1, 3 }, i64d[2];
	uint64_t u64a[2] = { UINT64_MAX, 1ull << 63 }, u64b[2] = { 2, 2 }, u64d[2];

	(void)state;
	tern_model_reduce(i8d, i8, i8b, 2, DRM_TERN_DTYPE_INT8, DRM_TERN_REDOP_SUM);
	assert_int_equal(i8d[0], -128);		/* wraps */
	assert_int_equal(i8d[1], -1);
	tern_model_reduce(i8d, i8, i8b, 2, DRM_TERN_DTYPE_INT8, DRM_TERN_REDOP_MIN);
	assert_int_equal(i8d[0], 1);
	assert_int_equal(i8d[1], -128);		/* signed compare */
	tern_model_reduce(u8d, u8a, u8b, 2, DRM_TERN_DTYPE_UINT8, DRM_TERN_REDOP_SUM);
	assert_int_equal(u8d[0], 0);
	tern_model_reduce(u8d, u8a, u8b, 2, DRM_TERN_DTYPE_UINT8, DRM_TERN_REDOP_PROD);
	assert_int_equal(u8d[0], 255);
	assert_int_equal(u8d[1], 0);
	tern_model_reduce(i32d, i32, i32b, 2, DRM_TERN_DTYPE_INT32, DRM_TERN_REDOP_MAX);
	assert_int_equal(i32d[0], 1);
	assert_int_equal(i32d[1], INT32_MAX);
	tern_model_reduce(i32d, i32, i32b, 2, DRM_TERN_DTYPE_INT32, DRM_TERN_REDOP_MIN);
	assert_int_equal(i32d[0], -1);
	assert_int_equal(i32d[1], INT32_MIN);
	tern_model_reduce(u32d, u32a, u32b, 2, DRM_TERN_DTYPE_UINT32, DRM_TERN_REDOP_MIN);
	assert_int_equal(u32d[0], 1);		/* unsigned compare */
	assert_int_equal(u32d[1], 0);
	tern_model_reduce(i64d, i64, i64b, 2, DRM_TERN_DTYPE_INT64, DRM_TERN_REDOP_SUM);
	assert_true(i64d[0] == INT64_MAX);
	assert_true(i64d[1] == -2);
	tern_model_reduce(i64d, i64, i64b, 2, DRM_TERN_DTYPE_INT64, DRM_TERN_REDOP_PROD);
	assert_true(i64d[0] == INT64_MIN);
	assert_true(i64d[1] == -15);
	tern_model_reduce(u64d, u64a, u64b, 2, DRM_TERN_DTYPE_UINT64, DRM_TERN_REDOP_PROD);
	assert_true(u64d[0] == UINT64_MAX - 1);
	assert_true(u64d[1] == 0);
	tern_model_reduce(u64d, u64a, u64b, 2, DRM_TERN_DTYPE_UINT64, DRM_TERN_REDOP_MAX);
	assert_true(u64d[0] == UINT64_MAX);
	/* in place: dst is src0 */
	tern_model_reduce(u64a, u64a, u64b, 2, DRM_TERN_DTYPE_UINT64, DRM_TERN_REDOP_SUM);
	assert_true(u64a[0] == 1);
	assert_true(u64a[1] == (1ull << 63) + 2);
}

static void test_divide_integers(void **state)
{
	enum { N = 2048 };
	static u8 a[N * 8], b[N * 8], d[N * 8];

	(void)state;
	for (size_t t = 0; t < ARRAY_SIZE(int_dtypes); t++) {
		u32 dtype = int_dtypes[t], size = tern_model_dtype_size(dtype);

		for (int round = 0; round < 60; round++) {
			u32 divisor = round < (int)DIVISOR_COUNT ?
				      divisors[round] : random_divisor();

			for (size_t i = 0; i < sizeof(a); i++) {
				a[i] = (u8)rng();
				b[i] = (u8)rng();
			}
			tern_model_reduce_divide(d, a, b, N, dtype, divisor);
			for (u32 i = 0; i < N; i++) {
				u64 x = get_elem(a + i * size, size);
				u64 y = get_elem(b + i * size, size);
				u64 got = get_elem(d + i * size, size);
				u64 want = ref_int_divide(dtype, x, y, divisor);

				if (size < 8)
					want &= (1ull << (8 * size)) - 1;
				if (got != want)
					fail_msg("dtype %u: (%llx + %llx) / %u gives %llx, want %llx",
						 dtype, (unsigned long long)x,
						 (unsigned long long)y, divisor,
						 (unsigned long long)got,
						 (unsigned long long)want);
			}
		}
	}
}

static void test_divide_integer_edges(void **state)
{
	int8_t i8a[4] = { 127, -7, -128, 5 }, i8b[4] = { 1, 0, -1, -6 }, i8d[4];
	uint8_t u8a[2] = { 255, 200 }, u8b[2] = { 1, 100 }, u8d[2];
	int32_t i32a[3] = { -7, INT32_MIN, 7 }, i32b[3] = { 0, 0, 0 }, i32d[3];
	int64_t i64a[2] = { INT64_MIN, INT64_MAX }, i64b[2] = { 0, 1 }, i64d[2];
	uint64_t u64a[2] = { UINT64_MAX, 5 }, u64b[2] = { UINT64_MAX, 0 }, u64d[2];

	(void)state;
	tern_model_reduce_divide(i8d, i8a, i8b, 4, DRM_TERN_DTYPE_INT8, 3);
	assert_int_equal(i8d[0], -42);		/* 127 + 1 wraps to -128 */
	assert_int_equal(i8d[1], -2);		/* toward zero, not -3 */
	assert_int_equal(i8d[2], 42);		/* -129 wraps to 127 */
	assert_int_equal(i8d[3], 0);		/* -1 / 3 */
	tern_model_reduce_divide(u8d, u8a, u8b, 2, DRM_TERN_DTYPE_UINT8, 2);
	assert_int_equal(u8d[0], 0);		/* 256 wraps to 0 */
	assert_int_equal(u8d[1], 22);		/* 300 wraps to 44 */
	tern_model_reduce_divide(i32d, i32a, i32b, 3, DRM_TERN_DTYPE_INT32, 2);
	assert_int_equal(i32d[0], -3);
	assert_int_equal(i32d[1], INT32_MIN / 2);
	assert_int_equal(i32d[2], 3);
	/* a divisor above every value of the type gives 0, also from below */
	tern_model_reduce_divide(i32d, i32a, i32b, 3, DRM_TERN_DTYPE_INT32,
				 0xffffffffu);
	assert_int_equal(i32d[0], 0);
	assert_int_equal(i32d[1], 0);
	tern_model_reduce_divide(i32d, i32a, i32b, 3, DRM_TERN_DTYPE_INT32,
				 0x80000000u);
	assert_int_equal(i32d[1], -1);		/* -2^31 / 2^31 */
	tern_model_reduce_divide(i64d, i64a, i64b, 2, DRM_TERN_DTYPE_INT64, 1);
	assert_true(i64d[0] == INT64_MIN);
	assert_true(i64d[1] == INT64_MIN);	/* INT64_MAX + 1 wraps */
	tern_model_reduce_divide(i64d, i64a, i64b, 2, DRM_TERN_DTYPE_INT64,
				 0xffffffffu);
	assert_true(i64d[0] == INT64_MIN / 0xffffffffll);
	tern_model_reduce_divide(u64d, u64a, u64b, 2, DRM_TERN_DTYPE_UINT64, 2);
	assert_true(u64d[0] == (UINT64_MAX - 1) / 2);	/* the sum wraps */
	assert_true(u64d[1] == 2);
	/* in place: dst is src1 */
	tern_model_reduce_divide(u64b, u64a, u64b, 2, DRM_TERN_DTYPE_UINT64, 5);
	assert_true(u64b[0] == (UINT64_MAX - 1) / 5);
	assert_true(u64b[1] == 1);
}

/* ---- the packet, on a fake machine: 4 devices in a ring ---- */

#define DEVICES		4
#define SELF		0	/* the device whose engine runs the jobs */
#define BIG_COUNT	(2 * TERN_MODEL_BUDGET / 4 + 1000)	/* uint32 elements */

enum { BUF_A, BUF_B, BUF_C, BUF_NEAR, BUF_FAR, BUF_BIG0, BUF_BIG1,
	BUF_BIG_PEER, BUF_COUNT };

static const struct {
	u64 va, size;
	u32 owner;
} layout[BUF_COUNT] = {
	[BUF_A] = { 0x100000000ull, 1 << 16, SELF },
	[BUF_B] = { 0x100010000ull, 1 << 16, SELF },
	[BUF_C] = { 0x100020000ull, 1 << 16, SELF },
	[BUF_NEAR] = { 0x200000000ull, 1 << 16, 1 },	/* one hop: port 0 */
	[BUF_FAR] = { 0x300000000ull, 1 << 16, 2 },	/* two hops */
	[BUF_BIG0] = { 0x400000000ull, BIG_COUNT * 4ull, SELF },
	[BUF_BIG1] = { 0x500000000ull, BIG_COUNT * 4ull, SELF },
	[BUF_BIG_PEER] = { 0x600000000ull, BIG_COUNT * 4ull, 3 },
};

static u8 *buffers[BUF_COUNT];
static struct tern_fabric machine;

static void *fake_translate(void *ctx, u64 va, u64 len, u32 *owner)
{
	(void)ctx;
	assert_true(len >= 1);
	for (int i = 0; i < BUF_COUNT; i++) {
		u64 off = va - layout[i].va;

		if (va >= layout[i].va && off < layout[i].size &&
		    len <= layout[i].size - off) {
			*owner = layout[i].owner;
			return buffers[i] + off;
		}
	}
	return NULL;
}

static u64 fake_clock(void *ctx)
{
	(void)ctx;
	return 0;
}

static const struct tern_model_mem mem = {
	.translate = fake_translate,
	.clock = fake_clock,
	.fabric = &machine,
	.device = SELF,
};

static u64 va(int buf, u64 off)
{
	return layout[buf].va + off;
}

static void fill_buffer(int buf)
{
	for (u64 i = 0; i < layout[buf].size; i++)
		buffers[buf][i] = (u8)(rng() >> 32);
}

static int setup_machine(void **state)
{
	(void)state;
	for (int i = 0; i < BUF_COUNT; i++) {
		buffers[i] = malloc(layout[i].size);
		if (!buffers[i])
			return -1;
	}
	return 0;
}

static int teardown_machine(void **state)
{
	(void)state;
	for (int i = 0; i < BUF_COUNT; i++)
		free(buffers[i]);
	return 0;
}

static int reset_machine(void **state)
{
	(void)state;
	for (int i = 0; i < BUF_COUNT; i++)
		fill_buffer(i);
	return tern_fabric_init(&machine, DEVICES, "ring");
}

struct stream {
	u64 words[64];
	u32 size;
};

static struct stream stream;
static struct tern_model_job job;

static struct drm_tern_packet_reduce *emit_reduce(u64 src0, u64 src1, u64 dst,
						  u64 count, u16 dtype, u16 op)
{
	struct drm_tern_packet_reduce p = {
		.header = { DRM_TERN_OP_REDUCE, sizeof(p) / 8, 0 },
		.src0 = src0, .src1 = src1, .dst = dst, .count = count,
		.dtype = dtype, .op = op,
	};
	void *at = (u8 *)stream.words + stream.size;

	assert_true(stream.size + sizeof(p) <= sizeof(stream.words));
	memcpy(at, &p, sizeof(p));
	stream.size += sizeof(p);
	return at;
}

static void emit_fill(u64 dst, u64 bytes, u32 pattern)
{
	struct drm_tern_packet_fill p = {
		.header = { DRM_TERN_OP_FILL, sizeof(p) / 8, 0 },
		.dst = dst, .bytes = bytes, .pattern = pattern,
	};

	memcpy((u8 *)stream.words + stream.size, &p, sizeof(p));
	stream.size += sizeof(p);
}

static int reset_stream(void **state)
{
	(void)state;
	memset(&stream, 0, sizeof(stream));
	return 0;
}

static int reset_all(void **state)
{
	reset_stream(state);
	return reset_machine(state);
}

static bool stream_valid(void)
{
	return tern_model_validate(stream.words, stream.size, NULL) == 0;
}

/* Runs the stream to its end (or error), counting yields. */
static int run_stream(unsigned int *yields)
{
	assert_true(stream_valid());
	tern_model_job_init(&job, stream.words, stream.size);
	for (int i = 0; i < 1000; i++) {
		int ret = tern_model_run(&job, &mem);

		if (ret != TERN_MODEL_YIELD)
			return ret;
		if (yields)
			(*yields)++;
	}
	fail_msg("still yielding after 1000 runs");
	return -1;
}

static struct tern_fabric_port_view port(u32 device, u32 p)
{
	struct tern_fabric_port_view v;

	assert_int_equal(tern_fabric_port_view(&machine, device, p, &v), 0);
	return v;
}

static u32 *words_of(int buf, u64 off)
{
	return (u32 *)(void *)(buffers[buf] + off);
}

/* dst[i] == want(a[i], b[i]) in float32 for @count elements. */
static void assert_f32_sums(const u32 *a, const u32 *b, const u32 *dst,
			    u32 count)
{
	for (u32 i = 0; i < count; i++) {
		volatile float x = f32_of(a[i]), y = f32_of(b[i]);

		check_f32("packet add", a[i], b[i], dst[i], x + y);
	}
}

static void test_packet_in_place(void **state)
{
	enum { N = 1000 };
	u32 a[N], b[N], tail[64];

	(void)state;
	memcpy(a, words_of(BUF_A, 0), sizeof(a));
	memcpy(tail, words_of(BUF_A, N * 4), sizeof(tail));
	memcpy(b, words_of(BUF_B, 0), sizeof(b));
	emit_reduce(va(BUF_A, 0), va(BUF_B, 0), va(BUF_A, 0), N,
		    DRM_TERN_DTYPE_FLOAT32, DRM_TERN_REDOP_SUM);
	assert_int_equal(run_stream(NULL), 0);
	assert_f32_sums(a, b, words_of(BUF_A, 0), N);
	assert_memory_equal(words_of(BUF_B, 0), b, sizeof(b));
	/* past the count, nothing changed */
	assert_memory_equal(words_of(BUF_A, N * 4), tail, sizeof(tail));

	/* dst is src1 */
	reset_stream(NULL);
	memcpy(a, words_of(BUF_C, 0), sizeof(a));
	emit_reduce(va(BUF_C, 0), va(BUF_B, 0), va(BUF_B, 0), N,
		    DRM_TERN_DTYPE_FLOAT32, DRM_TERN_REDOP_SUM);
	assert_int_equal(run_stream(NULL), 0);
	assert_f32_sums(a, b, words_of(BUF_B, 0), N);

	/* local operands cross no link */
	for (u32 p = 0; p < 2; p++)
		assert_int_equal(port(SELF, p).tx_bytes + port(SELF, p).rx_bytes, 0);
}

static void test_packet_peer_counts_links(void **state)
{
	enum { N = 300 };
	u32 a[N], near[N];
	struct tern_fabric_port_view v;

	(void)state;
	memcpy(a, words_of(BUF_A, 0), sizeof(a));
	memcpy(near, words_of(BUF_NEAR, 0), sizeof(near));
	/* src1 read from device 1: bytes flow 1 -> 0 on the link of port 0 */
	emit_reduce(va(BUF_A, 0), va(BUF_NEAR, 0), va(BUF_C, 0), N,
		    DRM_TERN_DTYPE_FLOAT32, DRM_TERN_REDOP_SUM);
	assert_int_equal(run_stream(NULL), 0);
	assert_f32_sums(a, near, words_of(BUF_C, 0), N);
	v = port(SELF, 0);
	assert_int_equal(v.rx_bytes, N * 4);
	assert_int_equal(v.rx_packets, 1);
	assert_int_equal(v.tx_bytes, 0);
	assert_int_equal(port(1, 1).tx_bytes, N * 4);
	assert_int_equal(port(SELF, 1).rx_bytes + port(SELF, 1).tx_bytes, 0);

	/* dst written on device 2, two hops: 0 -> 1 -> 2 */
	reset_stream(NULL);
	emit_reduce(va(BUF_A, 0), va(BUF_B, 0), va(BUF_FAR, 8), N,
		    DRM_TERN_DTYPE_FLOAT32, DRM_TERN_REDOP_MAX);
	assert_int_equal(run_stream(NULL), 0);
	assert_int_equal(port(SELF, 0).tx_bytes, N * 4);
	assert_int_equal(port(SELF, 0).tx_packets, 1);
	assert_int_equal(port(1, 0).tx_bytes, N * 4);
	assert_int_equal(port(2, 1).rx_bytes, N * 4);
	assert_int_equal(port(2, 0).rx_bytes + port(2, 0).tx_bytes, 0);
	assert_int_equal(port(SELF, 0).rx_bytes, N * 4);	/* unchanged */
}

static void test_packet_no_route(void **state)
{
	u8 before[1 << 16];

	(void)state;
	memcpy(before, buffers[BUF_C], sizeof(before));
	assert_int_equal(tern_fabric_set_link(&machine, SELF, 0, false), 1);
	assert_int_equal(tern_fabric_set_link(&machine, SELF, 1, false), 1);
	/* a local dst, a peer source: nothing is written */
	emit_reduce(va(BUF_A, 0), va(BUF_NEAR, 0), va(BUF_C, 0), 100,
		    DRM_TERN_DTYPE_INT32, DRM_TERN_REDOP_SUM);
	assert_int_equal(run_stream(NULL), -ENOLINK);
	assert_memory_equal(buffers[BUF_C], before, sizeof(before));

	/* one link back: the route goes round the ring the long way */
	assert_int_equal(tern_fabric_set_link(&machine, SELF, 1, true), 1);
	assert_int_equal(run_stream(NULL), 0);
	assert_int_equal(port(SELF, 1).rx_bytes, 400);
	assert_int_equal(port(3, 0).tx_bytes, 400);
	assert_int_equal(port(2, 0).tx_bytes, 400);
	assert_int_equal(port(SELF, 0).rx_bytes, 0);
}

/*
 * Calls after the first that a REDUCE of BIG_COUNT elements of @cost
 * takes, the first having spent a 3-byte FILL and its packet of the
 * budget: each does as many elements as the budget pays for.
 */
static unsigned int big_calls_after_first(u32 cost)
{
	u64 first = (TERN_MODEL_BUDGET - 3 - TERN_MODEL_PACKET_COST) / cost;
	u64 per_call = TERN_MODEL_BUDGET / cost;

	return (unsigned int)((BIG_COUNT - first + per_call - 1) / per_call);
}

static void test_packet_multi_budget(void **state)
{
	unsigned int yields = 0;
	const u32 *a = words_of(BUF_BIG0, 0);
	u32 *b = words_of(BUF_BIG_PEER, 0);
	u32 *d = words_of(BUF_BIG1, 0);
	u32 *want = malloc(BIG_COUNT * 4ull);

	(void)state;
	assert_non_null(want);
	for (u32 i = 0; i < BIG_COUNT; i++)
		want[i] = a[i] + b[i];
	/* a 3-byte fill first leaves a budget that is no multiple of 4 */
	emit_fill(va(BUF_C, 0), 3, 0);
	emit_reduce(va(BUF_BIG0, 0), va(BUF_BIG_PEER, 0), va(BUF_BIG1, 0),
		    BIG_COUNT, DRM_TERN_DTYPE_UINT32, DRM_TERN_REDOP_SUM);
	assert_true(stream_valid());
	tern_model_job_init(&job, stream.words, stream.size);
	assert_int_equal(tern_model_run(&job, &mem), TERN_MODEL_YIELD);
	/* whole elements only, and the rest not yet written */
	assert_true(job.progress > 0 && job.progress % 4 == 0);
	assert_memory_equal(d, want, job.progress);
	assert_memory_not_equal(d + job.progress / 4, want + job.progress / 4, 64);
	for (;;) {
		int ret = tern_model_run(&job, &mem);

		if (ret != TERN_MODEL_YIELD) {
			assert_int_equal(ret, 0);
			break;
		}
		assert_true(++yields < 1000);
	}
	assert_int_equal(yields, big_calls_after_first(
		tern_model_reduce_cost(DRM_TERN_DTYPE_UINT32, DRM_TERN_REDOP_SUM,
				       false)) - 1);
	assert_memory_equal(d, want, BIG_COUNT * 4ull);
	/* device 3 is one hop back through port 1; every chunk counted */
	assert_int_equal(port(SELF, 1).rx_bytes, BIG_COUNT * 4ull);
	assert_int_equal(port(SELF, 1).rx_packets, yields + 2);
	free(want);
}

/* A dividing REDUCE of several budgets, a source on a peer, signed. */
static void test_packet_divide_multi_budget(void **state)
{
	const s32 *a = (const s32 *)words_of(BUF_BIG0, 0);
	const s32 *b = (const s32 *)words_of(BUF_BIG_PEER, 0);
	s32 *d = (s32 *)words_of(BUF_BIG1, 0);
	s32 *want = malloc(BIG_COUNT * 4ull);
	struct drm_tern_packet_reduce *p;
	unsigned int yields = 0;

	(void)state;
	assert_non_null(want);
	for (u32 i = 0; i < BIG_COUNT; i++)
		want[i] = (s32)((u32)a[i] + (u32)b[i]) / 7;
	emit_fill(va(BUF_C, 0), 3, 0);
	p = emit_reduce(va(BUF_BIG0, 0), va(BUF_BIG_PEER, 0), va(BUF_BIG1, 0),
			BIG_COUNT, DRM_TERN_DTYPE_INT32, DRM_TERN_REDOP_SUM);
	p->header.flags = DRM_TERN_REDUCE_DIVIDE;
	p->divisor = 7;
	assert_int_equal(run_stream(&yields), 0);
	assert_int_equal(yields, big_calls_after_first(
		tern_model_reduce_cost(DRM_TERN_DTYPE_INT32, DRM_TERN_REDOP_SUM,
				       true)));
	assert_memory_equal(d, want, BIG_COUNT * 4ull);
	assert_int_equal(port(SELF, 1).rx_bytes, BIG_COUNT * 4ull);

	/* float32, in place, a divisor that float32 rounds */
	reset_stream(NULL);
	for (u32 i = 0; i < BIG_COUNT; i++) {
		volatile float x = f32_of(words_of(BUF_BIG1, 0)[i]);
		volatile float y = f32_of(words_of(BUF_BIG0, 0)[i]);

		want[i] = (s32)bits_of(ref_avg(x, y, (1u << 24) + 1));
		if (f32_bits_nan((u32)want[i]))
			want[i] = (s32)TERN_F32_QNAN;
	}
	p = emit_reduce(va(BUF_BIG1, 0), va(BUF_BIG0, 0), va(BUF_BIG1, 0),
			BIG_COUNT, DRM_TERN_DTYPE_FLOAT32, DRM_TERN_REDOP_SUM);
	p->header.flags = DRM_TERN_REDUCE_DIVIDE;
	p->divisor = (1u << 24) + 1;
	assert_int_equal(run_stream(NULL), 0);
	assert_memory_equal(d, want, BIG_COUNT * 4ull);
	free(want);
}

static void test_packet_zero_count(void **state)
{
	(void)state;
	/* nothing is accessed: even unmapped addresses are fine */
	emit_reduce(0x900000000ull, 0x900001000ull, 0x900002000ull, 0,
		    DRM_TERN_DTYPE_FLOAT32, DRM_TERN_REDOP_SUM);
	assert_int_equal(run_stream(NULL), 0);
	reset_stream(NULL);
	emit_reduce(va(BUF_A, 0), va(BUF_B, 0), 0x900002000ull, 1,
		    DRM_TERN_DTYPE_FLOAT32, DRM_TERN_REDOP_SUM);
	assert_int_equal(run_stream(NULL), -EFAULT);
}

/* ---- validation ---- */

static void test_validate_reduce(void **state)
{
	struct drm_tern_packet_reduce *p;

	(void)state;
	p = emit_reduce(va(BUF_A, 0), va(BUF_B, 0), va(BUF_C, 0), 16,
			DRM_TERN_DTYPE_FLOAT32, DRM_TERN_REDOP_SUM);
	assert_true(stream_valid());
	for (u16 t = 0; t < TERN_MODEL_REDUCE_DTYPE_COUNT; t++) {
		for (u16 o = 0; o < TERN_MODEL_REDOP_COUNT; o++) {
			p->dtype = t;
			p->op = o;
			assert_true(stream_valid());
		}
	}
	p->dtype = TERN_MODEL_REDUCE_DTYPE_COUNT;
	assert_false(stream_valid());
	p->dtype = 0xffff;
	assert_false(stream_valid());
	p->dtype = DRM_TERN_DTYPE_FLOAT32;
	p->op = TERN_MODEL_REDOP_COUNT;
	assert_false(stream_valid());
	p->op = DRM_TERN_REDOP_SUM;
	p->pad = 1;
	assert_false(stream_valid());
	p->pad = 0;
	/* bit 0, DRM_TERN_REDUCE_DIVIDE, needs a divisor: pad is 0 here */
	for (int bit = 0; bit < 32; bit++) {
		p->header.flags = 1u << bit;
		assert_false(stream_valid());
	}
	p->header.flags = 0;
	p->header.length = 5;
	assert_false(stream_valid());
	p->header.length = 7;
	assert_false(stream_valid());
	p->header.length = 6;
	assert_true(stream_valid());
}

static void test_validate_reduce_divide(void **state)
{
	struct drm_tern_packet_reduce *p;

	(void)state;
	/* the divisor is the pad's word: old code naming pad still builds */
	assert_int_equal(offsetof(struct drm_tern_packet_reduce, divisor),
			 offsetof(struct drm_tern_packet_reduce, pad));
	assert_int_equal(sizeof(struct drm_tern_packet_reduce), 48);
	p = emit_reduce(va(BUF_A, 0), va(BUF_B, 0), va(BUF_C, 0), 16,
			DRM_TERN_DTYPE_FLOAT32, DRM_TERN_REDOP_SUM);
	p->header.flags = DRM_TERN_REDUCE_DIVIDE;
	p->divisor = 0;			/* no division by zero */
	assert_false(stream_valid());
	p->divisor = 1;
	assert_true(stream_valid());
	p->divisor = UINT32_MAX;
	assert_true(stream_valid());
	for (u16 t = 0; t < TERN_MODEL_REDUCE_DTYPE_COUNT; t++) {
		p->dtype = t;
		assert_true(stream_valid());
	}
	/* an average is a SUM divided: not a PROD, MIN or MAX */
	for (u16 o = DRM_TERN_REDOP_SUM + 1; o < TERN_MODEL_REDOP_COUNT; o++) {
		p->op = o;
		assert_false(stream_valid());
	}
	p->op = DRM_TERN_REDOP_SUM;
	assert_true(stream_valid());
	for (int bit = 1; bit < 32; bit++) {
		p->header.flags = DRM_TERN_REDUCE_DIVIDE | 1u << bit;
		assert_false(stream_valid());
	}
	/* without the flag the word is pad, and must be zero */
	p->header.flags = 0;
	p->pad = 3;
	assert_false(stream_valid());
	p->pad = 0;
	assert_true(stream_valid());
	/* the other checks still apply with the flag */
	p->header.flags = DRM_TERN_REDUCE_DIVIDE;
	p->divisor = 2;
	p->dst = va(BUF_A, 4);		/* overlaps src0 */
	assert_false(stream_valid());
	p->dst = va(BUF_C, 2);		/* misaligned */
	assert_false(stream_valid());
	p->dst = va(BUF_C, 0);
	p->dtype = TERN_MODEL_REDUCE_DTYPE_COUNT;
	assert_false(stream_valid());
}

static void test_validate_reduce_alignment(void **state)
{
	struct drm_tern_packet_reduce *p;

	(void)state;
	p = emit_reduce(va(BUF_A, 0), va(BUF_B, 0), va(BUF_C, 0), 16, 0, 0);
	for (u16 t = 0; t < TERN_MODEL_REDUCE_DTYPE_COUNT; t++) {
		u32 size = tern_model_dtype_size(t);

		p->dtype = t;
		for (u32 mis = 0; mis < 8; mis++) {
			bool ok = mis % size == 0;

			p->src0 = va(BUF_A, 64 + mis);
			assert_true(stream_valid() == ok);
			p->src0 = va(BUF_A, 0);
			p->src1 = va(BUF_B, 64 + mis);
			assert_true(stream_valid() == ok);
			p->src1 = va(BUF_B, 0);
			p->dst = va(BUF_C, 64 + mis);
			assert_true(stream_valid() == ok);
			p->dst = va(BUF_C, 0);
		}
	}
}

static void test_validate_reduce_overlap(void **state)
{
	struct drm_tern_packet_reduce *p;
	const u64 s0 = va(BUF_A, 256), s1 = va(BUF_B, 256);

	(void)state;
	p = emit_reduce(s0, s1, s0, 16, DRM_TERN_DTYPE_FLOAT32, DRM_TERN_REDOP_SUM);
	assert_true(stream_valid());		/* dst == src0 */
	p->dst = s1;
	assert_true(stream_valid());		/* dst == src1 */
	p->dst = s0 + 4;
	assert_false(stream_valid());
	p->dst = s0 - 4;
	assert_false(stream_valid());
	p->dst = s1 + 60;			/* last element of src1 */
	assert_false(stream_valid());
	p->dst = s0 + 64;			/* just after src0 */
	assert_true(stream_valid());
	p->dst = s0 - 64;			/* just before */
	assert_true(stream_valid());
	/* the operands may overlap each other: they are only read */
	p->src1 = s0 + 4;
	p->dst = va(BUF_C, 0);
	assert_true(stream_valid());
	/* nothing overlaps when there are no elements */
	p->count = 0;
	p->dst = s0 + 4;
	assert_true(stream_valid());
}

static void test_validate_reduce_ranges(void **state)
{
	struct drm_tern_packet_reduce *p;
	const u64 limit = DRM_TERN_VA_LIMIT;

	(void)state;
	p = emit_reduce(limit - 8, 0x1000, 0x2000, 2, DRM_TERN_DTYPE_FLOAT32, 0);
	assert_true(stream_valid());		/* ends exactly at the limit */
	p->count = 3;
	assert_false(stream_valid());
	p->src0 = 0x3000;
	p->dst = limit - 8;
	assert_false(stream_valid());
	p->dst = 0x2000;
	p->src1 = limit - 8;
	assert_false(stream_valid());
	p->src1 = 0x1000;
	assert_true(stream_valid());
	/* count * size wraps u64 to something small */
	p->dtype = DRM_TERN_DTYPE_UINT64;
	p->count = 1ull << 61;
	assert_false(stream_valid());
	p->count = (1ull << 62) + 1;
	p->dtype = DRM_TERN_DTYPE_FLOAT32;
	assert_false(stream_valid());
	p->count = UINT64_MAX;
	assert_false(stream_valid());
	p->count = limit / 4;
	assert_false(stream_valid());
	p->src0 = 0;
	p->src1 = 0;
	p->dst = 0;
	assert_true(stream_valid());		/* the whole space, in place */
	p->dst = 0x4;
	assert_false(stream_valid());
}

#define RUN(f) cmocka_unit_test_setup(f, reset_all)

int main(void)
{
	const struct CMUnitTest arithmetic[] = {
		cmocka_unit_test(test_reduce_f16),
		cmocka_unit_test(test_reduce_bf16),
		cmocka_unit_test(test_f32_kernel),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_integer_edges),
		cmocka_unit_test(test_divide_f32),
		cmocka_unit_test(test_divide_halves),
		cmocka_unit_test(test_divide_float_edges),
		cmocka_unit_test(test_divide_integers),
		cmocka_unit_test(test_divide_integer_edges),
	};
	const struct CMUnitTest packets[] = {
		RUN(test_packet_in_place),
		RUN(test_packet_peer_counts_links),
		RUN(test_packet_no_route),
		RUN(test_packet_multi_budget),
		RUN(test_packet_divide_multi_budget),
		RUN(test_packet_zero_count),
		RUN(test_validate_reduce),
		RUN(test_validate_reduce_divide),
		RUN(test_validate_reduce_alignment),
		RUN(test_validate_reduce_overlap),
		RUN(test_validate_reduce_ranges),
	};
	int failed = 0;

	failed += cmocka_run_group_tests_name("reduce_arithmetic", arithmetic,
					      NULL, NULL);
	failed += cmocka_run_group_tests_name("reduce_packet", packets,
					      setup_machine, teardown_machine);
	return failed ? 1 : 0;
}
