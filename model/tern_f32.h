/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The float32 arithmetic of the compute packets, on bit patterns: IEEE
 * 754 binary32, rounding to nearest even, subnormals kept, every NaN the
 * canonical quiet NaN.
 *
 * tern.ko computes it with tern_softfloat's integers, as the kernel keeps
 * the FPU out of its own code; userspace with the FPU, whose correctly
 * rounded add, multiply, fused multiply-add, divide and square root give
 * the very same bits (test_softfloat holds the integers to it). Only the
 * NaN a result carries differs, and tern_fpu_bits() makes it canonical.
 * The compiler may not fuse or reorder these: the model is built with
 * -ffp-contract=off, and each operation is one rounding. Userspace built
 * with TERN_MODEL_SOFT_FLOAT computes as tern.ko does, which is how the
 * two are compared (test_compute --digest).
 */
#ifndef TERN_F32_H
#define TERN_F32_H

#include "tern_softfloat.h"

#define TERN_F32_ONE		0x3f800000u
#define TERN_F32_NEG_ZERO	0x80000000u

#if defined(__KERNEL__) || defined(TERN_MODEL_SOFT_FLOAT)
#define tern_fadd(a, b)		tern_f32_add((a), (b))
#define tern_fmul(a, b)		tern_f32_mul((a), (b))
#define tern_ffma(a, b, c)	tern_f32_fma((a), (b), (c))
#define tern_fdiv(a, b)		tern_f32_div((a), (b))
#define tern_fsqrt(a)		tern_f32_sqrt(a)
#define tern_frint(a)		tern_f32_rint(a)
#else
#include <math.h>

static inline float tern_fpu_value(u32 a)
{
	float f;

	memcpy(&f, &a, sizeof(f));
	return f;
}

static inline u32 tern_fpu_bits(float f)
{
	u32 a;

	if (isnan(f))
		return TERN_F32_QNAN;
	memcpy(&a, &f, sizeof(a));
	return a;
}

static inline u32 tern_fadd(u32 a, u32 b)
{
	return tern_fpu_bits(tern_fpu_value(a) + tern_fpu_value(b));
}

static inline u32 tern_fmul(u32 a, u32 b)
{
	return tern_fpu_bits(tern_fpu_value(a) * tern_fpu_value(b));
}

static inline u32 tern_ffma(u32 a, u32 b, u32 c)
{
	return tern_fpu_bits(fmaf(tern_fpu_value(a), tern_fpu_value(b),
				  tern_fpu_value(c)));
}

static inline u32 tern_fdiv(u32 a, u32 b)
{
	return tern_fpu_bits(tern_fpu_value(a) / tern_fpu_value(b));
}

static inline u32 tern_fsqrt(u32 a)
{
	return tern_fpu_bits(sqrtf(tern_fpu_value(a)));
}

/* nearbyintf rounds ties to even in the default rounding mode */
static inline u32 tern_frint(u32 a)
{
	return tern_fpu_bits(nearbyintf(tern_fpu_value(a)));
}
#endif

static inline u32 tern_fneg(u32 a)
{
	return a ^ 0x80000000u;
}

static inline u32 tern_fsub(u32 a, u32 b)
{
	return tern_fadd(a, tern_fneg(b));
}

static inline bool tern_fisnan(u32 a)
{
	return (a & 0x7fffffffu) > 0x7f800000u;
}

/* @a < @b for two values that are not NaN; -0 is not below +0. */
static inline bool tern_flt(u32 a, u32 b)
{
	s32 ka = a >> 31 ? -(s32)(a & 0x7fffffffu) : (s32)a;
	s32 kb = b >> 31 ? -(s32)(b & 0x7fffffffu) : (s32)b;

	return ka < kb;
}

#endif /* TERN_F32_H */
