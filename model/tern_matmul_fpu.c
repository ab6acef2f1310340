// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * MATMUL on the FPU (tern_matmul_fpu.h). Every result element keeps its
 * own chain of fused multiply-adds in K order, as the packet defines it;
 * blocking only chooses which chains advance side by side, which changes
 * no bit. A call
 *
 *  - reads the moving tile into float32 once, as panels of TERN_NR
 *    columns laid out k after k, and the stationary tile's columns for
 *    its rows likewise, as panels of TERN_MR rows;
 *  - then, panel of columns by panel of columns (one stays in the L1
 *    cache while it serves every row), advances TERN_MR x TERN_NR chains
 *    at once: each k loads the moving panel's row once for TERN_MR rows.
 *
 * A NaN input keeps its payload on the way in, which is harmless: any NaN
 * makes the chain's result NaN, and results are stored as the quiet NaN.
 */
#include "tern_matmul_fpu.h"

#ifdef TERN_MATMUL_FPU
#include <math.h>
#include <stdlib.h>

#include "tern_f32.h"
#include "tern_reduce.h"
#include "tern_tile.h"

#if defined(__x86_64__) && !defined(TERN_MATMUL_PORTABLE)
#include <cpuid.h>
#include <immintrin.h>
#endif

/* A block of chains: rows by columns, within the 16 vector registers. */
#define TERN_MR		6
#define TERN_NR		16
#define TERN_K_MAX	DRM_TERN_PARTITIONS
#define TERN_M_MAX	128
#define TERN_N_MAX	512

/* A thread's float32 copies of the tiles, made again each call. */
struct tern_matmul_scratch {
	_Alignas(64) float moving[TERN_N_MAX / TERN_NR][TERN_K_MAX][TERN_NR];
	_Alignas(64) float stationary[(TERN_M_MAX + TERN_MR - 1) / TERN_MR]
				     [TERN_K_MAX][TERN_MR];
	float row[TERN_N_MAX];
};

/* A block's chains: @mr rows of TERN_NR columns (tern_matmul_block_c). */
typedef void tern_matmul_block_fn(u32 mr, u32 k_count, const float *a,
				  const float *b, float *c, u64 ldc,
				  bool from_c);

/* Set once: the thread's scratch, and whether the CPU has AVX2 and FMA. */
static pthread_once_t tern_matmul_once = PTHREAD_ONCE_INIT;
static pthread_key_t tern_matmul_key;
static bool tern_matmul_key_made, tern_matmul_avx2;

/* ---- reading a tile's elements into float32 ---- */

/* How one input type is read: the 8-bit types through a table. */
struct tern_widen {
	u32 dtype;
	bool avx2;
	float table[256];
};

static void tern_store_bits(float *dst, u32 bits)
{
	memcpy(dst, &bits, 4);
}

/*
 * Where element @i of a row goes: into panels of TERN_NR, @step floats
 * apart (TERN_NR for the row as it is).
 */
static float *tern_panel_at(float *dst, u64 step, u32 i)
{
	return dst + i / TERN_NR * step + i % TERN_NR;
}

#if defined(__x86_64__) && !defined(TERN_MATMUL_PORTABLE)
/* The CPU has AVX2, FMA and F16C, and the system keeps AVX state. */
static bool tern_cpu_has_avx2(void)
{
	unsigned int a, b, c, d;

	__builtin_cpu_init();
	if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
		return false;
	return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
}

/* Elements [0, a multiple of 8) of tern_widen_row(); returns how many. */
__attribute__((target("avx2,f16c")))
static u32 tern_widen_avx2(float *dst, u64 step, const u8 *src, u32 dtype,
			   u32 count)
{
	u32 i = 0;

	for (; i + 8 <= count; i += 8) {
		__m128i h = _mm_loadu_si128((const __m128i *)(src + 2 * i));
		__m256 f;

		if (dtype == DRM_TERN_DTYPE_FLOAT16)
			f = _mm256_cvtph_ps(h);
		else	/* BFLOAT16: the high half of a float32 */
			f = _mm256_castsi256_ps(_mm256_slli_epi32(
				_mm256_cvtepu16_epi32(h), 16));
		_mm256_storeu_ps(tern_panel_at(dst, step, i), f);
	}
	return i;
}
#else
static bool tern_cpu_has_avx2(void)
{
	return false;
}

static u32 tern_widen_avx2(float *dst, u64 step, const u8 *src, u32 dtype,
			   u32 count)
{
	(void)dst;
	(void)step;
	(void)src;
	(void)dtype;
	(void)count;
	return 0;
}
#endif

static void tern_widen_init(struct tern_widen *w, u32 dtype, bool avx2)
{
	w->dtype = dtype;
	w->avx2 = avx2;
	if (dtype != DRM_TERN_DTYPE_FLOAT8_E4M3 &&
	    dtype != DRM_TERN_DTYPE_FLOAT8_E5M2)
		return;
	for (u32 i = 0; i < 256; i++) {
		u8 byte = (u8)i;

		tern_store_bits(&w->table[i], tern_element_load(&byte, dtype));
	}
}

/*
 * @count elements at @src into float32 at @dst (tern_panel_at()), as
 * tern_element_load() reads them.
 */
static void tern_widen_row(const struct tern_widen *w, float *dst, u64 step,
			   const u8 *src, u32 count)
{
	u32 size = tern_model_dtype_size(w->dtype), i = 0;

	switch (w->dtype) {
	case DRM_TERN_DTYPE_FLOAT32:
		/* eight at a time never cross a panel */
		for (; i + 8 <= count; i += 8)
			memcpy(tern_panel_at(dst, step, i), src + 4 * i, 32);
		break;
	case DRM_TERN_DTYPE_FLOAT8_E4M3:
	case DRM_TERN_DTYPE_FLOAT8_E5M2:
		for (; i < count; i++)
			*tern_panel_at(dst, step, i) = w->table[src[i]];
		return;
	case DRM_TERN_DTYPE_FLOAT16:
	case DRM_TERN_DTYPE_BFLOAT16:
		if (w->avx2)
			i = tern_widen_avx2(dst, step, src, w->dtype, count);
		break;
	}
	for (; i < count; i++)
		tern_store_bits(tern_panel_at(dst, step, i),
				tern_element_load(src + (size_t)i * size,
						  w->dtype));
}

/* ---- the blocks ---- */

/*
 * @mr rows of TERN_NR chains: from @c (rows @ldc floats apart) or from
 * -0, c[i][j] = fma(a[k * TERN_MR + i], b[k * TERN_NR + j], c[i][j]) for
 * k in order, stored with NaN made canonical. Any CPU.
 */
static void tern_matmul_block_c(u32 mr, u32 k_count, const float *a,
				const float *b, float *c, u64 ldc, bool from_c)
{
	float acc[TERN_MR][TERN_NR];

	for (u32 i = 0; i < mr; i++)
		for (u32 j = 0; j < TERN_NR; j++)
			acc[i][j] = from_c ? c[i * ldc + j] : -0.0f;
	for (u32 k = 0; k < k_count; k++)
		for (u32 i = 0; i < mr; i++)
			for (u32 j = 0; j < TERN_NR; j++)
				acc[i][j] = fmaf(a[k * TERN_MR + i],
						 b[k * TERN_NR + j], acc[i][j]);
	for (u32 i = 0; i < mr; i++)
		for (u32 j = 0; j < TERN_NR; j++)
			tern_store_bits(&c[i * ldc + j],
					tern_fpu_bits(acc[i][j]));
}

#if defined(__x86_64__) && !defined(TERN_MATMUL_PORTABLE)
/*
 * tern_matmul_block_c() in AVX2 for a constant @mr: 2 * @mr accumulators,
 * two loads of b and @mr broadcasts of a for each k.
 */
__attribute__((target("avx2,fma")))
static __always_inline void tern_matmul_block_rows(const u32 mr, u32 k_count,
					  const float *a, const float *b,
					  float *c, u64 ldc, bool from_c)
{
	const __m256 qnan = _mm256_castsi256_ps(_mm256_set1_epi32(TERN_F32_QNAN));
	__m256 acc[TERN_MR][2];

#pragma GCC unroll 6
	for (u32 i = 0; i < mr; i++) {
		acc[i][0] = from_c ? _mm256_loadu_ps(c + i * ldc) :
			    _mm256_set1_ps(-0.0f);
		acc[i][1] = from_c ? _mm256_loadu_ps(c + i * ldc + 8) :
			    _mm256_set1_ps(-0.0f);
	}
	for (u32 k = 0; k < k_count; k++, a += TERN_MR, b += TERN_NR) {
		__m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps(b + 8);

#pragma GCC unroll 6
		for (u32 i = 0; i < mr; i++) {
			__m256 ai = _mm256_broadcast_ss(a + i);

			acc[i][0] = _mm256_fmadd_ps(ai, b0, acc[i][0]);
			acc[i][1] = _mm256_fmadd_ps(ai, b1, acc[i][1]);
		}
	}
#pragma GCC unroll 6
	for (u32 i = 0; i < mr; i++) {
#pragma GCC unroll 2
		for (u32 h = 0; h < 2; h++) {
			__m256 v = acc[i][h];

			v = _mm256_blendv_ps(v, qnan,
					     _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
			_mm256_storeu_ps(c + i * ldc + 8 * h, v);
		}
	}
}

__attribute__((target("avx2,fma")))
static void tern_matmul_block_avx2(u32 mr, u32 k_count, const float *a,
				   const float *b, float *c, u64 ldc,
				   bool from_c)
{
	switch (mr) {
	case 6:
		tern_matmul_block_rows(6, k_count, a, b, c, ldc, from_c);
		break;
	case 5:
		tern_matmul_block_rows(5, k_count, a, b, c, ldc, from_c);
		break;
	case 4:
		tern_matmul_block_rows(4, k_count, a, b, c, ldc, from_c);
		break;
	case 3:
		tern_matmul_block_rows(3, k_count, a, b, c, ldc, from_c);
		break;
	case 2:
		tern_matmul_block_rows(2, k_count, a, b, c, ldc, from_c);
		break;
	default:
		tern_matmul_block_rows(1, k_count, a, b, c, ldc, from_c);
		break;
	}
}
#endif

/* ---- a call ---- */

/* Rows [@m0, @m1) of the result, columns [@c0, @c1) of them. */
struct tern_matmul_span {
	u32 m0, m1, c0, c1;
};

struct tern_matmul_call {
	const struct tern_matmul_fpu *mm;
	struct tern_matmul_scratch *s;
	tern_matmul_block_fn *block;
	u32 m_first;		/* the first row, the stationary panels' */
	float *result;		/* element [0][0] */
	u64 ldc;		/* floats from one result row to the next */
};

/* The stationary tile's columns [@m_first, @m_last] into panels. */
static void tern_pack_stationary(const struct tern_matmul_fpu *mm,
				 struct tern_matmul_scratch *s, u32 m_first,
				 u32 m_last)
{
	u32 size = tern_model_dtype_size(mm->stationary_dtype);
	u32 rows = m_last - m_first + 1;
	struct tern_widen w;

	tern_widen_init(&w, mm->stationary_dtype, tern_matmul_avx2);
	/* a panel's rows past the last are copied, never used */
	for (u32 r = rows; r % TERN_MR; r++)
		s->row[r] = 0.0f;
	for (u32 k = 0; k < mm->k_count; k++) {
		tern_widen_row(&w, s->row, TERN_NR, mm->stationary +
			       k * mm->stride + (u64)m_first * size, rows);
		for (u32 r = 0; r < rows; r += TERN_MR)
			memcpy(s->stationary[r / TERN_MR][k], s->row + r,
			       sizeof(s->stationary[0][k]));
	}
}

/* The moving tile into panels, the last one's columns past it zero. */
static void tern_pack_moving(const struct tern_matmul_fpu *mm,
			     struct tern_matmul_scratch *s)
{
	u32 size = tern_model_dtype_size(mm->moving_dtype);
	u32 n_count = mm->n_count, last = (n_count - 1) / TERN_NR;
	struct tern_widen w;

	tern_widen_init(&w, mm->moving_dtype, tern_matmul_avx2);
	for (u32 k = 0; k < mm->k_count; k++) {
		const u8 *row = mm->moving + k * mm->stride;

		/* the rows are far apart: ask for one a few rows ahead */
		if (k + 4 < mm->k_count)
			for (u32 b = 0; b < n_count * size; b += 64)
				tern_prefetch(row + 4 * mm->stride + b);
		tern_widen_row(&w, s->moving[0][k], TERN_K_MAX * TERN_NR, row,
			       n_count);
		for (u32 n = n_count; n % TERN_NR; n++)
			s->moving[last][k][n % TERN_NR] = 0.0f;
	}
}

/*
 * The chains of rows [@m, @m + @mr) in columns [@c0, @c1) of column
 * panel @j, all in one stationary panel. A panel's columns in part, or
 * past the result's end, go through a block of their own.
 */
static void tern_matmul_block(const struct tern_matmul_call *call, u32 j,
			      u32 m, u32 mr, u32 c0, u32 c1)
{
	const struct tern_matmul_fpu *mm = call->mm;
	u32 r = m - call->m_first;
	const float *a = &call->s->stationary[r / TERN_MR][0][r % TERN_MR];
	const float *b = &call->s->moving[j][0][0];
	float *c = call->result + m * call->ldc + j * TERN_NR;
	float part[TERN_MR][TERN_NR];

	if (c0 == 0 && c1 == TERN_NR) {
		call->block(mr, mm->k_count, a, b, c, call->ldc,
			    mm->accumulate);
		return;
	}
	for (u32 i = 0; i < mr; i++)
		for (u32 n = 0; n < TERN_NR; n++)
			part[i][n] = -0.0f;
	for (u32 i = 0; mm->accumulate && i < mr; i++)
		memcpy(&part[i][c0], &c[i * call->ldc + c0], (c1 - c0) * 4);
	call->block(mr, mm->k_count, a, b, &part[0][0], TERN_NR, true);
	for (u32 i = 0; i < mr; i++)
		memcpy(&c[i * call->ldc + c0], &part[i][c0], (c1 - c0) * 4);
}

/* @span's chains in column panel @j, by stationary panels. */
static void tern_matmul_span(const struct tern_matmul_call *call, u32 j,
			     const struct tern_matmul_span *span)
{
	u32 c0 = span->c0 > j * TERN_NR ? span->c0 - j * TERN_NR : 0;
	u32 c1 = span->c1 - j * TERN_NR < TERN_NR ?
		 span->c1 - j * TERN_NR : TERN_NR;

	if (span->c1 <= j * TERN_NR || c0 >= TERN_NR)
		return;
	for (u32 m = span->m0; m < span->m1;) {
		u32 r = (m - call->m_first) % TERN_MR;
		u32 mr = TERN_MR - r < span->m1 - m ? TERN_MR - r :
			 span->m1 - m;

		tern_matmul_block(call, j, m, mr, c0, c1);
		m += mr;
	}
}

/*
 * Elements [@at, @end) as at most three spans: the end of a first row,
 * whole rows, the start of a last row.
 */
static u32 tern_matmul_spans(u64 at, u64 end, u32 n_count,
			     struct tern_matmul_span spans[3])
{
	u32 m_first = (u32)(at / n_count), m_last = (u32)((end - 1) / n_count);
	u32 head = (u32)(at % n_count), tail = (u32)((end - 1) % n_count) + 1;
	u32 count = 0, body0 = m_first, body1 = m_last + 1;

	if (m_first == m_last) {
		spans[0] = (struct tern_matmul_span){ m_first, m_first + 1,
						      head, tail };
		return 1;
	}
	if (head) {
		spans[count++] = (struct tern_matmul_span){ m_first,
							    m_first + 1,
							    head, n_count };
		body0++;
	}
	if (tail != n_count)
		body1--;
	if (body0 < body1)
		spans[count++] = (struct tern_matmul_span){ body0, body1,
							    0, n_count };
	if (tail != n_count)
		spans[count++] = (struct tern_matmul_span){ m_last, m_last + 1,
							    0, tail };
	return count;
}

static void tern_matmul_setup(void)
{
	tern_matmul_key_made = !pthread_key_create(&tern_matmul_key, free);
	tern_matmul_avx2 = tern_cpu_has_avx2();
}

/* The thread's scratch, made on its first call, freed as it exits. */
static struct tern_matmul_scratch *tern_matmul_scratch(void)
{
	struct tern_matmul_scratch *s;

	if (!tern_matmul_key_made)
		return NULL;
	s = pthread_getspecific(tern_matmul_key);
	if (s)
		return s;
	s = aligned_alloc(_Alignof(struct tern_matmul_scratch), sizeof(*s));
	if (s && pthread_setspecific(tern_matmul_key, s)) {
		free(s);
		s = NULL;
	}
	return s;
}

bool tern_matmul_fpu_run(const struct tern_matmul_fpu *mm, u64 at, u64 end)
{
	struct tern_matmul_span spans[3];
	struct tern_matmul_call call = { .mm = mm };
	u32 count;

	if (at >= end)
		return true;
	pthread_once(&tern_matmul_once, tern_matmul_setup);
	call.s = tern_matmul_scratch();
	if (!call.s)
		return false;
	call.block = tern_matmul_block_c;
#if defined(__x86_64__) && !defined(TERN_MATMUL_PORTABLE)
	if (tern_matmul_avx2)
		call.block = tern_matmul_block_avx2;
#endif
	count = tern_matmul_spans(at, end, mm->n_count, spans);
	call.m_first = spans[0].m0;
	call.result = (float *)mm->result;
	call.ldc = mm->result_stride / 4;
	tern_pack_stationary(mm, call.s, call.m_first, spans[count - 1].m1 - 1);
	tern_pack_moving(mm, call.s);
	for (u32 j = 0; j * TERN_NR < mm->n_count; j++)
		for (u32 i = 0; i < count; i++)
			tern_matmul_span(&call, j, &spans[i]);
	return true;
}
#endif
