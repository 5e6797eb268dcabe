package index_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/chunking"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/internal/testdb"
)

// TestAppendEvents_IndexedAtOnceAsReindexWould: appended messages get the
// chunks a reindex of the session scope would write (ids, titles, offsets),
// so that a full reindex afterwards finds the scope unchanged.
func TestAppendEvents_IndexedAtOnceAsReindexWould(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	p := testdb.AddProject(t, s, "p", t.TempDir())
	ix := newIndexer(s, nil)

	long := strings.Repeat("A paragraph about chunk boundaries and their offsets. ", 60)
	rep, err := ix.ImportEvents(ctx, p, strings.NewReader(eventFile))
	if err != nil {
		t.Fatal(err)
	}
	// e1, e2, e5, c1: one chunk each (e6 has no text: a bad line).
	if rep.Messages != 4 || rep.Chunks != 4 || rep.Unindexed != 0 {
		t.Fatalf("import: %+v", rep.AppendReport)
	}
	res, err := ix.AppendEvents(ctx, p, []ragd.Event{
		event("l1", "s2", "agent.response", long, 30),
		event("t1", "s2", "tool.call", "", 31),
	})
	if err != nil {
		t.Fatal(err)
	}
	appended := chunks(t, s, p, ragd.ScopeSession)
	if res.Messages != 1 || res.Chunks < 2 || len(appended) != 4+res.Chunks {
		t.Fatalf("append of a long message: %+v, %d chunks stored", res, len(appended))
	}
	for _, c := range appended {
		if c.EmbeddingSpace != "" {
			t.Errorf("appended chunk %s has a vector: the background fill gives them", c.ID)
		}
	}
	_, by := coverage(t, ix, p)
	if se := by["session"]; se.Stale || se.MessagesIndexed != 5 || se.Indexed != 3 || se.LexicalOnly != len(appended) {
		t.Errorf("coverage after appends: %+v", se)
	}

	// A title that arrives later (an event of another type carrying it)
	// is carried to the session's chunks.
	named := event("n1", "s2", "summary", "", 40)
	named.Title = "Named later"
	if res, err := ix.AppendEvents(ctx, p, []ragd.Event{named}); err != nil || res.Chunks != 0 {
		t.Fatalf("title event: %+v, %v", res, err)
	}
	titled := chunks(t, s, p, ragd.ScopeSession)
	for _, c := range titled {
		want := map[string]string{"s1": "Chunking", "s2": "Named later", "s3": "s3"}[c.SessionID]
		if c.Title != want {
			t.Errorf("chunk of %s/%s titled %q, want %q", c.SessionID, c.EventID, c.Title, want)
		}
	}

	// A full reindex writes nothing: the scope already is what it builds.
	sr := scopeReport(t, reindex(t, ix, p, "session"), ragd.ScopeSession)
	if !sr.Unchanged || sr.Chunks.Inserted != 0 || sr.Chunks.Deleted != 0 || sr.Chunks.Kept != len(titled) {
		t.Errorf("reindex after appends: unchanged %v, chunks %+v, want all %d kept", sr.Unchanged, sr.Chunks, len(titled))
	}
	after := chunks(t, s, p, ragd.ScopeSession)
	if !slices.Equal(ids(after), ids(titled)) {
		t.Errorf("reindex changed chunk ids")
	}
	for i := range after {
		a, b := after[i], titled[i]
		if a.Title != b.Title || a.Start != b.Start || a.End != b.End || a.Content != b.Content {
			t.Errorf("chunk %s: reindex wrote %+v, append had %+v", a.ID, a, b)
		}
	}

	// And after a reindex, an append is incremental again: one more chunk.
	res, err = ix.AppendEvents(ctx, p, []ragd.Event{event("x1", "s1", "chat.message", "One more question", 50)})
	if err != nil || res.Chunks != 1 {
		t.Fatalf("append after reindex: %+v, %v", res, err)
	}
	if sr := scopeReport(t, reindex(t, ix, p, "session"), ragd.ScopeSession); !sr.Unchanged {
		t.Errorf("second reindex: %+v", sr.Chunks)
	}
}

func TestImportEvents_TwiceAddsNoChunk(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	p := testdb.AddProject(t, s, "p", t.TempDir())
	ix := newIndexer(s, nil)
	if _, err := ix.ImportEvents(ctx, p, strings.NewReader(eventFile)); err != nil {
		t.Fatal(err)
	}
	before := chunks(t, s, p, ragd.ScopeSession)
	rep, err := ix.ImportEvents(ctx, p, strings.NewReader(eventFile))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Appended != 0 || rep.Chunks != 0 || rep.Messages != 0 {
		t.Errorf("second import: %+v", rep.AppendReport)
	}
	if after := chunks(t, s, p, ragd.ScopeSession); !slices.Equal(ids(after), ids(before)) {
		t.Errorf("chunks changed: %d before, %d after", len(before), len(after))
	}
}

func TestAppendEvents_InvalidWritesNoChunk(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	p := testdb.AddProject(t, s, "p", t.TempDir())
	ix := newIndexer(s, nil)
	bad := event("e2", "s1", "agent.response", "bad \xff bytes", 1)
	_, err := ix.AppendEvents(ctx, p, []ragd.Event{event("e1", "s1", "chat.message", "fine words", 0), bad})
	if !errors.Is(err, index.ErrInvalidEvent) {
		t.Fatalf("err = %v, want ErrInvalidEvent", err)
	}
	if cs := chunks(t, s, p, ragd.ScopeSession); len(cs) != 0 {
		t.Errorf("%d chunks written by a refused batch", len(cs))
	}
	// A chunking configuration the chunker refuses stores nothing either.
	broken := newIndexer(s, nil)
	broken.Chunking = chunking.Options{Target: 10, Overlap: 50, Window: 1}
	if _, err := broken.AppendEvents(ctx, p, []ragd.Event{event("e1", "s1", "chat.message", "fine words", 0)}); err == nil {
		t.Fatal("invalid chunking options: no error")
	}
	if _, err := ix.Event(ctx, p, "e1"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("e1 stored despite invalid chunking options: %v", err)
	}
}
