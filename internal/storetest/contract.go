package storetest

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd"
)

// The rest of the contract: what the embedding service, the daemon's
// start and the health and status routes ask of an engine.
var cacheTests = []subtest{
	{"stored, replaced, per space", testEmbeddingCache},
}

var profileTests = []subtest{
	{"random pair cosine", testRandomPairCosine},
	{"too few vectors", testRandomPairCosineFew},
}

var abandonTests = []subtest{
	{"running runs fail", testAbandonRuns},
}

var sessionStatsTests = []subtest{
	{"counts and unindexed", testSessionStats},
}

// testEmbeddingCache: embeddings read back by key within their space; a
// key stored again takes the new vector; another space sees none.
func testEmbeddingCache(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	if err := s.StoreEmbeddings(ctx, "m/3", map[string][]float32{"k1": {1, 2, 3}, "k2": {0.5, 0, -1}}); err != nil {
		t.Fatal(err)
	}
	if err := s.StoreEmbeddings(ctx, "m/3", map[string][]float32{"k1": {3, 2, 1}}); err != nil {
		t.Fatal(err)
	}
	got, err := s.LookupEmbeddings(ctx, "m/3", []string{"k1", "k2", "k3"})
	if err != nil || len(got) != 2 || len(got["k1"]) != 3 || got["k1"][0] != 3 || got["k2"][2] != -1 {
		t.Fatalf("lookup: %v, %v; want k1 [3 2 1] and k2 [0.5 0 -1]", got, err)
	}
	if other, err := s.LookupEmbeddings(ctx, "other/3", []string{"k1"}); err != nil || len(other) != 0 {
		t.Fatalf("another space's cache: %v, %v; want none", other, err)
	}
	if none, err := s.LookupEmbeddings(ctx, "m/3", nil); err != nil || len(none) != 0 {
		t.Fatalf("lookup of no keys: %v, %v", none, err)
	}
}

// testRandomPairCosine: four equal vectors measure two pairs (pairs are
// disjoint), each of cosine 1, however many pairs are asked for.
func testRandomPairCosine(t *testing.T, e *env) {
	s := e.store()
	p := e.project("p")
	var chunks []ragd.ChunkInput
	for _, path := range []string{"docs/a.md", "docs/b.md", "docs/c.md", "docs/d.md"} {
		chunks = append(chunks, docChunk(path, 0, "text "+path, unit(s, 0)))
	}
	e.replace(p.ID, ragd.ScopeDocs, chunks...)
	mean, n, err := s.RandomPairCosine(t.Context(), 10)
	if err != nil || n != 2 || math.Abs(mean-1) > 1e-6 {
		t.Fatalf("random pair cosine of equal vectors: %v over %d, %v; want 1 over 2", mean, n, err)
	}
}

// testRandomPairCosineFew: one vector makes no pair: nothing measured, no
// error.
func testRandomPairCosineFew(t *testing.T, e *env) {
	s := e.store()
	p := e.project("p")
	e.replace(p.ID, ragd.ScopeDocs, docChunk("docs/a.md", 0, "alone", unit(s, 1)))
	mean, n, err := s.RandomPairCosine(t.Context(), 10)
	if err != nil || n != 0 || mean != 0 {
		t.Fatalf("random pair cosine of one vector: %v over %d, %v; want 0 over 0", mean, n, err)
	}
}

// testAbandonRuns: the runs still running are marked failed (the report
// says they were interrupted) and counted; finished ones stay as they were.
func testAbandonRuns(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	p := e.project("p")
	done, err := s.StartRun(ctx, p.ID, ragd.ScopeDocs)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx, done.ID, ragd.RunOK, "c1", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.StartRun(ctx, p.ID, ragd.ScopeADR); err != nil {
		t.Fatal(err)
	}
	if n, err := s.AbandonRuns(ctx); err != nil || n != 1 {
		t.Fatalf("abandoned %d, %v; want 1", n, err)
	}
	if _, err := s.LastRun(ctx, p.ID, ragd.ScopeADR, ragd.RunRunning); !errors.Is(err, ragd.ErrNotFound) {
		t.Fatalf("a run is still running: %v", err)
	}
	last, err := s.LastRun(ctx, p.ID, ragd.ScopeADR, ragd.RunFailed)
	if err != nil || !strings.Contains(string(last.Report), "interrupted") || last.FinishedAt.IsZero() {
		t.Fatalf("failed run: %+v, %v; want finished, its report saying interrupted", last, err)
	}
	if ok, err := s.LastRun(ctx, p.ID, ragd.ScopeDocs, ragd.RunOK); err != nil || ok.ID != done.ID || ok.Commit != "c1" {
		t.Fatalf("the finished run changed: %+v, %v", ok, err)
	}
	if n, err := s.AbandonRuns(ctx); err != nil || n != 0 {
		t.Fatalf("abandoned again: %d, %v; want 0", n, err)
	}
}

// testSessionStats: sessions and messages of the given types, how many
// have a chunk, and how many without one were appended since a time.
func testSessionStats(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	p := e.project("p")
	types := []string{ragd.TypeChatMessage, ragd.TypeAgentResponse}
	if st, err := s.SessionStats(ctx, p.ID, types, time.Time{}); err != nil || st != (ragd.SessionStats{}) {
		t.Fatalf("empty log: %+v, %v", st, err)
	}
	response := message("a2", "s1", 1, "two")
	response.Type, response.Actor = ragd.TypeAgentResponse, ragd.ActorAgent
	events := []ragd.Event{message("a1", "s1", 0, "one"), response, message("b1", "s2", 0, "three"), toolCall("c1", "s3", 0)}
	if _, err := s.AppendEvents(ctx, p.ID, events); err != nil {
		t.Fatal(err)
	}
	e.replace(p.ID, ragd.ScopeSession, sessionChunk(events[0]))
	st, err := s.SessionStats(ctx, p.ID, types, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	// a1 has a chunk: of the three messages, two are unindexed; the tool
	// call is no message.
	if st.Sessions != 2 || st.SessionsIndexed != 1 || st.Messages != 3 || st.MessagesIndexed != 1 || st.UnindexedSince != 2 || st.LastAppended.IsZero() {
		t.Errorf("stats: %+v; want 2 sessions (1 indexed), 3 messages (1 indexed), 2 unindexed", st)
	}
	if later, err := s.SessionStats(ctx, p.ID, types, st.LastAppended); err != nil || later.UnindexedSince != 0 {
		t.Errorf("appended since the last one: %+v, %v; want 0 unindexed", later, err)
	}
	// A message appended with its chunk is indexed at once.
	e.appendSession(p.ID, message("b2", "s2", 2, "four"))
	if st, err := s.SessionStats(ctx, p.ID, types, time.Time{}); err != nil || st.Messages != 4 || st.MessagesIndexed != 2 || st.UnindexedSince != 2 {
		t.Errorf("after an indexed append: %+v, %v; want 4 messages, 2 indexed, 2 unindexed", st, err)
	}
}
