// SPDX-License-Identifier: MIT
/*
 * Element types: those of collectives and REDUCE, and the 8-bit floats of
 * the compute engines.
 */
#include "internal.h"
#include "tern_accel.h"
#include "tern_reduce.h"

/* tern.h's enums are the packet format's, so they pass through unchanged. */
_Static_assert((int)TERN_FLOAT32 == DRM_TERN_DTYPE_FLOAT32 &&
	       (int)TERN_FLOAT16 == DRM_TERN_DTYPE_FLOAT16 &&
	       (int)TERN_BFLOAT16 == DRM_TERN_DTYPE_BFLOAT16 &&
	       (int)TERN_INT32 == DRM_TERN_DTYPE_INT32 &&
	       (int)TERN_UINT32 == DRM_TERN_DTYPE_UINT32 &&
	       (int)TERN_INT8 == DRM_TERN_DTYPE_INT8 &&
	       (int)TERN_UINT8 == DRM_TERN_DTYPE_UINT8 &&
	       (int)TERN_INT64 == DRM_TERN_DTYPE_INT64 &&
	       (int)TERN_UINT64 == DRM_TERN_DTYPE_UINT64 &&
	       (int)TERN_FLOAT8_E4M3 == DRM_TERN_DTYPE_FLOAT8_E4M3 &&
	       (int)TERN_FLOAT8_E5M2 == DRM_TERN_DTYPE_FLOAT8_E5M2 &&
	       (int)TERN_DTYPE_COUNT == TERN_MODEL_DTYPE_COUNT,
	       "tern_dtype_t follows enum drm_tern_dtype");
_Static_assert((int)TERN_SUM == DRM_TERN_REDOP_SUM &&
	       (int)TERN_PROD == DRM_TERN_REDOP_PROD &&
	       (int)TERN_MIN == DRM_TERN_REDOP_MIN &&
	       (int)TERN_MAX == DRM_TERN_REDOP_MAX &&
	       (int)TERN_AVG == TERN_MODEL_REDOP_COUNT,
	       "tern_redop_t follows enum drm_tern_redop; TERN_AVG is a dividing SUM");

/* The model's table of element types is the one (tern_reduce.c). */
size_t tern_dtype_bytes(tern_dtype_t dtype)
{
	if ((unsigned int)dtype >= TERN_DTYPE_COUNT)
		return 0;
	return tern_model_dtype_size((u32)dtype);
}

bool tern_dtype_reducible(tern_dtype_t dtype)
{
	return (unsigned int)dtype < TERN_MODEL_REDUCE_DTYPE_COUNT;
}

TERN_API const char *tern_dtype_name(tern_dtype_t dtype)
{
	const char *name = (unsigned int)dtype < TERN_DTYPE_COUNT ?
			   tern_model_dtype_name((u32)dtype) : NULL;

	return name ? name : "unknown";
}

TERN_API tern_status_t tern_dtype_size(tern_dtype_t dtype, size_t *bytes)
{
	size_t n = tern_dtype_bytes(dtype);

	if (!bytes || !n)
		return TERN_ERROR_INVALID_ARGUMENT;
	*bytes = n;
	return TERN_SUCCESS;
}
