/* SPDX-License-Identifier: MIT */
/*
 * The input types and activation functions of tern-bench's compute tests
 * by the names their options give them, and inputs whose float32 values
 * are known exactly: the device reads every one of these types into
 * float32 without rounding (Documentation/compute.rst), so a reference
 * computed from the values sees what the engines see.
 */
#ifndef TOOLS_BENCH_COMPUTE_DATA_H
#define TOOLS_BENCH_COMPUTE_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tern.h"
#include "tern_compute.h"

/* An input type: its name on the command line and its bit layout. */
struct compute_type {
	const char *name;
	tern_dtype_t dtype;
	unsigned int exponent_bits, mantissa_bits, bias;
	size_t bytes;
};

extern const struct compute_type compute_types[];
extern const size_t compute_type_count;

/* The type --dtype calls @name, or NULL. */
const struct compute_type *compute_type_find(const char *name);

/* "bf16, fp16, ... or fp32" (without 8-bit floats unless @fp8). */
const char *compute_type_names(bool fp8);

/* An activation function as --function names it. */
struct compute_function {
	const char *name;
	tern_activation_t function;
	bool positive;		/* defined for positive inputs only */
};

extern const struct compute_function compute_functions[];
extern const size_t compute_function_count;

const struct compute_function *compute_function_find(const char *name);

/* "identity, relu, ... or square". */
const char *compute_function_names(void);

/* The magnitudes of compute_fill()'s numbers: [2^-6, 2^(top + 1)). */
#define COMPUTE_GEMM_TOP	7	/* products span 2^28: sums round */
#define COMPUTE_ROWS_TOP	2	/* below 8: exp stays finite */

/*
 * Writes @count random numbers of @type: their encoding to @bits (the
 * type's bytes each, as the device reads them) and their values to
 * @values. Each is normal, of either sign (only positive with
 * @positive), with magnitude from 2^-6 to 2^(@top + 1) and every mantissa
 * bit random: with COMPUTE_GEMM_TOP, products of 8-bit floats are exact
 * in float32 but differ enough in exponent that sums of them round.
 */
void compute_fill(const struct compute_type *type, void *bits, float *values,
		  size_t count, uint64_t seed, int top, bool positive);

#endif /* TOOLS_BENCH_COMPUTE_DATA_H */
