package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/search"
)

// syntheticBEIR writes a BEIR folder of docs topics: each document is about
// one topic (its words repeated among common words), and each query asks
// for a topic, judged relevant to that topic's documents.
func syntheticBEIR(tb testing.TB, docs int, seed int64) string {
	tb.Helper()
	r := rand.New(rand.NewSource(seed))
	var corpus, queries, qrels strings.Builder
	qrels.WriteString("query-id\tcorpus-id\tscore\n")
	topics := docs / 3
	for d := range docs {
		topic := d % topics
		words := []string{fmt.Sprintf("topic%dword", topic), fmt.Sprintf("theme%d", topic)}
		var text []string
		for range 20 + r.Intn(40) {
			if r.Intn(4) == 0 {
				text = append(text, words[r.Intn(2)])
			} else {
				text = append(text, vocabulary[r.Intn(len(vocabulary))])
			}
		}
		line, _ := json.Marshal(map[string]string{"_id": fmt.Sprintf("doc/%d", d), "title": "Doc " + fmt.Sprint(d), "text": strings.Join(text, " ")})
		corpus.Write(line)
		corpus.WriteByte('\n')
	}
	for q := range topics {
		line, _ := json.Marshal(map[string]string{"_id": fmt.Sprintf("q%d", q), "text": fmt.Sprintf("what about topic%dword and theme%d", q, q)})
		queries.Write(line)
		queries.WriteByte('\n')
		for d := q; d < docs; d += topics {
			fmt.Fprintf(&qrels, "q%d\tdoc/%d\t%d\n", q, d, 1+d%2)
		}
	}
	return writeBEIR(tb, map[string]string{"corpus.jsonl.gz": corpus.String(), "queries-test.jsonl": queries.String(), "qrels-test.tsv": qrels.String()})
}

func TestBEIRPipelineAndCalibration(t *testing.T) {
	ctx := context.Background()
	const dims = 32
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{"nomic-embed-text": dims}})
	embCfg := embedding.Config{Host: srv.URL, Model: "nomic-embed-text", Dims: dims, IndexTimeout: 30 * time.Second}
	dir := syntheticBEIR(t, 60, 1)
	b, err := LoadBEIR(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(t.TempDir(), "work")
	idx, err := OpenBEIRIndex(ctx, b, BEIRIndexOptions{Work: work, Embedding: embCfg, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if idx.RepoReused || !idx.Report.Complete || idx.Repo.Docs != 60 {
		t.Fatalf("first index: reused %v, report %s, %d docs", idx.RepoReused, idx.Report.Summary, idx.Repo.Docs)
	}
	qv, err := EmbedQueries(ctx, embCfg, idx.Store, b.Set.Judged())
	if err != nil {
		t.Fatal(err)
	}
	if !qv.Stats.Available || qv.Stats.Texts != 20 {
		t.Fatalf("query embedding: %+v", qv.Stats)
	}
	s := &search.Searcher{Store: idx.Store, Embedder: qv, Config: search.DefaultConfig(), Logger: quiet}
	rs, err := Retrieve(ctx, s, b.Set.Judged(), RetrieveOptions{ProjectID: idx.Project.ID, Depth: 100})
	if err != nil {
		t.Fatal(err)
	}
	if n, reason := VectorUnavailable(rs); n != 0 {
		t.Fatalf("%d queries without vector: %s", n, reason)
	}
	results := Evaluate(rs, StandardModes(search.DefaultConfig(), 100), 2)
	byName := map[string]*ModeResult{}
	for _, r := range results {
		byName[r.Name] = r
		for _, m := range Metrics {
			if v := r.Means[m]; math.IsNaN(v) || v < 0 || v > 1 {
				t.Errorf("%s %s = %v", r.Name, m, v)
			}
		}
	}
	// Each query's topic words are in its relevant documents only: bm25
	// finds all three.
	if lex := byName["lexical"]; lex.Means[NDCG10] < 0.95 || lex.Means[Recall100] != 1 {
		t.Errorf("lexical: %v", lex.Means)
	}
	comps := CompareModes(results, "lexical", Metrics, DefaultBootstrap())
	// Every mode but lexical against it on each metric (the seed's differs
	// from the default), rrf and the seed's against weighted on nDCG@10.
	if len(comps) != 4*len(Metrics)+2 {
		t.Errorf("%d comparisons", len(comps))
	}

	cal, err := Calibrate(rs, CalibrateOptions{Grid: DefaultGrid(), Holdout: 0.3, Current: search.DefaultConfig(), Bootstrap: DefaultBootstrap()})
	if err != nil {
		t.Fatal(err)
	}
	norms := len(search.Normalizations)
	if cal.Tried != 11*4*norms*2*4+4*4 || cal.Train+cal.HeldOut != 20 || cal.HeldOut == 0 {
		t.Errorf("calibration tried %d settings on %d + %d queries", cal.Tried, cal.Train, cal.HeldOut)
	}
	if cal.Best.Train.Means[NDCG10] < cal.Current.Train.Means[NDCG10] || cal.Best.Train.Means[NDCG10] != cal.Top[0].Train && cal.Best.Config != cal.Current.Config {
		t.Errorf("best %v is not the top of the training part (%v), current %v", cal.Best.Train.Means, cal.Top[0], cal.Current.Train.Means)
	}
	if len(cal.Comparisons) != 6 {
		t.Errorf("%d comparisons, want 3 per part", len(cal.Comparisons))
	}
	// The surface: one cell per depth, fill, normalisation and α, each the
	// best threshold on the training part, scored on the held-out part.
	if len(cal.Surface) != 4*2*norms*11 {
		t.Fatalf("%d surface cells", len(cal.Surface))
	}
	train, held := Split(rs, 0.3)
	for _, i := range []int{0, 100, len(cal.Surface) - 1} {
		c := cal.Surface[i]
		best := math.Inf(-1)
		for _, th := range DefaultGrid().Thresholds {
			cfg := search.Config{Fusion: search.FusionWeighted, VectorWeight: c.VectorWeight, LexicalWeight: round(1 - c.VectorWeight),
				Threshold: th, RRFK: search.DefaultConfig().RRFK, Candidates: c.Depth, Normalization: c.Normalization, Fill: c.Fill}
			tr := Evaluate(train, []Mode{{Signals: SignalsBoth, Config: cfg}}, 1)[0].Means[NDCG10]
			if tr > best {
				best = tr
				if c.Threshold != th {
					t.Errorf("cell %d: threshold %v, but %v scores better on train (%v)", i, c.Threshold, th, tr)
				}
				ho := Evaluate(held, []Mode{{Signals: SignalsBoth, Config: cfg}}, 1)[0].Means[NDCG10]
				if c.HeldOut == nil || math.Abs(*c.HeldOut-ho) > 1e-12 {
					t.Errorf("cell %d: held-out %v, want %v", i, c.HeldOut, ho)
				}
			}
		}
		if math.Abs(c.Train-best) > 1e-12 {
			t.Errorf("cell %d %+v: train %v, want %v", i, c, c.Train, best)
		}
		if c.Train > cal.Top[0].Train {
			t.Errorf("cell %d beats the top setting: %v > %v", i, c.Train, cal.Top[0].Train)
		}
	}

	var sb strings.Builder
	rep := &Report{Dataset: b.Set.Name, Modes: results, Comparisons: comps, Calibration: cal, Bootstrap: DefaultBootstrap()}
	rep.Detail(rs)
	if len(rep.Queries) != len(rs) || rep.Queries[0].ID != rs[0].Query.ID || len(rep.Queries[0].NDCG10) != len(results) {
		t.Fatalf("queries %d, want %d", len(rep.Queries), len(rs))
	}
	for j, m := range results {
		if v := rep.Queries[3].NDCG10[j]; v == nil || *v != m.Scores[3].NDCG10 {
			t.Errorf("query 3 under %s: %v, want %v", m.Name, v, m.Scores[3].NDCG10)
		}
		for _, metric := range Metrics {
			iv, ok := m.Intervals[metric]
			if !ok || math.Abs(iv.Mean-m.Means[metric]) > 1e-12 || iv.Low > iv.Mean || iv.High < iv.Mean {
				t.Errorf("%s %s: interval %+v, mean %v", m.Name, metric, iv, m.Means[metric])
			}
		}
	}
	if err := rep.WriteTable(&sb); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"lexical", "weighted", "rrf", "held-out", "best − current"} {
		if !strings.Contains(sb.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, sb.String())
		}
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Errorf("report JSON: %v", err)
	}
	idx.Close()

	// A second run reuses the repository and finds the index unchanged.
	calls := srv.Calls()
	again, err := OpenBEIRIndex(ctx, b, BEIRIndexOptions{Work: work, Embedding: embCfg, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if !again.RepoReused || !again.Report.Scopes[0].Unchanged || srv.Calls() != calls {
		t.Errorf("second run: reused %v, unchanged %v, %d more embed calls", again.RepoReused, again.Report.Scopes[0].Unchanged, srv.Calls()-calls)
	}
	again.Close()

	// Another corpus in the same work folder is refused; so is a folder
	// that is not an evaluation's.
	other, err := LoadBEIR(syntheticBEIR(t, 30, 2), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenBEIRIndex(ctx, other, BEIRIndexOptions{Work: work, Embedding: embCfg, Logger: quiet}); err == nil || !strings.Contains(err.Error(), "holds another corpus") {
		t.Errorf("another corpus: %v", err)
	}
	busy := t.TempDir()
	os.WriteFile(filepath.Join(busy, "notes.txt"), []byte("mine"), 0o644)
	if _, err := OpenBEIRIndex(ctx, other, BEIRIndexOptions{Work: busy, Embedding: embCfg, Logger: quiet}); err == nil || !strings.Contains(err.Error(), "not a ragd evaluation folder") {
		t.Errorf("unrelated folder: %v", err)
	}
}

func TestGridAndSplit(t *testing.T) {
	g := DefaultGrid()
	cs := g.Configs(search.DefaultConfig())
	weighted, rrf := 0, 0
	seen := map[search.Config]bool{}
	for _, c := range cs {
		if err := c.Validate(); err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if seen[c] {
			t.Fatalf("repeated %+v", c)
		}
		seen[c] = true
		if c.Fusion == search.FusionRRF {
			rrf++
		} else {
			weighted++
			if math.Abs(c.VectorWeight+c.LexicalWeight-1) > 1e-12 {
				t.Errorf("weights %v + %v ≠ 1", c.VectorWeight, c.LexicalWeight)
			}
		}
	}
	if weighted != 11*4*len(search.Normalizations)*2*4 || rrf != 4*4 || g.MaxDepth() != 100 {
		t.Errorf("%d weighted, %d rrf settings, max depth %d", weighted, rrf, g.MaxDepth())
	}
	if !seen[search.SeedConfig()] {
		t.Error("the seed's defaults are not in the grid")
	}
	if !seen[search.DefaultConfig()] {
		t.Error("the defaults are not in the grid")
	}
	var rs []*Retrieval
	for i := range 1000 {
		rs = append(rs, &Retrieval{Query: &Query{ID: fmt.Sprint(i)}})
	}
	train, held := Split(rs, 0.2)
	if len(held) < 150 || len(held) > 250 || len(train)+len(held) != 1000 {
		t.Errorf("split 0.2 of 1000: %d train, %d held out", len(train), len(held))
	}
	train2, held2 := Split(rs, 0.2)
	for i := range held {
		if held[i] != held2[i] {
			t.Fatal("the split is not deterministic")
		}
	}
	_ = train2
	if _, h := Split(rs, 0); len(h) != 0 {
		t.Error("holdout 0 holds out queries")
	}
}

func TestChangesCountsSettings(t *testing.T) {
	def := search.DefaultConfig()
	c := def
	if changes(c, def) != 0 {
		t.Error("no change counted as a change")
	}
	c.Threshold, c.Normalization = 0, search.NormMinMax
	if n := changes(c, def); n != 2 {
		t.Errorf("%d changes, want 2", n)
	}
	c.VectorWeight, c.LexicalWeight = 0.3, 0.7
	if n := changes(c, def); n != 3 {
		t.Errorf("%d changes, want 3 (the two weights count once)", n)
	}
	r := def
	r.Fusion, r.RRFK = search.FusionRRF, 10
	if n := changes(r, def); n != 2 {
		t.Errorf("%d changes, want 2 (fusion and k; RRF ignores the weights)", n)
	}
}
