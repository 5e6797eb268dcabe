package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/vectest"
	"github.com/ragd/ragd/search"
	"github.com/ragd/ragd/store"
)

// Queries of the table. The question's words, after stop words, are of mid
// and rare frequency; the frequent variant adds "w20", found in about two
// thirds of the chunks, which FTS5 must score in every one.
const (
	question     = "how is w4000 related to w700 and w300 in the index?"
	frequentQ    = "how is w4000 related to w700 and w20 in the index?"
	ftsFrequent  = `"w3"`
	ftsThreeWord = `"w20" OR "w700" OR "w4000"`
	candidates   = 12
)

// measurement is one row of the table: one corpus, one vector mode.
type measurement struct {
	Chunks int    `json:"chunks"`
	Mode   string `json:"mode"`
	Runs   int    `json:"runs"`
	// Latencies in milliseconds, p50 unless named.
	KNN, KNNp95           float64
	FTSFrequent, FTSThree float64
	Hybrid, HybridP95     float64
	HybridFrequent        float64
	HybridFrequentP95     float64
	HybridLexicalOnly     float64
	// The frequent-word question with every word searched (pruning off,
	// search.Searcher.KeepFrequentTerms), hybrid and lexical only, and
	// lexical only as searched (pruned).
	HybridFrequentWhole, HybridFrequentWholeP95 float64
	LexicalFrequent, LexicalFrequentWhole       float64
	IndexLoadMs                                 float64 `json:"indexLoadMs"`
	// Recall is recall@12 of the mode against the exact KNN, on the
	// corpus's random vectors: the worst case for a quantized first pass.
	Recall float64 `json:"recall"`
	RSSMB  float64 `json:"rssMb"`
	// RSSAnonMB is the process's own memory; the rest of RSSMB is pages of
	// the memory-mapped database, clean and shared with the page cache.
	RSSAnonMB float64 `json:"rssAnonMb"`
	DBMB      float64 `json:"dbMb"`
	Build     buildInfo
}

// runsFor bounds the iterations: two shared cores, and an exact KNN at 1M
// takes about half a second.
func runsFor(n int) int {
	switch {
	case n <= 10_000:
		return 200
	case n <= 100_000:
		return 100
	default:
		return 20
	}
}

// randomEmbedder returns a fresh random unit vector per query, so that no
// two searches scan with the same vector.
type randomEmbedder struct {
	mu sync.Mutex
	r  *rand.Rand
}

func (e *randomEmbedder) EmbedQuery(context.Context, string) ([]float32, bool, string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return vectest.RandomUnit(e.r, dims), true, ""
}

type nopRecorder struct{}

func (nopRecorder) RecordSearch(context.Context, ragd.SearchRecord) (int64, error) { return 1, nil }

func measureCmd(args []string) error {
	fs := flag.NewFlagSet("measure", flag.ContinueOnError)
	n := fs.Int("n", 10_000, "chunks")
	db := fs.String("db", "", "database path")
	mode := fs.String("mode", "exact", "vector search: exact or quantized")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx := context.Background()
	vm, err := store.ParseVectorMode(*mode)
	if err != nil {
		return err
	}
	t0 := time.Now()
	opened, err := store.Open(ctx, *db, store.Options{Space: space, Dims: dims, Logger: quiet, Vectors: vm})
	if err != nil {
		return err
	}
	var st benchStore = opened
	defer st.Close()
	if w, ok := st.(vectorIndexWaiter); ok {
		if err := w.WaitVectorIndex(ctx); err != nil {
			return err
		}
	}
	m := measurement{Chunks: *n, Mode: *mode, Runs: runsFor(*n), IndexLoadMs: ms(time.Since(t0))}
	p, err := st.Project(ctx, "bench")
	if err != nil {
		return err
	}
	filter := ragd.Filter{ProjectID: p.ID}
	r := rand.New(rand.NewSource(7))

	sn, err := st.Snapshot(ctx)
	if err != nil {
		return err
	}
	// Warm the page cache once: the figures are a serving daemon's.
	if _, err := sn.VectorCandidates(ctx, filter, vectest.RandomUnit(r, dims), candidates); err != nil {
		return err
	}
	m.KNN, m.KNNp95, err = timeIt(m.Runs, func() error {
		got, err := sn.VectorCandidates(ctx, filter, vectest.RandomUnit(r, dims), candidates)
		if err == nil && len(got) != candidates {
			err = fmt.Errorf("knn: %d candidates", len(got))
		}
		return err
	})
	if err != nil {
		return err
	}
	for _, q := range []struct {
		match string
		out   *float64
	}{{ftsFrequent, &m.FTSFrequent}, {ftsThreeWord, &m.FTSThree}} {
		if *q.out, _, err = timeIt(m.Runs, func() error {
			got, err := sn.LexicalCandidates(ctx, filter, q.match, candidates)
			if err == nil && len(got) != candidates {
				err = fmt.Errorf("fts %s: %d candidates", q.match, len(got))
			}
			return err
		}); err != nil {
			return err
		}
	}
	sn.Close()

	s := search.New(st, &randomEmbedder{r: rand.New(rand.NewSource(11))})
	s.Logger = quiet
	for _, q := range []struct {
		query    string
		emb      bool
		keep     bool
		p50, p95 *float64
	}{
		{question, true, false, &m.Hybrid, &m.HybridP95},
		{frequentQ, true, false, &m.HybridFrequent, &m.HybridFrequentP95},
		{question, false, false, &m.HybridLexicalOnly, new(float64)},
		{frequentQ, true, true, &m.HybridFrequentWhole, &m.HybridFrequentWholeP95},
		{frequentQ, false, false, &m.LexicalFrequent, new(float64)},
		{frequentQ, false, true, &m.LexicalFrequentWhole, new(float64)},
	} {
		s.Embedder = nil
		if q.emb {
			s.Embedder = &randomEmbedder{r: rand.New(rand.NewSource(11))}
		}
		s.KeepFrequentTerms = q.keep
		req := search.Request{ProjectID: p.ID, Query: q.query, Limit: search.DefaultLimit}
		if *q.p50, *q.p95, err = timeIt(m.Runs, func() error {
			resp, err := s.Search(ctx, req)
			if err == nil && (resp.SearchID == nil || len(resp.Hits) == 0) {
				err = fmt.Errorf("search %q: %d hits, search id %v", q.query, len(resp.Hits), resp.SearchID)
			}
			return err
		}); err != nil {
			return err
		}
	}
	m.RSSMB, m.RSSAnonMB = procStatus("VmRSS"), procStatus("RssAnon")
	m.DBMB = fileMB(*db, *db+"-wal")
	// Last: the exact scans it makes would count in the resident set.
	if sn, err = st.Snapshot(ctx); err != nil {
		return err
	}
	defer sn.Close()
	if m.Recall, err = recall(ctx, st, *db, filter, sn); err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(m)
}

// recallQueries bounds the exact scans of the recall check.
const recallQueries = 20

// recall compares the store's KNN on sn with an exact store's.
func recall(ctx context.Context, st benchStore, db string, filter ragd.Filter, sn ragd.Snapshot) (float64, error) {
	vm, ok := st.(vectorModer)
	if !ok {
		return 0, errors.New("recall: the engine does not say whether it searches vectors exactly")
	}
	if vm.VectorMode() == store.VectorsExact {
		return 1, nil
	}
	ex, err := store.Open(ctx, db, store.Options{Space: space, Dims: dims, Logger: quiet, Vectors: store.VectorsExact})
	if err != nil {
		return 0, err
	}
	defer ex.Close()
	esn, err := ex.Snapshot(ctx)
	if err != nil {
		return 0, err
	}
	defer esn.Close()
	r := rand.New(rand.NewSource(13))
	found := 0
	for range recallQueries {
		q := vectest.RandomUnit(r, dims)
		want, err := esn.VectorCandidates(ctx, filter, q, candidates)
		if err != nil {
			return 0, err
		}
		got, err := sn.VectorCandidates(ctx, filter, q, candidates)
		if err != nil {
			return 0, err
		}
		in := map[string]bool{}
		for _, c := range want {
			in[c.ChunkID] = true
		}
		for _, c := range got {
			if in[c.ChunkID] {
				found++
			}
		}
	}
	return float64(found) / float64(recallQueries*candidates), nil
}

// timeIt runs f runs times and returns the p50 and p95 in milliseconds.
func timeIt(runs int, f func() error) (p50, p95 float64, err error) {
	took := make([]float64, 0, runs)
	for range runs {
		t0 := time.Now()
		if err := f(); err != nil {
			return 0, 0, err
		}
		took = append(took, ms(time.Since(t0)))
	}
	slices.Sort(took)
	return pct(took, 0.50), pct(took, 0.95), nil
}

func pct(sorted []float64, p float64) float64 {
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func printTable(w io.Writer, ms []measurement) {
	fmt.Fprintln(w, "| chunks × 768 | vectors | KNN p50 (p95) | recall@12 | FTS frequent word | FTS 3-word OR | hybrid p50 / p95 | hybrid, frequent word p50 / p95 (every word searched) | lexical only p50 | lexical only, frequent word p50 (every word searched) | RSS serving (own + mapped file) | DB size | build (peak RSS) |")
	fmt.Fprintln(w, "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, m := range ms {
		fmt.Fprintf(w, "| %s | %s | %.1f (%.1f) ms | %.2f | %.1f ms | %.1f ms | %.1f / %.1f ms | %.1f / %.1f (%.1f / %.1f) ms | %.1f ms | %.1f (%.1f) ms | %.0f + %.0f MB | %.0f MB | %s (%.0f MB) |\n",
			human(m.Chunks), m.Mode, m.KNN, m.KNNp95, m.Recall, m.FTSFrequent, m.FTSThree, m.Hybrid, m.HybridP95,
			m.HybridFrequent, m.HybridFrequentP95, m.HybridFrequentWhole, m.HybridFrequentWholeP95, m.HybridLexicalOnly,
			m.LexicalFrequent, m.LexicalFrequentWhole, m.RSSAnonMB, m.RSSMB-m.RSSAnonMB, m.DBMB,
			time.Duration(m.Build.Seconds*float64(time.Second)).Round(time.Second), m.Build.PeakRSSMB)
	}
	fmt.Fprintf(w, "\n%d runs per figure at 10k, %d at 100k, %d at 1M; query embedding excluded, telemetry write included.\n",
		runsFor(10_000), runsFor(100_000), runsFor(1_000_000))
}

func human(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}
