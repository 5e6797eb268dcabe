package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/migrations"
)

func floatPtr(f float64) *float64 { return &f }

// telemetryFixture is a store with one project and three docs chunks.
func telemetryFixture(t *testing.T) (*Store, ragd.Project, []string) {
	t.Helper()
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	in := []ragd.ChunkInput{
		docChunk("docs/a.md", 0, "alpha", []float32{1, 0, 0, 0}),
		docChunk("docs/a.md", 1, "beta", nil),
		docChunk("docs/b.md", 0, "gamma", []float32{0, 1, 0, 0}),
	}
	if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, in); err != nil {
		t.Fatal(err)
	}
	chunks, err := s.ScopeChunks(ctx, p.ID, ragd.ScopeDocs)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range chunks {
		ids = append(ids, c.ID)
	}
	return s, p, ids
}

func TestRecordSearch_RoundTrip(t *testing.T) {
	ctx := context.Background()
	s, p, ids := telemetryFixture(t)
	at := time.Date(2026, 11, 20, 10, 0, 0, 123, time.UTC)
	weights := json.RawMessage(`{"vector":0.6,"lexical":0.4,"threshold":0.2}`)
	rec := ragd.SearchRecord{
		ProjectID: p.ID, Query: "alpha beta", Scopes: []string{ragd.ScopeDocs},
		Hits: []ragd.TelemetryHit{
			{ChunkID: ids[0], Rank: 1, Score: 0.7, VectorScore: floatPtr(1), LexicalScore: floatPtr(0.25)},
			{ChunkID: ids[1], Rank: 2, Score: 0.3, LexicalScore: floatPtr(0.75)},
		},
		Weights: weights, Degraded: false, VectorAvailable: true, LatencyMs: 3.5,
		Actor: "person", CreatedAt: at,
	}
	id, err := s.RecordSearch(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.LoadSearch(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != id || got.ProjectID != p.ID || got.Query != rec.Query || got.Purpose != ragd.PurposeSearch ||
		got.SessionID != "" || !got.CreatedAt.Equal(at) || got.LatencyMs != 3.5 || !got.VectorAvailable || got.Degraded {
		t.Fatalf("round trip: %+v", got)
	}
	if string(got.Weights) != string(weights) {
		t.Errorf("weights %s, want them verbatim %s", got.Weights, weights)
	}
	if len(got.Hits) != 2 || got.Hits[1].VectorScore != nil || *got.Hits[1].LexicalScore != 0.75 || got.Hits[1].Rank != 2 {
		t.Errorf("hits %+v", got.Hits)
	}
	// Absent scores are null in the row, never 0; no session is NULL.
	var hits string
	var session any
	s.tdb.QueryRow("SELECT hits, session_id FROM rag_searches WHERE id = ?", id).Scan(&hits, &session)
	if want := `"vectorScore":null`; !strings.Contains(hits, want) {
		t.Errorf("hits JSON %s lacks %s", hits, want)
	}
	if session != nil {
		t.Errorf("session_id = %v, want NULL", session)
	}

	if _, err := s.LoadSearch(ctx, id+100); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("unknown search: %v", err)
	}
	if got, err := s.SearchProject(ctx, id); err != nil || got.ID != p.ID || got.Name != "p" {
		t.Errorf("project of the search: %+v %v", got, err)
	}
	if _, err := s.SearchProject(ctx, id+100); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("project of an unknown search: %v", err)
	}
}

func TestRecordSearch_Rejects(t *testing.T) {
	ctx := context.Background()
	s, p, _ := telemetryFixture(t)
	ok := ragd.SearchRecord{ProjectID: p.ID, Query: "q", Weights: json.RawMessage(`{}`), Actor: "person"}
	for name, mut := range map[string]func(*ragd.SearchRecord){
		"no actor":    func(r *ragd.SearchRecord) { r.Actor = "" },
		"bad weights": func(r *ragd.SearchRecord) { r.Weights = json.RawMessage(`{`) },
		"no weights":  func(r *ragd.SearchRecord) { r.Weights = nil },
		"bad purpose": func(r *ragd.SearchRecord) { r.Purpose = "other" },
	} {
		r := ok
		mut(&r)
		if _, err := s.RecordSearch(ctx, r); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := s.RecordSearch(ctx, ok); err != nil {
		t.Fatalf("valid record: %v", err)
	}
}

func TestRecordFeedback(t *testing.T) {
	ctx := context.Background()
	s, p, ids := telemetryFixture(t)
	id, err := s.RecordSearch(ctx, ragd.SearchRecord{
		ProjectID: p.ID, Query: "q", Weights: json.RawMessage(`{}`), Actor: "agent", SessionID: "s1",
		Hits: []ragd.TelemetryHit{{ChunkID: ids[2], Rank: 1, Score: 0.5}, {ChunkID: ids[0], Rank: 2, Score: 0.4}},
	})
	if err != nil {
		t.Fatal(err)
	}

	res, err := s.RecordFeedback(ctx, ragd.FeedbackInput{SearchID: id, ChunkID: ids[0], Verdict: "useful", Actor: "person"})
	if err != nil || res.Rank != 2 || res.Previous != "" {
		t.Fatalf("first vote: %+v %v", res, err)
	}
	res, err = s.RecordFeedback(ctx, ragd.FeedbackInput{SearchID: id, ChunkID: ids[0], Verdict: "irrelevant", Actor: "agent", SessionID: "s1"})
	if err != nil || res.Rank != 2 || res.Previous != "useful" {
		t.Fatalf("re-vote: %+v %v", res, err)
	}
	votes, err := s.SearchVotes(ctx, id)
	if err != nil || len(votes) != 1 {
		t.Fatalf("votes after re-vote: %+v %v", votes, err)
	}
	if v := votes[0]; v.Verdict != "irrelevant" || v.Rank != 2 || v.Actor != "agent" || v.SessionID != "s1" {
		t.Errorf("re-vote did not replace: %+v", v)
	}

	for name, tc := range map[string]struct {
		in   ragd.FeedbackInput
		want error
	}{
		"unknown search": {ragd.FeedbackInput{SearchID: id + 1, ChunkID: ids[0], Verdict: "useful", Actor: "person"}, ragd.ErrNotFound},
		"not in hits":    {ragd.FeedbackInput{SearchID: id, ChunkID: ids[1], Verdict: "useful", Actor: "person"}, ragd.ErrNotInHits},
		"unknown chunk":  {ragd.FeedbackInput{SearchID: id, ChunkID: "nope", Verdict: "useful", Actor: "person"}, ragd.ErrNotInHits},
	} {
		if _, err := s.RecordFeedback(ctx, tc.in); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", name, err, tc.want)
		}
	}
	if _, err := s.RecordFeedback(ctx, ragd.FeedbackInput{SearchID: id, ChunkID: ids[2], Verdict: "meh", Actor: "person"}); err == nil {
		t.Error("bad verdict accepted by the schema")
	}

	// A reindex that changes the chunk takes its votes and refuses new ones.
	if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, []ragd.ChunkInput{docChunk("docs/b.md", 0, "gamma changed", nil)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordFeedback(ctx, ragd.FeedbackInput{SearchID: id, ChunkID: ids[2], Verdict: "useful", Actor: "person"}); !errors.Is(err, ragd.ErrChunkGone) {
		t.Errorf("vote on a reindexed-away chunk: %v, want ErrChunkGone", err)
	}
	if votes, _ := s.SearchVotes(ctx, id); len(votes) != 0 {
		t.Errorf("votes on removed chunks survived: %+v", votes)
	}
}

func TestSearchTelemetry_Window(t *testing.T) {
	ctx := context.Background()
	s, p, ids := telemetryFixture(t)
	q := mustProject(t, s, "q")
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	add := func(project int64, at time.Duration, purpose string, hits int, vector bool) int64 {
		t.Helper()
		var hs []ragd.TelemetryHit
		for i := 0; i < hits; i++ {
			hs = append(hs, ragd.TelemetryHit{ChunkID: ids[i], Rank: i + 1, Score: 0.5})
		}
		id, err := s.RecordSearch(ctx, ragd.SearchRecord{
			ProjectID: project, Query: fmt.Sprintf("q at %s", at), Hits: hs, Weights: json.RawMessage(`{"v":1}`), Actor: "person",
			Purpose: purpose, Degraded: !vector, VectorAvailable: vector, LatencyMs: float64(at / time.Hour), CreatedAt: base.Add(at),
		})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	before := add(p.ID, -time.Nanosecond, ragd.PurposeSearch, 1, true)
	first := add(p.ID, 0, ragd.PurposeSearch, 2, true) // Since is inclusive
	eval := add(p.ID, time.Hour, ragd.PurposeEval, 3, true)
	other := add(q.ID, 2*time.Hour, ragd.PurposeSearch, 0, false)
	last := add(p.ID, 3*time.Hour, ragd.PurposeSearch, 3, false)
	after := add(p.ID, 4*time.Hour, ragd.PurposeSearch, 1, true) // Until is exclusive
	for _, v := range []struct {
		search int64
		chunk  string
	}{{before, ids[0]}, {first, ids[1]}, {eval, ids[0]}, {last, ids[2]}, {after, ids[0]}} {
		if _, err := s.RecordFeedback(ctx, ragd.FeedbackInput{SearchID: v.search, ChunkID: v.chunk, Verdict: "useful", Actor: "person"}); err != nil {
			t.Fatal(err)
		}
	}

	w, err := s.SearchTelemetry(ctx, ragd.TelemetryFilter{Since: base, Until: base.Add(4 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, r := range w.Searches {
		got = append(got, r.ID)
	}
	if want := []int64{first, other, last}; !slices.Equal(got, want) {
		t.Fatalf("searches %v, want %v (eval and out-of-window rows left out)", got, want)
	}
	if r := w.Searches[2]; r.Hits != 3 || r.VectorAvailable || !r.Degraded || r.LatencyMs != 3 || r.Weights != `{"v":1}` || r.ProjectID != p.ID || r.Query != "q at 3h0m0s" {
		t.Errorf("summary %+v", r)
	}
	if w.Searches[1].Hits != 0 {
		t.Errorf("zero-hit search counted %d hits", w.Searches[1].Hits)
	}
	if len(w.Votes) != 2 || w.Votes[0].SearchID != first || w.Votes[0].Rank != 2 || w.Votes[1].SearchID != last || w.Votes[1].Rank != 3 {
		t.Errorf("votes %+v", w.Votes)
	}

	w, err = s.SearchTelemetry(ctx, ragd.TelemetryFilter{ProjectID: q.ID, Since: base, Until: base.Add(4 * time.Hour)})
	if err != nil || len(w.Searches) != 1 || w.Searches[0].ID != other || len(w.Votes) != 0 {
		t.Fatalf("project filter: %+v %v", w, err)
	}
}

// Removing a project deletes its searches, the highest ids among them; the
// next search must still get an id never seen before, or a vote for an old
// id could land on it (issue 15 #8).
func TestRemoveProject_SearchIDsNotReused(t *testing.T) {
	ctx := context.Background()
	s, p, ids := telemetryFixture(t)
	var last int64
	for i := range 3 {
		id, err := s.RecordSearch(ctx, ragd.SearchRecord{
			ProjectID: p.ID, Query: fmt.Sprintf("q%d", i), Weights: json.RawMessage(`{}`), Actor: "person",
			Hits: []ragd.TelemetryHit{{ChunkID: ids[0], Rank: 1, Score: 0.5}},
		})
		if err != nil {
			t.Fatal(err)
		}
		last = id
	}
	if _, err := s.RecordFeedback(ctx, ragd.FeedbackInput{SearchID: last, ChunkID: ids[0], Verdict: "useful", Actor: "person"}); err != nil {
		t.Fatal(err)
	}
	gone, err := s.RemoveProject(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if gone.Searches != 3 || gone.Votes != 1 {
		t.Errorf("removal deleted %+v, want 3 searches and 1 vote", gone)
	}
	q := mustProject(t, s, "q")
	id, err := s.RecordSearch(ctx, ragd.SearchRecord{ProjectID: q.ID, Query: "new", Weights: json.RawMessage(`{}`), Actor: "person"})
	if err != nil {
		t.Fatal(err)
	}
	if id <= last {
		t.Fatalf("search id %d after removing searches up to %d: ids are reused", id, last)
	}
}

// A telemetry database made before search ids were AUTOINCREMENT keeps every
// search, its id and its votes through the migration that rebuilds the table,
// and from then on never reuses an id.
func TestTelemetryMigration_KeepsRowsIDsAndVotes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ragd.db")
	tpath := TelemetryPath(path)

	// A main database with a chunk to vote for, and beside it the telemetry
	// file as telemetry migration 0001 left it.
	s0, err := Open(ctx, path, Options{Space: "test/4", Dims: 4})
	if err != nil {
		t.Fatal(err)
	}
	p := mustProject(t, s0, "p")
	if _, err := s0.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, []ragd.ChunkInput{docChunk("docs/a.md", 0, "alpha", nil)}); err != nil {
		t.Fatal(err)
	}
	chunks, err := s0.ScopeChunks(ctx, p.ID, ragd.ScopeDocs)
	if err != nil || len(chunks) != 1 {
		t.Fatalf("chunks %+v, %v", chunks, err)
	}
	chunk := chunks[0].ID
	s0.Close()
	for _, f := range []string{tpath, tpath + "-wal", tpath + "-shm"} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	}
	all, err := loadMigrations(migrations.Telemetry)
	if err != nil {
		t.Fatal(err)
	}
	old, err := sql.Open(driverName, dsn(tpath, DefaultBusyTimeout, false))
	if err != nil {
		t.Fatal(err)
	}
	if err := (&Store{logger: slog.Default()}).applyMigrations(ctx, old, tpath, all[:1]); err != nil {
		t.Fatal(err)
	}
	if _, err := old.ExecContext(ctx, `INSERT INTO rag_searches (id, project_id, query, weights, degraded, vector_available, latency_ms, actor, created_at)
		VALUES (5, 1, 'five', '{}', 0, 1, 1.5, 'person', 't5'), (9, 1, 'nine', '{}', 1, 0, 2.5, 'agent', 't9')`); err != nil {
		t.Fatal(err)
	}
	if _, err := old.ExecContext(ctx, `INSERT INTO rag_feedback (search_id, chunk_id, rank, verdict, actor, created_at)
		VALUES (9, ?, 1, 'useful', 'person', 't')`, chunk); err != nil {
		t.Fatal(err)
	}
	old.Close()

	s := mustOpenAt(t, path, 4)
	var got []string
	rows, err := s.tdb.QueryContext(ctx, "SELECT id, query, degraded, actor FROM rag_searches ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, degraded int
		var query, actor string
		if err := rows.Scan(&id, &query, &degraded, &actor); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d %s %d %s", id, query, degraded, actor))
	}
	rows.Close()
	if want := []string{"5 five 0 person", "9 nine 1 agent"}; !slices.Equal(got, want) {
		t.Fatalf("searches after migration: %q, want %q", got, want)
	}
	if votes, err := s.SearchVotes(ctx, 9); err != nil || len(votes) != 1 || votes[0].ChunkID != chunk || votes[0].Verdict != "useful" {
		t.Fatalf("votes after migration: %+v, %v", votes, err)
	}
	// Delete the highest search: its id must not come back.
	if _, err := s.tdb.ExecContext(ctx, "DELETE FROM rag_searches WHERE id = 9"); err != nil {
		t.Fatal(err)
	}
	id, err := s.RecordSearch(ctx, ragd.SearchRecord{Query: "new", Weights: json.RawMessage(`{}`), Actor: "person"})
	if err != nil || id != 10 {
		t.Fatalf("next search id %d (err %v), want 10", id, err)
	}
	assertIntegrity(t, s)
}
