package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
)

// TestForgetSession: a forgotten session's events, chunks and votes go in
// one step, the other session stays, and the session is remembered as
// forgotten, for every owner's imports.
func TestForgetSession(t *testing.T) {
	ctx := context.Background()
	s, url := openTest(t, Options{})
	p := sessProject(t, s, "p")
	g1 := ev("g1", "gone", "chat.message", "forget these words", 0)
	g2 := ev("g2", "gone", "tool.call", "", time.Second)
	k1 := ev("k1", "stays", "chat.message", "keep this", 0)
	if _, err := s.AppendSession(ctx, p, []ragd.Event{g1, g2, k1}, testdb.ChunksOf(g1, g2, k1)); err != nil {
		t.Fatal(err)
	}
	// A vote on one of its chunks.
	gone := testdb.WordChunks(g1)[0].ID(p, ragd.ScopeSession)
	var search int64
	if err := s.pool.QueryRow(ctx, `INSERT INTO rag_searches (owner, query, weights, degraded, vector_available, latency_ms, actor)
		VALUES ('alice', 'q', '{}', false, true, 1, 'person') RETURNING id`).Scan(&search); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO rag_feedback (search_id, chunk_id, owner, rank, verdict, actor)
		VALUES ($1, $2, 'alice', 1, 'useful', 'person')`, search, gone); err != nil {
		t.Fatal(err)
	}

	res, err := s.ForgetSession(ctx, p, "gone")
	if err != nil || res.Events != 2 || res.Chunks != 3 {
		t.Fatalf("forget: %+v, %v", res, err)
	}
	if _, err := s.Event(ctx, p, "g1"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("forgotten event: %v", err)
	}
	if _, err := s.SessionEvents(ctx, p, "gone"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("forgotten session: %v", err)
	}
	cs := sessionChunks(t, s, p)
	if len(cs) != 2 || cs[0].event != "k1" {
		t.Errorf("chunks after forgetting: %+v", cs)
	}
	if hits := lexicalHits(t, s, p, "forget", ""); len(hits) != 0 {
		t.Errorf("the forgotten words still match %v", hits)
	}
	var votes int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM rag_feedback WHERE search_id = $1`, search).Scan(&votes); err != nil || votes != 0 {
		t.Errorf("%d votes left (%v), want the forgotten chunk's gone", votes, err)
	}
	if l, err := s.ListSessions(ctx, p, ragd.SessionFilter{}); err != nil || len(l) != 1 || l[0].ID != "stays" {
		t.Errorf("sessions after forgetting: %+v, %v", l, err)
	}

	if f, err := s.ForgottenSessions(ctx, p); err != nil || len(f) != 1 || !f["gone"] {
		t.Errorf("forgotten sessions: %v, %v", f, err)
	}
	bob := openAt(t, url, Options{Owner: "bob"})
	// Bob's import leaves it out too: session ids are one per project.
	if f, err := bob.ForgottenSessions(ctx, p); err != nil || len(f) != 1 || !f["gone"] {
		t.Errorf("bob's forgotten sessions: %v, %v", f, err)
	}
	if _, err := s.ForgetSession(ctx, p, "gone"); !errors.Is(err, ragd.ErrNotFound) || !strings.Contains(err.Error(), `"gone"`) {
		t.Errorf("forget twice: %v", err)
	}
	// Appended again (an import that does not check): it is a session
	// again, and forgetting it again is remembered once.
	if _, err := s.AppendEvents(ctx, p, []ragd.Event{g1}); err != nil {
		t.Fatal(err)
	}
	if res, err := s.ForgetSession(ctx, p, "gone"); err != nil || res.Events != 1 || res.Chunks != 0 {
		t.Errorf("forget again: %+v, %v", res, err)
	}
	if f, err := s.ForgottenSessions(ctx, p); err != nil || len(f) != 1 {
		t.Errorf("forgotten sessions: %v, %v", f, err)
	}
}

// TestTranscriptFiles: a checkpoint per owner, file and project, replaced
// when saved again.
func TestTranscriptFiles(t *testing.T) {
	ctx := context.Background()
	s, url := openTest(t, Options{})
	bob := openAt(t, url, Options{Owner: "bob"})
	a, b := sessProject(t, s, "a"), sessProject(t, s, "b")
	path := "/t/x.jsonl"
	mtime := time.Unix(1_700_000_000, 123)
	for _, tf := range []ragd.TranscriptFile{
		{Path: path, ProjectID: b, Format: "codex", Size: 5, ModTime: mtime, Checkpoint: []byte(`{"offset":5}`)},
		{Path: path, ProjectID: a, Format: "codex", Size: 10, ModTime: mtime, Checkpoint: []byte(`{"offset":10}`)},
		{Path: path, ProjectID: a, Format: "codex", Size: 20, ModTime: mtime, Checkpoint: []byte(`{"offset":20}`)},
	} {
		if err := s.SaveTranscriptFile(ctx, tf); err != nil {
			t.Fatal(err)
		}
	}
	if err := bob.SaveTranscriptFile(ctx, ragd.TranscriptFile{Path: path, ProjectID: a, Format: "claude-code", Size: 1,
		ModTime: mtime, Checkpoint: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	got, err := s.TranscriptFiles(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ProjectID != a || got[0].Size != 20 || string(got[0].Checkpoint) != `{"offset":20}` ||
		!got[0].ModTime.Equal(mtime) || got[0].Format != "codex" || got[0].UpdatedAt.IsZero() || got[1].ProjectID != b || got[1].Size != 5 {
		t.Errorf("checkpoints: %+v", got)
	}
	if got, err := bob.TranscriptFiles(ctx, path); err != nil || len(got) != 1 || got[0].Format != "claude-code" {
		t.Errorf("bob's checkpoints: %+v, %v", got, err)
	}
	if got, err := s.TranscriptFiles(ctx, path+".none"); err != nil || len(got) != 0 {
		t.Errorf("unknown file: %+v, %v", got, err)
	}
}

// TestRewriteSessions: events, titles, chunks (with their lexical column
// and hash) and checkpoints of the owner are rewritten; a second run
// changes nothing.
func TestRewriteSessions(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t, Options{})
	p := sessProject(t, s, "p")
	path := "/t/a.jsonl"
	e1 := ev("e1", "s1", "chat.message", "my token SECRET here", 0)
	e1.Title = "about SECRET"
	e2 := ev("e2", "s1", "tool.call", "", time.Second)
	e2.Payload = []byte(`{"arg":"SECRET"}`)
	e3 := ev("e3", "s1", "agent.response", "nothing to hide", 2*time.Second)
	if _, err := s.AppendSession(ctx, p, []ragd.Event{e1, e2, e3}, testdb.ChunksOf(e1, e2, e3)); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveTranscriptFile(ctx, ragd.TranscriptFile{Path: path, ProjectID: p, Format: "codex", ModTime: t0,
		Checkpoint: []byte(`{"last":"SECRET"}`)}); err != nil {
		t.Fatal(err)
	}
	before := sessionChunks(t, s, p)
	redact := func(s string) string { return strings.ReplaceAll(s, "SECRET", "[redacted]") }
	rw := ragd.Rewriter{
		Text: func(s string, _ bool) string { return redact(s) },
		JSON: func(b []byte) []byte { return []byte(redact(string(b))) },
	}
	res, err := s.RewriteSessions(ctx, p, rw)
	if err != nil {
		t.Fatal(err)
	}
	// Chunks: every one of s1 carries the title, so all 7 change.
	if res != (ragd.RewriteResult{Events: 2, Sessions: 1, Chunks: 7, Checkpoints: 1}) {
		t.Errorf("rewrite: %+v", res)
	}
	if e, _ := s.Event(ctx, p, "e1"); e.Text != "my token [redacted] here" || e.Title != "about [redacted]" {
		t.Errorf("event e1: %+v", e)
	}
	if e, _ := s.Event(ctx, p, "e2"); string(e.Payload) != `{"arg":"[redacted]"}` {
		t.Errorf("event e2 payload: %s", e.Payload)
	}
	after := sessionChunks(t, s, p)
	for i, c := range after {
		if strings.Contains(c.content+c.title, "SECRET") || c.id != before[i].id {
			t.Errorf("chunk %d: %+v (was %+v)", i, c, before[i])
		}
	}
	var hash string
	if err := s.pool.QueryRow(ctx, `SELECT content_hash FROM chunks WHERE id = $1`, before[2].id).Scan(&hash); err != nil ||
		hash == "h-SECRET" || hash == "" {
		t.Errorf("the rewritten chunk's hash %q (%v) did not follow its content", hash, err)
	}
	if hits := lexicalHits(t, s, p, "secret", ""); len(hits) != 0 {
		t.Errorf("the old word still matches %d chunks", len(hits))
	}
	if hits := lexicalHits(t, s, p, "redact", "A"); len(hits) != 7 {
		t.Errorf("the new title matches %d chunks, want 7", len(hits))
	}
	if tf, _ := s.TranscriptFiles(ctx, path); len(tf) != 1 || string(tf[0].Checkpoint) != `{"last":"[redacted]"}` {
		t.Errorf("checkpoint: %+v", tf)
	}
	if again, err := s.RewriteSessions(ctx, p, rw); err != nil || again != (ragd.RewriteResult{}) {
		t.Errorf("second rewrite: %+v, %v", again, err)
	}
}
