package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/ragd/ragd"
)

func recordSearch(t testing.TB, s *Store, projectID int64, hits ...string) int64 {
	t.Helper()
	rec := ragd.SearchRecord{ProjectID: projectID, Query: "fox", Weights: json.RawMessage(`{"vector":0.5}`), Actor: "cli", LatencyMs: 1.5}
	for i, h := range hits {
		rec.Hits = append(rec.Hits, ragd.TelemetryHit{ChunkID: h, Rank: i + 1, Score: 1})
	}
	id, err := s.RecordSearch(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestTelemetryPerOwner(t *testing.T) {
	alice, url := openTest(t, Options{Owner: "alice"})
	bob := openAt(t, url, Options{Owner: "bob"})
	ctx := context.Background()
	p := addProject(t, alice, "demo")
	addProject(t, bob, "demo")
	c := doc("a.md", 0, "fox", nil)
	replace(t, alice, p.ID, ragd.ScopeDocs, c, doc("b.md", 0, "dog", nil))
	id := idOf(c, p.ID, ragd.ScopeDocs)

	start := time.Now().Add(-time.Minute)
	sa := recordSearch(t, alice, p.ID, id, "not-a-hit-chunk")
	sb := recordSearch(t, bob, p.ID, id)
	rec, err := alice.LoadSearch(ctx, sa)
	if err != nil || rec.Query != "fox" || len(rec.Hits) != 2 || string(rec.Weights) != `{"vector":0.5}` || rec.ProjectID != p.ID {
		t.Fatalf("load search: %+v, %v", rec, err)
	}
	if _, err := alice.LoadSearch(ctx, sb); !errors.Is(err, ragd.ErrNotFound) {
		t.Fatalf("alice loads bob's search: %v, want ErrNotFound", err)
	}
	if got, err := alice.SearchProject(ctx, sa); err != nil || got.ID != p.ID {
		t.Fatalf("search project: %+v, %v", got, err)
	}

	res, err := alice.RecordFeedback(ctx, ragd.FeedbackInput{SearchID: sa, ChunkID: id, Verdict: "useful", Actor: "cli"})
	if err != nil || res.Rank != 1 || res.Previous != "" {
		t.Fatalf("vote: %+v, %v", res, err)
	}
	res, err = alice.RecordFeedback(ctx, ragd.FeedbackInput{SearchID: sa, ChunkID: id, Verdict: "irrelevant", Actor: "cli"})
	if err != nil || res.Previous != "useful" {
		t.Fatalf("re-vote: %+v, %v", res, err)
	}
	for _, tc := range []struct {
		in   ragd.FeedbackInput
		want error
	}{
		{ragd.FeedbackInput{SearchID: sa, ChunkID: "other", Verdict: "useful", Actor: "cli"}, ragd.ErrNotInHits},
		{ragd.FeedbackInput{SearchID: sa, ChunkID: "not-a-hit-chunk", Verdict: "useful", Actor: "cli"}, ragd.ErrChunkGone},
		{ragd.FeedbackInput{SearchID: sb, ChunkID: id, Verdict: "useful", Actor: "cli"}, ragd.ErrNotFound},
		{ragd.FeedbackInput{SearchID: 1 << 40, ChunkID: id, Verdict: "useful", Actor: "cli"}, ragd.ErrNotFound},
	} {
		if _, err := alice.RecordFeedback(ctx, tc.in); !errors.Is(err, tc.want) {
			t.Errorf("vote %+v: %v, want %v", tc.in, err, tc.want)
		}
	}
	if _, err := bob.RecordFeedback(ctx, ragd.FeedbackInput{SearchID: sb, ChunkID: id, Verdict: "useful", Actor: "cli"}); err != nil {
		t.Fatal(err)
	}
	votes, err := alice.SearchVotes(ctx, sa)
	if err != nil || len(votes) != 1 || votes[0].Verdict != "irrelevant" {
		t.Fatalf("alice's votes: %+v, %v", votes, err)
	}
	if votes, _ := alice.SearchVotes(ctx, sb); len(votes) != 0 {
		t.Fatalf("alice reads bob's votes: %+v", votes)
	}
	w, err := alice.SearchTelemetry(ctx, ragd.TelemetryFilter{Since: start, Until: time.Now().Add(time.Minute)})
	if err != nil || len(w.Searches) != 1 || w.Searches[0].ID != sa || w.Searches[0].Hits != 2 || len(w.Votes) != 1 {
		t.Fatalf("alice's telemetry: %+v, %v", w, err)
	}
	if w, _ := alice.SearchTelemetry(ctx, ragd.TelemetryFilter{ProjectID: p.ID + 1, Since: start, Until: time.Now().Add(time.Minute)}); len(w.Searches) != 0 {
		t.Fatalf("telemetry of another project: %+v", w)
	}
	// A reindex that drops the chunk drops its votes.
	replace(t, alice, p.ID, ragd.ScopeDocs, doc("b.md", 0, "dog", nil))
	if votes, _ := alice.SearchVotes(ctx, sa); len(votes) != 0 {
		t.Fatalf("votes on a removed chunk: %+v", votes)
	}
}

// Search ids are never handed out twice, even once the newest searches
// are deleted (by a project's removal).
func TestSearchIDsNeverReused(t *testing.T) {
	s, url := openTest(t, Options{})
	ctx := context.Background()
	p := addProject(t, s, "gone")
	keep := addProject(t, s, "kept")
	first := recordSearch(t, s, keep.ID)
	var last int64
	for range 3 {
		last = recordSearch(t, s, p.ID)
	}
	gone, err := s.RemoveProject(ctx, p.ID)
	if err != nil || gone.Searches != 3 {
		t.Fatalf("remove project: %+v, %v; want 3 searches removed", gone, err)
	}
	next := recordSearch(t, s, keep.ID)
	if next <= last || next <= first {
		t.Fatalf("search id %d after deleting up to %d: reused", next, last)
	}
	s.Close()
	s2 := openAt(t, url, Options{})
	if again := recordSearch(t, s2, keep.ID); again <= next {
		t.Fatalf("search id %d after reopening, last was %d", again, next)
	}
}
