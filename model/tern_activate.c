// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ACTIVATE's functions. Each is written once, in float32 operations that
 * round to nearest even one at a time; the constants are float32 bit
 * patterns. exp reduces its argument by a power of two, as fdlibm does,
 * and evaluates a Taylor polynomial by Horner's rule with fused
 * multiply-adds; log reduces to [sqrt(1/2), sqrt(2)) and uses the series
 * of atanh; the rest are built on these.
 */
#include "tern_activate.h"
#include "tern_f32.h"
#include "../../uapi/drm/tern_accel.h"

#define F32_HALF	0x3f000000u	/* 0.5 */
#define F32_TWO		0x40000000u
#define F32_INF		0x7f800000u
#define F32_LOG2E	0x3fb8aa3bu	/* 1.44269502 */
#define F32_LN2_HI	0x3f317200u	/* 0.693145752: k * it is exact */
#define F32_LN2_LO	0x35bfbe8eu	/* 1.42860677e-6 */
#define F32_EXP_MAX	0x42b20000u	/* 89: exp above is infinite */
#define F32_EXP_MIN	0xc2d00000u	/* -104: exp below is 0 */
#define F32_SQRT2	0x3fb504f3u	/* 1.41421354 */
#define F32_TWO_POW_64	0x5f800000u
#define F32_TWO_NEG_64	0x1f800000u
#define F32_TWO_POW_23	0x4b000000u
#define F32_SQRT_2_PI	0x3f4c422au	/* sqrt(2 / pi) = 0.797884583 */
#define F32_GELU_C	0x3d372713u	/* 0.044715 */
#define F32_EXPM1_SMALL	0x3eb17218u	/* 0.346573591: ln(2) / 2 */
#define F32_TANH_BIG	0x41100000u	/* 9: tanh is 1 in float32 */
#define F32_TANH_TINY	0x39800000u	/* 2^-12: tanh(x) is x */
#define F32_LOGISTIC_LOW 0xc1a00000u	/* -20: 1 + e^-t is e^-t */

/* 1/7!, 1/6!, ... 1/2!: e^r = 1 + r + r^2/2! + ... + r^7/7!. */
static const u32 tern_exp_taylor[] = {
	0x39500d01u, 0x3ab60b61u, 0x3c088889u, 0x3d2aaaabu, 0x3e2aaaabu,
	0x3f000000u,
};

/* z/3 + z^2/5 + z^3/7 + z^4/9, innermost first: 1/9, 1/7, 1/5, 1/3. */
static const u32 tern_log_series[] = {
	0x3de38e39u, 0x3e124925u, 0x3e4ccccdu, 0x3eaaaaabu,
};

/* 2^@k for -126 <= k <= 127. */
static u32 tern_pow2(s32 k)
{
	return (u32)(k + 127) << 23;
}

/*
 * @p * 2^@k with one rounding: k between -149 and 128 is split so that
 * the first multiply is exact and only the second rounds.
 */
static u32 tern_scale(u32 p, s32 k)
{
	if (k > 127)
		return tern_fmul(tern_fmul(p, tern_pow2(k - 64)), F32_TWO_POW_64);
	if (k < -126)
		return tern_fmul(tern_fmul(p, tern_pow2(k + 64)), F32_TWO_NEG_64);
	return tern_fmul(p, tern_pow2(k));
}

/* r^2/2! + ... + r^7/7!, for |r| below ln(2)/2. */
static u32 tern_exp_tail(u32 r)
{
	u32 p = tern_exp_taylor[0];

	for (u32 i = 1; i < ARRAY_SIZE(tern_exp_taylor); i++)
		p = tern_ffma(p, r, tern_exp_taylor[i]);
	return tern_fmul(tern_fmul(p, r), r);
}

/*
 * e^@x as @p * 2^@k, p in [sqrt(1/2), sqrt(2)], for @x between
 * F32_EXP_MIN and F32_EXP_MAX: x = k ln2 + r, |r| <= ln2 / 2.
 */
static u32 tern_exp_split(u32 x, s32 *k)
{
	u32 kf = tern_frint(tern_fmul(x, F32_LOG2E)), r;

	r = tern_ffma(tern_fneg(kf), F32_LN2_HI, x);
	r = tern_ffma(tern_fneg(kf), F32_LN2_LO, r);
	*k = (s32)tern_f32_to_int(kf, -160, 160);
	return tern_fadd(TERN_F32_ONE, tern_fadd(r, tern_exp_tail(r)));
}

static u32 tern_exp(u32 x)
{
	s32 k;
	u32 p;

	if (tern_fisnan(x))
		return TERN_F32_QNAN;
	if (tern_flt(F32_EXP_MAX, x))
		return F32_INF;
	if (tern_flt(x, F32_EXP_MIN))
		return 0;
	p = tern_exp_split(x, &k);
	return tern_scale(p, k);
}

/* e^x - 1, accurate near 0 too. */
static u32 tern_expm1(u32 x)
{
	if ((x & 0x7fffffffu) <= F32_EXPM1_SMALL)
		return tern_fadd(x, tern_exp_tail(x));
	return tern_fsub(tern_exp(x), TERN_F32_ONE);
}

static u32 tern_log(u32 x)
{
	u32 m, f, s, z, t, e, series;
	s32 exp = 0;

	if (tern_fisnan(x) || (x >> 31 && (x & 0x7fffffffu)))
		return TERN_F32_QNAN;
	if (!(x & 0x7fffffffu))
		return 0x80000000u | F32_INF;	/* log(0) = -inf */
	if (x == F32_INF)
		return F32_INF;
	if (x < 0x00800000u) {	/* subnormal: scaling by 2^23 is exact */
		x = tern_fmul(x, F32_TWO_POW_23);
		exp = -23;
	}
	exp += (s32)(x >> 23) - 127;
	m = (x & 0x007fffffu) | (127u << 23);	/* in [1, 2) */
	if (tern_flt(F32_SQRT2, m)) {
		m -= 1u << 23;		/* halved, exactly */
		exp++;
	}
	/* log(1 + f) = 2 atanh(s), s = f / (2 + f) */
	f = tern_fsub(m, TERN_F32_ONE);
	s = tern_fdiv(f, tern_fadd(F32_TWO, f));
	z = tern_fmul(s, s);
	series = tern_log_series[0];
	for (u32 i = 1; i < ARRAY_SIZE(tern_log_series); i++)
		series = tern_ffma(series, z, tern_log_series[i]);
	t = tern_fadd(s, s);
	t = tern_ffma(tern_fmul(t, z), series, t);
	e = tern_s32_to_f32(exp);
	return tern_ffma(e, F32_LN2_HI, tern_ffma(e, F32_LN2_LO, t));
}

/*
 * @num / (1 + e^-t), the logistic function scaled. Far below 0 the sum is
 * e^-t alone (and e^-t overflows before the quotient underflows), so it
 * is @num * e^t there, scaled by 2^k last so that a subnormal e^t loses
 * nothing before the product.
 */
static u32 tern_logistic(u32 num, u32 t)
{
	s32 k;
	u32 p;

	if (tern_fisnan(t) || !tern_flt(t, F32_LOGISTIC_LOW))
		return tern_fdiv(num, tern_fadd(TERN_F32_ONE,
						tern_exp(tern_fneg(t))));
	if (tern_flt(t, F32_EXP_MIN))
		return tern_fmul(num, 0);
	p = tern_exp_split(t, &k);
	return tern_scale(tern_fmul(num, p), k);
}

static u32 tern_tanh(u32 x)
{
	u32 a = x & 0x7fffffffu, em1, t;

	if (tern_fisnan(x))
		return TERN_F32_QNAN;
	if (a < F32_TANH_TINY)
		return x;
	if (!tern_flt(a, F32_TANH_BIG))
		return (x & 0x80000000u) | TERN_F32_ONE;
	/* tanh|x| = (e^2|x| - 1) / (e^2|x| + 1), with no cancellation */
	em1 = tern_expm1(tern_fadd(a, a));
	t = tern_fdiv(em1, tern_fadd(em1, F32_TWO));
	return (x & 0x80000000u) | t;
}

/*
 * x (1 + tanh(y)) / 2 with y = sqrt(2/pi) (x + 0.044715 x^3), written as
 * x / (1 + e^-2y), which is the same and never cancels.
 */
static u32 tern_gelu_tanh(u32 x)
{
	u32 inner = tern_ffma(tern_fmul(F32_GELU_C, x), x, TERN_F32_ONE);
	u32 y = tern_fmul(F32_SQRT_2_PI, tern_fmul(x, inner));

	return tern_logistic(x, tern_fadd(y, y));
}

bool tern_activation_known(u32 function)
{
	return function <= DRM_TERN_ACT_SQUARE;
}

u32 tern_activate(u32 function, u32 x)
{
	switch (function) {
	case DRM_TERN_ACT_RELU:
		if (tern_fisnan(x))
			return TERN_F32_QNAN;
		return tern_flt(0, x) ? x : 0;
	case DRM_TERN_ACT_GELU_TANH:
		return tern_gelu_tanh(x);
	case DRM_TERN_ACT_SILU:
		/* x / (1 + e^-x): one rounding fewer than x * sigmoid(x) */
		return tern_logistic(x, x);
	case DRM_TERN_ACT_SIGMOID:
		return tern_logistic(TERN_F32_ONE, x);
	case DRM_TERN_ACT_TANH:
		return tern_tanh(x);
	case DRM_TERN_ACT_EXP:
		return tern_exp(x);
	case DRM_TERN_ACT_LOG:
		return tern_log(x);
	case DRM_TERN_ACT_RSQRT:
		return tern_fdiv(TERN_F32_ONE, tern_fsqrt(x));
	case DRM_TERN_ACT_SQUARE:
		return tern_fmul(x, x);
	default:	/* IDENTITY */
		return tern_fisnan(x) ? TERN_F32_QNAN : x;
	}
}
