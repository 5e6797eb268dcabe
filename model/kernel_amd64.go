//go:build cgo

package model

/*
#cgo LDFLAGS: -lm
#include "kernel_amd64.h"
*/
import "C"

import "fmt"

// bestKernel is the fastest kernel this CPU (and OS) runs: kernel_amd64.c's
// with AVX2 and FMA (and AVX-512 where it runs), else the portable Go path.
var bestKernel = kernel(C.ragd_kernel_level())

// The kernels of this build, by level as kernel_amd64.h numbers them.
const (
	kernelGo     kernel = C.RAGD_KERNEL_NONE
	kernelAVX2   kernel = C.RAGD_KERNEL_AVX2
	kernelAVX512 kernel = C.RAGD_KERNEL_AVX512
)

// panelWidth is the width of a packed panel of B (RAGD_NR): a column
// offset into a packed matrix must be a multiple of it.
const panelWidth = C.RAGD_NR

// packedLen returns the length of a packed k×n matrix, in floats.
func packedLen(k, n int) int { return int(C.ragd_packed_len(C.int(k), C.int(n))) }

// packB packs the k×n matrix B, B(i, j) = b[i*ldb+j] (or b[j*ldb+i] if
// trans), into out for sgemmPacked.
func packB(k, n int, b []float32, ldb int, trans bool, out []float32) {
	rows, cols := k, n
	if trans {
		rows, cols = n, k
	}
	need(b, rows, cols, ldb, "packB source")
	if len(out) < packedLen(k, n) {
		panic(fmt.Sprintf("model: packB into %d floats, %d×%d needs %d", len(out), k, n, packedLen(k, n)))
	}
	t := C.int(0)
	if trans {
		t = 1
	}
	C.ragd_pack_b(C.int(k), C.int(n), (*C.float)(&b[0]), C.long(ldb), t, (*C.float)(&out[0]))
}

// sgemmPacked adds to c (m×n, row stride ldc) the product of a (m×k, row
// stride lda) and the packed k×n matrix bp, with the kernels of kern (not
// kernelGo).
func sgemmPacked(kern kernel, m, n, k int, a []float32, lda int, bp []float32, c []float32, ldc int) {
	if m == 0 || n == 0 || k == 0 {
		return
	}
	need(a, m, k, lda, "sgemm a")
	need(c, m, n, ldc, "sgemm c")
	if len(bp) < packedLen(k, n) {
		panic(fmt.Sprintf("model: sgemm with a packed b of %d floats, %d×%d needs %d", len(bp), k, n, packedLen(k, n)))
	}
	C.ragd_sgemm_packed(C.int(kern), C.int(m), C.int(n), C.int(k), (*C.float)(&a[0]), C.long(lda), (*C.float)(&bp[0]), (*C.float)(&c[0]), C.long(ldc))
}

// attentionScratch returns the scratch floats attentionHead needs.
func attentionScratch(n, d int) int { return int(C.ragd_attention_scratch(C.int(n), C.int(d))) }

// attentionHead writes into ctx the attention of one head over n tokens:
// q, k, v and ctx hold n rows of d floats at row stride ld.
func attentionHead(kern kernel, n, d, ld int, q, k, v, ctx []float32, scale float32, scratch []float32) {
	for _, s := range [][]float32{q, k, v, ctx} {
		need(s, n, d, ld, "attention")
	}
	if len(scratch) < attentionScratch(n, d) {
		panic(fmt.Sprintf("model: attention scratch of %d floats, needs %d", len(scratch), attentionScratch(n, d)))
	}
	C.ragd_attention_head(C.int(kern), C.int(n), C.int(d), C.long(ld), (*C.float)(&q[0]), (*C.float)(&k[0]), (*C.float)(&v[0]),
		(*C.float)(&ctx[0]), C.float(scale), (*C.float)(&scratch[0]))
}

// geluFast applies GELU to x in place.
func geluFast(x []float32) {
	if len(x) > 0 {
		C.ragd_gelu((*C.float)(&x[0]), C.long(len(x)))
	}
}

// need panics unless s holds rows×cols floats at row stride ld: the C
// code trusts its bounds.
func need(s []float32, rows, cols, ld int, what string) {
	if rows <= 0 || cols <= 0 || ld < cols || len(s) < (rows-1)*ld+cols {
		panic(fmt.Sprintf("model: %s: %d floats do not hold %d×%d at stride %d", what, len(s), rows, cols, ld))
	}
}
