package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// fastKernels returns the C kernels this CPU runs, skipping the test where
// there is none: there is nothing to compare the Go path with.
func fastKernels(t testing.TB) []kernel {
	t.Helper()
	if bestKernel == kernelGo {
		t.Skip("no fast kernel on this build or CPU (needs amd64, cgo, AVX2 and FMA)")
	}
	var ks []kernel
	for k := kernelAVX2; k <= bestKernel; k++ {
		ks = append(ks, k)
	}
	return ks
}

// kernelTol bounds the difference between two float32 evaluations of a
// sum of products whose absolute terms add up to abs: both round each
// partial sum (the fast kernel with fused multiply-adds, in another
// order), so they differ by a few units in the last place of abs.
func kernelTol(abs float64) float64 { return 1e-5*abs + 1e-30 }

func randSlice(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}

// gemmCase is one product c += a·B on strided storage, checked three
// ways: the fast kernel, gonum's Sgemm (the fallback) and float64.
type gemmCase struct {
	kern                      kernel
	m, n, k, padA, padB, padC int
	trans                     bool
	seed                      uint64
}

func (g gemmCase) String() string {
	return fmt.Sprintf("%v m=%d n=%d k=%d pads=%d,%d,%d trans=%v", g.kern, g.m, g.n, g.k, g.padA, g.padB, g.padC, g.trans)
}

func (g gemmCase) check(t *testing.T) {
	t.Helper()
	r := rand.New(rand.NewPCG(g.seed, 1))
	lda, ldc := g.k+g.padA, g.n+g.padC
	a := randSlice(r, g.m*lda)
	// B is k×n; stored transposed (n rows of k) when trans, as attention
	// packs its keys.
	brows, bcols := g.k, g.n
	if g.trans {
		brows, bcols = g.n, g.k
	}
	ldb := bcols + g.padB
	b := randSlice(r, brows*ldb)
	bAt := func(i, j int) float32 {
		if g.trans {
			return b[j*ldb+i]
		}
		return b[i*ldb+j]
	}
	c0 := randSlice(r, g.m*ldc)
	fast := append([]float32(nil), c0...)
	packed := make([]float32, packedLen(g.k, g.n))
	packB(g.k, g.n, b, ldb, g.trans, packed)
	sgemmPacked(g.kern, g.m, g.n, g.k, a, lda, packed, fast, ldc)

	slow := append([]float32(nil), c0...)
	tb := blas.NoTrans
	if g.trans {
		tb = blas.Trans
	}
	blas32.Implementation().Sgemm(blas.NoTrans, tb, g.m, g.n, g.k, 1, a, lda, b, ldb, 1, slow, ldc)

	bad := 0
	for i := range g.m {
		for j := range ldc {
			at := i*ldc + j
			if j >= g.n {
				if fast[at] != c0[at] {
					t.Errorf("%v: c[%d][%d] past the product's columns changed: %v, was %v", g, i, j, fast[at], c0[at])
					bad++
				}
				continue
			}
			exact, abs := float64(c0[at]), math.Abs(float64(c0[at]))
			for p := range g.k {
				x := float64(a[i*lda+p]) * float64(bAt(p, j))
				exact += x
				abs += math.Abs(x)
			}
			tol := kernelTol(abs)
			if d := math.Abs(float64(fast[at]) - float64(slow[at])); d > tol || math.Abs(float64(fast[at])-exact) > tol {
				t.Errorf("%v: c[%d][%d] fast %v, gonum %v, exact %v (tolerance %.3g)", g, i, j, fast[at], slow[at], exact, tol)
				bad++
			}
			if bad > 10 {
				t.Fatal("too many differences")
			}
		}
	}
}

// TestSgemmMatchesGonum checks the fast kernel against the fallback on the
// model's shapes and on edges of its 6×16 tile and 256-deep blocks.
func TestSgemmMatchesGonum(t *testing.T) {
	kerns := fastKernels(t)
	cases := []gemmCase{
		{m: 1, n: 1, k: 1},
		{m: 1, n: 384, k: 384},                           // a one-token text
		{m: 13, n: 384, k: 384},                          // a query
		{m: 13, n: 1536, k: 384},                         // its up projection
		{m: 13, n: 384, k: 1536, padA: 3},                // its down projection, strided
		{m: 256, n: 384, k: 384},                         // a passage
		{m: 256, n: 256, k: 64, padA: 320, trans: true},  // attention scores of a head
		{m: 256, n: 64, k: 256, padB: 320, padC: 320},    // attention context of a head
		{m: 6, n: 16, k: 256},                            // exactly one tile, one block
		{m: 7, n: 17, k: 257, padA: 1, padB: 2, padC: 5}, // one past each
		{m: 5, n: 15, k: 255, trans: true},               // one short of each
		{m: 12, n: 32, k: 512},
		{m: 11, n: 31, k: 513, padC: 1, trans: true},
		{m: 2, n: 3, k: 1000},
		{m: 12, n: 16, k: 1},                         // one AVX-512 tile
		{m: 24, n: 48, k: 300, padA: 1, padC: 2},     // two
		{m: 23, n: 47, k: 300, padB: 1, trans: true}, // one, and AVX2's rows and edges
	}
	r := rand.New(rand.NewPCG(36, 36))
	for range 40 {
		cases = append(cases, gemmCase{
			m: 1 + r.IntN(40), n: 1 + r.IntN(70), k: 1 + r.IntN(600),
			padA: r.IntN(3), padB: r.IntN(3), padC: r.IntN(3), trans: r.IntN(2) == 0,
		})
	}
	for _, k := range kerns {
		for i, c := range cases {
			c.kern, c.seed = k, uint64(i)
			c.check(t)
		}
	}
}

// FuzzSgemmShapes checks the fast kernel against the fallback and float64
// on any shape and strides.
func FuzzSgemmShapes(f *testing.F) {
	f.Add(uint8(1), uint8(1), uint16(1), uint8(0), uint8(0), uint8(0), false, uint64(0))
	f.Add(uint8(7), uint8(17), uint16(257), uint8(1), uint8(2), uint8(3), true, uint64(1))
	f.Add(uint8(6), uint8(16), uint16(256), uint8(0), uint8(0), uint8(0), false, uint64(2))
	f.Fuzz(func(t *testing.T, m, n uint8, k uint16, padA, padB, padC uint8, trans bool, seed uint64) {
		kerns := fastKernels(t)
		if m == 0 || n == 0 || k == 0 || k > 2048 {
			t.Skip("empty or deeper than the model's products")
		}
		kern := kerns[seed%uint64(len(kerns))]
		gemmCase{kern: kern, m: int(m), n: int(n), k: int(k), padA: int(padA % 8), padB: int(padB % 8), padC: int(padC % 8), trans: trans, seed: seed}.check(t)
	})
}

// TestLinearKernelsAgree runs a dense layer both ways on every strip
// split the thread counts make, tails of rows and columns included.
func TestLinearKernelsAgree(t *testing.T) {
	kerns := fastKernels(t)
	r := rand.New(rand.NewPCG(1, 2))
	for _, kern := range kerns {
		for _, sh := range []struct{ in, out int }{{384, 384}, {384, 1536}, {1536, 384}, {40, 200}} {
			w := randSlice(r, sh.out*sh.in)
			slow := linear{wt: transpose(w, sh.out, sh.in), b: randSlice(r, sh.out), in: sh.in, out: sh.out}
			fast := slow
			fast.wt, fast.kern, fast.packed = nil, kern, make([]float32, packedLen(sh.in, sh.out))
			packB(sh.in, sh.out, w, sh.in, true, fast.packed)
			for _, n := range []int{1, 13, 64, 65, 200} {
				x := randSlice(r, n*sh.in)
				want := make([]float32, n*sh.out)
				slow.apply(want, x, n, 1)
				for _, threads := range []int{1, 2, 3} {
					got := make([]float32, n*sh.out)
					fast.apply(got, x, n, threads)
					for i := range got {
						if d := math.Abs(float64(got[i] - want[i])); d > 1e-4*(1+math.Abs(float64(want[i]))) {
							t.Fatalf("%v %d→%d, %d rows, %d threads: y[%d] fast %v, Go %v", kern, sh.in, sh.out, n, threads, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestStripsFitPanels: the threaded fast path offsets packed weights by
// strip columns, so a strip must start on a panel.
func TestStripsFitPanels(t *testing.T) {
	if stripCols%panelWidth != 0 {
		t.Fatalf("stripCols %d is not a multiple of the panel width %d", stripCols, panelWidth)
	}
}

// TestAttentionKernelsAgree compares attention by the fast kernel (by
// head, over threads) with the Go loops, on sequence lengths around the
// tile and head widths that are not multiples of 8.
func TestAttentionKernelsAgree(t *testing.T) {
	kerns := fastKernels(t)
	r := rand.New(rand.NewPCG(3, 4))
	for _, kern := range kerns {
		for _, sh := range []struct{ hidden, heads int }{{384, 12}, {24, 2}, {36, 3}} {
			b := &bert{cfg: bertConfig{Hidden: sh.hidden, Heads: sh.heads}, kern: kern}
			for _, n := range []int{1, 2, 7, 16, 17, 50, 256} {
				q, k, v := randSlice(r, n*sh.hidden), randSlice(r, n*sh.hidden), randSlice(r, n*sh.hidden)
				want := make([]float32, n*sh.hidden)
				b.attention(want, q, k, v, n)
				for _, threads := range []int{1, 2, 5} {
					got := make([]float32, n*sh.hidden)
					b.attentionFast(got, q, k, v, n, threads)
					for i := range got {
						if d := math.Abs(float64(got[i] - want[i])); d > 1e-5*(1+math.Abs(float64(want[i]))) {
							t.Fatalf("%v hidden %d/%d heads, %d tokens, %d threads: ctx[%d] fast %v, Go %v", kern, sh.hidden, sh.heads, n, threads, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestGeluMatchesErf compares the fast GELU with float64's erf over the
// range a layer's activations take, the exponent's clamps, and every
// tail length of the 8-wide loop.
func TestGeluMatchesErf(t *testing.T) {
	fastKernels(t)
	var xs []float32
	for x := -12.0; x <= 12; x += 1.0 / 64 {
		xs = append(xs, float32(x))
	}
	xs = append(xs, 0, float32(math.Copysign(0, -1)), 1e-8, -1e-8, 50, -50, 1e4, -1e4, 3e38, -3e38)
	for tail := range 9 {
		in := xs[:len(xs)-tail]
		got := append([]float32(nil), in...)
		geluFast(got)
		for i, x := range in {
			want := 0.5 * float64(x) * (1 + math.Erf(float64(x)/math.Sqrt2))
			if d := math.Abs(float64(got[i]) - want); d > 2e-6*math.Max(1, math.Abs(want)) || math.IsNaN(float64(got[i])) {
				t.Fatalf("gelu(%v) = %v, want %v (tail %d)", x, got[i], want, tail)
			}
		}
	}
}

// TestEmbedKernelsAgree runs a small random BERT through both kernels:
// the whole forward pass, without the real weights.
func TestEmbedKernelsAgree(t *testing.T) {
	kerns := fastKernels(t)
	cfg := bertConfig{Hidden: 48, Layers: 2, Heads: 4, Intermediate: 96, MaxPositions: 300, Eps: 1e-12, Act: "gelu", Type: "bert"}
	r := rand.New(rand.NewPCG(5, 6))
	ts := randomBERT(r, cfg, 100, 0.2)
	slow, err := newBERT(cfg, ts, kernelGo)
	if err != nil {
		t.Fatal(err)
	}
	for _, kern := range kerns {
		fast, err := newBERT(cfg, ts, kern)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 2, 6, 7, 12, 33, 256} {
			ids := make([]int32, n)
			for i := range ids {
				ids[i] = int32(r.IntN(100))
			}
			want := slow.embed(ids, 1, PoolMean)
			for _, threads := range []int{1, 2} {
				got := fast.embed(ids, threads, PoolMean)
				var dot float64
				for i := range got {
					dot += float64(got[i]) * float64(want[i])
				}
				if dot < 0.99999 {
					t.Errorf("%v, %d tokens, %d threads: cosine of the fast and Go vectors %.7f", kern, n, threads, dot)
				}
			}
		}
	}
}

// randomBERT returns the tensors of a BERT of cfg and a vocabulary of
// vocab words, drawn from r in a fixed order, each value scaled by scale.
func randomBERT(r *rand.Rand, cfg bertConfig, vocab int, scale float32) map[string]tensor {
	h, m := cfg.Hidden, cfg.Intermediate
	ts := map[string]tensor{}
	add := func(name string, shape ...int) {
		n := 1
		for _, d := range shape {
			n *= d
		}
		data := randSlice(r, n)
		for i := range data {
			data[i] *= scale
		}
		ts[name] = tensor{shape: shape, data: data}
	}
	add("embeddings.word_embeddings.weight", vocab, h)
	add("embeddings.position_embeddings.weight", cfg.MaxPositions, h)
	add("embeddings.token_type_embeddings.weight", 2, h)
	add("embeddings.LayerNorm.weight", h)
	add("embeddings.LayerNorm.bias", h)
	for i := range cfg.Layers {
		p := fmt.Sprintf("encoder.layer.%d.", i)
		for _, l := range []struct {
			name    string
			in, out int
		}{{"attention.self.query", h, h}, {"attention.self.key", h, h}, {"attention.self.value", h, h}, {"attention.output.dense", h, h}, {"intermediate.dense", h, m}, {"output.dense", m, h}} {
			add(p+l.name+".weight", l.out, l.in)
			add(p+l.name+".bias", l.out)
		}
		for _, n := range []string{"attention.output.LayerNorm", "output.LayerNorm"} {
			add(p+n+".weight", h)
			add(p+n+".bias", h)
		}
	}
	return ts
}
