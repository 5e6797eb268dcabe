package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
)

func sessionTitles(t *testing.T, s *Store, projectID int64) map[string]string {
	t.Helper()
	cs, err := s.ScopeChunks(context.Background(), projectID, ragd.ScopeSession)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range cs {
		out[c.EventID+"#"+fmt.Sprint(c.Position)] = c.Title
	}
	return out
}

func TestAppendSession_ChunksSearchableAtOnce(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	// Docs first, with vectors: the append must leave them alone.
	if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, []ragd.ChunkInput{
		{SourcePath: "docs/a.md", Content: "storage engines compared", ContentHash: "d1", Vector: []float32{1, 0, 0, 0}},
	}); err != nil {
		t.Fatal(err)
	}
	e1 := ev("e1", "s1", "chat.message", "why sqlite", 0)
	e2 := ev("e2", "s1", "agent.response", "single file database", time.Second)
	e3 := ev("e3", "s1", "tool.call", "", 2*time.Second)
	res, err := s.AppendSession(ctx, p.ID, []ragd.Event{e1, e2, e3}, testdb.ChunksOf(e1, e2, e3))
	if err != nil {
		t.Fatal(err)
	}
	if res.Appended != 3 || res.Chunks != 5 || res.Unindexed != 0 || res.Retitled != 0 {
		t.Fatalf("append: %+v", res)
	}

	got := lexicalRanking(t, s, p.ID, analysed(t, "english", "database"))
	if len(got) != 1 {
		t.Fatalf("database: %d hits, want 1", len(got))
	}
	cs, err := s.Chunks(ctx, []string{got[0].ChunkID})
	if err != nil || len(cs) != 1 {
		t.Fatalf("chunk of the hit: %v, %v", cs, err)
	}
	c := cs[0]
	want := testdb.WordChunks(e2)[2]
	if c.Scope != ragd.ScopeSession || c.SessionID != "s1" || c.EventID != "e2" || c.Position != 2 || c.Content != "database" ||
		c.Start != want.Start || c.End != want.End || c.Title != "s1" || c.EmbeddingSpace != "" ||
		c.ID != want.ID(p.ID, ragd.ScopeSession) {
		t.Errorf("appended chunk %+v", c)
	}
	if n, _ := s.PendingVectorCount(ctx); n != 5 {
		t.Errorf("%d chunks wait for a vector, want the 5 appended", n)
	}
	st, err := s.ScopeStats(ctx, p.ID, ragd.ScopeDocs)
	if err != nil || st.Chunks != 1 || st.LexicalOnly != 0 {
		t.Errorf("docs after the append: %+v, %v", st, err)
	}
	assertLexicalInStep(t, s, p.ID)
}

func TestAppendSession_Idempotent(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	e1 := ev("e1", "s1", "chat.message", "alpha beta", 0)
	if _, err := s.AppendSession(ctx, p.ID, []ragd.Event{e1}, testdb.ChunksOf(e1)); err != nil {
		t.Fatal(err)
	}
	// The same event again, alone and beside a new one; and the same id
	// with other text (a conflict): no chunk of theirs is written.
	e2 := ev("e2", "s1", "agent.response", "gamma", time.Second)
	other := ev("e1", "s1", "chat.message", "delta epsilon", 0)
	res, err := s.AppendSession(ctx, p.ID, []ragd.Event{e1, e2, other}, testdb.ChunksOf(e1, e2, other))
	if err != nil {
		t.Fatal(err)
	}
	if res.Appended != 1 || res.Duplicates != 1 || len(res.Conflicts) != 1 || res.Chunks != 1 {
		t.Fatalf("second append: %+v", res)
	}
	cs, _ := s.ScopeChunks(ctx, p.ID, ragd.ScopeSession)
	var contents []string
	for _, c := range cs {
		contents = append(contents, c.Content)
	}
	if strings.Join(contents, " ") != "alpha beta gamma" {
		t.Errorf("chunks %q, want alpha beta gamma", contents)
	}

	// A chunk whose id is stored already (written by a reindex before its
	// event came) is skipped, not an error.
	e3 := ev("e3", "s1", "chat.message", "zeta eta", 2*time.Second)
	pre := testdb.WordChunks(e3)[:1]
	if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeSession, append(msgsAsInputs(cs), pre...)); err != nil {
		t.Fatal(err)
	}
	res, err = s.AppendSession(ctx, p.ID, []ragd.Event{e3}, testdb.ChunksOf(e3))
	if err != nil {
		t.Fatal(err)
	}
	if res.Appended != 1 || res.Chunks != 1 {
		t.Errorf("append over a stored chunk: %+v", res)
	}
	if cs, _ := s.ScopeChunks(ctx, p.ID, ragd.ScopeSession); len(cs) != 5 {
		t.Errorf("%d chunks, want 5", len(cs))
	}
	assertLexicalInStep(t, s, p.ID)
}

// msgsAsInputs turns stored session chunks back into inputs.
func msgsAsInputs(cs []ragd.Chunk) []ragd.ChunkInput {
	out := make([]ragd.ChunkInput, len(cs))
	for i, c := range cs {
		out[i] = ragd.ChunkInput{SessionID: c.SessionID, EventID: c.EventID, Title: c.Title, Position: c.Position,
			Start: c.Start, End: c.End, Content: c.Content, ContentHash: c.ContentHash}
	}
	return out
}

func TestAppendSession_TitleArrivesLater(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	e1 := ev("e1", "s1", "chat.message", "alpha beta", 0)
	e2 := ev("e2", "s2", "chat.message", "gamma", 0)
	if _, err := s.AppendSession(ctx, p.ID, []ragd.Event{e1, e2}, testdb.ChunksOf(e1, e2)); err != nil {
		t.Fatal(err)
	}
	if got := sessionTitles(t, s, p.ID); got["e1#0"] != "s1" || got["e1#1"] != "s1" {
		t.Fatalf("untitled session's chunks: %v", got)
	}

	// A later event names s1 (a summary record, not itself indexed), and a
	// message in the same call is titled with it too.
	named := ev("t1", "s1", "summary", "", 5*time.Second)
	named.Title = "Choosing storage"
	e3 := ev("e3", "s1", "agent.response", "delta", 6*time.Second)
	res, err := s.AppendSession(ctx, p.ID, []ragd.Event{named, e3}, testdb.ChunksOf(named, e3))
	if err != nil {
		t.Fatal(err)
	}
	if res.Retitled != 2 || res.Chunks != 1 {
		t.Errorf("titling append: %+v", res)
	}
	got := sessionTitles(t, s, p.ID)
	for k, want := range map[string]string{"e1#0": "Choosing storage", "e1#1": "Choosing storage", "e3#0": "Choosing storage", "e2#0": "s2"} {
		if got[k] != want {
			t.Errorf("chunk %s titled %q, want %q", k, got[k], want)
		}
	}
	if hits := lexicalRanking(t, s, p.ID, analysed(t, "english", "storage")); len(hits) != 3 {
		t.Errorf("the new title finds %d chunks, want 3", len(hits))
	}

	// An older event's title loses to the newer one: nothing changes.
	older := ev("t0", "s1", "summary", "", time.Second)
	older.Title = "Old name"
	if res, err := s.AppendSession(ctx, p.ID, []ragd.Event{older}, nil); err != nil || res.Retitled != 0 {
		t.Errorf("older title: %+v, %v", res, err)
	}
	assertLexicalInStep(t, s, p.ID)
}

func TestAppendSession_BadInputStoresNothing(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	e1 := ev("e1", "s1", "chat.message", "alpha beta", 0)
	e2 := ev("e2", "s1", "agent.response", "gamma", time.Second)
	good := testdb.ChunksOf(e1, e2)

	cases := map[string]struct {
		events []ragd.Event
		chunks [][]ragd.ChunkInput
	}{
		"fewer chunk lists than events": {[]ragd.Event{e1, e2}, good[:1]},
		"a chunk of another event":      {[]ragd.Event{e1, e2}, [][]ragd.ChunkInput{good[1], good[1]}},
		"a chunk without hash": {[]ragd.Event{e1, e2}, [][]ragd.ChunkInput{good[0],
			{{SessionID: "s1", EventID: "e2", Content: "gamma"}}}},
		"a chunk with a vector": {[]ragd.Event{e1, e2}, [][]ragd.ChunkInput{good[0],
			{{SessionID: "s1", EventID: "e2", Content: "gamma", ContentHash: "h", Vector: []float32{1, 0, 0, 0}}}}},
		"a chunk twice": {[]ragd.Event{e1, e2}, [][]ragd.ChunkInput{{good[0][0], good[0][0]}, good[1]}},
		"an event without time": {[]ragd.Event{e1, {ID: "x", SessionID: "s1", Type: "chat.message", Actor: "person", Text: "t"}},
			[][]ragd.ChunkInput{good[0], nil}},
	}
	for name, tc := range cases {
		if _, err := s.AppendSession(ctx, p.ID, tc.events, tc.chunks); err == nil {
			t.Errorf("%s: no error", name)
		}
	}

	// A failure in the middle of the chunk writes takes the events back too.
	injected := errors.New("injected failure")
	s.failAfterInsert = func(n int) error {
		if n == 1 {
			return injected
		}
		return nil
	}
	if _, err := s.AppendSession(ctx, p.ID, []ragd.Event{e1, e2}, good); !errors.Is(err, injected) {
		t.Fatalf("err = %v, want the injected failure", err)
	}
	s.failAfterInsert = nil

	if _, err := s.Event(ctx, p.ID, "e1"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("event e1 stored after failed appends: %v", err)
	}
	if cs, _ := s.ScopeChunks(ctx, p.ID, ragd.ScopeSession); len(cs) != 0 {
		t.Errorf("%d chunks stored after failed appends", len(cs))
	}
	if _, built, _ := projectLanguages(ctx, s.db, p.ID); built != "" {
		t.Errorf("language %q decided by failed appends", built)
	}
	// And then it goes in whole.
	if res, err := s.AppendSession(ctx, p.ID, []ragd.Event{e1, e2}, good); err != nil || res.Chunks != 3 {
		t.Errorf("append after failures: %+v, %v", res, err)
	}
	assertLexicalInStep(t, s, p.ID)
}

func TestAppendSession_FirstChunksDecideLanguage(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	text := "Die Datenbank speichert alle Sitzungen des Projekts in einer einzigen Datei, " +
		"und die Suche findet die Nachrichten schneller als erwartet, weil der Index klein bleibt."
	e1 := ev("e1", "s1", "chat.message", text, 0)
	in := []ragd.ChunkInput{{SessionID: "s1", EventID: "e1", Content: text, ContentHash: "h", End: len(text)}}
	if _, err := s.AppendSession(ctx, p.ID, []ragd.Event{e1}, [][]ragd.ChunkInput{in}); err != nil {
		t.Fatal(err)
	}
	_, built, err := projectLanguages(ctx, s.db, p.ID)
	if err != nil || built != detectLanguage(text) || built == "" {
		t.Errorf("language decided %q (%v), want %q", built, err, detectLanguage(text))
	}
	pr, err := s.Project(ctx, "p")
	if err != nil || pr.LanguageInForce() != built {
		t.Errorf("project after the append: %+v, %v (cache not forgotten?)", pr, err)
	}
	assertLexicalInStep(t, s, p.ID)
}

// TestAppendEvents_WritesNoChunks: the store's AppendEvents, given no
// chunks, counts the messages it leaves unindexed.
func TestAppendEvents_WritesNoChunks(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	res, err := s.AppendEvents(ctx, p.ID, []ragd.Event{ev("e1", "s1", "chat.message", "a", 0), ev("e2", "s1", "tool.call", "", 0)})
	if err != nil || res.Chunks != 0 || res.Unindexed != 1 {
		t.Errorf("AppendEvents: %+v, %v", res, err)
	}
}

// TestReplaceScope_KeepsChunksAppendedMeanwhile: a reindex of the session
// scope that read the log before an append does not delete the appended
// messages' chunks; it still deletes chunks of events it re-cut and of
// events gone from the log.
func TestReplaceScope_KeepsChunksAppendedMeanwhile(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	e1 := ev("e1", "s1", "chat.message", "alpha beta", 0)
	if _, err := s.AppendSession(ctx, p.ID, []ragd.Event{e1}, testdb.ChunksOf(e1)); err != nil {
		t.Fatal(err)
	}
	// What a reindex read: e1, now cut as one chunk.
	read := []ragd.ChunkInput{{SessionID: "s1", EventID: "e1", Title: "s1", Content: "alpha beta", ContentHash: "h-ab", End: 10}}
	// Appended after the read.
	e2 := ev("e2", "s1", "agent.response", "gamma", time.Second)
	if _, err := s.AppendSession(ctx, p.ID, []ragd.Event{e2}, testdb.ChunksOf(e2)); err != nil {
		t.Fatal(err)
	}
	// A chunk of no event in the log (left by an older ragd).
	orphan := ragd.ChunkInput{SessionID: "s9", EventID: "gone", Title: "s9", Content: "orphan", ContentHash: "h-o"}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO chunks (id, project_id, scope, session_id, event_id, title, position, content, content_hash, indexed_at)
		VALUES (?, ?, 'session', 's9', 'gone', 's9', 0, 'orphan', 'h-o', ?)`, orphan.ID(p.ID, ragd.ScopeSession), p.ID, now()); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	res, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeSession, read)
	if err != nil {
		t.Fatal(err)
	}
	// e1's two old chunks and the orphan go; e2's chunk stays.
	if res.Inserted != 1 || res.Deleted != 3 {
		t.Errorf("replace: %+v", res)
	}
	var got []string
	for _, c := range mustScope(t, s, p.ID) {
		got = append(got, c.EventID+":"+c.Content)
	}
	if strings.Join(got, ",") != "e1:alpha beta,e2:gamma" {
		t.Errorf("session chunks after the replace: %v", got)
	}
	assertLexicalInStep(t, s, p.ID)
}

func mustScope(t *testing.T, s *Store, projectID int64) []ragd.Chunk {
	t.Helper()
	cs, err := s.ScopeChunks(context.Background(), projectID, ragd.ScopeSession)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}
