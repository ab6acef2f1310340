// SPDX-License-Identifier: MIT
/*
 * The checks every kernel makes of its matrices and vectors, once.
 */
#include "compute.h"

bool tern_matrix_ok(const tern_matrix_t *x, const struct tern_device *dev,
		    const char *kernel, const char *name, bool narrow)
{
	struct tern_buffer *buf = x->ptr.buffer;
	size_t es = tern_dtype_bytes(x->dtype);
	bool type_ok = x->dtype == TERN_FLOAT32 || x->dtype == TERN_BFLOAT16 ||
		       x->dtype == TERN_FLOAT16 ||
		       (narrow && (x->dtype == TERN_FLOAT8_E4M3 ||
				   x->dtype == TERN_FLOAT8_E5M2));

	if (!tern_handle_valid(buf, TERN_HANDLE_BUFFER) || buf->device != dev) {
		tern_set_last_error("%s: %s's buffer is not one of the stream's device",
				    kernel, name);
		return false;
	}
	if (!type_ok) {
		tern_set_last_error("%s: %s is %s; it takes float32, bfloat16, float16%s",
				    kernel, name, tern_dtype_name(x->dtype),
				    narrow ? " or an 8-bit float" : "");
		return false;
	}
	if (x->ptr.offset % es) {
		tern_set_last_error("%s: %s starts at byte %zu, no place for a %s: a multiple of %zu is",
				    kernel, name, x->ptr.offset,
				    tern_dtype_name(x->dtype), es);
		return false;
	}
	if (!x->rows || !x->cols || x->ld < x->cols) {
		tern_set_last_error("%s: %s is %u x %u with rows %u elements apart: none may be 0 and rows hold their columns",
				    kernel, name, x->rows, x->cols, x->ld);
		return false;
	}
	if (x->ptr.offset > buf->bytes ||
	    ((unsigned __int128)(x->rows - 1) * x->ld + x->cols) * es >
	    buf->bytes - x->ptr.offset) {
		tern_set_last_error("%s: %s (%u x %u, rows %u apart, of %s from byte %zu) runs past its buffer's %zu bytes",
				    kernel, name, x->rows, x->cols, x->ld,
				    tern_dtype_name(x->dtype), x->ptr.offset,
				    buf->bytes);
		return false;
	}
	return true;
}

bool tern_vector_ok(tern_ptr_t v, uint32_t count,
		    const struct tern_device *dev, const char *kernel,
		    const char *name)
{
	tern_matrix_t m = tern_matrix(v, TERN_FLOAT32, 1, count);

	return tern_matrix_ok(&m, dev, kernel, name, false);
}

/* The bytes [lo, hi) @x spans in its buffer. */
static void tern_matrix_span(const tern_matrix_t *x, size_t *lo, size_t *hi)
{
	*lo = x->ptr.offset;
	*hi = x->ptr.offset + ((size_t)(x->rows - 1) * x->ld + x->cols) *
	      tern_dtype_bytes(x->dtype);
}

bool tern_matrices_overlap(const tern_matrix_t *a, const tern_matrix_t *b)
{
	size_t al, ah, bl, bh;

	if (a->ptr.buffer != b->ptr.buffer)
		return false;
	tern_matrix_span(a, &al, &ah);
	tern_matrix_span(b, &bl, &bh);
	return al < bh && bl < ah;
}

bool tern_matrices_same(const tern_matrix_t *a, const tern_matrix_t *b)
{
	return a->ptr.buffer == b->ptr.buffer &&
	       a->ptr.offset == b->ptr.offset && a->dtype == b->dtype &&
	       a->rows == b->rows && a->cols == b->cols && a->ld == b->ld;
}
