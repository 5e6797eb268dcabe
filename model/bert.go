package model

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// bertConfig is the part of a BERT config.json the forward pass reads.
type bertConfig struct {
	Hidden       int     `json:"hidden_size"`
	Layers       int     `json:"num_hidden_layers"`
	Heads        int     `json:"num_attention_heads"`
	Intermediate int     `json:"intermediate_size"`
	MaxPositions int     `json:"max_position_embeddings"`
	Eps          float64 `json:"layer_norm_eps"`
	Act          string  `json:"hidden_act"`
	Type         string  `json:"model_type"`
}

// linear is a dense layer: y = x·Wᵀ + b, W stored [out][in] as PyTorch does.
// It holds Wᵀ either as is, [in][out] for gonum's row-major Sgemm (wt), or
// packed for the fast kernel (packed); the other is nil.
type linear struct {
	wt      []float32
	packed  []float32
	kern    kernel // packed's kernel
	b       []float32
	in, out int
}

// layerNorm is a layer normalization's scale and shift.
type layerNorm struct{ g, b []float32 }

// layer is one encoder layer.
type layer struct {
	q, k, v, attnOut linear
	attnNorm         layerNorm
	up, down         linear
	outNorm          layerNorm
}

// bert is a BERT encoder's weights.
type bert struct {
	cfg            bertConfig
	kern           kernel
	word, pos, typ []float32
	embNorm        layerNorm
	layers         []layer
}

// newBERT takes a BERT encoder's weights from tensors (names as
// transformers' BertModel saves them, with or without a "bert." prefix),
// for the kernels kern (the CPU must run them: at most bestKernel).
func newBERT(cfg bertConfig, ts map[string]tensor, kern kernel) (*bert, error) {
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("model config: %w", err)
	}
	var missing []string
	get := func(name string, shape ...int) []float32 {
		t, ok := ts[name]
		if !ok {
			t, ok = ts["bert."+name]
		}
		if !ok || len(t.shape) != len(shape) {
			missing = append(missing, fmt.Sprintf("%s %v", name, shape))
			return nil
		}
		for i := range shape {
			if shape[i] >= 0 && t.shape[i] != shape[i] {
				missing = append(missing, fmt.Sprintf("%s %v (has %v)", name, shape, t.shape))
				return nil
			}
		}
		return t.data
	}
	h, m := cfg.Hidden, cfg.Intermediate
	lin := func(prefix string, in, out int) linear {
		l := linear{b: get(prefix+".bias", out), in: in, out: out}
		w := get(prefix+".weight", out, in)
		switch {
		case w == nil: // reported
		case kern != kernelGo:
			l.kern, l.packed = kern, make([]float32, packedLen(in, out))
			packB(in, out, w, in, true, l.packed)
		default:
			l.wt = transpose(w, out, in)
		}
		return l
	}
	ln := func(prefix string) layerNorm {
		return layerNorm{g: get(prefix+".weight", h), b: get(prefix+".bias", h)}
	}
	b := &bert{
		cfg:     cfg,
		kern:    kern,
		word:    get("embeddings.word_embeddings.weight", -1, h),
		pos:     get("embeddings.position_embeddings.weight", cfg.MaxPositions, h),
		typ:     get("embeddings.token_type_embeddings.weight", -1, h),
		embNorm: ln("embeddings.LayerNorm"),
	}
	for i := range cfg.Layers {
		p := fmt.Sprintf("encoder.layer.%d.", i)
		b.layers = append(b.layers, layer{
			q:        lin(p+"attention.self.query", h, h),
			k:        lin(p+"attention.self.key", h, h),
			v:        lin(p+"attention.self.value", h, h),
			attnOut:  lin(p+"attention.output.dense", h, h),
			attnNorm: ln(p + "attention.output.LayerNorm"),
			up:       lin(p+"intermediate.dense", h, m),
			down:     lin(p+"output.dense", m, h),
			outNorm:  ln(p + "output.LayerNorm"),
		})
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("model weights: missing or misshapen tensors: %v", missing)
	}
	return b, nil
}

// embed returns the pooling of the last hidden states of ids (one
// sequence, no padding: their mean, or the first's, [CLS]), normalized to
// unit length. threads bounds the goroutines of its matrix products.
func (b *bert) embed(ids []int32, threads int, pool Pooling) []float32 {
	h, n := b.cfg.Hidden, len(ids)
	vocab := len(b.word) / h
	x := make([]float32, n*h)
	for t, id := range ids {
		if int(id) >= vocab || id < 0 {
			id = 0
		}
		row := x[t*h : (t+1)*h]
		w, p := b.word[int(id)*h:], b.pos[t*h:]
		for j := range row {
			row[j] = w[j] + p[j] + b.typ[j]
		}
	}
	b.norm(x, b.embNorm)
	q, k, v := make([]float32, n*h), make([]float32, n*h), make([]float32, n*h)
	ctx, tmp := make([]float32, n*h), make([]float32, n*h)
	up := make([]float32, n*b.cfg.Intermediate)
	for _, l := range b.layers {
		l.q.apply(q, x, n, threads)
		l.k.apply(k, x, n, threads)
		l.v.apply(v, x, n, threads)
		if b.kern != kernelGo {
			b.attentionFast(ctx, q, k, v, n, threads)
		} else {
			b.attention(ctx, q, k, v, n)
		}
		l.attnOut.apply(tmp, ctx, n, threads)
		addInto(x, tmp)
		b.norm(x, l.attnNorm)
		l.up.apply(up, x, n, threads)
		if b.kern != kernelGo {
			geluFast(up)
		} else {
			for i, u := range up {
				up[i] = float32(0.5 * float64(u) * (1 + math.Erf(float64(u)/math.Sqrt2)))
			}
		}
		l.down.apply(tmp, up, n, threads)
		addInto(x, tmp)
		b.norm(x, l.outNorm)
	}
	out := make([]float32, h)
	if pool == PoolCLS {
		copy(out, x[:h])
	} else {
		for t := range n {
			for j := range h {
				out[j] += x[t*h+j]
			}
		}
		for j := range out {
			out[j] /= float32(n)
		}
	}
	var ss float64
	for j := range out {
		ss += float64(out[j]) * float64(out[j])
	}
	inv := float32(1 / math.Sqrt(ss))
	for j := range out {
		out[j] *= inv
	}
	return out
}

// attention writes into ctx the multi-head self-attention of q, k, v
// (n tokens, no mask: every token of one unpadded sequence is real).
func (b *bert) attention(ctx, q, k, v []float32, n int) {
	h, heads := b.cfg.Hidden, b.cfg.Heads
	d := h / heads
	scale := float32(1 / math.Sqrt(float64(d)))
	scores := make([]float32, n)
	clear(ctx)
	for hd := range heads {
		off := hd * d
		for i := range n {
			qi := q[i*h+off : i*h+off+d]
			maxS := float32(math.Inf(-1))
			for j := range n {
				s := dot(qi, k[j*h+off:j*h+off+d]) * scale
				scores[j] = s
				maxS = max(maxS, s)
			}
			var sum float32
			for j := range n {
				e := float32(math.Exp(float64(scores[j] - maxS)))
				scores[j] = e
				sum += e
			}
			ci := ctx[i*h+off : i*h+off+d]
			for j := range n {
				p := scores[j] / sum
				vj := v[j*h+off : j*h+off+d]
				for c := range ci {
					ci[c] += p * vj[c]
				}
			}
		}
	}
}

// attentionFast is attention by the fast kernel, its heads spread over up
// to threads goroutines.
func (b *bert) attentionFast(ctx, q, k, v []float32, n, threads int) {
	h, heads := b.cfg.Hidden, b.cfg.Heads
	d := h / heads
	scale := float32(1 / math.Sqrt(float64(d)))
	per := attentionScratch(n, d)
	head := func(hd int, scratch []float32) {
		off := hd * d
		attentionHead(b.kern, n, d, h, q[off:], k[off:], v[off:], ctx[off:], scale, scratch)
	}
	workers := min(threads, heads)
	if workers <= 1 {
		scratch := make([]float32, per)
		for hd := range heads {
			head(hd, scratch)
		}
		return
	}
	scratch := make([]float32, per*workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			mine := scratch[w*per : (w+1)*per]
			for hd := int(next.Add(1) - 1); hd < heads; hd = int(next.Add(1) - 1) {
				head(hd, mine)
			}
		})
	}
	wg.Wait()
}

// norm layer-normalizes every row of x in place.
func (b *bert) norm(x []float32, ln layerNorm) {
	h := b.cfg.Hidden
	for r := 0; r < len(x); r += h {
		row := x[r : r+h]
		var mean float64
		for _, v := range row {
			mean += float64(v)
		}
		mean /= float64(h)
		var variance float64
		for _, v := range row {
			d := float64(v) - mean
			variance += d * d
		}
		inv := 1 / math.Sqrt(variance/float64(h)+b.cfg.Eps)
		for j, v := range row {
			row[j] = float32((float64(v)-mean)*inv)*ln.g[j] + ln.b[j]
		}
	}
}

// transpose returns the [cols][rows] transpose of a [rows][cols] matrix
// (nil for nil: a missing tensor, already reported).
func transpose(w []float32, rows, cols int) []float32 {
	if w == nil {
		return nil
	}
	t := make([]float32, len(w))
	for r := range rows {
		for c := range cols {
			t[c*rows+r] = w[r*cols+c]
		}
	}
	return t
}

func addInto(x, y []float32) {
	for i := range x {
		x[i] += y[i]
	}
}

// apply writes y = x·Wᵀ + b for n rows of x, in strips of at most
// stripRows×stripCols outputs spread over up to threads goroutines.
func (l linear) apply(y, x []float32, n, threads int) {
	type strip struct{ r, c int }
	var strips []strip
	for r := 0; r < n; r += stripRows {
		for c := 0; c < l.out; c += stripCols {
			strips = append(strips, strip{r, c})
		}
	}
	work := func(s strip, rows, cols int) {
		for t := s.r; t < s.r+rows; t++ {
			copy(y[t*l.out+s.c:t*l.out+s.c+cols], l.b[s.c:s.c+cols])
		}
		if l.packed != nil {
			sgemmPacked(l.kern, rows, cols, l.in, x[s.r*l.in:], l.in, l.packed[s.c*l.in:], y[s.r*l.out+s.c:], l.out)
			return
		}
		blas32.Implementation().Sgemm(blas.NoTrans, blas.NoTrans, rows, cols, l.in, 1,
			x[s.r*l.in:], l.in, l.wt[s.c:], l.out, 1, y[s.r*l.out+s.c:], l.out)
	}
	if l.packed != nil && threads <= 1 {
		// One call: the kernel blocks the whole product for the cache.
		work(strip{0, 0}, n, l.out)
		return
	}
	if threads <= 1 || len(strips) == 1 {
		for _, s := range strips {
			work(s, min(stripRows, n-s.r), min(stripCols, l.out-s.c))
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(threads, len(strips)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(strips); i = int(next.Add(1) - 1) {
				s := strips[i]
				work(s, min(stripRows, n-s.r), min(stripCols, l.out-s.c))
			}
		})
	}
	wg.Wait()
}

// stripRows and stripCols bound one call of gonum's Sgemm so that it stays
// on the calling goroutine (it goes parallel on all cores from 4 blocks of
// 64×64): the goroutines, hence the CPU share, are ragd's to bound. The
// fast kernel takes the same strips when threads > 1; stripCols is a
// multiple of its panel width (TestStripsFitPanels).
const (
	stripRows = 64
	stripCols = 3 * 64
)

// dot is the dot product of two equally long vectors.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}
