package main

import (
	"cmp"
	"context"
	"encoding/json"
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
	"github.com/ragd/ragd/engine"
	"github.com/ragd/ragd/internal/vectest"
	"github.com/ragd/ragd/search"
	"github.com/ragd/ragd/store"
)

// Queries of the table. The question's words, after stop words, are of mid
// and rare frequency; the frequent variant adds "w20", found in about two
// thirds of the chunks, which FTS5 must score in every one.
const (
	question   = "how is w4000 related to w700 and w300 in the index?"
	frequentQ  = "how is w4000 related to w700 and w20 in the index?"
	candidates = 12
)

// The lexical queries timed alone, every word searched (no pruning): a
// frequent word, and the frequent question's three words.
var (
	ftsFrequent  = lexicalQuery("w3")
	ftsThreeWord = lexicalQuery("w20", "w700", "w4000")
)

// lexicalQuery searches each of words (each its own token) with no pruning.
func lexicalQuery(words ...string) ragd.LexicalQuery {
	q := ragd.LexicalQuery{KeepFrequent: true}
	for _, w := range words {
		q.Terms = append(q.Terms, ragd.LexicalTerm{Word: w, Tokens: []string{w}})
	}
	return q
}

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
	db := fs.String("db", "", "database: a SQLite file's path or a postgres:// URL")
	mode := fs.String("mode", "exact", "vector search: exact or quantized (SQLite), hnsw (postgres://)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := checkDB(*db); err != nil {
		return err
	}
	ctx := context.Background()
	t0 := time.Now()
	st, err := openBench(ctx, *db, *mode)
	if err != nil {
		return err
	}
	defer st.Close()
	if w, ok := st.(engine.VectorIndexWaiter); ok {
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
		query ragd.LexicalQuery
		out   *float64
	}{{ftsFrequent, &m.FTSFrequent}, {ftsThreeWord, &m.FTSThree}} {
		if *q.out, _, err = timeIt(m.Runs, func() error {
			got, err := sn.LexicalCandidates(ctx, filter, q.query, candidates)
			if err == nil && len(got.Candidates) != candidates {
				err = fmt.Errorf("fts %s: %d candidates", got.Expression, len(got.Candidates))
			}
			return err
		}); err != nil {
			return err
		}
	}
	sn.Close()

	s := search.New(st, &randomEmbedder{r: rand.New(rand.NewSource(11))})
	s.Logger = quiet
	if *mode == hnswMode {
		// Measured when the engine ranked by ts_rank_cd, whose scores were
		// on another scale than bm25's: under the seed's saturation, with
		// random vectors, no fused score reached the 0.2 threshold and every
		// search ended with no hit before reading any chunk. Threshold 0
		// times the whole search, as a hit list of the real threshold
		// would; kept so docs/engines.md's PostgreSQL rows stay comparable
		// (its idf-weighted scores are on bm25's scale now).
		s.Config.Threshold = 0
	}
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
	if m.DBMB, err = dbMB(ctx, st, *db); err != nil {
		return err
	}
	// Last: the exact scans it makes would count in the resident set.
	if sn, err = st.Snapshot(ctx); err != nil {
		return err
	}
	defer sn.Close()
	if m.Recall, err = recall(ctx, st, *db, *n, filter, sn); err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(m)
}

// recallQueries bounds the exact scans of the recall check.
const recallQueries = 20

// recall compares the store's KNN on sn with an exact search: an exact
// store's on the same file (SQLite), or a scan of the corpus's vectors,
// rebuilt from its seed, for an engine without an exact mode (HNSW).
func recall(ctx context.Context, st engine.Store, db string, n int, filter ragd.Filter, sn ragd.Snapshot) (float64, error) {
	vm, ok := st.(vectorModer)
	if !ok {
		return scanRecall(ctx, n, filter, sn)
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
	return compareKNN(ctx, sn, filter, func(q []float32) ([]string, error) {
		want, err := esn.VectorCandidates(ctx, filter, q, candidates)
		ids := make([]string, len(want))
		for i, c := range want {
			ids[i] = c.ChunkID
		}
		return ids, err
	})
}

// corpusVector is one chunk of the corpus, as the exact scan reads it.
type corpusVector struct {
	id  string
	vec []float32
}

// scanRecall is recall against an exact scan of the corpus's n vectors,
// regenerated as build wrote them.
func scanRecall(ctx context.Context, n int, filter ragd.Filter, sn ragd.Snapshot) (float64, error) {
	all := make([]corpusVector, 0, n)
	err := corpus(n, func(scope string, in []ragd.ChunkInput) error {
		for i := range in {
			all = append(all, corpusVector{in[i].ID(filter.ProjectID, scope), in[i].Vector})
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return compareKNN(ctx, sn, filter, func(q []float32) ([]string, error) {
		type scored struct {
			id  string
			dot float32
		}
		best := make([]scored, 0, len(all))
		for _, c := range all {
			var d float32
			for i, x := range c.vec {
				d += x * q[i]
			}
			best = append(best, scored{c.id, d})
		}
		// Unit vectors: the largest dot product is the smallest cosine distance.
		slices.SortFunc(best, func(a, b scored) int { return cmp.Compare(b.dot, a.dot) })
		ids := make([]string, candidates)
		for i := range ids {
			ids[i] = best[i].id
		}
		return ids, nil
	})
}

// compareKNN is the share of exact's k nearest that sn's KNN finds, over
// recallQueries random queries.
func compareKNN(ctx context.Context, sn ragd.Snapshot, filter ragd.Filter, exact func(q []float32) ([]string, error)) (float64, error) {
	r := rand.New(rand.NewSource(13))
	found := 0
	for range recallQueries {
		q := vectest.RandomUnit(r, dims)
		want, err := exact(q)
		if err != nil {
			return 0, err
		}
		got, err := sn.VectorCandidates(ctx, filter, q, candidates)
		if err != nil {
			return 0, err
		}
		in := map[string]bool{}
		for _, id := range want {
			in[id] = true
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
	fmt.Fprintln(w, "| chunks × 768 | vectors | KNN p50 (p95) | recall@12 | FTS frequent word | FTS 3-word OR | hybrid p50 / p95 | hybrid, frequent word p50 / p95 (every word searched) | lexical only p50 | lexical only, frequent word p50 (every word searched) | RSS serving (own + mapped file) | DB size | build (peak RSS) | written |")
	fmt.Fprintln(w, "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, m := range ms {
		fmt.Fprintf(w, "| %s | %s | %.1f (%.1f) ms | %.2f | %.1f ms | %.1f ms | %.1f / %.1f ms | %.1f / %.1f (%.1f / %.1f) ms | %.1f ms | %.1f (%.1f) ms | %.0f + %.0f MB | %.0f MB | %s (%.0f MB) | %s |\n",
			human(m.Chunks), m.Mode, m.KNN, m.KNNp95, m.Recall, m.FTSFrequent, m.FTSThree, m.Hybrid, m.HybridP95,
			m.HybridFrequent, m.HybridFrequentP95, m.HybridFrequentWhole, m.HybridFrequentWholeP95, m.HybridLexicalOnly,
			m.LexicalFrequent, m.LexicalFrequentWhole, m.RSSAnonMB, m.RSSMB-m.RSSAnonMB, m.DBMB,
			time.Duration(m.Build.Seconds*float64(time.Second)).Round(time.Second), m.Build.PeakRSSMB, throughput(m.Build))
	}
	fmt.Fprintf(w, "\n%d runs per figure at 10k, %d at 100k, %d at 1M; query embedding excluded, telemetry write included.\n",
		runsFor(10_000), runsFor(100_000), runsFor(1_000_000))
}

// throughput is the build's chunks written per second of ReplaceScope,
// or "–" for a corpus built before that was recorded.
func throughput(b buildInfo) string {
	if b.WriteSeconds <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f chunks/s", float64(b.Chunks)/b.WriteSeconds)
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
