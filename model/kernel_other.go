//go:build !amd64 || !cgo

package model

// fastKernel is false without cgo or off x86-64: the forward pass uses the Go path.
const fastKernel = false

// fastKernelName names the kernel a cgo build may select.
const fastKernelName = "avx2"

// panelWidth is the packed panel width of the cgo build.
const panelWidth = 16

func packedLen(k, n int) int { panic("model: no fast kernel without cgo") }

func packB(k, n int, b []float32, ldb int, trans bool, out []float32) {
	panic("model: no fast kernel without cgo")
}

func sgemmPacked(m, n, k int, a []float32, lda int, bp []float32, c []float32, ldc int) {
	panic("model: no fast kernel without cgo")
}

func attentionScratch(n, d int) int { panic("model: no fast kernel without cgo") }

func attentionHead(n, d, ld int, q, k, v, ctx []float32, scale float32, scratch []float32) {
	panic("model: no fast kernel without cgo")
}

func geluFast(x []float32) { panic("model: no fast kernel without cgo") }
