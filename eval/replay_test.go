package eval

import (
	"context"
	"errors"
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb/sqlitedb"
	"github.com/ragd/ragd/search"
)

// replayConfigs are the settings the replay must reproduce: the default
// first.
func replayConfigs() []search.Config {
	def := search.DefaultConfig()
	rrf := def
	rrf.Fusion, rrf.Candidates = search.FusionRRF, 25
	minmax := def
	minmax.VectorWeight, minmax.LexicalWeight, minmax.Threshold = 0.3, 0.7, 0
	minmax.Normalization, minmax.Fill, minmax.Candidates = search.NormMinMax, true, 50
	maxNorm := def
	maxNorm.Normalization, maxNorm.Fill, maxNorm.Threshold = search.NormMax, true, 0.1
	noFill := minmax
	noFill.Fill = false
	return []search.Config{def, rrf, minmax, maxNorm, noFill}
}

func TestReplayMatchesSearch(t *testing.T) {
	ctx := context.Background()
	st := sqlitedb.OpenDims(t, testDims)
	p := randomCorpus(t, st, 1, 80)
	s := newSearcher(st, &vecEmbedder{vecs: map[string][]float32{}, rng: rand.New(rand.NewSource(2))})
	r := rand.New(rand.NewSource(3))
	compared := 0
	for range 40 {
		q := randomText(r, 1+r.Intn(4))
		ret, err := s.Candidates(ctx, search.CandidatesRequest{ProjectID: p.ID, Query: q, Depth: 100, Fill: true})
		if err != nil {
			t.Fatal(err)
		}
		for ci, cfg := range replayConfigs() {
			resp, err := s.Search(ctx, search.Request{ProjectID: p.ID, Query: q, Limit: search.MaxLimit, Config: &cfg, Purpose: search.PurposeEval})
			if err != nil {
				t.Fatal(err)
			}
			replayed := ret.Rank(ret.At(cfg.Depth(search.MaxLimit)), cfg)
			if len(replayed) > search.MaxLimit {
				replayed = replayed[:search.MaxLimit]
			}
			if len(replayed) != len(resp.Hits) {
				t.Fatalf("query %q, config %d (%s): replay has %d hits, Search %d", q, ci, cfg.Weights(), len(replayed), len(resp.Hits))
			}
			for i, h := range resp.Hits {
				f := replayed[i]
				if f.ChunkID != h.ChunkID || math.Abs(f.Score-h.Score) > 1e-6 {
					t.Fatalf("query %q, config %d (%s): hit %d: replay %s %.9f, Search %s %.9f",
						q, ci, cfg.Weights(), i+1, f.ChunkID, f.Score, h.ChunkID, h.Score)
				}
			}
			compared += len(resp.Hits)
		}
	}
	if compared < 500 {
		t.Fatalf("only %d hits compared: the corpus is too sparse to test anything", compared)
	}
}

// TestRetrieveModeMatchesSearch checks the path eval takes (Retrieve at
// depth 100 with fill, then a Mode) against Search with the default
// configuration: same top hits.
func TestRetrieveModeMatchesSearch(t *testing.T) {
	ctx := context.Background()
	st := sqlitedb.OpenDims(t, testDims)
	p := randomCorpus(t, st, 4, 60)
	s := newSearcher(st, &vecEmbedder{vecs: map[string][]float32{}, rng: rand.New(rand.NewSource(5))})
	r := rand.New(rand.NewSource(6))
	var queries []*Query
	for i := range 25 {
		queries = append(queries, &Query{ID: string(rune('a' + i)), Text: randomText(r, 1+r.Intn(3)), Unit: UnitSection})
	}
	rs, err := Retrieve(ctx, s, queries, RetrieveOptions{ProjectID: p.ID, Depth: 100, Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	def := search.DefaultConfig()
	mode := Mode{Name: "weighted", Signals: SignalsBoth, Config: def}
	for i, q := range queries {
		resp, err := s.Search(ctx, search.Request{ProjectID: p.ID, Query: q.Text, Limit: search.DefaultLimit, Purpose: search.PurposeEval})
		if err != nil {
			t.Fatal(err)
		}
		got := rs[i].Ranking(mode)
		for j, h := range resp.Hits {
			if j >= len(got) || got[j].ID != h.ChunkID {
				t.Fatalf("query %q: hit %d: Search %s, replay %v", q.Text, j+1, h.ChunkID, ids(got))
			}
		}
		if len(got) < len(resp.Hits) {
			t.Fatalf("query %q: replay has %d hits, Search %d", q.Text, len(got), len(resp.Hits))
		}
	}
}

func ids(cs []ragd.Chunk) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

// TestCandidatesRecordNothing: replaying never writes telemetry, and
// evaluation searches never count in measurements.
func TestCandidatesRecordNothing(t *testing.T) {
	ctx := context.Background()
	st := sqlitedb.OpenDims(t, testDims)
	p := randomCorpus(t, st, 7, 10)
	s := newSearcher(st, &vecEmbedder{vecs: map[string][]float32{}, rng: rand.New(rand.NewSource(8))})
	if _, err := s.Candidates(ctx, search.CandidatesRequest{ProjectID: p.ID, Query: "alpha beta", Depth: 50, Fill: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.LoadSearch(ctx, 1); !errors.Is(err, ragd.ErrNotFound) {
		t.Fatalf("after Candidates, search 1: %v, want not found (nothing recorded)", err)
	}
	if _, err := s.Search(ctx, search.Request{ProjectID: p.ID, Query: "alpha", Limit: 6, Purpose: search.PurposeEval}); err != nil {
		t.Fatal(err)
	}
	w, err := st.SearchTelemetry(ctx, ragd.TelemetryFilter{Until: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Searches) != 0 {
		t.Fatalf("an evaluation search counts in telemetry: %+v", w.Searches)
	}
}

func TestCandidatesBadInput(t *testing.T) {
	st := sqlitedb.OpenDims(t, testDims)
	p := randomCorpus(t, st, 9, 3)
	s := newSearcher(st, nil)
	for _, req := range []search.CandidatesRequest{
		{ProjectID: p.ID, Query: "", Depth: 10},
		{ProjectID: p.ID, Query: "alpha", Depth: 0},
		{ProjectID: p.ID, Query: "alpha", Depth: search.MaxCandidates + 1},
		{ProjectID: p.ID, Query: "alpha", Depth: 10, Scopes: []string{"nope"}},
	} {
		if _, err := s.Candidates(context.Background(), req); !errors.Is(err, ragd.ErrInvalid) {
			t.Errorf("%+v: %v, want ErrInvalid", req, err)
		}
	}
	// No embedder: lexical candidates only, and it says so.
	r, err := s.Candidates(context.Background(), search.CandidatesRequest{ProjectID: p.ID, Query: "alpha", Depth: 10, Fill: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.VectorAvailable || r.Reason == "" || len(r.Candidates.Vector) != 0 {
		t.Errorf("without embedder: available %v, reason %q, %d vector candidates", r.VectorAvailable, r.Reason, len(r.Candidates.Vector))
	}
}
