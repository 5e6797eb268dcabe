package eval

import (
	"context"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb/sqlitedb"
	"github.com/ragd/ragd/search"
)

func TestTelemetrySet(t *testing.T) {
	ctx := context.Background()
	st := sqlitedb.OpenDims(t, testDims)
	p := randomCorpus(t, st, 11, 30)
	s := newSearcher(st, &vecEmbedder{vecs: map[string][]float32{}, rng: rand.New(rand.NewSource(12))})
	at := time.Now().Add(-time.Hour)
	s.Now = func() time.Time { at = at.Add(time.Second); return at }
	vote := func(resp *ragd.SearchResult, rank int, verdict search.Verdict) {
		t.Helper()
		if _, err := s.Feedback(ctx, search.FeedbackRequest{SearchID: *resp.SearchID, ChunkID: resp.Hits[rank-1].ChunkID, Verdict: verdict}); err != nil {
			t.Fatal(err)
		}
	}
	find := func(q string, purpose search.Purpose) *ragd.SearchResult {
		t.Helper()
		resp, err := s.Search(ctx, search.Request{ProjectID: p.ID, Query: q, Limit: 6, Purpose: purpose})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Hits) < 3 || resp.SearchID == nil {
			t.Fatalf("search %q: %d hits, id %v", q, len(resp.Hits), resp.SearchID)
		}
		return resp
	}
	a1 := find("alpha beta", search.PurposeSearch)
	vote(a1, 1, "useful")
	vote(a1, 2, "irrelevant")
	a2 := find("alpha beta", search.PurposeSearch) // same query again: merged
	vote(a2, 2, "useful")                          // the latest vote on that chunk wins
	b := find("gamma", search.PurposeSearch)
	vote(b, 3, "irrelevant")            // no useful vote: no relevant citation
	find("delta", search.PurposeSearch) // no vote: not a judged query
	e := find("alpha", search.PurposeEval)
	vote(e, 1, "useful") // an evaluation search never counts

	set, err := TelemetrySet(ctx, st, p.ID, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Queries) != 2 {
		t.Fatalf("%d queries, want 2 (alpha beta merged, gamma): %+v", len(set.Queries), set.Queries)
	}
	ab, g := set.Queries[0], set.Queries[1]
	if ab.Text != "alpha beta" || ab.Unit != UnitChunk || ab.Judged == nil {
		t.Errorf("query %+v", ab)
	}
	var rel []string
	for _, c := range ab.Relevant {
		rel = append(rel, c.ChunkID)
	}
	slices.Sort(rel)
	want := []string{a1.Hits[0].ChunkID, a2.Hits[1].ChunkID}
	slices.Sort(want)
	if !slices.Equal(slices.Compact(rel), slices.Compact(want)) {
		t.Errorf("relevant %v, want %v", rel, want)
	}
	if a1.Hits[1].ChunkID == a2.Hits[1].ChunkID && ab.Judged[a1.Hits[1].ChunkID] {
		t.Error("an older irrelevant vote overrides a later useful one")
	}
	if len(g.Relevant) != 0 || !g.Judged[b.Hits[2].ChunkID] {
		t.Errorf("gamma: %+v", g)
	}
	if c := set.Counts(); c.Judged != 1 || c.NoRelevant != 1 {
		t.Errorf("counts %+v", c)
	}

	// A window that ends before the votes holds none.
	empty, err := TelemetrySet(ctx, st, p.ID, time.Time{}, time.Now().Add(-2*time.Hour))
	if err != nil || len(empty.Queries) != 0 {
		t.Errorf("empty window: %v, %d queries", err, len(empty.Queries))
	}

	// The judged queries replay: the useful chunk ranks within the judged
	// ones.
	rs, err := Retrieve(ctx, s, set.Judged(), RetrieveOptions{ProjectID: p.ID, Depth: 100})
	if err != nil {
		t.Fatal(err)
	}
	sc := rs[0].Score(Mode{Signals: SignalsBoth, Config: search.DefaultConfig()})
	if sc.MRR10 == 0 {
		t.Errorf("scores %+v: the useful chunks are not found", sc)
	}
}
