/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The element arithmetic of the REDUCE packet, on CPU pointers the model
 * has already translated and checked.
 */
#ifndef TERN_REDUCE_H
#define TERN_REDUCE_H

#include "tern_model_port.h"
#include "../../uapi/drm/tern_accel.h"

/*
 * The element types and operations this model knows, and the types
 * REDUCE takes (FLOAT32 to UINT64); the uapi has no count of its own,
 * whose meaning would change as the header grows.
 */
#define TERN_MODEL_DTYPE_COUNT	(DRM_TERN_DTYPE_FLOAT8_E5M2 + 1)
#define TERN_MODEL_REDUCE_DTYPE_COUNT	(DRM_TERN_DTYPE_UINT64 + 1)
#define TERN_MODEL_REDOP_COUNT	(DRM_TERN_REDOP_MAX + 1)

/* Bytes of one element of @dtype (enum drm_tern_dtype); 0 if unknown. */
u32 tern_model_dtype_size(u32 dtype);

/*
 * @dtype's name as frameworks spell it ("float32", "bfloat16"); NULL if
 * unknown.
 */
const char *tern_model_dtype_name(u32 dtype);

/* The most work one element of a REDUCE costs (tern_model_reduce_cost()). */
#define TERN_MODEL_MAX_COST	1024u

/*
 * The work one element of a REDUCE of @dtype with @op costs, @divide for
 * DRM_TERN_REDUCE_DIVIDE, in units of TERN_MODEL_BUDGET (a byte of COPY):
 * about what it takes on a CPU without an FPU, as tern.ko computes it,
 * measured against a COPY and rounded up. Soft-float elements cost the
 * most, a divide more.
 */
u32 tern_model_reduce_cost(u32 dtype, u32 op, bool divide);

/*
 * dst[i] = src0[i] @op src1[i] for @count elements of @dtype (enum
 * drm_tern_dtype, enum drm_tern_redop, both known). @dst may be @src0 or
 * @src1 itself but may not otherwise overlap them. Elements are in the
 * host's byte order and need not be aligned.
 */
void tern_model_reduce(void *dst, const void *src0, const void *src1,
		       u64 count, u32 dtype, u32 op);

/*
 * dst[i] = (src0[i] + src1[i]) / @divisor (>= 1), as REDUCE with
 * DRM_TERN_REDUCE_DIVIDE: floating point summed in float32, divided by
 * @divisor in float32 and rounded once more to @dtype; integers summed
 * with wrapping in @dtype, then divided truncating toward zero. The
 * rest as for tern_model_reduce().
 */
void tern_model_reduce_divide(void *dst, const void *src0, const void *src1,
			      u64 count, u32 dtype, u32 divisor);

#endif /* TERN_REDUCE_H */
