package store

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"testing"
	"time"

	"github.com/ragd/ragd"
)

// assertCounts checks that the counts the triggers keep equal a count of
// the chunks themselves, for every project and scope, and that
// VectorCoverage reads them.
func assertCounts(t *testing.T, s *Store, step string) {
	t.Helper()
	ctx := context.Background()
	type key struct {
		project int64
		scope   string
	}
	read := func(q string) map[key][2]int {
		rows, err := s.db.QueryContext(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		defer rows.Close()
		out := map[key][2]int{}
		for rows.Next() {
			var k key
			var n [2]int
			if err := rows.Scan(&k.project, &k.scope, &n[0], &n[1]); err != nil {
				t.Fatalf("%s: %v", step, err)
			}
			if n[0] != 0 || n[1] != 0 { // a scope emptied keeps a row of zeros
				out[k] = n
			}
		}
		return out
	}
	want := read("SELECT project_id, scope, count(*), count(embedding_space) FROM chunks GROUP BY 1, 2")
	got := read("SELECT project_id, scope, chunks, vectors FROM chunk_counts")
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s: counts kept %v, chunks counted %v", step, got, want)
	}
	assertFloatsInStep(t, s)
	sn, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	for k, n := range want {
		chunks, vectors, err := sn.VectorCoverage(ctx, ragd.Filter{ProjectID: k.project, Scopes: []string{k.scope}})
		if err != nil || chunks != n[0] || vectors != n[1] {
			t.Errorf("%s: coverage of project %d %s: %d chunks, %d vectors, %v; want %v", step, k.project, k.scope, chunks, vectors, err, n)
		}
	}
}

// Every way chunks are written, filled, reset or removed keeps the counts
// exact.
func TestChunkCounts_FollowEveryWrite(t *testing.T) {
	ctx := context.Background()
	const dims = 8
	path := filepath.Join(t.TempDir(), "ragd.db")
	s := mustOpenAt(t, path, dims)
	r := rand.New(rand.NewSource(3))
	a, b := mustProject(t, s, "a"), mustProject(t, s, "b")

	docs := func(n, withVectors int, prefix string) []ragd.ChunkInput {
		var in []ragd.ChunkInput
		for i := range n {
			var v []float32
			if i < withVectors {
				v = randomUnit(r, dims)
			}
			in = append(in, docChunk("docs/x.md", i, fmt.Sprintf("%s text %d", prefix, i), v))
		}
		return in
	}
	if _, err := s.ReplaceScope(ctx, a.ID, ragd.ScopeDocs, docs(10, 4, "one")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReplaceScope(ctx, b.ID, ragd.ScopeADR, docs(5, 5, "adr")); err != nil {
		t.Fatal(err)
	}
	assertCounts(t, s, "first write")

	// Six chunks kept (their vectors kept by a nil Vector), four replaced.
	in := docs(10, 0, "one")
	for i := 6; i < 10; i++ {
		in[i] = docChunk("docs/x.md", i, fmt.Sprintf("two text %d", i), randomUnit(r, dims))
	}
	if _, err := s.ReplaceScope(ctx, a.ID, ragd.ScopeDocs, in); err != nil {
		t.Fatal(err)
	}
	assertCounts(t, s, "replace")

	queue, err := s.PendingVectors(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	var fills []ragd.VectorFill
	for _, q := range queue {
		fills = append(fills, ragd.VectorFill{Seq: q.Seq, ContentHash: q.ContentHash, Vector: randomUnit(r, dims)})
	}
	// Chunks 4 and 5 were kept without a vector.
	if n, err := s.FillVectors(ctx, fills); err != nil || n != 2 {
		t.Fatalf("filled %d, %v", n, err)
	}
	assertCounts(t, s, "fill")

	// Sessions: chunks of two, one forgotten.
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if _, err := s.AppendEvents(ctx, a.ID, []ragd.Event{
		{ID: "e1", SessionID: "s1", Type: "chat.message", Actor: "person", Text: "first session", Time: at},
		{ID: "e2", SessionID: "s2", Type: "chat.message", Actor: "person", Text: "second session", Time: at},
	}); err != nil {
		t.Fatal(err)
	}
	var sessions []ragd.ChunkInput
	for i, sid := range []string{"s1", "s2", "s2"} {
		sessions = append(sessions, ragd.ChunkInput{SessionID: sid, EventID: "e" + sid[1:], Title: sid, Position: i,
			Content: fmt.Sprintf("message %d", i), ContentHash: fmt.Sprintf("h%d", i), Vector: randomUnit(r, dims)})
	}
	if _, err := s.ReplaceScope(ctx, a.ID, ragd.ScopeSession, sessions); err != nil {
		t.Fatal(err)
	}
	assertCounts(t, s, "sessions")
	if _, err := s.ForgetSession(ctx, a.ID, "s2"); err != nil {
		t.Fatal(err)
	}
	assertCounts(t, s, "forget a session")

	if _, err := s.ReplaceScope(ctx, b.ID, ragd.ScopeADR, nil); err != nil {
		t.Fatal(err)
	}
	assertCounts(t, s, "empty a scope")
	if _, err := s.RemoveProject(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	assertCounts(t, s, "remove a project")
	var rows int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM chunk_counts WHERE project_id = ?", a.ID).Scan(&rows); err != nil || rows != 0 {
		t.Errorf("a removed project left %d count rows, %v", rows, err)
	}

	// A reset to another space drops every vector.
	if _, err := s.ReplaceScope(ctx, b.ID, ragd.ScopeDocs, docs(4, 4, "b")); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(ctx, path, Options{Space: "other/8", Dims: dims, ResetSpace: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	assertCounts(t, s, "reset the space")
	sn, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	if chunks, vectors, err := sn.VectorCoverage(ctx, ragd.Filter{ProjectID: b.ID}); err != nil || chunks != 4 || vectors != 0 {
		t.Errorf("coverage of every scope after the reset: %d chunks, %d vectors, %v; want 4, 0", chunks, vectors, err)
	}
	if _, _, err := sn.VectorCoverage(ctx, ragd.Filter{ProjectID: b.ID, Scopes: []string{"nope"}}); err == nil {
		t.Error("an unknown scope was counted")
	}
}
