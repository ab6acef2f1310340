// SPDX-License-Identifier: MIT
/*
 * Collective verification data. Every input is a whole number small enough
 * that sums, products, minima and maxima over up to 64 ranks are exact in
 * int8 and in bfloat16 (whole numbers up to 256): the result does not
 * depend on the order the algorithm reduces in, so it can be compared
 * exactly.
 */
#include <string.h>

#include "coll_data.h"

static int coll_dtype_signed(tern_dtype_t dtype)
{
	return dtype != TERN_UINT32 && dtype != TERN_UINT8 &&
	       dtype != TERN_UINT64;
}

double coll_data_input(const struct coll_data *d, int rank, uint64_t index)
{
	uint64_t r = (uint64_t)rank, n = (uint64_t)d->nranks;
	uint64_t levels;

	if (!d->reduces)	/* distinct per rank and position, up to 100 */
		return (double)((r * 31 + index) % 101);
	switch (d->op) {
	case TERN_PROD:
		/* at most one rank contributes a 2 to any element */
		return (index + r) % (n + 1) == 0 ? 2.0 : 1.0;
	case TERN_MIN:
	case TERN_MAX:
		return (double)((r * 7 + index * 3) % 11) -
			(coll_dtype_signed(d->dtype) ? 5.0 : 0.0);
	case TERN_AVG:
		/* the same on every rank, so the average is exact in any type */
		levels = 1 + 127 / n < 4 ? 1 + 127 / n : 4;
		return (double)((index * 3) % levels);
	default:
		/* n ranks of values below @levels sum to at most 127 */
		levels = 1 + 127 / n;
		if (levels > 4)
			levels = 4;
		if (levels < 2)
			levels = 2;
		return (double)((r * 7 + index * 3) % levels);
	}
}

double coll_data_reduced(const struct coll_data *d, uint64_t index)
{
	double acc = coll_data_input(d, 0, index);

	for (int r = 1; r < d->nranks; r++) {
		double v = coll_data_input(d, r, index);

		switch (d->op) {
		case TERN_PROD:
			acc *= v;
			break;
		case TERN_MIN:
			acc = v < acc ? v : acc;
			break;
		case TERN_MAX:
			acc = v > acc ? v : acc;
			break;
		case TERN_AVG:
			break;	/* every rank's is the same: the average */
		default:
			acc += v;
			break;
		}
	}
	return acc;
}

static uint32_t coll_float_bits(float f)
{
	uint32_t bits;

	memcpy(&bits, &f, sizeof(bits));
	return bits;
}

static float coll_bits_float(uint32_t bits)
{
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

/* Exact for the whole numbers used here (|v| <= 2048); no rounding needed. */
static uint16_t coll_half_from_float(float f)
{
	uint32_t bits = coll_float_bits(f);
	uint16_t sign = (uint16_t)((bits >> 16) & 0x8000);
	int exp = (int)((bits >> 23) & 0xff) - 127 + 15;

	if ((bits & 0x7fffffff) == 0)
		return sign;
	return (uint16_t)(sign | (uint16_t)(exp << 10) |
			  (uint16_t)((bits >> 13) & 0x3ff));
}

static float coll_half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16;
	uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;

	if (exp == 0x1f)	/* inf or NaN */
		return coll_bits_float(sign | 0x7f800000 | (mant << 13));
	if (exp == 0) {		/* zero or subnormal: mant * 2^-24 */
		float v = (float)mant / 16777216.0f;

		return sign ? -v : v;
	}
	return coll_bits_float(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

static void coll_store(const struct coll_data *d, void *buf, uint64_t i,
		       double v)
{
	switch (d->dtype) {
	case TERN_FLOAT32:
		((float *)buf)[i] = (float)v;
		break;
	case TERN_FLOAT16:
		((uint16_t *)buf)[i] = coll_half_from_float((float)v);
		break;
	case TERN_BFLOAT16:
		((uint16_t *)buf)[i] =
			(uint16_t)(coll_float_bits((float)v) >> 16);
		break;
	case TERN_INT32:
		((int32_t *)buf)[i] = (int32_t)v;
		break;
	case TERN_UINT32:
		((uint32_t *)buf)[i] = (uint32_t)v;
		break;
	case TERN_INT8:
		((int8_t *)buf)[i] = (int8_t)v;
		break;
	case TERN_UINT8:
		((uint8_t *)buf)[i] = (uint8_t)v;
		break;
	case TERN_INT64:
		((int64_t *)buf)[i] = (int64_t)v;
		break;
	default:
		((uint64_t *)buf)[i] = (uint64_t)v;
		break;
	}
}

double coll_data_load(const struct coll_data *d, const void *buf,
		      uint64_t i)
{
	switch (d->dtype) {
	case TERN_FLOAT32:
		return ((const float *)buf)[i];
	case TERN_FLOAT16:
		return coll_half_to_float(((const uint16_t *)buf)[i]);
	case TERN_BFLOAT16:
		return coll_bits_float((uint32_t)((const uint16_t *)buf)[i]
				       << 16);
	case TERN_INT32:
		return ((const int32_t *)buf)[i];
	case TERN_UINT32:
		return ((const uint32_t *)buf)[i];
	case TERN_INT8:
		return ((const int8_t *)buf)[i];
	case TERN_UINT8:
		return ((const uint8_t *)buf)[i];
	case TERN_INT64:
		return (double)((const int64_t *)buf)[i];
	default:
		return (double)((const uint64_t *)buf)[i];
	}
}

void coll_data_fill(const struct coll_data *d, void *buf, int rank,
		    uint64_t first, uint64_t count)
{
	for (uint64_t i = 0; i < count; i++)
		coll_store(d, buf, i, coll_data_input(d, rank, first + i));
}
