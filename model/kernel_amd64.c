//go:build cgo

// The forward pass's hot loops for x86-64 CPUs with AVX2 and FMA: a packed,
// blocked single-precision matrix product (a 6x16 register tile, or 12x16
// in zmm registers where AVX-512 runs), one attention head, and GELU.
// Every function that uses AVX2, FMA or AVX-512 carries its own target
// attribute, so the file builds without a global -march flag;
// ragd_kernel_level tells at run time which of them may be called.
//
// Layout of a packed right-hand matrix B (K rows, N columns): panels of
// RAGD_NR columns, one after another; panel p holds its K rows of RAGD_NR
// floats each (columns p*RAGD_NR .. p*RAGD_NR+RAGD_NR-1, zero past N).
// ragd_packed_len gives its length in floats.

#include <immintrin.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "kernel_amd64.h"

// MR and NR are the register tile: MR rows of A times NR columns of B, held
// in MR*NR/8 = 12 of the 16 ymm registers, with 2 for B and 1 for A.
#define MR 6
#define NR RAGD_NR
// KC is the depth of one block: an NR-wide panel of B of KC rows (16 kB)
// stays in the L1 cache while every row tile of A passes over it.
#define KC 256

// MR512 is the AVX-512 tile's rows: 12 zmm accumulators of 16 floats.
#define MR512 12

int ragd_kernel_level(void) {
	__builtin_cpu_init();
	// libgcc sets these only when the OS saves the ymm (zmm) registers too.
	if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
		return RAGD_KERNEL_NONE;
	}
	return __builtin_cpu_supports("avx512f") ? RAGD_KERNEL_AVX512 : RAGD_KERNEL_AVX2;
}

long ragd_packed_len(int k, int n) { return (long)((n + NR - 1) / NR) * NR * k; }

void ragd_pack_b(int k, int n, const float *b, long ldb, int trans, float *out) {
	for (int p = 0; p < n; p += NR) {
		int nr = n - p < NR ? n - p : NR;
		float *dst = out + (size_t)p * k;
		if (nr < NR) {
			memset(dst, 0, sizeof(float) * (size_t)k * NR);
		}
		if (trans) {
			// B(i, j) = b[j*ldb + i]: read each source row once.
			for (int j = 0; j < nr; j++) {
				const float *src = b + (size_t)(p + j) * ldb;
				for (int i = 0; i < k; i++) {
					dst[(size_t)i * NR + j] = src[i];
				}
			}
		} else {
			for (int i = 0; i < k; i++) {
				memcpy(dst + (size_t)i * NR, b + (size_t)i * ldb + p, sizeof(float) * (size_t)nr);
			}
		}
	}
}

// tile adds to the MR x NR block at c (row stride ldc) the product of the
// MR x kc block at a (row stride lda) and kc rows of a packed panel at b.
__attribute__((target("avx2,fma"))) static void tile(int kc, const float *a, long lda, const float *b, float *c, long ldc) {
	const float *a0 = a, *a1 = a + lda, *a2 = a + 2 * lda, *a3 = a + 3 * lda, *a4 = a + 4 * lda, *a5 = a + 5 * lda;
	float *c0 = c, *c1 = c + ldc, *c2 = c + 2 * ldc, *c3 = c + 3 * ldc, *c4 = c + 4 * ldc, *c5 = c + 5 * ldc;
	__m256 r00 = _mm256_loadu_ps(c0), r01 = _mm256_loadu_ps(c0 + 8);
	__m256 r10 = _mm256_loadu_ps(c1), r11 = _mm256_loadu_ps(c1 + 8);
	__m256 r20 = _mm256_loadu_ps(c2), r21 = _mm256_loadu_ps(c2 + 8);
	__m256 r30 = _mm256_loadu_ps(c3), r31 = _mm256_loadu_ps(c3 + 8);
	__m256 r40 = _mm256_loadu_ps(c4), r41 = _mm256_loadu_ps(c4 + 8);
	__m256 r50 = _mm256_loadu_ps(c5), r51 = _mm256_loadu_ps(c5 + 8);
	for (int i = 0; i < kc; i++) {
		__m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8), x;
		b += NR;
		x = _mm256_broadcast_ss(a0 + i);
		r00 = _mm256_fmadd_ps(x, b0, r00);
		r01 = _mm256_fmadd_ps(x, b1, r01);
		x = _mm256_broadcast_ss(a1 + i);
		r10 = _mm256_fmadd_ps(x, b0, r10);
		r11 = _mm256_fmadd_ps(x, b1, r11);
		x = _mm256_broadcast_ss(a2 + i);
		r20 = _mm256_fmadd_ps(x, b0, r20);
		r21 = _mm256_fmadd_ps(x, b1, r21);
		x = _mm256_broadcast_ss(a3 + i);
		r30 = _mm256_fmadd_ps(x, b0, r30);
		r31 = _mm256_fmadd_ps(x, b1, r31);
		x = _mm256_broadcast_ss(a4 + i);
		r40 = _mm256_fmadd_ps(x, b0, r40);
		r41 = _mm256_fmadd_ps(x, b1, r41);
		x = _mm256_broadcast_ss(a5 + i);
		r50 = _mm256_fmadd_ps(x, b0, r50);
		r51 = _mm256_fmadd_ps(x, b1, r51);
	}
	_mm256_storeu_ps(c0, r00), _mm256_storeu_ps(c0 + 8, r01);
	_mm256_storeu_ps(c1, r10), _mm256_storeu_ps(c1 + 8, r11);
	_mm256_storeu_ps(c2, r20), _mm256_storeu_ps(c2 + 8, r21);
	_mm256_storeu_ps(c3, r30), _mm256_storeu_ps(c3 + 8, r31);
	_mm256_storeu_ps(c4, r40), _mm256_storeu_ps(c4 + 8, r41);
	_mm256_storeu_ps(c5, r50), _mm256_storeu_ps(c5 + 8, r51);
}

// edge is tile for a block of mr <= MR rows and nr <= NR columns: it runs
// the full tile on copies (rows past mr zero) and writes back the block.
__attribute__((target("avx2,fma"))) static void edge(int mr, int nr, int kc, const float *a, long lda, const float *b, float *c, long ldc) {
	float ta[MR * KC], tc[MR * NR];
	memset(ta, 0, sizeof(ta));
	memset(tc, 0, sizeof(tc));
	for (int r = 0; r < mr; r++) {
		memcpy(ta + r * KC, a + (size_t)r * lda, sizeof(float) * (size_t)kc);
		memcpy(tc + r * NR, c + (size_t)r * ldc, sizeof(float) * (size_t)nr);
	}
	tile(kc, ta, KC, b, tc, NR);
	for (int r = 0; r < mr; r++) {
		memcpy(c + (size_t)r * ldc, tc + r * NR, sizeof(float) * (size_t)nr);
	}
}

// tile512 is tile for MR512 rows of a, one zmm register per row of c.
__attribute__((target("avx512f"))) static void tile512(int kc, const float *a, long lda, const float *b, float *c, long ldc) {
	__m512 r0 = _mm512_loadu_ps(c), r1 = _mm512_loadu_ps(c + ldc), r2 = _mm512_loadu_ps(c + 2 * ldc);
	__m512 r3 = _mm512_loadu_ps(c + 3 * ldc), r4 = _mm512_loadu_ps(c + 4 * ldc), r5 = _mm512_loadu_ps(c + 5 * ldc);
	__m512 r6 = _mm512_loadu_ps(c + 6 * ldc), r7 = _mm512_loadu_ps(c + 7 * ldc), r8 = _mm512_loadu_ps(c + 8 * ldc);
	__m512 r9 = _mm512_loadu_ps(c + 9 * ldc), r10 = _mm512_loadu_ps(c + 10 * ldc), r11 = _mm512_loadu_ps(c + 11 * ldc);
	const float *a0 = a, *a3 = a + 3 * lda, *a6 = a + 6 * lda, *a9 = a + 9 * lda;
	for (int i = 0; i < kc; i++) {
		__m512 bv = _mm512_loadu_ps(b);
		b += NR;
		r0 = _mm512_fmadd_ps(_mm512_set1_ps(a0[i]), bv, r0);
		r1 = _mm512_fmadd_ps(_mm512_set1_ps(a0[lda + i]), bv, r1);
		r2 = _mm512_fmadd_ps(_mm512_set1_ps(a0[2 * lda + i]), bv, r2);
		r3 = _mm512_fmadd_ps(_mm512_set1_ps(a3[i]), bv, r3);
		r4 = _mm512_fmadd_ps(_mm512_set1_ps(a3[lda + i]), bv, r4);
		r5 = _mm512_fmadd_ps(_mm512_set1_ps(a3[2 * lda + i]), bv, r5);
		r6 = _mm512_fmadd_ps(_mm512_set1_ps(a6[i]), bv, r6);
		r7 = _mm512_fmadd_ps(_mm512_set1_ps(a6[lda + i]), bv, r7);
		r8 = _mm512_fmadd_ps(_mm512_set1_ps(a6[2 * lda + i]), bv, r8);
		r9 = _mm512_fmadd_ps(_mm512_set1_ps(a9[i]), bv, r9);
		r10 = _mm512_fmadd_ps(_mm512_set1_ps(a9[lda + i]), bv, r10);
		r11 = _mm512_fmadd_ps(_mm512_set1_ps(a9[2 * lda + i]), bv, r11);
	}
	_mm512_storeu_ps(c, r0), _mm512_storeu_ps(c + ldc, r1), _mm512_storeu_ps(c + 2 * ldc, r2);
	_mm512_storeu_ps(c + 3 * ldc, r3), _mm512_storeu_ps(c + 4 * ldc, r4), _mm512_storeu_ps(c + 5 * ldc, r5);
	_mm512_storeu_ps(c + 6 * ldc, r6), _mm512_storeu_ps(c + 7 * ldc, r7), _mm512_storeu_ps(c + 8 * ldc, r8);
	_mm512_storeu_ps(c + 9 * ldc, r9), _mm512_storeu_ps(c + 10 * ldc, r10), _mm512_storeu_ps(c + 11 * ldc, r11);
}

void ragd_sgemm_packed(int level, int m, int n, int k, const float *a, long lda, const float *bp, float *c, long ldc) {
	// Rows by MR512 with AVX-512, the rest (or all) by MR.
	int wide = level >= RAGD_KERNEL_AVX512 ? m - m % MR512 : 0;
	for (int kb = 0; kb < k; kb += KC) {
		int kc = k - kb < KC ? k - kb : KC;
		for (int p = 0; p < n; p += NR) {
			int nr = n - p < NR ? n - p : NR;
			const float *b = bp + (size_t)p * k + (size_t)kb * NR;
			int i = 0;
			if (nr == NR) {
				for (; i < wide; i += MR512) {
					tile512(kc, a + (size_t)i * lda + kb, lda, b, c + (size_t)i * ldc + p, ldc);
				}
			}
			for (; i < m; i += MR) {
				int mr = m - i < MR ? m - i : MR;
				const float *ai = a + (size_t)i * lda + kb;
				float *ci = c + (size_t)i * ldc + p;
				if (mr == MR && nr == NR) {
					tile(kc, ai, lda, b, ci, ldc);
				} else {
					edge(mr, nr, kc, ai, lda, b, ci, ldc);
				}
			}
		}
	}
}

// exp8 is e^x in each lane, to about 2 float32 ulps: x = n*ln2 + r with
// |r| <= ln2/2, e^r by its Taylor series to r^6 (the next term is below
// 1.3e-7 relative), times 2^n built in the exponent bits.
__attribute__((target("avx2,fma"))) static inline __m256 exp8(__m256 x) {
	x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.0f)), _mm256_set1_ps(88.0f));
	__m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
	// ln 2 in two parts, the first exact in float32 times any n here.
	__m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
	r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
	__m256 p = _mm256_set1_ps(1.0f / 720);
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
	__m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
	return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

// softmax turns each of the rows of s (n floats, stride lds) into
// softmax(scale * row), in place.
__attribute__((target("avx2,fma"))) static void softmax(int rows, int n, float *s, long lds, float scale) {
	__m256 vs = _mm256_set1_ps(scale);
	for (int r = 0; r < rows; r++) {
		float *row = s + (size_t)r * lds;
		float mx = -INFINITY;
		int j = 0;
		if (n >= 8) {
			__m256 m8 = _mm256_loadu_ps(row);
			for (j = 8; j + 8 <= n; j += 8) {
				m8 = _mm256_max_ps(m8, _mm256_loadu_ps(row + j));
			}
			float lanes[8];
			_mm256_storeu_ps(lanes, m8);
			for (int l = 0; l < 8; l++) {
				mx = lanes[l] > mx ? lanes[l] : mx;
			}
		}
		for (; j < n; j++) {
			mx = row[j] > mx ? row[j] : mx;
		}
		__m256 vm = _mm256_set1_ps(mx), sum8 = _mm256_setzero_ps();
		for (j = 0; j + 8 <= n; j += 8) {
			__m256 e = exp8(_mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(row + j), vm), vs));
			_mm256_storeu_ps(row + j, e);
			sum8 = _mm256_add_ps(sum8, e);
		}
		float lanes[8], sum = 0;
		_mm256_storeu_ps(lanes, sum8);
		for (int l = 0; l < 8; l++) {
			sum += lanes[l];
		}
		for (; j < n; j++) {
			row[j] = expf((row[j] - mx) * scale);
			sum += row[j];
		}
		__m256 inv = _mm256_set1_ps(1 / sum);
		for (j = 0; j + 8 <= n; j += 8) {
			_mm256_storeu_ps(row + j, _mm256_mul_ps(_mm256_loadu_ps(row + j), inv));
		}
		for (; j < n; j++) {
			row[j] /= sum;
		}
	}
}

long ragd_attention_scratch(int n, int d) { return (long)n * n + ragd_packed_len(d, n) + ragd_packed_len(n, d); }

void ragd_attention_head(int level, int n, int d, long ld, const float *q, const float *k, const float *v, float *ctx, float scale, float *scratch) {
	float *s = scratch, *pk = s + (size_t)n * n, *pv = pk + ragd_packed_len(d, n);
	// scores = q·kᵀ: B(i, j) = k[j*ld + i].
	ragd_pack_b(d, n, k, ld, 1, pk);
	memset(s, 0, sizeof(float) * (size_t)n * n);
	ragd_sgemm_packed(level, n, n, d, q, ld, pk, s, n);
	softmax(n, n, s, n, scale);
	ragd_pack_b(n, d, v, ld, 0, pv);
	for (int i = 0; i < n; i++) {
		memset(ctx + (size_t)i * ld, 0, sizeof(float) * (size_t)d);
	}
	ragd_sgemm_packed(level, n, d, n, s, n, pv, ctx, ld);
}

// GELU's erf by Abramowitz and Stegun's 7.1.26 (absolute error below
// 1.5e-7): erf(x) = 1 - t(a1 + t(a2 + t(a3 + t(a4 + t a5)))) e^(-x²),
// t = 1/(1 + p x), for x >= 0; odd.
#define ERF_P 0.3275911f
#define ERF_A1 0.254829592f
#define ERF_A2 -0.284496736f
#define ERF_A3 1.421413741f
#define ERF_A4 -1.453152027f
#define ERF_A5 1.061405429f

__attribute__((target("avx2,fma"))) void ragd_gelu(float *x, long n) {
	const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f), sign = _mm256_set1_ps(-0.0f);
	const __m256 rsqrt2 = _mm256_set1_ps(0.70710678118654752f);
	long i = 0;
	for (; i + 8 <= n; i += 8) {
		__m256 v = _mm256_loadu_ps(x + i);
		__m256 z = _mm256_mul_ps(v, rsqrt2);
		__m256 s = _mm256_and_ps(z, sign), az = _mm256_andnot_ps(sign, z);
		__m256 t = _mm256_div_ps(one, _mm256_fmadd_ps(_mm256_set1_ps(ERF_P), az, one));
		__m256 p = _mm256_set1_ps(ERF_A5);
		p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(ERF_A4));
		p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(ERF_A3));
		p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(ERF_A2));
		p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(ERF_A1));
		p = _mm256_mul_ps(p, t);
		__m256 e = exp8(_mm256_mul_ps(_mm256_xor_ps(az, sign), az));
		__m256 erf = _mm256_or_ps(_mm256_fnmadd_ps(p, e, one), s);
		_mm256_storeu_ps(x + i, _mm256_mul_ps(_mm256_mul_ps(half, v), _mm256_add_ps(one, erf)));
	}
	for (; i < n; i++) {
		x[i] = 0.5f * x[i] * (1 + erff(x[i] * 0.70710678118654752f));
	}
}
