// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * MATMUL's inner loop on the FPU (tern_matmul_fpu.h). Every element keeps
 * its own chain of fused multiply-adds in K order; vectors only do eight
 * elements' chains at once, which changes no bit.
 */
#include "tern_matmul_fpu.h"

#ifdef TERN_MATMUL_FPU
#include <math.h>

#if defined(__x86_64__)
#include <immintrin.h>

__attribute__((target("avx2,fma")))
static void tern_matmul_row_avx2(float *acc, const float *a, const float *b,
				 u32 k_count, u32 n_count, u32 ldb)
{
	u32 n = 0;

	/* 32 elements in registers across the whole of K */
	for (; n + 32 <= n_count; n += 32) {
		__m256 c0 = _mm256_loadu_ps(acc + n);
		__m256 c1 = _mm256_loadu_ps(acc + n + 8);
		__m256 c2 = _mm256_loadu_ps(acc + n + 16);
		__m256 c3 = _mm256_loadu_ps(acc + n + 24);

		for (u32 k = 0; k < k_count; k++) {
			const float *row = b + (size_t)k * ldb + n;
			__m256 ak = _mm256_set1_ps(a[k]);

			c0 = _mm256_fmadd_ps(ak, _mm256_loadu_ps(row), c0);
			c1 = _mm256_fmadd_ps(ak, _mm256_loadu_ps(row + 8), c1);
			c2 = _mm256_fmadd_ps(ak, _mm256_loadu_ps(row + 16), c2);
			c3 = _mm256_fmadd_ps(ak, _mm256_loadu_ps(row + 24), c3);
		}
		_mm256_storeu_ps(acc + n, c0);
		_mm256_storeu_ps(acc + n + 8, c1);
		_mm256_storeu_ps(acc + n + 16, c2);
		_mm256_storeu_ps(acc + n + 24, c3);
	}
	for (; n < n_count; n++) {
		float c = acc[n];

		for (u32 k = 0; k < k_count; k++)
			c = fmaf(a[k], b[(size_t)k * ldb + n], c);
		acc[n] = c;
	}
}

static bool tern_matmul_has_avx2(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#endif

void tern_matmul_fpu_row(float *acc, const float *a, const float *b,
			 u32 k_count, u32 n_count, u32 ldb)
{
#if defined(__x86_64__)
	if (tern_matmul_has_avx2()) {
		tern_matmul_row_avx2(acc, a, b, k_count, n_count, ldb);
		return;
	}
#endif
	for (u32 n = 0; n < n_count; n++) {
		float c = acc[n];

		for (u32 k = 0; k < k_count; k++)
			c = fmaf(a[k], b[(size_t)k * ldb + n], c);
		acc[n] = c;
	}
}
#endif
