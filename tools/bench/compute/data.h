/* SPDX-License-Identifier: MIT */
/*
 * The input types of tern-bench's compute tests, and inputs in them whose
 * float32 values are known exactly: the device reads every one of these
 * types into float32 without rounding (Documentation/compute.rst), so a
 * reference computed from the values sees what the engines see.
 */
#ifndef TOOLS_BENCH_COMPUTE_DATA_H
#define TOOLS_BENCH_COMPUTE_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "tern.h"

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

/* "bf16, fp16, ... or fp32": every name, for help and messages. */
const char *compute_type_names(void);

/*
 * Writes @count random numbers of @type: their encoding to @bits (the
 * type's bytes each, as the device reads them) and their values to
 * @values. Each is normal, of either sign, with magnitude in [2^-6, 2^8)
 * and every mantissa bit random: products of 8-bit floats are exact in
 * float32, but their exponents differ enough that sums of them round.
 */
void compute_fill(const struct compute_type *type, void *bits, float *values,
		  size_t count, uint64_t seed);

#endif /* TOOLS_BENCH_COMPUTE_DATA_H */
