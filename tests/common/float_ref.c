// SPDX-License-Identifier: MIT
/*
 * References for the model's float arithmetic (float_ref.h).
 */
#include <math.h>
#include <string.h>

#include "test.h"
#include "float_ref.h"

static uint64_t rng_state = 0x243f6a8885a308d3ull;

uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

float f32_of(uint32_t bits)
{
	float f;

	memcpy(&f, &bits, 4);
	return f;
}

uint32_t bits_of(float f)
{
	uint32_t bits;

	memcpy(&bits, &f, 4);
	return bits;
}

bool f32_bits_nan(uint32_t bits)
{
	return (bits & 0x7fffffffu) > 0x7f800000u;
}

const uint32_t f32_special[] = {
	0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x00000002,
	0x007fffff, 0x807fffff, 0x00800000, 0x80800000, 0x00800001,
	0x00ffffff, 0x01000000, 0x3f800000, 0xbf800000, 0x3f800001,
	0x3f7fffff, 0xbf7fffff, 0x3fc00000, 0x40000000, 0x4b800000,
	0x4b7fffff, 0x33800000, 0x33000000, 0x34000000, 0x1f800000,
	0x5f800000, 0x7f000000, 0x7f7fffff, 0xff7fffff, 0x7f7ffffe,
	0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001,
	0x7fbfffff, 0xffc00001, 0x3eaaaaab, 0x3e800000, 0x00400000,
};

const unsigned int f32_special_count = ARRAY_SIZE(f32_special);

uint32_t random_f32(uint32_t near)
{
	uint32_t bits = (uint32_t)rng();

	if (rng() & 1) {
		int exp = (int)((near >> 23) & 0xff) + (int)(rng() % 61) - 30;

		if (exp < 0)
			exp = 0;
		if (exp > 254)
			exp = 254;
		bits = (bits & 0x807fffffu) | (uint32_t)exp << 23;
	}
	/* now and then a short significand, so exact ties happen */
	if ((rng() & 3) == 0)
		bits &= ~0u << (rng() % 24);
	return bits;
}

float ref_min(float a, float b)
{
	if (isnan(a) || isnan(b))
		return NAN;
	if (a == 0 && b == 0)
		return signbit(a) ? a : b;
	return a < b ? a : b;
}

float ref_max(float a, float b)
{
	if (isnan(a) || isnan(b))
		return NAN;
	if (a == 0 && b == 0)
		return signbit(a) ? b : a;
	return a > b ? a : b;
}

void check_f32(const char *what, uint32_t a, uint32_t b, uint32_t got,
	       float want)
{
	uint32_t want_bits = bits_of(want);

	if (isnan(want)) {
		if (got != 0x7fc00000u)
			fail_msg("%s(0x%08x, 0x%08x) = 0x%08x, want the quiet NaN",
				 what, a, b, got);
		return;
	}
	if (got != want_bits)
		fail_msg("%s(0x%08x, 0x%08x) = 0x%08x, want 0x%08x", what, a,
			 b, got, want_bits);
}

const struct ref_format ref_f16 = { 10, 5, 15, 0x7e00, false, false };
const struct ref_format ref_bf16 = { 7, 8, 127, 0x7fc0, false, false };
const struct ref_format ref_e4m3 = { 3, 4, 7, 0x7f, true, true };
const struct ref_format ref_e5m2 = { 2, 5, 15, 0x7e, false, true };

double ref_widen(uint32_t h, const struct ref_format *fmt)
{
	int field_max = (1 << fmt->exp_bits) - 1;
	int frac_max = (1 << fmt->mant_bits) - 1;
	int field = (int)(h >> fmt->mant_bits) & field_max;
	int frac = (int)h & frac_max;
	double sign = (h >> (fmt->exp_bits + fmt->mant_bits)) & 1 ? -1.0 : 1.0;

	if (field == field_max && fmt->no_inf && frac == frac_max)
		return NAN;
	if (field == field_max && !fmt->no_inf)
		return frac ? NAN : sign * INFINITY;
	if (field == 0)
		return sign * ldexp(frac, 1 - fmt->bias - fmt->mant_bits);
	return sign * ldexp(frac + (1 << fmt->mant_bits),
			    field - fmt->bias - fmt->mant_bits);
}

/* The largest finite value of @fmt. */
static double ref_max_finite(const struct ref_format *fmt)
{
	int field_max = (1 << fmt->exp_bits) - 1;

	if (fmt->no_inf)	/* all-ones exponent, fraction one below NaN's */
		return ldexp((2 << fmt->mant_bits) - 2,
			     field_max - fmt->bias - fmt->mant_bits);
	return ldexp((2 << fmt->mant_bits) - 1,
		     field_max - 1 - fmt->bias - fmt->mant_bits);
}

/*
 * Scales @x so that the last kept bit is 1 and lets the FPU's nearbyint()
 * (ties to even) do the rounding.
 */
uint32_t ref_narrow(double x, const struct ref_format *fmt)
{
	int min_exp = 1 - fmt->bias, exp;
	uint32_t sign = signbit(x) ? 1u << (fmt->exp_bits + fmt->mant_bits) : 0;
	double max = ref_max_finite(fmt), q = 0, v;

	if (isnan(x))
		return fmt->qnan;
	x = fabs(x);
	if (x == 0)
		return sign;
	v = x;
	if (!isinf(x)) {
		frexp(x, &exp);
		exp -= 1;		/* x in [2^exp, 2^(exp+1)) */
		if (exp < min_exp)
			exp = min_exp;
		q = nearbyint(ldexp(x, fmt->mant_bits - exp));
		v = ldexp(q, exp - fmt->mant_bits);
	}
	if (v > max) {
		if (fmt->saturate)
			return sign | ref_narrow(max, fmt);
		return sign | (uint32_t)((1 << fmt->exp_bits) - 1) << fmt->mant_bits;
	}
	if (v < ldexp(1, min_exp))	/* subnormal: q counts 2^(min_exp-m) */
		return sign | (uint32_t)q;
	frexp(v, &exp);
	exp -= 1;
	q = ldexp(v, fmt->mant_bits - exp) - (1 << fmt->mant_bits);
	return sign | (uint32_t)(exp + fmt->bias) << fmt->mant_bits | (uint32_t)q;
}
