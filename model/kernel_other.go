//go:build !amd64 || !cgo

package model

// bestKernel is the Go path without cgo or off x86-64.
const bestKernel = kernelGo

// The kernels of a cgo build on x86-64; only kernelGo runs here.
const (
	kernelGo kernel = iota
	kernelAVX2
	kernelAVX512
)

// panelWidth is the packed panel width of the cgo build.
const panelWidth = 16

func packedLen(k, n int) int { panic("model: no fast kernel without cgo") }

func packB(k, n int, b []float32, ldb int, trans bool, out []float32) {
	panic("model: no fast kernel without cgo")
}

func sgemmPacked(kern kernel, m, n, k int, a []float32, lda int, bp []float32, c []float32, ldc int) {
	panic("model: no fast kernel without cgo")
}

func attentionScratch(n, d int) int { panic("model: no fast kernel without cgo") }

func attentionHead(kern kernel, n, d, ld int, q, k, v, ctx []float32, scale float32, scratch []float32) {
	panic("model: no fast kernel without cgo")
}

func geluFast(x []float32) { panic("model: no fast kernel without cgo") }
