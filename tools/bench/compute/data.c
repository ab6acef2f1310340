// SPDX-License-Identifier: MIT
/*
 * Input types, functions and random inputs for the compute tests. A
 * normal number of a binary format is sign, biased exponent and mantissa:
 * (1 + mantissa / 2^m) times 2^(exponent - bias). For exponents from
 * bias - 6 to bias + 7 every format here has it normal (E4M3 is the
 * narrowest), and float32 holds it exactly.
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

const struct compute_function compute_functions[] = {
	{ "identity", TERN_ACT_IDENTITY, false },
	{ "relu", TERN_ACT_RELU, false },
	{ "gelu", TERN_ACT_GELU_TANH, false },
	{ "silu", TERN_ACT_SILU, false },
	{ "sigmoid", TERN_ACT_SIGMOID, false },
	{ "tanh", TERN_ACT_TANH, false },
	{ "exp", TERN_ACT_EXP, false },
	{ "log", TERN_ACT_LOG, true },
	{ "rsqrt", TERN_ACT_RSQRT, true },
	{ "square", TERN_ACT_SQUARE, false },
};

const size_t compute_function_count =
	sizeof(compute_functions) / sizeof(compute_functions[0]);

const struct compute_type *compute_type_find(const char *name)
{
	for (size_t i = 0; i < compute_type_count; i++)
		if (strcmp(compute_types[i].name, name) == 0)
			return &compute_types[i];
	return NULL;
}

const struct compute_function *compute_function_find(const char *name)
{
	for (size_t i = 0; i < compute_function_count; i++)
		if (strcmp(compute_functions[i].name, name) == 0)
			return &compute_functions[i];
	return NULL;
}

/* Appends @name, the @index-th (from 0) of @total, to the list in @out. */
static void compute_append(char *out, size_t len, size_t *used,
			   const char *name, size_t index, size_t total)
{
	int n;

	if (*used >= len)
		return;
	n = snprintf(out + *used, len - *used, "%s%s", index == 0 ? "" :
		     index + 1 < total ? ", " : " or ", name);
	*used += n > 0 ? (size_t)n : 0;
}

const char *compute_type_names(bool fp8)
{
	static char names[128];
	size_t used = 0, total = 0, index = 0;

	for (size_t i = 0; i < compute_type_count; i++)
		total += fp8 || compute_types[i].bytes > 1;
	names[0] = '\0';
	for (size_t i = 0; i < compute_type_count; i++)
		if (fp8 || compute_types[i].bytes > 1)
			compute_append(names, sizeof(names), &used,
				       compute_types[i].name, index++, total);
	return names;
}

const char *compute_function_names(void)
{
	static char names[160];
	size_t used = 0;

	names[0] = '\0';
	for (size_t i = 0; i < compute_function_count; i++)
		compute_append(names, sizeof(names), &used,
			       compute_functions[i].name, i,
			       compute_function_count);
	return names;
}

void compute_fill(const struct compute_type *type, void *bits, float *values,
		  size_t count, uint64_t seed, int top, bool positive)
{
	unsigned int m = type->mantissa_bits, e = type->exponent_bits;
	uint32_t span = (uint32_t)(top + 7);	/* exponents -6 to top */

	for (size_t i = 0; i < count; i++) {
		uint64_t word = pattern_word(seed, i);
		uint32_t sign = positive ? 0 : word & 1;
		uint32_t exponent = type->bias - 6 + (uint32_t)(word >> 1) % span;
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
