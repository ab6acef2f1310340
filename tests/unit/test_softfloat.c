// SPDX-License-Identifier: MIT
/*
 * Unit tests of the model's integer-only float arithmetic (add, multiply,
 * fused multiply-add, divide, min, max, u32 conversion) against the
 * machine's own float32 bit for bit, and of its conversions to and from
 * binary16, bfloat16 and the OCP 8-bit formats against an independent
 * rounding (tests/common/float_ref.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "test.h"
#include "float_ref.h"
#include "tern_softfloat.h"

#define F32_SPECIAL_COUNT f32_special_count

static void check_f32_pair(u32 a, u32 b)
{
	/* volatile: the machine computes these at run time, in float32 */
	volatile float x = f32_of(a), y = f32_of(b);

	check_f32("add", a, b, tern_f32_add(a, b), x + y);
	check_f32("mul", a, b, tern_f32_mul(a, b), x * y);
	check_f32("div", a, b, tern_f32_div(a, b), x / y);
	check_f32("min", a, b, tern_f32_min(a, b), ref_min(x, y));
	check_f32("max", a, b, tern_f32_max(a, b), ref_max(x, y));
}


/* ---- float32 ---- */

static void test_f32_special_pairs(void **state)
{
	(void)state;
	for (size_t i = 0; i < F32_SPECIAL_COUNT; i++)
		for (size_t j = 0; j < F32_SPECIAL_COUNT; j++)
			check_f32_pair(f32_special[i], f32_special[j]);
}

static void test_f32_random(void **state)
{
	(void)state;
	for (int i = 0; i < 2000000; i++) {
		u32 a = (u32)rng();

		check_f32_pair(a, random_f32(a));
	}
	/* specials against random values */
	for (size_t i = 0; i < F32_SPECIAL_COUNT; i++)
		for (int j = 0; j < 2000; j++)
			check_f32_pair(f32_special[i], random_f32(f32_special[i]));
}

static void test_f32_ties_round_to_even(void **state)
{
	(void)state;
	/* 1 + 2^-24 is halfway between 1 and 1 + 2^-23: even is 1 */
	assert_int_equal(tern_f32_add(0x3f800000, 0x33800000), 0x3f800000);
	/* 1 + 2^-23 + 2^-24 is halfway up from an odd value: rounds up */
	assert_int_equal(tern_f32_add(0x3f800001, 0x33800000), 0x3f800002);
	/* the largest finite plus half an ulp overflows to infinity */
	assert_int_equal(tern_f32_add(0x7f7fffff, 0x73000000), 0x7f800000);
	/* the smallest subnormal halved is a tie with 0: even is 0 */
	assert_int_equal(tern_f32_mul(0x00000001, 0x3f000000), 0x00000000);
	assert_int_equal(tern_f32_mul(0x00000003, 0x3f000000), 0x00000002);
	/* x - x is +0, -0 + -0 is -0 */
	assert_int_equal(tern_f32_add(0x3f800000, 0xbf800000), 0x00000000);
	assert_int_equal(tern_f32_add(0x80000000, 0x80000000), 0x80000000);
	/* min and max order -0 below +0 whatever the operand order */
	assert_int_equal(tern_f32_min(0x00000000, 0x80000000), 0x80000000);
	assert_int_equal(tern_f32_min(0x80000000, 0x00000000), 0x80000000);
	assert_int_equal(tern_f32_max(0x80000000, 0x00000000), 0x00000000);
	assert_int_equal(tern_f32_max(0x00000000, 0x80000000), 0x00000000);
	assert_int_equal(tern_f32_max(0x7fc00000, 0x3f800000), TERN_F32_QNAN);
	assert_int_equal(tern_f32_min(0x3f800000, 0xffc00001), TERN_F32_QNAN);
	assert_int_equal(tern_f32_mul(0x7f800000, 0x80000000), TERN_F32_QNAN);
	assert_int_equal(tern_f32_add(0x7f800000, 0xff800000), TERN_F32_QNAN);
}

/* Division's own edges, each against the FPU and a known answer. */
static void check_div(u32 a, u32 b, u32 want)
{
	volatile float x = f32_of(a), y = f32_of(b);

	check_f32("div", a, b, tern_f32_div(a, b), x / y);
	if (tern_f32_div(a, b) != want)
		fail_msg("div(0x%08x, 0x%08x) = 0x%08x, want 0x%08x", a, b,
			 tern_f32_div(a, b), want);
}

static void test_f32_div_edges(void **state)
{
	(void)state;
	check_div(0x3f800000, 0x40400000, 0x3eaaaaab);	/* 1/3 rounds up */
	check_div(0x40000000, 0x40400000, 0x3f2aaaab);	/* 2/3 */
	check_div(0x41200000, 0x40400000, 0x40555555);	/* 10/3 rounds down */
	check_div(0x3f800000, 0x3f800000, 0x3f800000);
	check_div(0x7f7fffff, 0x3f800000, 0x7f7fffff);	/* x / 1 is x */
	check_div(0x00000001, 0x3f800000, 0x00000001);
	/* the smallest subnormal halved is a tie with 0: even is 0 */
	check_div(0x00000001, 0x40000000, 0x00000000);
	check_div(0x00000003, 0x40000000, 0x00000002);	/* 1.5: even is 2 */
	check_div(0x00000005, 0x40000000, 0x00000002);	/* 2.5: even is 2 */
	check_div(0x80000003, 0x40000000, 0x80000002);
	/* underflow below half the smallest subnormal: a signed zero */
	check_div(0x00000001, 0x40400000, 0x00000000);
	check_div(0x00000001, 0xc0400000, 0x80000000);
	check_div(0x00800000, 0x4b000000, 0x00000001);	/* 2^-126 / 2^23 */
	/* subnormal over subnormal, and the smallest normal over one */
	check_div(0x00000003, 0x00000002, 0x3fc00000);
	check_div(0x00800000, 0x00000001, 0x4b000000);
	check_div(0x007fffff, 0x00400000, 0x3ffffffe);	/* exact: 2 - 2^-22 */
	check_div(0x3fffffff, 0x3f800001, 0x3ffffffd);	/* just below 2 */
	/* overflow: infinity, of the quotient's sign */
	check_div(0x7f7fffff, 0x3f000000, 0x7f800000);
	check_div(0x7f7fffff, 0x80000001, 0xff800000);
	/* zeros, infinities and NaNs */
	check_div(0x3f800000, 0x00000000, 0x7f800000);
	check_div(0xbf800000, 0x00000000, 0xff800000);
	check_div(0x3f800000, 0x80000000, 0xff800000);
	check_div(0x00000000, 0x3f800000, 0x00000000);
	check_div(0x80000000, 0x3f800000, 0x80000000);
	check_div(0x00000000, 0xbf800000, 0x80000000);
	check_div(0x00000000, 0x00000000, TERN_F32_QNAN);
	check_div(0x80000000, 0x00000000, TERN_F32_QNAN);
	check_div(0x7f800000, 0x7f800000, TERN_F32_QNAN);
	check_div(0x7f800000, 0xff800000, TERN_F32_QNAN);
	check_div(0x7f800000, 0x3f800000, 0x7f800000);
	check_div(0x7f800000, 0x80000000, 0xff800000);
	check_div(0x3f800000, 0x7f800000, 0x00000000);
	check_div(0x3f800000, 0xff800000, 0x80000000);
	check_div(0x7fc00000, 0x3f800000, TERN_F32_QNAN);
	check_div(0x3f800000, 0xff800001, TERN_F32_QNAN);
	check_div(0x00000000, 0x7fbfffff, TERN_F32_QNAN);
}

/* Every significand over every other would be 2^46 pairs: one exponent. */
static void test_f32_div_significands(void **state)
{
	(void)state;
	for (int i = 0; i < 3000000; i++) {
		u32 a = 0x3f800000u | ((u32)rng() & 0x7fffffu);
		u32 b = 0x3f800000u | ((u32)rng() & 0x7fffffu);

		check_f32_pair(a, b);
		/* and scaled into the subnormals, where the result is shortened */
		check_f32_pair(a, b + (u32)(rng() % 30 + 100) * 0x00800000u);
	}
}

static void check_u32_to_f32(u32 x)
{
	u32 want = bits_of((float)x), got = tern_u32_to_f32(x);

	if (got != want)
		fail_msg("u32_to_f32(%u) = 0x%08x, want 0x%08x", x, got, want);
}

static void test_u32_to_f32(void **state)
{
	(void)state;
	for (u32 x = 0; x < (1u << 20); x++)
		check_u32_to_f32(x);
	for (int shift = 0; shift < 32; shift++) {
		u32 p = 1u << shift;

		for (u32 d = 0; d < 8; d++) {
			check_u32_to_f32(p + d);
			check_u32_to_f32(p - d);
		}
	}
	for (int i = 0; i < 2000000; i++)
		check_u32_to_f32((u32)rng() >> (rng() % 32));
	/* exact up to 2^24; 2^24 + 1 is a tie, to even */
	assert_int_equal(tern_u32_to_f32(1u << 24), 0x4b800000);
	assert_int_equal(tern_u32_to_f32((1u << 24) + 1), 0x4b800000);
	assert_int_equal(tern_u32_to_f32((1u << 24) + 3), 0x4b800002);
	assert_int_equal(tern_u32_to_f32(UINT32_MAX), 0x4f800000);
	assert_int_equal(tern_u32_to_f32(0), 0);
}


/* ---- fused multiply-add against the C library's fmaf ---- */

static void check_fma(u32 a, u32 b, u32 c)
{
	/* volatile: computed at run time; glibc's fmaf rounds once */
	volatile float x = f32_of(a), y = f32_of(b), z = f32_of(c);
	float want = fmaf(x, y, z);
	u32 got = tern_f32_fma(a, b, c);

	if (isnan(want) ? got != TERN_F32_QNAN : got != bits_of(want))
		fail_msg("fma(0x%08x, 0x%08x, 0x%08x) = 0x%08x, want 0x%08x",
			 a, b, c, got, isnan(want) ? TERN_F32_QNAN :
			 bits_of(want));
}

static void test_fma_special(void **state)
{
	(void)state;
	for (size_t i = 0; i < F32_SPECIAL_COUNT; i++)
		for (size_t j = 0; j < F32_SPECIAL_COUNT; j++)
			for (size_t k = 0; k < F32_SPECIAL_COUNT; k++)
				check_fma(f32_special[i], f32_special[j],
					  f32_special[k]);
}

/*
 * Random triples, a third of them with c close to -(a * b) so that the
 * sum cancels: the case a single rounding gets right and a multiply
 * followed by an add does not.
 */
static void test_fma_random(void **state)
{
	(void)state;
	for (int i = 0; i < 3000000; i++) {
		u32 a = (u32)rng(), b = random_f32(a), c;
		volatile float p = f32_of(a) * f32_of(b);

		switch (i % 3) {
		case 0:
			c = (u32)rng();
			break;
		case 1:
			c = random_f32(bits_of(p));
			break;
		default:
			c = (bits_of(p) ^ 0x80000000u) + (u32)(rng() % 9) - 4;
			break;
		}
		check_fma(a, b, c);
	}
}

static void test_fma_edges(void **state)
{
	(void)state;
	/* (1 + 2^-23)(1 - 2^-23) - 1 = -2^-46, exactly: not 0 */
	assert_int_equal(tern_f32_fma(0x3f800001, 0x3f7ffffe, 0xbf800000),
			 0xa8800000);
	/* a product below the subnormals, then added: only c is left */
	assert_int_equal(tern_f32_fma(0x00000001, 0x00000001, 0x3f800000),
			 0x3f800000);
	/* an exact zero sum is +0; two zeros of one sign keep it */
	assert_int_equal(tern_f32_fma(0x3f800000, 0x3f800000, 0xbf800000), 0);
	assert_int_equal(tern_f32_fma(0x80000000, 0x3f800000, 0x80000000),
			 0x80000000);
	assert_int_equal(tern_f32_fma(0x80000000, 0x3f800000, 0x00000000), 0);
	/* infinity times zero is NaN whatever c is; inf - inf too */
	assert_int_equal(tern_f32_fma(0x7f800000, 0x00000000, 0x3f800000),
			 TERN_F32_QNAN);
	assert_int_equal(tern_f32_fma(0x7f800000, 0x3f800000, 0xff800000),
			 TERN_F32_QNAN);
	/* the largest finite squared overflows, even with -max added */
	assert_int_equal(tern_f32_fma(0x7f7fffff, 0x7f7fffff, 0xff7fffff),
			 0x7f800000);
	/* a subnormal result, rounded once */
	check_fma(0x00800001, 0x3f000000, 0x80000001);
	check_fma(0x1f800001, 0x1f800001, 0x80800000);
}

/* ---- square root, rounding to integers ---- */

static void check_unary(u32 a)
{
	volatile float x = f32_of(a);
	float r = nearbyintf(x);
	s64 want_int;

	check_f32("sqrt", a, 0, tern_f32_sqrt(a), sqrtf(x));
	check_f32("rint", a, 0, tern_f32_rint(a), r);
	/* to an int8 and an int32, saturating; NaN is 0 */
	want_int = isnan(x) ? 0 : r <= -128.0f ? -128 : r >= 127.0f ? 127 :
		   (s64)r;
	if (tern_f32_to_int(a, -128, 127) != want_int)
		fail_msg("to_int8(0x%08x) = %lld, want %lld", a,
			 (long long)tern_f32_to_int(a, -128, 127),
			 (long long)want_int);
	want_int = isnan(x) ? 0 : r <= -2147483648.0f ? INT32_MIN :
		   r >= 2147483648.0f ? INT32_MAX : (s64)r;
	if (tern_f32_to_int(a, INT32_MIN, INT32_MAX) != want_int)
		fail_msg("to_int32(0x%08x) = %lld, want %lld", a,
			 (long long)tern_f32_to_int(a, INT32_MIN, INT32_MAX),
			 (long long)want_int);
}

static void test_unary(void **state)
{
	(void)state;
	for (size_t i = 0; i < F32_SPECIAL_COUNT; i++)
		check_unary(f32_special[i]);
	/* every pattern near the integers, then random ones */
	for (u32 a = 0x3e000000; a < 0x3e000000 + (1u << 22); a += 3)
		check_unary(a);
	for (int i = 0; i < 3000000; i++)
		check_unary(random_f32(0x4b000000));
	/* ties go to even, -0.4 rounds to -0 */
	assert_int_equal(tern_f32_rint(bits_of(2.5f)), bits_of(2.0f));
	assert_int_equal(tern_f32_rint(bits_of(-3.5f)), bits_of(-4.0f));
	assert_int_equal(tern_f32_rint(bits_of(-0.4f)), 0x80000000);
	assert_int_equal(tern_f32_sqrt(0x80000000), 0x80000000);
	assert_int_equal(tern_f32_sqrt(bits_of(-1.0f)), TERN_F32_QNAN);
}

static void test_s32_to_f32(void **state)
{
	static const s32 edges[] = {
		0, 1, -1, INT32_MAX, INT32_MIN, (1 << 24) + 1, -(1 << 24) - 1,
		-(1 << 24) - 3,
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(edges); i++)
		assert_int_equal(tern_s32_to_f32(edges[i]),
				 bits_of((float)edges[i]));
	for (int i = 0; i < 2000000; i++) {
		s32 x = (s32)((u32)rng() >> (rng() % 32));

		if (rng() & 1)
			x = -x;
		if (tern_s32_to_f32(x) != bits_of((float)x))
			fail_msg("s32_to_f32(%d) = 0x%08x, want 0x%08x", x,
				 tern_s32_to_f32(x), bits_of((float)x));
	}
}

/* ---- conversions: binary16, bfloat16, OCP E4M3 and E5M2 ---- */

static u32 widen_f16(u32 h) { return tern_f16_to_f32((u16)h); }
static u32 widen_bf16(u32 h) { return tern_bf16_to_f32((u16)h); }
static u32 widen_e4m3(u32 h) { return tern_e4m3_to_f32((u8)h); }
static u32 widen_e5m2(u32 h) { return tern_e5m2_to_f32((u8)h); }
static u32 narrow_f16(u32 f) { return tern_f32_to_f16(f); }
static u32 narrow_bf16(u32 f) { return tern_f32_to_bf16(f); }
static u32 narrow_e4m3(u32 f) { return tern_f32_to_e4m3(f); }
static u32 narrow_e5m2(u32 f) { return tern_f32_to_e5m2(f); }

struct conversion {
	const char *name;
	const struct ref_format *ref;
	u32 (*widen)(u32 h);
	u32 (*narrow)(u32 f);
};

static const struct conversion conv_f16 = {
	"float16", &ref_f16, widen_f16, narrow_f16 };
static const struct conversion conv_bf16 = {
	"bfloat16", &ref_bf16, widen_bf16, narrow_bf16 };
static const struct conversion conv_e4m3 = {
	"e4m3", &ref_e4m3, widen_e4m3, narrow_e4m3 };
static const struct conversion conv_e5m2 = {
	"e5m2", &ref_e5m2, widen_e5m2, narrow_e5m2 };

/* Every pattern widens to its exact value and narrows back to itself. */
static void check_widen_all(const struct conversion *c)
{
	const struct ref_format *fmt = c->ref;
	u32 patterns = 2u << (fmt->exp_bits + fmt->mant_bits);

	for (u32 h = 0; h < patterns; h++) {
		double want = ref_widen(h, fmt);
		u32 got = c->widen(h);

		if (isnan(want)) {
			/* 16-bit NaNs keep their payload, 8-bit ones do not */
			if (fmt->exp_bits + fmt->mant_bits == 7 ?
			    got != TERN_F32_QNAN : !f32_bits_nan(got))
				fail_msg("%s widen 0x%x = 0x%08x, want a NaN",
					 c->name, h, got);
			continue;
		}
		if (got != bits_of((float)want))
			fail_msg("%s widen 0x%x = 0x%08x, want 0x%08x", c->name,
				 h, got, bits_of((float)want));
		/* infinities saturate in E5M2 */
		if (isinf(want) && fmt->saturate)
			continue;
		if (c->narrow(got) != h)
			fail_msg("%s: 0x%x widened and narrowed is 0x%x",
				 c->name, h, c->narrow(got));
	}
}

static void check_narrow(const struct conversion *c, u32 f)
{
	u32 want = ref_narrow(f32_of(f), c->ref), got = c->narrow(f);

	if (got != want)
		fail_msg("%s narrow 0x%08x = 0x%x, want 0x%x", c->name, f, got,
			 want);
}

static void check_narrow_many(const struct conversion *c)
{
	const struct ref_format *fmt = c->ref;

	for (size_t i = 0; i < F32_SPECIAL_COUNT; i++)
		check_narrow(c, f32_special[i]);
	for (int i = 0; i < 1000000; i++) {
		/* exponents around the narrow range, short and long tails */
		int lo = -fmt->bias - fmt->mant_bits - 3, hi = fmt->bias + 3;
		int field = 127 + lo + (int)(rng() % (u64)(hi - lo + 1));
		u32 f = ((u32)rng() & 0x807fffffu);

		if (field < 0)
			field = 0;
		if (field > 254)
			field = 254;
		f |= (u32)field << 23;
		if (rng() & 1)
			f &= ~0u << (rng() % 23);
		check_narrow(c, f);
		check_narrow(c, (u32)rng());
	}
}

static void test_f16(void **state)
{
	(void)state;
	check_widen_all(&conv_f16);
	check_narrow_many(&conv_f16);
	/* the edges: 65504 is the largest, 65520 a tie that goes to infinity */
	assert_int_equal(tern_f32_to_f16(bits_of(65504.0f)), 0x7bff);
	assert_int_equal(tern_f32_to_f16(bits_of(65519.99f)), 0x7bff);
	assert_int_equal(tern_f32_to_f16(bits_of(65520.0f)), 0x7c00);
	assert_int_equal(tern_f32_to_f16(bits_of(-1e10f)), 0xfc00);
	assert_int_equal(tern_f32_to_f16(bits_of(0x1p-24f)), 0x0001);
	assert_int_equal(tern_f32_to_f16(bits_of(0x1p-25f)), 0x0000);
	assert_int_equal(tern_f32_to_f16(bits_of(0x1.8p-25f)), 0x0001);
	assert_int_equal(tern_f32_to_f16(bits_of(-0x1p-26f)), 0x8000);
	assert_int_equal(tern_f32_to_f16(TERN_F32_QNAN), TERN_F16_QNAN);
}

static void test_bf16(void **state)
{
	(void)state;
	check_widen_all(&conv_bf16);
	check_narrow_many(&conv_bf16);
	assert_int_equal(tern_f32_to_bf16(0x3f808000), 0x3f80);	/* tie, even */
	assert_int_equal(tern_f32_to_bf16(0x3f818000), 0x3f82);	/* tie, up */
	assert_int_equal(tern_f32_to_bf16(0x3f808001), 0x3f81);
	assert_int_equal(tern_f32_to_bf16(0x7f7fffff), 0x7f80);	/* overflows */
	assert_int_equal(tern_f32_to_bf16(0x00000001), 0x0000);
	assert_int_equal(tern_f32_to_bf16(0x00008000), 0x0000);	/* tie, even */
	assert_int_equal(tern_f32_to_bf16(0x00018000), 0x0002);
	assert_int_equal(tern_f32_to_bf16(0xffc00001), TERN_BF16_QNAN);
}

static void test_e4m3(void **state)
{
	(void)state;
	check_widen_all(&conv_e4m3);
	check_narrow_many(&conv_e4m3);
	/* 448 is the largest; past it, infinities too, saturate */
	assert_int_equal(tern_f32_to_e4m3(bits_of(448.0f)), 0x7e);
	assert_int_equal(tern_f32_to_e4m3(bits_of(464.0f)), 0x7e);
	assert_int_equal(tern_f32_to_e4m3(bits_of(1e30f)), 0x7e);
	assert_int_equal(tern_f32_to_e4m3(0x7f800000), 0x7e);
	assert_int_equal(tern_f32_to_e4m3(0xff800000), 0xfe);
	assert_int_equal(tern_f32_to_e4m3(0xffc00001), TERN_E4M3_QNAN);
	/* 0x78..0x7d are finite: 256 to 416 */
	assert_int_equal(tern_e4m3_to_f32(0x78), bits_of(256.0f));
	assert_int_equal(tern_e4m3_to_f32(0xff), TERN_F32_QNAN);
	/* the smallest subnormal is 2^-9; half of it is a tie with 0 */
	assert_int_equal(tern_f32_to_e4m3(bits_of(0x1p-9f)), 0x01);
	assert_int_equal(tern_f32_to_e4m3(bits_of(0x1p-10f)), 0x00);
	assert_int_equal(tern_f32_to_e4m3(bits_of(0x1.8p-9f)), 0x02);
	assert_int_equal(tern_f32_to_e4m3(bits_of(-0x1p-12f)), 0x80);
}

static void test_e5m2(void **state)
{
	(void)state;
	check_widen_all(&conv_e5m2);
	check_narrow_many(&conv_e5m2);
	assert_int_equal(tern_f32_to_e5m2(bits_of(57344.0f)), 0x7b);
	assert_int_equal(tern_f32_to_e5m2(bits_of(61440.0f)), 0x7b);
	assert_int_equal(tern_f32_to_e5m2(0x7f800000), 0x7b);
	assert_int_equal(tern_f32_to_e5m2(0xff800000), 0xfb);
	assert_int_equal(tern_f32_to_e5m2(0x7fc00000), TERN_E5M2_QNAN);
	assert_int_equal(tern_e5m2_to_f32(0x7c), 0x7f800000);
	assert_int_equal(tern_e5m2_to_f32(0x7d), TERN_F32_QNAN);
	assert_int_equal(tern_f32_to_e5m2(bits_of(0x1p-16f)), 0x01);
	assert_int_equal(tern_f32_to_e5m2(bits_of(0x1p-17f)), 0x00);
	assert_int_equal(tern_f32_to_e5m2(bits_of(1.125f)), 0x3c);	/* tie, even */
	assert_int_equal(tern_f32_to_e5m2(bits_of(1.375f)), 0x3e);	/* tie, up */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_f32_special_pairs),
		cmocka_unit_test(test_f32_random),
		cmocka_unit_test(test_f32_ties_round_to_even),
		cmocka_unit_test(test_f32_div_edges),
		cmocka_unit_test(test_f32_div_significands),
		cmocka_unit_test(test_u32_to_f32),
		cmocka_unit_test(test_fma_special),
		cmocka_unit_test(test_fma_random),
		cmocka_unit_test(test_fma_edges),
		cmocka_unit_test(test_unary),
		cmocka_unit_test(test_s32_to_f32),
		cmocka_unit_test(test_f16),
		cmocka_unit_test(test_bf16),
		cmocka_unit_test(test_e4m3),
		cmocka_unit_test(test_e5m2),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
