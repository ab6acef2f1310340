// SPDX-License-Identifier: MIT
/*
 * Input types and random inputs for the compute tests. A normal number of
 * a binary format is sign, biased exponent and mantissa: (1 + mantissa /
 * 2^m) times 2^(exponent - bias). For exponents from bias - 6 to bias + 7
 * every format here has it normal (E4M3 is the narrowest), and float32
 * holds it exactly.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "data.h"
#include "pattern.h"

const struct compute_type compute_types[] = {
	{ "bf16", TERN_BFLOAT16, 8, 7, 127, 2 },
	{ "fp16", TERN_FLOAT16, 5, 10, 15, 2 },
	{ "fp8", TERN_FLOAT8_E4M3, 4, 3, 7, 1 },	/* OCP E4M3 */
	{ "fp8e5m2", TERN_FLOAT8_E5M2, 5, 2, 15, 1 },
	{ "fp32", TERN_FLOAT32, 8, 23, 127, 4 },
};

const size_t compute_type_count =
	sizeof(compute_types) / sizeof(compute_types[0]);

const struct compute_type *compute_type_find(const char *name)
{
	for (size_t i = 0; i < compute_type_count; i++)
		if (strcmp(compute_types[i].name, name) == 0)
			return &compute_types[i];
	return NULL;
}

const char *compute_type_names(void)
{
	static char names[128];
	size_t used = 0;

	for (size_t i = 0; i < compute_type_count && used < sizeof(names); i++) {
		int n = snprintf(names + used, sizeof(names) - used, "%s%s",
				 i == 0 ? "" : i + 1 < compute_type_count ?
				 ", " : " or ", compute_types[i].name);

		used += n > 0 ? (size_t)n : 0;
	}
	return names;
}

void compute_fill(const struct compute_type *type, void *bits, float *values,
		  size_t count, uint64_t seed)
{
	unsigned int m = type->mantissa_bits, e = type->exponent_bits;

	for (size_t i = 0; i < count; i++) {
		uint64_t word = pattern_word(seed, i);
		uint32_t sign = word & 1;
		uint32_t exponent = type->bias - 6 + (uint32_t)(word >> 1) % 14;
		uint32_t mantissa = (uint32_t)(word >> 32) & ((1u << m) - 1);
		uint32_t code = sign << (e + m) | exponent << m | mantissa;
		float value = ldexpf(1.0f + ldexpf((float)mantissa, -(int)m),
				     (int)exponent - (int)type->bias);

		values[i] = sign ? -value : value;
		switch (type->bytes) {
		case 1:
			((uint8_t *)bits)[i] = (uint8_t)code;
			break;
		case 2:
			((uint16_t *)bits)[i] = (uint16_t)code;
			break;
		default:
			((uint32_t *)bits)[i] = code;
			break;
		}
	}
}
