package search

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/store"
)

// benchDirs are the benchmark stores' directories, removed by TestMain: a
// 100k-chunk store is half a gigabyte.
var (
	benchMu      sync.Mutex
	benchDirs    []string
	benchCorpora = map[int]*benchCorpus{}
)

func TestMain(m *testing.M) {
	code := m.Run()
	benchMu.Lock()
	for _, dir := range benchDirs {
		os.RemoveAll(dir)
	}
	benchMu.Unlock()
	os.Exit(code)
}

type benchCorpus struct {
	st      *store.Store
	project int64
}

// benchContent makes about 1200 characters (a real chunk's size) of words
// drawn from a Zipf distribution over a 50k vocabulary, as store's benchmarks
// do: "w1" is as common as "the", "w5000" as rare as a technical term.
func benchContent(z *rand.Zipf) string {
	b := make([]byte, 0, 1300)
	for len(b) < 1200 {
		b = append(b, 'w')
		b = strconv.AppendUint(b, z.Uint64()+1, 10)
		b = append(b, ' ')
	}
	return string(b)
}

// corpusOf builds, once per process, a store of n chunks of 768 dims spread
// over the three scopes, written through ReplaceScope.
func corpusOf(b *testing.B, n int) *benchCorpus {
	b.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	if c, ok := benchCorpora[n]; ok {
		return c
	}
	dir, err := os.MkdirTemp("", "ragd-search-bench-")
	if err != nil {
		b.Fatal(err)
	}
	benchDirs = append(benchDirs, dir)
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(dir, "bench.db"), store.Options{Space: "bench/768", Dims: 768, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	p, err := st.AddProject(ctx, "bench", "/bench")
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewSource(42))
	z := rand.NewZipf(r, 1.07, 2, 50_000)
	start := time.Now()
	for i, scope := range ragd.Scopes {
		var in []ragd.ChunkInput
		for j := i * n / 3; j < (i+1)*n/3; j++ {
			content := benchContent(z)
			c := ragd.ChunkInput{Position: j, Content: content, ContentHash: strconv.Itoa(j), Vector: randomUnit(r, 768)}
			if scope == ragd.ScopeSession {
				c.SessionID, c.EventID = fmt.Sprintf("s%04d", j/100), fmt.Sprintf("e%06d", j)
			} else {
				c.SourcePath = fmt.Sprintf("docs/%s/f%04d.md", scope, j/100)
			}
			in = append(in, c)
		}
		if _, err := st.ReplaceScope(ctx, p.ID, scope, in); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("built %d chunks in %s", n, time.Since(start).Round(time.Second))
	c := &benchCorpus{st: st, project: p.ID}
	benchCorpora[n] = c
	return c
}

// nopRecorder stands in for the telemetry write, to measure a search
// without the cost that write puts on the next read (see BenchmarkSearch).
type nopRecorder struct{}

func (nopRecorder) RecordSearch(context.Context, ragd.SearchRecord) (int64, error) { return 1, nil }

// BenchmarkSearch times full searches (validation, both candidate queries on
// one snapshot, fusion, chunk loading, telemetry write) with a fake embedder
// returning a fixed vector, so the model's time is excluded. It reports the
// p50 and p95 of the iterations; run with -benchtime=200x for stable tails.
//
// Modes: "hybrid" is the default configuration on a question whose words
// (after stop words) are of mid and rare frequency; "frequent_word" adds a
// word found in two thirds of the chunks, which FTS5 must score in every one;
// "no_telemetry_write" skips the row write: any commit makes each read
// connection drop its page cache and memory map at its next transaction, so
// the search after a write re-reads every vector from the page cache.
func BenchmarkSearch(b *testing.B) {
	const (
		question = "how is w4000 related to w700 and w300 in the index?"
		frequent = "how is w4000 related to w700 and w20 in the index?"
	)
	for _, n := range []int{10_000, 100_000} {
		for _, mode := range []struct {
			name   string
			query  string
			emb    bool
			record bool
			cfg    func(*Config)
		}{
			{"hybrid", question, true, true, func(*Config) {}},
			{"hybrid_frequent_word", frequent, true, true, func(*Config) {}},
			{"hybrid_no_telemetry_write", question, true, false, func(*Config) {}},
			{"hybrid_fill_minmax", question, true, true, func(c *Config) { c.Fill = true; c.Normalization = NormMinMax }},
			{"lexical_only", question, false, true, func(*Config) {}},
		} {
			b.Run(fmt.Sprintf("%dx768/%s", n, mode.name), func(b *testing.B) {
				c := corpusOf(b, n)
				var emb Embedder
				if mode.emb {
					emb = upEmbedder(randomUnit(rand.New(rand.NewSource(1)), 768))
				}
				s := searcher(c.st, emb)
				if !mode.record {
					s.Recorder = nopRecorder{}
				}
				mode.cfg(&s.Config)
				req := Request{ProjectID: c.project, Query: mode.query, Limit: DefaultLimit}
				ctx := context.Background()
				var took []float64
				b.ReportAllocs()
				for b.Loop() {
					t0 := time.Now()
					resp, err := s.Search(ctx, req)
					took = append(took, float64(time.Since(t0).Microseconds())/1000)
					if err != nil || resp.SearchID == nil || len(resp.Hits) == 0 {
						b.Fatalf("search: %v", err)
					}
				}
				slices.Sort(took)
				b.ReportMetric(*percentile(took, 0.50), "p50-ms")
				b.ReportMetric(*percentile(took, 0.95), "p95-ms")
			})
		}
	}
}
