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
	m, err := model.Load(dir)
	if err != nil {
		t.Fatal(err)
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
	t.Logf("worst cosine with the reference over %d texts: %.6f", len(ref.Texts), worst)
}

// BenchmarkEmbedPassage measures one passage of the reference set (the
// longest), on one goroutine: chunks/s is 1/(ns/op).
func BenchmarkEmbedPassage(b *testing.B) {
	dir, ref := realModel(b)
	m, err := model.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	long := slices.MaxFunc(ref.Texts, func(x, y string) int { return len(x) - len(y) })
	b.ReportMetric(float64(len(ref.IDs[slices.Index(ref.Texts, long)])), "tokens")
	cpu := cpuTime(b)
	for b.Loop() {
		m.Embed(long, 1)
	}
	reportCPU(b, cpu)
}

// BenchmarkEmbedQuery measures a search query's embedding on one goroutine.
func BenchmarkEmbedQuery(b *testing.B) {
	dir, _ := realModel(b)
	m, err := model.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	cpu := cpuTime(b)
	for b.Loop() {
		m.Embed("how does ragd fuse the lexical and vector scores", 1)
	}
	reportCPU(b, cpu)
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
