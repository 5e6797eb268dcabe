package storetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/ragd/ragd"
)

var telemetryTests = []subtest{
	{"searches and votes read back", testTelemetry},
	{"search ids never reused", testSearchIDs},
}

// testTelemetry: a search row reads back as recorded; a vote is checked
// against the search's hits and the chunk's existence, replaces the voter's
// earlier vote, and is listed by rank; a window leaves out evaluations.
func testTelemetry(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	p := e.project("p")
	a, b := docChunk("docs/a.md", 0, "first hit", unit(s, 0)), docChunk("docs/a.md", 1, "second hit", unit(s, 1))
	e.replace(p.ID, ragd.ScopeDocs, a, b)
	aID, bID := chunkID(p.ID, ragd.ScopeDocs, a), chunkID(p.ID, ragd.ScopeDocs, b)
	vs, ls := 0.75, 3.5
	rec := ragd.SearchRecord{ProjectID: p.ID, Query: "which hit", Scopes: []string{ragd.ScopeDocs},
		Hits: []ragd.TelemetryHit{{ChunkID: aID, Rank: 1, Score: 0.9, VectorScore: &vs, LexicalScore: &ls},
			{ChunkID: bID, Rank: 2, Score: 0.5, VectorScore: &vs}},
		Weights: []byte(`{"vector":0.5,"lexical":0.5}`), Degraded: true, VectorAvailable: true, LatencyMs: 12.5,
		Actor: "agent:codex", SessionID: "s1", CreatedAt: at(0)}
	id, err := s.RecordSearch(ctx, rec)
	if err != nil || id <= 0 {
		t.Fatalf("record search: %d, %v", id, err)
	}
	got, err := s.LoadSearch(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != id || got.ProjectID != p.ID || got.Query != rec.Query || !slices.Equal(got.Scopes, rec.Scopes) ||
		len(got.Hits) != 2 || got.Hits[0].ChunkID != aID || got.Hits[0].Rank != 1 || got.Hits[0].Score != 0.9 ||
		got.Hits[0].VectorScore == nil || *got.Hits[0].VectorScore != vs || got.Hits[0].LexicalScore == nil || *got.Hits[0].LexicalScore != ls ||
		got.Hits[1].LexicalScore != nil || !jsonEqual(got.Weights, string(rec.Weights)) || !got.Degraded || !got.VectorAvailable ||
		got.LatencyMs != 12.5 || got.Actor != "agent:codex" || got.SessionID != "s1" || got.Purpose != ragd.PurposeSearch ||
		!got.CreatedAt.Equal(at(0)) {
		t.Errorf("search read back: %+v\nrecorded: %+v", got, rec)
	}

	vote := func(chunk, verdict, actor string) (ragd.FeedbackResult, error) {
		return s.RecordFeedback(ctx, ragd.FeedbackInput{SearchID: id, ChunkID: chunk, Verdict: verdict, Actor: actor, CreatedAt: at(1)})
	}
	if r, err := vote(bID, "useful", "person"); err != nil || r.Rank != 2 || r.Previous != "" {
		t.Errorf("first vote: %+v, %v", r, err)
	}
	if r, err := vote(bID, "irrelevant", "person"); err != nil || r.Previous != "useful" {
		t.Errorf("changed vote: %+v, %v; want the previous verdict useful", r, err)
	}
	if r, err := vote(aID, "useful", "person"); err != nil || r.Rank != 1 {
		t.Errorf("vote on the first hit: %+v, %v", r, err)
	}
	if _, err := vote("not-a-hit", "useful", "person"); !errors.Is(err, ragd.ErrNotInHits) {
		t.Errorf("vote on a chunk not among the hits: %v, want ErrNotInHits", err)
	}
	votes, err := s.SearchVotes(ctx, id)
	if err != nil || len(votes) != 2 || votes[0].ChunkID != aID || votes[0].Rank != 1 || votes[1].ChunkID != bID ||
		votes[1].Verdict != "irrelevant" || votes[1].Actor != "person" || votes[0].SearchID != id {
		t.Errorf("votes by rank: %+v, %v", votes, err)
	}
	// A reindex that changes the second hit takes its vote with it, and a
	// new vote on it is refused.
	e.replace(p.ID, ragd.ScopeDocs, docChunk("docs/a.md", 0, "first hit", nil), docChunk("docs/a.md", 1, "second hit, changed", nil))
	if _, err := vote(bID, "useful", "person"); !errors.Is(err, ragd.ErrChunkGone) {
		t.Errorf("vote on a chunk a reindex changed: %v, want ErrChunkGone", err)
	}
	votes, err = s.SearchVotes(ctx, id)
	if err != nil || len(votes) != 1 || votes[0].ChunkID != aID {
		t.Errorf("votes after the reindex: %+v, %v; want the kept chunk's", votes, err)
	}

	eval := rec
	eval.Purpose, eval.CreatedAt = ragd.PurposeEval, at(2)
	if _, err := s.RecordSearch(ctx, eval); err != nil {
		t.Fatal(err)
	}
	later := rec
	later.CreatedAt = at(10)
	if _, err := s.RecordSearch(ctx, later); err != nil {
		t.Fatal(err)
	}
	w, err := s.SearchTelemetry(ctx, ragd.TelemetryFilter{ProjectID: p.ID, Since: at(0), Until: at(5)})
	if err != nil || len(w.Searches) != 1 || w.Searches[0].ID != id || w.Searches[0].Hits != 2 || len(w.Votes) != 1 {
		t.Errorf("telemetry window [0, 5): %+v, %v; want the one search search (not the evaluation) and its vote", w, err)
	}
}

// testSearchIDs: a search id is never given twice: not after the rows are
// deleted with their project, not after the store is reopened.
func testSearchIDs(t *testing.T, e *env) {
	p := e.project("p")
	first := e.search(p.ID, "one")
	second := e.search(p.ID, "two")
	if second <= first {
		t.Errorf("search ids %d then %d: want increasing", first, second)
	}
	if _, err := e.store().RemoveProject(t.Context(), p.ID); err != nil {
		t.Fatal(err)
	}
	q := e.project("q")
	third := e.search(q.ID, "three")
	if third <= second {
		t.Errorf("search id %d after %d was deleted: reused", third, second)
	}
	e.reopen()
	fourth := e.search(q.ID, "four")
	if fourth <= third {
		t.Errorf("search id %d after a reopen, %d before", fourth, third)
	}
	if rec, err := e.store().LoadSearch(t.Context(), third); err != nil || rec.Query != "three" {
		t.Errorf("search %d after a reopen: %+v, %v", third, rec, err)
	}
}
