// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * REDUCE element kernels. Integers wrap (unsigned arithmetic, whose low
 * bits are those of any width), with signed MIN and MAX compared as
 * signed; a dividing SUM divides the wrapped sum, signed for signed
 * types. Floating point goes through tern_softfloat: float16 and bfloat16
 * widen exactly to float32, are computed there and are rounded once back
 * (a dividing SUM rounds the sum and the quotient in float32 first).
 */
#include "tern_reduce.h"
#include "tern_softfloat.h"
#include "../../uapi/drm/tern_accel.h"

/*
 * Every element type, once: its size and its name as frameworks (torch,
 * numpy) spell it. libtern, its tools and its Python module read both
 * from here.
 */
static const struct {
	u32 size;
	const char *name;
} tern_model_dtypes[TERN_MODEL_DTYPE_COUNT] = {
	[DRM_TERN_DTYPE_FLOAT32] = { 4, "float32" },
	[DRM_TERN_DTYPE_FLOAT16] = { 2, "float16" },
	[DRM_TERN_DTYPE_BFLOAT16] = { 2, "bfloat16" },
	[DRM_TERN_DTYPE_INT32] = { 4, "int32" },
	[DRM_TERN_DTYPE_UINT32] = { 4, "uint32" },
	[DRM_TERN_DTYPE_INT8] = { 1, "int8" },
	[DRM_TERN_DTYPE_UINT8] = { 1, "uint8" },
	[DRM_TERN_DTYPE_INT64] = { 8, "int64" },
	[DRM_TERN_DTYPE_UINT64] = { 8, "uint64" },
	[DRM_TERN_DTYPE_FLOAT8_E4M3] = { 1, "float8_e4m3fn" },
	[DRM_TERN_DTYPE_FLOAT8_E5M2] = { 1, "float8_e5m2" },
};

u32 tern_model_dtype_size(u32 dtype)
{
	if (dtype >= TERN_MODEL_DTYPE_COUNT)
		return 0;
	return tern_model_dtypes[dtype].size;
}

const char *tern_model_dtype_name(u32 dtype)
{
	if (dtype >= TERN_MODEL_DTYPE_COUNT)
		return NULL;
	return tern_model_dtypes[dtype].name;
}

u32 tern_model_reduce_cost(u32 dtype, u32 op, bool divide)
{
	switch (dtype) {
	case DRM_TERN_DTYPE_FLOAT16:
	case DRM_TERN_DTYPE_BFLOAT16:
		return divide ? TERN_MODEL_MAX_COST : 512;
	case DRM_TERN_DTYPE_FLOAT32:
		if (divide)
			return 512;
		return op == DRM_TERN_REDOP_MIN || op == DRM_TERN_REDOP_MAX ? 64 : 256;
	default:
		return divide ? 128 : 16;
	}
}

/* An element of @size bytes, zero-extended or, @is_signed, sign-extended. */
static u64 tern_load(const u8 *p, u32 size, bool is_signed)
{
	u8 b;
	u16 h;
	u32 w;
	u64 d;

	switch (size) {
	case 1:
		b = *p;
		return is_signed ? (u64)(s64)(s8)b : b;
	case 2:
		memcpy(&h, p, 2);
		return is_signed ? (u64)(s64)(s16)h : h;
	case 4:
		memcpy(&w, p, 4);
		return is_signed ? (u64)(s64)(s32)w : w;
	default:
		memcpy(&d, p, 8);
		return d;
	}
}

static void tern_store(u8 *p, u32 size, u64 v)
{
	u16 h = (u16)v;
	u32 w = (u32)v;

	switch (size) {
	case 1:
		*p = (u8)v;
		break;
	case 2:
		memcpy(p, &h, 2);
		break;
	case 4:
		memcpy(p, &w, 4);
		break;
	default:
		memcpy(p, &v, 8);
		break;
	}
}

static u64 tern_int_op(u64 a, u64 b, u32 op, bool is_signed)
{
	bool less = is_signed ? (s64)a < (s64)b : a < b;

	switch (op) {
	case DRM_TERN_REDOP_SUM:
		return a + b;
	case DRM_TERN_REDOP_PROD:
		return a * b;
	case DRM_TERN_REDOP_MIN:
		return less ? a : b;
	default:
		return less ? b : a;
	}
}

/*
 * The wrapped sum @sum of two elements of @size bytes divided by
 * @divisor, truncating toward zero: signed (@is_signed) from the sum's
 * sign-extended low bits, else unsigned.
 */
static u64 tern_int_divide(u64 sum, u32 size, bool is_signed, u32 divisor)
{
	u32 bits = size * 8, rem;

	if (bits < 64) {
		sum &= (1ull << bits) - 1;
		if (is_signed && (sum >> (bits - 1)))
			sum |= ~0ull << bits;
	}
	/* -sum is the magnitude, 2^63 included: the quotient negated */
	if (is_signed && (s64)sum < 0)
		return -tern_div_u64_rem(-sum, divisor, &rem);
	return tern_div_u64_rem(sum, divisor, &rem);
}

#ifndef __KERNEL__
enum tern_native_op { TERN_NATIVE_ADD, TERN_NATIVE_MUL, TERN_NATIVE_DIV };

/*
 * Userspace (the simulator) may use the FPU: IEEE float32 add, multiply
 * and divide round to nearest even exactly as tern_softfloat does, bit for
 * bit, but for a NaN's payload, which is made canonical here too. The
 * kernel cannot use the FPU in an engine step, hence the soft-float
 * everywhere else.
 */
static u32 tern_f32_native(u32 a, u32 b, enum tern_native_op op)
{
	float x, y, r;
	u32 bits;

	memcpy(&x, &a, 4);
	memcpy(&y, &b, 4);
	r = op == TERN_NATIVE_MUL ? x * y : op == TERN_NATIVE_DIV ? x / y : x + y;
	memcpy(&bits, &r, 4);
	if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu))
		return 0x7fc00000u;
	return bits;
}

#define tern_f32_add(a, b)	tern_f32_native((a), (b), TERN_NATIVE_ADD)
#define tern_f32_mul(a, b)	tern_f32_native((a), (b), TERN_NATIVE_MUL)
#define tern_f32_div(a, b)	tern_f32_native((a), (b), TERN_NATIVE_DIV)
#endif

static u32 tern_f32_op(u32 a, u32 b, u32 op)
{
	switch (op) {
	case DRM_TERN_REDOP_SUM:
		return tern_f32_add(a, b);
	case DRM_TERN_REDOP_PROD:
		return tern_f32_mul(a, b);
	case DRM_TERN_REDOP_MIN:
		return tern_f32_min(a, b);
	default:
		return tern_f32_max(a, b);
	}
}

static bool tern_dtype_signed(u32 dtype)
{
	return dtype == DRM_TERN_DTYPE_INT8 || dtype == DRM_TERN_DTYPE_INT32 ||
	       dtype == DRM_TERN_DTYPE_INT64;
}

#ifndef __KERNEL__
/*
 * float32 SUM, PROD and SUM divided by @divisor (not 0), a block at a
 * time so the compiler vectorises: each block is read whole before it is
 * written, which keeps a dst that is exactly src0 or src1 right. Partly
 * overlapping ranges go one by one.
 */
static bool tern_f32_fast(u8 *d, const u8 *a, const u8 *b, u64 count, u32 op,
			  u32 divisor)
{
	enum { BLOCK = 256 };
	float x[BLOCK], y[BLOCK];
	/* exact up to 2^24, then rounded to nearest as tern_u32_to_f32() */
	const float by = (float)divisor;
	u32 r[BLOCK];
	u64 bytes = count * 4;

	if (op != DRM_TERN_REDOP_SUM && op != DRM_TERN_REDOP_PROD)
		return false;
	if ((d != a && d < a + bytes && a < d + bytes) ||
	    (d != b && d < b + bytes && b < d + bytes))
		return false;
	while (count) {
		u32 n = count < BLOCK ? (u32)count : BLOCK, i;

		memcpy(x, a, n * 4);
		memcpy(y, b, n * 4);
		if (divisor)
			/* the sum rounded, then the quotient: no fusing here */
			for (i = 0; i < n; i++)
				x[i] = (x[i] + y[i]) / by;
		else if (op == DRM_TERN_REDOP_SUM)
			for (i = 0; i < n; i++)
				x[i] += y[i];
		else
			for (i = 0; i < n; i++)
				x[i] *= y[i];
		memcpy(r, x, n * 4);
		for (i = 0; i < n; i++)
			if ((r[i] & 0x7fffffffu) > 0x7f800000u)
				r[i] = 0x7fc00000u;
		memcpy(d, r, n * 4);
		a += n * 4;
		b += n * 4;
		d += n * 4;
		count -= n;
	}
	return true;
}
#endif

/* (@a + @b) / @by in float32, each step rounded; @by is the divisor's. */
static u32 tern_f32_avg(u32 a, u32 b, u32 by)
{
	return tern_f32_div(tern_f32_add(a, b), by);
}

/* One element of a REDUCE: @op, or with @divisor a SUM divided by it. */
static u64 tern_reduce_one(u64 x, u64 y, u32 dtype, u32 op, u32 divisor,
			   u32 by)
{
	u32 size = tern_model_dtype_size(dtype);
	bool is_signed = tern_dtype_signed(dtype);

	switch (dtype) {
	case DRM_TERN_DTYPE_FLOAT32:
		return divisor ? tern_f32_avg((u32)x, (u32)y, by) :
				 tern_f32_op((u32)x, (u32)y, op);
	case DRM_TERN_DTYPE_FLOAT16:
		x = tern_f16_to_f32((u16)x);
		y = tern_f16_to_f32((u16)y);
		return tern_f32_to_f16(divisor ?
				       tern_f32_avg((u32)x, (u32)y, by) :
				       tern_f32_op((u32)x, (u32)y, op));
	case DRM_TERN_DTYPE_BFLOAT16:
		x = tern_bf16_to_f32((u16)x);
		y = tern_bf16_to_f32((u16)y);
		return tern_f32_to_bf16(divisor ?
					tern_f32_avg((u32)x, (u32)y, by) :
					tern_f32_op((u32)x, (u32)y, op));
	default:
		if (divisor)
			return tern_int_divide(x + y, size, is_signed, divisor);
		return tern_int_op(x, y, op, is_signed);
	}
}

/* Both kinds of REDUCE: @divisor 0 is none. */
static void tern_reduce_elements(void *dst, const void *src0,
				 const void *src1, u64 count, u32 dtype,
				 u32 op, u32 divisor)
{
	u32 size = tern_model_dtype_size(dtype);
	bool is_signed = tern_dtype_signed(dtype);
	u32 by = divisor ? tern_u32_to_f32(divisor) : 0;
	const u8 *a = src0, *b = src1;
	u8 *d = dst;
	u64 i;

	/*
	 * Each element is read before it is written, so a dst that is
	 * exactly src0 or src1 sees its old value.
	 */
#ifndef __KERNEL__
	if (dtype == DRM_TERN_DTYPE_FLOAT32 &&
	    tern_f32_fast(dst, src0, src1, count, op, divisor))
		return;
#endif
	for (i = 0; i < count; i++, a += size, b += size, d += size) {
		u64 x = tern_load(a, size, is_signed);
		u64 y = tern_load(b, size, is_signed);

		tern_store(d, size, tern_reduce_one(x, y, dtype, op, divisor,
						    by));
	}
}

void tern_model_reduce(void *dst, const void *src0, const void *src1,
		       u64 count, u32 dtype, u32 op)
{
	tern_reduce_elements(dst, src0, src1, count, dtype, op, 0);
}

void tern_model_reduce_divide(void *dst, const void *src0, const void *src1,
			      u64 count, u32 dtype, u32 divisor)
{
	tern_reduce_elements(dst, src0, src1, count, dtype, DRM_TERN_REDOP_SUM,
			     divisor);
}
