// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Integer-only IEEE 754 binary32 add, multiply, fused multiply-add and
 * divide, min and max, and the conversions between binary32, binary16,
 * bfloat16, the two OCP 8-bit formats and u32.
 *
 * Every finite result goes through tern_round_pack(): an exact value
 * sig * 2^exp (sig below 2^62) rounded once into the target format.
 */
#include "tern_softfloat.h"

struct tern_float_format {
	u32 mant_bits;		/* stored fraction bits */
	u32 exp_bits;
	int bias;
};

static const struct tern_float_format tern_f32 = { 23, 8, 127 };
static const struct tern_float_format tern_f16 = { 10, 5, 15 };
static const struct tern_float_format tern_bf16 = { 7, 8, 127 };
static const struct tern_float_format tern_e5m2 = { 2, 5, 15 };
/*
 * E4M3 keeps its all-ones exponent for finite values: rounded as if it had
 * a fifth exponent bit, then saturated (tern_f32_to_e4m3()).
 */
static const struct tern_float_format tern_e4m3_wide = { 3, 5, 7 };

/* Index of the highest set bit of the non-zero @x. */
static int tern_top_bit(u64 x)
{
	return 63 - __builtin_clzll(x);
}

/*
 * Rounds the non-zero value sig * 2^exp, with the sign bit @sign, to
 * @fmt: nearest, ties to even; past the largest finite value, infinity.
 */
static u32 tern_round_pack(u32 sign, u64 sig, int exp,
			   const struct tern_float_format *fmt)
{
	u32 exp_all_ones = (1u << fmt->exp_bits) - 1;
	u32 sign_bit = sign << (fmt->mant_bits + fmt->exp_bits);
	int min_exp = 1 - fmt->bias;	/* of the smallest normal */
	int top = tern_top_bit(sig) + exp;	/* value in [2^top, 2^(top+1)) */
	int quantum, shift;
	u64 q, packed;

	/* the weight of the last stored bit: fixed below the normals */
	quantum = (top < min_exp ? min_exp : top) - (int)fmt->mant_bits;
	shift = quantum - exp;
	if (shift <= 0) {
		q = sig << -shift;
	} else if (shift >= 63) {
		q = 0;		/* below half the quantum: sig < 2^62 */
	} else {
		u64 rest = sig & ((1ull << shift) - 1);
		u64 half = 1ull << (shift - 1);

		q = sig >> shift;
		if (rest > half || (rest == half && (q & 1)))
			q++;
	}
	/*
	 * q holds the hidden bit for normals, so adding it to the exponent
	 * field minus one carries a rounded-up significand into the
	 * exponent; a subnormal that rounds up to 2^mant_bits becomes the
	 * smallest normal the same way.
	 */
	if (top < min_exp)
		packed = q;
	else
		packed = ((u64)(top + fmt->bias - 1) << fmt->mant_bits) + q;
	if (packed >= (u64)exp_all_ones << fmt->mant_bits)
		packed = (u64)exp_all_ones << fmt->mant_bits;
	return sign_bit | (u32)packed;
}

/* A finite binary32 as sig * 2^exp; sig is 0 for zeros. */
static void tern_f32_unpack(u32 a, u64 *sig, int *exp)
{
	u32 field = (a >> 23) & 0xff;

	*sig = a & 0x7fffff;
	if (field) {
		*sig |= 1u << 23;
		*exp = (int)field - 150;
	} else {
		*exp = -149;
	}
}

static bool tern_f32_is_nan(u32 a)
{
	return (a & 0x7fffffff) > 0x7f800000;
}

static bool tern_f32_is_inf(u32 a)
{
	return (a & 0x7fffffff) == 0x7f800000;
}

/* Guard bits below the operands' own: enough that one jammed sticky bit rounds right. */
#define TERN_ADD_GUARD	32

u32 tern_f32_add(u32 a, u32 b)
{
	u32 sign_a = a >> 31, sign_b = b >> 31, sign;
	u64 sig_a, sig_b, sum;
	int exp_a, exp_b, diff;

	if (tern_f32_is_nan(a) || tern_f32_is_nan(b))
		return TERN_F32_QNAN;
	if (tern_f32_is_inf(a) || tern_f32_is_inf(b)) {
		if (tern_f32_is_inf(a) && tern_f32_is_inf(b) && sign_a != sign_b)
			return TERN_F32_QNAN;
		return tern_f32_is_inf(a) ? a : b;
	}
	tern_f32_unpack(a, &sig_a, &exp_a);
	tern_f32_unpack(b, &sig_b, &exp_b);
	if (exp_a < exp_b || (exp_a == exp_b && sig_a < sig_b)) {
		u64 s = sig_a;
		int e = exp_a;
		u32 g = sign_a;

		sig_a = sig_b, exp_a = exp_b, sign_a = sign_b;
		sig_b = s, exp_b = e, sign_b = g;
	}
	/* now |a| >= |b| */
	sig_a <<= TERN_ADD_GUARD;
	sig_b <<= TERN_ADD_GUARD;
	diff = exp_a - exp_b;
	if (diff >= 63) {
		sig_b = sig_b != 0;
	} else if (diff > 0) {
		bool lost = sig_b & ((1ull << diff) - 1);

		sig_b = (sig_b >> diff) | lost;
	}
	sign = sign_a;
	sum = sign_a == sign_b ? sig_a + sig_b : sig_a - sig_b;
	if (!sum)	/* x + -x is +0; -0 + -0 is -0 */
		return (sign_a & sign_b) << 31;
	return tern_round_pack(sign, sum, exp_a - TERN_ADD_GUARD, &tern_f32);
}

u32 tern_f32_mul(u32 a, u32 b)
{
	u32 sign = (a ^ b) >> 31;
	u64 sig_a, sig_b;
	int exp_a, exp_b;

	if (tern_f32_is_nan(a) || tern_f32_is_nan(b))
		return TERN_F32_QNAN;
	if (tern_f32_is_inf(a) || tern_f32_is_inf(b)) {
		if (!(a & 0x7fffffff) || !(b & 0x7fffffff))
			return TERN_F32_QNAN;	/* infinity times zero */
		return sign << 31 | 0x7f800000;
	}
	tern_f32_unpack(a, &sig_a, &exp_a);
	tern_f32_unpack(b, &sig_b, &exp_b);
	if (!sig_a || !sig_b)
		return sign << 31;
	return tern_round_pack(sign, sig_a * sig_b, exp_a + exp_b, &tern_f32);
}

/*
 * Where fma puts the top bit of both addends: the product's 48 bits then
 * span bits 13 to 60, so a shift of up to 13 loses nothing, and a longer
 * one leaves the larger addend so far ahead that subtracting cancels at
 * most one bit and the jammed sticky bit lies far below the 26 that
 * rounding reads. The sum stays below 2^62, as tern_round_pack() wants.
 */
#define TERN_FMA_TOP	60

/* Shifts the non-zero @sig so that its top bit is TERN_FMA_TOP. */
static void tern_fma_align(u64 *sig, int *exp)
{
	int shift = TERN_FMA_TOP - tern_top_bit(*sig);

	*sig <<= shift;
	*exp -= shift;
}

u32 tern_f32_fma(u32 a, u32 b, u32 c)
{
	u32 sign_p = (a ^ b) >> 31, sign_c = c >> 31;
	u64 sig_a, sig_b, sig_p, sig_c, sum;
	int exp_a, exp_b, exp_p, exp_c, diff;

	if (tern_f32_is_nan(a) || tern_f32_is_nan(b) || tern_f32_is_nan(c))
		return TERN_F32_QNAN;
	if (tern_f32_is_inf(a) || tern_f32_is_inf(b)) {
		if (!(a & 0x7fffffff) || !(b & 0x7fffffff))
			return TERN_F32_QNAN;	/* infinity times zero */
		if (tern_f32_is_inf(c) && sign_c != sign_p)
			return TERN_F32_QNAN;
		return sign_p << 31 | 0x7f800000;
	}
	if (tern_f32_is_inf(c))
		return c;
	tern_f32_unpack(a, &sig_a, &exp_a);
	tern_f32_unpack(b, &sig_b, &exp_b);
	tern_f32_unpack(c, &sig_c, &exp_c);
	sig_p = sig_a * sig_b;
	exp_p = exp_a + exp_b;
	if (!sig_p)	/* an exact zero product: the sum of two zeros, or c */
		return sig_c ? c : (sign_p & sign_c) << 31;
	if (!sig_c)
		return tern_round_pack(sign_p, sig_p, exp_p, &tern_f32);
	tern_fma_align(&sig_p, &exp_p);
	tern_fma_align(&sig_c, &exp_c);
	if (exp_p < exp_c || (exp_p == exp_c && sig_p < sig_c)) {
		u64 s = sig_p;
		int e = exp_p;
		u32 g = sign_p;

		sig_p = sig_c, exp_p = exp_c, sign_p = sign_c;
		sig_c = s, exp_c = e, sign_c = g;
	}
	/* now |p| >= |c| */
	diff = exp_p - exp_c;
	if (diff >= 63) {
		sig_c = 1;	/* non-zero: only its stickiness is left */
	} else if (diff > 0) {
		bool lost = sig_c & ((1ull << diff) - 1);

		sig_c = (sig_c >> diff) | lost;
	}
	sum = sign_p == sign_c ? sig_p + sig_c : sig_p - sig_c;
	if (!sum)	/* x - x is +0 when rounding to nearest */
		return 0;
	return tern_round_pack(sign_p, sum, exp_p, &tern_f32);
}

/*
 * Bits of the quotient below the divisor's 24: with them it has 38 or 39
 * bits, so that 14 or more lie below the 24 that are kept and the sticky
 * bit jammed into the lowest one never decides a tie on its own.
 */
#define TERN_DIV_EXTRA	38

/* Shifts the non-zero significand @sig up to [2^23, 2^24), fixing @exp. */
static void tern_f32_normalise(u64 *sig, int *exp)
{
	int shift = 23 - tern_top_bit(*sig);

	*sig <<= shift;
	*exp -= shift;
}

u32 tern_f32_div(u32 a, u32 b)
{
	u32 sign = (a ^ b) >> 31, rem;
	u64 sig_a, sig_b, q;
	int exp_a, exp_b;

	if (tern_f32_is_nan(a) || tern_f32_is_nan(b))
		return TERN_F32_QNAN;
	if (tern_f32_is_inf(a)) {
		if (tern_f32_is_inf(b))
			return TERN_F32_QNAN;	/* infinity over infinity */
		return sign << 31 | 0x7f800000;
	}
	if (tern_f32_is_inf(b))
		return sign << 31;
	tern_f32_unpack(a, &sig_a, &exp_a);
	tern_f32_unpack(b, &sig_b, &exp_b);
	if (!sig_b)	/* zero over zero, or a finite value over zero */
		return sig_a ? sign << 31 | 0x7f800000 : TERN_F32_QNAN;
	if (!sig_a)
		return sign << 31;
	/* subnormals too: the quotient then has its full width */
	tern_f32_normalise(&sig_a, &exp_a);
	tern_f32_normalise(&sig_b, &exp_b);
	/* sig_a << 38 < 2^62; sig_b < 2^24 fits the 32-bit divisor */
	q = tern_div_u64_rem(sig_a << TERN_DIV_EXTRA, (u32)sig_b, &rem);
	return tern_round_pack(sign, q | (rem != 0),
			       exp_a - exp_b - TERN_DIV_EXTRA, &tern_f32);
}

/* The integer square root of @x, and whether it was inexact. */
static u64 tern_isqrt(u64 x, bool *inexact)
{
	u64 root = 0, bit = 1ull << 62;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= root + bit) {
			x -= root + bit;
			root = (root >> 1) + bit;
		} else {
			root >>= 1;
		}
		bit >>= 2;
	}
	*inexact = x != 0;
	return root;
}

/*
 * Bits below the significand's given to the integer root: it then has 31
 * or 32 bits, well past the 25 rounding reads. A square root of a float
 * is never exactly halfway between two floats, so the jammed sticky bit
 * never decides a tie.
 */
#define TERN_SQRT_EXTRA	38

u32 tern_f32_sqrt(u32 a)
{
	u64 sig, root;
	bool inexact;
	int exp;

	if (tern_f32_is_nan(a))
		return TERN_F32_QNAN;
	if (!(a & 0x7fffffff))
		return a;	/* sqrt(-0) is -0 */
	if (a >> 31)
		return TERN_F32_QNAN;
	if (tern_f32_is_inf(a))
		return a;
	tern_f32_unpack(a, &sig, &exp);
	tern_f32_normalise(&sig, &exp);
	if (exp & 1) {
		sig <<= 1;
		exp--;
	}
	root = tern_isqrt(sig << TERN_SQRT_EXTRA, &inexact);
	return tern_round_pack(0, root | inexact,
			       (exp - TERN_SQRT_EXTRA) / 2, &tern_f32);
}

/*
 * |@a| rounded to an integer, ties to even, for a finite @a below 2^63;
 * the caller applies the sign.
 */
static u64 tern_f32_round_magnitude(u32 a)
{
	u64 sig, rest, half, q;
	int exp;

	tern_f32_unpack(a, &sig, &exp);
	if (exp >= 0)
		return sig << exp;
	if (exp < -62)
		return 0;	/* below a quarter: sig < 2^24 */
	q = sig >> -exp;
	rest = sig & ((1ull << -exp) - 1);
	half = 1ull << (-exp - 1);
	if (rest > half || (rest == half && (q & 1)))
		q++;
	return q;
}

u32 tern_f32_rint(u32 a)
{
	u64 q;

	if (tern_f32_is_nan(a))
		return TERN_F32_QNAN;
	if ((a & 0x7fffffff) >= 0x4b000000)
		return a;	/* 2^23 and above, infinities: integral */
	q = tern_f32_round_magnitude(a);
	return (a & 0x80000000u) | (q ? tern_round_pack(0, q, 0, &tern_f32) : 0);
}

s64 tern_f32_to_int(u32 a, s64 lo, s64 hi)
{
	s64 v;
	u64 q;

	if (tern_f32_is_nan(a))
		return 0;
	if ((a & 0x7fffffff) >= 0x5f000000)	/* 2^63 and above */
		return a >> 31 ? lo : hi;
	q = tern_f32_round_magnitude(a);
	v = a >> 31 ? -(s64)q : (s64)q;
	return v < lo ? lo : v > hi ? hi : v;
}

u32 tern_s32_to_f32(s32 x)
{
	u32 magnitude = x < 0 ? 0u - (u32)x : (u32)x;

	return (x < 0 ? 0x80000000u : 0) | tern_u32_to_f32(magnitude);
}

u32 tern_u32_to_f32(u32 x)
{
	return x ? tern_round_pack(0, x, 0, &tern_f32) : 0;
}

/* Orders bit patterns as their values order, with -0 just below +0. */
static u32 tern_f32_order_key(u32 a)
{
	return a >> 31 ? ~a : a | 0x80000000u;
}

u32 tern_f32_min(u32 a, u32 b)
{
	if (tern_f32_is_nan(a) || tern_f32_is_nan(b))
		return TERN_F32_QNAN;
	return tern_f32_order_key(a) <= tern_f32_order_key(b) ? a : b;
}

u32 tern_f32_max(u32 a, u32 b)
{
	if (tern_f32_is_nan(a) || tern_f32_is_nan(b))
		return TERN_F32_QNAN;
	return tern_f32_order_key(a) >= tern_f32_order_key(b) ? a : b;
}

u32 tern_f16_to_f32(u16 h)
{
	u32 sign = (u32)(h >> 15), field = (h >> 10) & 0x1f, frac = h & 0x3ff;

	if (field == 0x1f)	/* infinity, or NaN with its payload kept */
		return sign << 31 | 0x7f800000 | (frac ? 0x400000 | frac << 13 : 0);
	if (!field && !frac)
		return sign << 31;
	if (field)
		return tern_round_pack(sign, frac | 0x400, (int)field - 25,
				       &tern_f32);
	return tern_round_pack(sign, frac, -24, &tern_f32);
}

u32 tern_bf16_to_f32(u16 h)
{
	return (u32)h << 16;
}

static u16 tern_f32_narrow(u32 f, const struct tern_float_format *fmt,
			   u16 qnan)
{
	u32 sign = f >> 31;
	u32 sign_bit = sign << (fmt->mant_bits + fmt->exp_bits);
	u64 sig;
	int exp;

	if (tern_f32_is_nan(f))
		return qnan;
	if (tern_f32_is_inf(f))
		return (u16)(sign_bit | ((1u << fmt->exp_bits) - 1) << fmt->mant_bits);
	tern_f32_unpack(f, &sig, &exp);
	if (!sig)
		return (u16)sign_bit;
	return (u16)tern_round_pack(sign, sig, exp, fmt);
}

u16 tern_f32_to_f16(u32 f)
{
	return tern_f32_narrow(f, &tern_f16, TERN_F16_QNAN);
}

u16 tern_f32_to_bf16(u32 f)
{
	return tern_f32_narrow(f, &tern_bf16, TERN_BF16_QNAN);
}

u32 tern_e4m3_to_f32(u8 h)
{
	u32 sign = h >> 7, field = (h >> 3) & 0xf, frac = h & 7;

	if ((h & 0x7f) == 0x7f)
		return TERN_F32_QNAN;
	if (!field && !frac)
		return sign << 31;
	if (field)
		return tern_round_pack(sign, frac | 8, (int)field - 10,
				       &tern_f32);
	return tern_round_pack(sign, frac, -9, &tern_f32);
}

u32 tern_e5m2_to_f32(u8 h)
{
	/* E5M2 is binary16 with its low byte cut off */
	if ((h & 0x7f) > 0x7c)
		return TERN_F32_QNAN;
	return tern_f16_to_f32((u16)(h << 8));
}

/* The largest finite magnitudes: E4M3 448, E5M2 57344. */
#define TERN_E4M3_MAX	0x7eu
#define TERN_E5M2_MAX	0x7bu

/* One rounding of @f into an 8-bit format, saturating at @max. */
static u8 tern_f32_to_ofp8(u32 f, const struct tern_float_format *fmt,
			   u32 max, u8 qnan)
{
	u32 sign = f >> 31, mag = max;
	u64 sig;
	int exp;

	if (tern_f32_is_nan(f))
		return qnan;
	if (!tern_f32_is_inf(f)) {
		tern_f32_unpack(f, &sig, &exp);
		if (!sig)
			return (u8)(sign << 7);
		mag = tern_round_pack(0, sig, exp, fmt);
		if (mag > max)
			mag = max;
	}
	return (u8)(sign << 7 | mag);
}

u8 tern_f32_to_e4m3(u32 f)
{
	return tern_f32_to_ofp8(f, &tern_e4m3_wide, TERN_E4M3_MAX,
				TERN_E4M3_QNAN);
}

u8 tern_f32_to_e5m2(u32 f)
{
	return tern_f32_to_ofp8(f, &tern_e5m2, TERN_E5M2_MAX, TERN_E5M2_QNAN);
}
