/* SPDX-License-Identifier: MIT */
/*
 * References for the model's float arithmetic, independent of its
 * integer code: the machine's own float32 and double, and a rounding to
 * the narrow formats (binary16, bfloat16, OCP E4M3 and E5M2) done with
 * the FPU's nearbyint(). Inputs come from one fixed-seed generator, so
 * every run checks the same values.
 */
#ifndef TERN_TEST_FLOAT_REF_H
#define TERN_TEST_FLOAT_REF_H

#include <stdbool.h>
#include <stdint.h>

/* xorshift64*, fixed seed. */
uint64_t rng(void);

float f32_of(uint32_t bits);
uint32_t bits_of(float f);
bool f32_bits_nan(uint32_t bits);

/* Interesting float32 patterns: zeros, subnormals, limits, NaNs, near 1. */
extern const uint32_t f32_special[];
extern const unsigned int f32_special_count;

/* A random float32 pattern; half the time near @near's exponent. */
uint32_t random_f32(uint32_t near);

/* IEEE 754-2019 minimum and maximum: NaN wins, -0 is below +0. */
float ref_min(float a, float b);
float ref_max(float a, float b);

/*
 * Fails the test unless @got is @want's bits, or the canonical quiet NaN
 * when @want is a NaN; @what, @a and @b name the case.
 */
void check_f32(const char *what, uint32_t a, uint32_t b, uint32_t got,
	       float want);

/**
 * struct ref_format - a narrow binary floating point format
 * @mant_bits: stored fraction bits
 * @exp_bits: exponent bits
 * @bias: exponent bias
 * @qnan: the NaN a narrowing gives
 * @no_inf: the all-ones exponent holds finite values; only all-ones
 *	with all-ones fraction is NaN (OCP E4M3)
 * @saturate: narrowing past the largest finite value, infinities too,
 *	gives the largest finite value (OCP saturation mode); else infinity
 */
struct ref_format {
	int mant_bits, exp_bits, bias;
	uint32_t qnan;
	bool no_inf, saturate;
};

extern const struct ref_format ref_f16, ref_bf16, ref_e4m3, ref_e5m2;

/* The value of the pattern @h, exactly. */
double ref_widen(uint32_t h, const struct ref_format *fmt);
/* @x rounded once to nearest even in @fmt. */
uint32_t ref_narrow(double x, const struct ref_format *fmt);

#endif /* TERN_TEST_FLOAT_REF_H */
