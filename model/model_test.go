package model_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/ragd/ragd/model"
)

// reference is what scripts/builtin-reference.py writes: the reference
// implementation's token ids and vectors for a set of texts.
type reference struct {
	Texts   []string    `json:"texts"`
	IDs     [][]int32   `json:"ids"`
	Vectors [][]float64 `json:"vectors"`
}

// realModel returns the installed model's folder and the reference file,
// from RAGD_BUILTIN_MODEL and RAGD_BUILTIN_REFERENCE (scripts/test.sh sets
// them after setup installed the weights); without them the test fails
// rather than pass unchecked, unless RAGD_BUILTIN_TESTS is unset.
func realModel(t testing.TB) (string, reference) {
	t.Helper()
	if os.Getenv("RAGD_BUILTIN_TESTS") == "" {
		t.Skip("the built-in model tier runs with RAGD_BUILTIN_TESTS=1 (scripts/test.sh)")
	}
	dir, refPath := os.Getenv("RAGD_BUILTIN_MODEL"), os.Getenv("RAGD_BUILTIN_REFERENCE")
	if dir == "" || refPath == "" {
		t.Fatal("RAGD_BUILTIN_TESTS=1 needs RAGD_BUILTIN_MODEL (the model folder) and RAGD_BUILTIN_REFERENCE (builtin-reference.py's output)")
	}
	b, err := os.ReadFile(refPath)
	if err != nil {
		t.Fatal(err)
	}
	var ref reference
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Texts) == 0 || len(ref.Texts) != len(ref.Vectors) || len(ref.Texts) != len(ref.IDs) {
		t.Fatalf("reference %s: %d texts, %d id lists, %d vectors", refPath, len(ref.Texts), len(ref.IDs), len(ref.Vectors))
	}
	return dir, ref
}

func TestTokenizerMatchesReference(t *testing.T) {
	dir, ref := realModel(t)
	tok, err := model.LoadTokenizer(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range ref.Texts {
		if got := tok.Encode(text, 256); !slices.Equal(got, ref.IDs[i]) {
			t.Errorf("text %d %.40q: ids\n got %v\nwant %v", i, text, got, ref.IDs[i])
		}
	}
}

// minCosine is the agreement asked of the built-in vectors with the
// reference implementation's (issue 36).
const minCosine = 0.999

func TestVectorsMatchReference(t *testing.T) {
	dir, ref := realModel(t)
	for _, kernel := range model.Kernels() {
		t.Run(kernel, func(t *testing.T) {
			m, err := model.LoadKernel(dir, kernel)
			if err != nil {
				t.Fatal(err)
			}
			if m.Kernel() != kernel {
				t.Fatalf("kernel %q, asked for %q", m.Kernel(), kernel)
			}
			if m.Dims() != len(ref.Vectors[0]) {
				t.Fatalf("dims %d, reference %d", m.Dims(), len(ref.Vectors[0]))
			}
			worst := 1.0
			for i, text := range ref.Texts {
				for _, threads := range []int{1, 2} {
					got := m.Embed(text, threads)
					var d, ng float64
					for j, v := range got {
						d += float64(v) * ref.Vectors[i][j]
						ng += float64(v) * float64(v)
					}
					if math.Abs(ng-1) > 1e-4 {
						t.Errorf("text %d: norm² %v, want 1", i, ng)
					}
					if d < minCosine {
						t.Errorf("text %d %.40q (%d threads): cosine with the reference %.5f < %v", i, text, threads, d, minCosine)
					}
					worst = min(worst, d)
				}
			}
			t.Logf("kernel %s: worst cosine with the reference over %d texts: %.6f", kernel, len(ref.Texts), worst)
		})
	}
}

// TestLoadPicksFastKernel checks that Load runs the fast kernel wherever
// it can: a CPU with AVX2 and FMA must not be left on the slow path.
func TestLoadPicksFastKernel(t *testing.T) {
	dir, _ := realModel(t)
	m, err := model.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := model.Kernels()[len(model.Kernels())-1]; m.Kernel() != want {
		t.Errorf("Load chose kernel %q, want %q", m.Kernel(), want)
	}
}

// BenchmarkEmbedPassage measures one passage of the reference set (the
// longest), on one goroutine, with each kernel: chunks/s is 1/(s/op).
func BenchmarkEmbedPassage(b *testing.B) {
	dir, ref := realModel(b)
	long := slices.MaxFunc(ref.Texts, func(x, y string) int { return len(x) - len(y) })
	benchKernels(b, dir, long, len(ref.IDs[slices.Index(ref.Texts, long)]))
}

// BenchmarkEmbedQuery measures a search query's embedding on one
// goroutine, with each kernel.
func BenchmarkEmbedQuery(b *testing.B) {
	dir, _ := realModel(b)
	benchKernels(b, dir, "how does ragd fuse the lexical and vector scores", 0)
}

// chunkChars is the length of BenchmarkEmbedChunks' texts: a ragd chunk
// of prose is about that long (and reaches the model's 256 tokens).
const chunkChars = 1000

// BenchmarkEmbedChunks embeds 16 chunks of 1000 characters of this
// repository's ADRs, one after another on one goroutine, with each kernel
// (the batch the lead timed through Ollama): chunks/s is its figure.
func BenchmarkEmbedChunks(b *testing.B) {
	dir, _ := realModel(b)
	paths, err := filepath.Glob("../docs/adr/*.md")
	if err != nil || len(paths) == 0 {
		b.Fatalf("no ADRs to cut chunks from: %v", err)
	}
	var text []rune
	for _, p := range paths {
		t, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		text = append(text, []rune(string(t))...)
	}
	var chunks []string
	for i := 0; len(chunks) < 16 && (i+1)*chunkChars <= len(text); i++ {
		chunks = append(chunks, string(text[i*chunkChars:(i+1)*chunkChars]))
	}
	if len(chunks) < 16 {
		b.Fatalf("%d runes of ADRs: fewer than 16 chunks", len(text))
	}
	for _, kernel := range model.Kernels() {
		b.Run("kernel="+kernel, func(b *testing.B) {
			m, err := model.LoadKernel(dir, kernel)
			if err != nil {
				b.Fatal(err)
			}
			cpu, start := cpuTime(b), time.Now()
			for b.Loop() {
				for _, c := range chunks {
					m.Embed(c, 1)
				}
			}
			n := float64(b.N * len(chunks))
			b.ReportMetric(float64(cpuTime(b)-cpu)/float64(time.Millisecond)/n, "cpu-ms/chunk")
			b.ReportMetric(n/time.Since(start).Seconds(), "chunks/s")
		})
	}
}

func benchKernels(b *testing.B, dir, text string, tokens int) {
	for _, kernel := range model.Kernels() {
		b.Run("kernel="+kernel, func(b *testing.B) {
			m, err := model.LoadKernel(dir, kernel)
			if err != nil {
				b.Fatal(err)
			}
			if tokens > 0 {
				b.ReportMetric(float64(tokens), "tokens")
			}
			cpu := cpuTime(b)
			for b.Loop() {
				m.Embed(text, 1)
			}
			reportCPU(b, cpu)
		})
	}
}

// cpuTime returns the process's user+system CPU time so far. On a shared
// machine the wall time of a benchmark measures the neighbours too; the
// CPU time spent per operation does not.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU milliseconds per operation since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime(b)-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}
