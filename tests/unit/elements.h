/* SPDX-License-Identifier: MIT */
/*
 * Inputs of the reductions' tests and the answers libtern must give,
 * every dtype and op: small integers, so that every result is exact
 * whatever order the ranks reduce in, and an average is the sum divided
 * once as the device divides. Shared by test_collectives (one process)
 * and test_hosts (a process a rank, across hosts).
 */
#ifndef TERN_TEST_ELEMENTS_H
#define TERN_TEST_ELEMENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "tern.h"

static inline size_t el_bytes(tern_dtype_t t)
{
	size_t bytes = 0;

	tern_dtype_size(t, &bytes);
	return bytes;
}

static inline bool el_signed(tern_dtype_t t)
{
	return t != TERN_UINT32 && t != TERN_UINT8 && t != TERN_UINT64;
}

/* IEEE binary16 of a small integer (exact). */
static inline uint16_t el_half_of(int64_t v)
{
	uint16_t sign = v < 0 ? 0x8000 : 0;
	uint64_t a = (uint64_t)(v < 0 ? -v : v);
	int e = 0;

	if (a == 0)
		return 0;
	while ((a >> (e + 1)) != 0)
		e++;
	return (uint16_t)(sign | (uint16_t)((e + 15) << 10) |
			  (uint16_t)((a << (10 - e)) & 0x3ff));
}

/* Element @i of @base, of type @t, set to the small integer @v. */
static inline void el_encode(tern_dtype_t t, int64_t v, void *base, size_t i)
{
	float f = (float)v;
	uint32_t bits;

	memcpy(&bits, &f, sizeof(bits));
	switch (t) {
	case TERN_FLOAT32:
		((float *)base)[i] = f;
		break;
	case TERN_FLOAT16:
		((uint16_t *)base)[i] = el_half_of(v);
		break;
	case TERN_BFLOAT16:
		((uint16_t *)base)[i] = (uint16_t)(bits >> 16);
		break;
	case TERN_INT32:
	case TERN_UINT32:
		((uint32_t *)base)[i] = (uint32_t)v;
		break;
	case TERN_INT8:
	case TERN_UINT8:
		((uint8_t *)base)[i] = (uint8_t)v;
		break;
	default:
		((uint64_t *)base)[i] = (uint64_t)v;
		break;
	}
}

/* Input of rank @r at element @i: small, so every result is exact. */
static inline int64_t el_input(tern_dtype_t t, tern_redop_t op, int r,
			       size_t i)
{
	int64_t v = (int64_t)(((size_t)r * 7 + i * 3) % 5);

	if (op == TERN_PROD)
		return 1 + (((size_t)r + i) % 8 == 0);
	return el_signed(t) ? v - 2 : v;
}

static inline int64_t el_fold(tern_redop_t op, int64_t a, int64_t b)
{
	switch (op) {
	case TERN_SUM:
	case TERN_AVG:		/* sums; divided at the end */
		return a + b;
	case TERN_PROD:
		return a * b;
	case TERN_MIN:
		return a < b ? a : b;
	default:
		return a > b ? a : b;
	}
}

/* The reduction over @nranks ranks of input element @i (an average's sum). */
static inline int64_t el_reduced(tern_dtype_t t, tern_redop_t op, int nranks,
				 size_t i)
{
	int64_t v = el_input(t, op, 0, i);

	for (int r = 1; r < nranks; r++)
		v = el_fold(op, v, el_input(t, op, r, i));
	return v;
}

/* float32 to binary16 or bfloat16, rounding to nearest even (normals). */
static inline uint16_t el_f32_to_16(float f, bool bf16)
{
	uint32_t x, sign, man, rem, h;
	int32_t exp;

	memcpy(&x, &f, sizeof(x));
	if (bf16)
		return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
	sign = (x >> 16) & 0x8000;
	if ((x & 0x7fffffff) == 0)
		return (uint16_t)sign;
	exp = (int32_t)((x >> 23) & 0xff) - 127 + 15;
	man = x & 0x7fffff;
	rem = man & 0x1fff;
	h = sign | ((uint32_t)exp << 10) | (man >> 13);
	if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
		h++;
	return (uint16_t)h;
}

/*
 * The bytes element @i's result must be (into @buf, el_bytes(@t)): the
 * reduction of @nranks ranks' inputs; an average the sum divided by the
 * rank count as the device divides, in float32 then rounded to the type,
 * or truncating toward zero.
 */
static inline void el_want(tern_dtype_t t, tern_redop_t op, int nranks,
			   size_t i, uint8_t buf[8])
{
	const int64_t v = el_reduced(t, op, nranks, i);
	const float f = (float)v / (float)nranks;
	uint16_t h;

	if (op != TERN_AVG) {
		el_encode(t, v, buf, 0);
		return;
	}
	switch (t) {
	case TERN_FLOAT32:
		memcpy(buf, &f, 4);
		break;
	case TERN_FLOAT16:
	case TERN_BFLOAT16:
		h = el_f32_to_16(f, t == TERN_BFLOAT16);
		memcpy(buf, &h, 2);
		break;
	default:
		el_encode(t, v / nranks, buf, 0);
		break;
	}
}

#endif
