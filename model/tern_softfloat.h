/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * IEEE 754 arithmetic on bit patterns with integers only: tern.ko may not
 * use the FPU where the model runs, and the simulator must give the very
 * same bits. Round to nearest, ties to even; subnormals are kept (no
 * flush to zero). Every NaN result is the canonical quiet NaN.
 */
#ifndef TERN_SOFTFLOAT_H
#define TERN_SOFTFLOAT_H

#include "tern_model_port.h"

#define TERN_F32_QNAN	0x7fc00000u
#define TERN_F16_QNAN	0x7e00u
#define TERN_BF16_QNAN	0x7fc0u
#define TERN_E4M3_QNAN	0x7fu
#define TERN_E5M2_QNAN	0x7eu

u32 tern_f32_add(u32 a, u32 b);
u32 tern_f32_mul(u32 a, u32 b);
/* @a * @b + @c with one rounding (IEEE 754 fusedMultiplyAdd). */
u32 tern_f32_fma(u32 a, u32 b, u32 c);
/* The square root, correctly rounded; NaN below -0. */
u32 tern_f32_sqrt(u32 a);
/* @a rounded to an integral value, ties to even (roundToIntegralTiesToEven). */
u32 tern_f32_rint(u32 a);
/*
 * @a rounded to the nearest integer, ties to even, and clamped to
 * [@lo, @hi]; NaN gives 0.
 */
s64 tern_f32_to_int(u32 a, s64 lo, s64 hi);
/* @x rounded to nearest even. */
u32 tern_s32_to_f32(s32 x);
/*
 * @a / @b: a finite non-zero value over zero is an infinity of the
 * quotient's sign, zero over zero and infinity over infinity are NaN.
 */
u32 tern_f32_div(u32 a, u32 b);
/* @x rounded to nearest even (exact up to 2^24). */
u32 tern_u32_to_f32(u32 x);
/*
 * NaN if either operand is NaN; -0 is below +0, so min(-0, +0) is -0 and
 * max(-0, +0) is +0 whatever the operand order (IEEE 754-2019 minimum and
 * maximum).
 */
u32 tern_f32_min(u32 a, u32 b);
u32 tern_f32_max(u32 a, u32 b);

/* Exact widening; a NaN stays a NaN. */
u32 tern_f16_to_f32(u16 h);
u32 tern_bf16_to_f32(u16 h);
/* One rounding to nearest even; too large gives infinity. */
u16 tern_f32_to_f16(u32 f);
u16 tern_f32_to_bf16(u32 f);

/*
 * The OCP 8-bit floating point formats (OFP8): E4M3 (bias 7, no
 * infinities, largest 448, NaN S.1111.111) and E5M2 (bias 15, IEEE-like
 * with infinities, largest 57344). Widening is exact; a NaN widens to the
 * canonical quiet NaN. Narrowing rounds once to nearest even and
 * saturates, the OFP8 specification's saturation mode: a magnitude past
 * the largest finite value, infinities included, gives the largest finite
 * value of its sign; a NaN gives the format's canonical NaN above.
 */
u32 tern_e4m3_to_f32(u8 h);
u32 tern_e5m2_to_f32(u8 h);
u8 tern_f32_to_e4m3(u32 f);
u8 tern_f32_to_e5m2(u32 f);

#endif /* TERN_SOFTFLOAT_H */
