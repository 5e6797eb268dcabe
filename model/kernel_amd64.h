// Declarations of kernel_amd64.c, for kernel_amd64.go.

#ifndef RAGD_KERNEL_AMD64_H
#define RAGD_KERNEL_AMD64_H

// RAGD_NR is the width of a packed panel of B, in floats.
#define RAGD_NR 16

// Kernel levels: what the CPU and OS run.
#define RAGD_KERNEL_NONE 0
#define RAGD_KERNEL_AVX2 1	// AVX2 and FMA
#define RAGD_KERNEL_AVX512 2	// and AVX-512F

// ragd_kernel_level returns the highest kernel level the CPU and OS run.
int ragd_kernel_level(void);
// ragd_packed_len is the length in floats of a packed k x n matrix.
long ragd_packed_len(int k, int n);
// ragd_pack_b packs the k x n matrix B into out: B(i, j) is b[i*ldb + j],
// or b[j*ldb + i] when trans is nonzero.
void ragd_pack_b(int k, int n, const float *b, long ldb, int trans, float *out);
// ragd_sgemm_packed adds to c (m x n, row stride ldc) the product of a
// (m x k, row stride lda) and the packed k x n matrix bp, with the
// kernels of level (at least RAGD_KERNEL_AVX2).
void ragd_sgemm_packed(int level, int m, int n, int k, const float *a, long lda, const float *bp, float *c, long ldc);
// ragd_attention_scratch is the scratch length in floats of one head.
long ragd_attention_scratch(int n, int d);
// ragd_attention_head writes into ctx the attention of one head over n
// tokens: q, k, v and ctx hold n rows of d floats at row stride ld.
void ragd_attention_head(int level, int n, int d, long ld, const float *q, const float *k, const float *v, float *ctx, float scale, float *scratch);
// ragd_gelu applies GELU (erf form) to x's n floats in place.
void ragd_gelu(float *x, long n);

#endif
