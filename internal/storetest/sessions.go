package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ragd/ragd"
)

var sessionTests = []subtest{
	{"list and read sessions", testSessions},
	{"transcript checkpoints", testTranscriptFiles},
	{"passages", testPassages},
}

// testSessions: ListSessions lists the most recent first, with counts, by
// prefix and by the time of the last event; SessionEvents reads one in log
// order with its title.
func testSessions(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	p, q := e.project("p"), e.project("q")
	titled := message("codex:b2", "codex:b", 10, "later session")
	titled.Title = "The later one"
	e.appendSession(p.ID, message("a1", "a", 0, "first"), toolCall("a2", "a", 1), message("a3", "a", 2, "second"), titled)
	e.appendSession(q.ID, message("x1", "x", 5, "another project"))

	list, err := s.ListSessions(ctx, p.ID, ragd.SessionFilter{})
	if err != nil || len(list) != 2 {
		t.Fatalf("sessions of p: %+v, %v", list, err)
	}
	b, a := list[0], list[1]
	if b.ID != "codex:b" || b.Title != "The later one" || b.Events != 1 || b.Messages != 1 || !b.First.Equal(at(10)) || !b.Last.Equal(at(10)) {
		t.Errorf("first listed (the most recent): %+v", b)
	}
	if a.ID != "a" || a.Title != "" || a.Events != 3 || a.Messages != 2 || !a.First.Equal(at(0)) || !a.Last.Equal(at(2)) {
		t.Errorf("second listed: %+v", a)
	}
	for _, c := range []struct {
		f    ragd.SessionFilter
		want []string
	}{
		{ragd.SessionFilter{IDPrefix: "codex:"}, []string{"codex:b"}},
		{ragd.SessionFilter{Since: at(2)}, []string{"codex:b", "a"}},
		{ragd.SessionFilter{Since: at(3)}, []string{"codex:b"}},
		{ragd.SessionFilter{Since: at(11)}, nil},
		{ragd.SessionFilter{IDPrefix: "gemini:"}, nil},
	} {
		list, err := s.ListSessions(ctx, p.ID, c.f)
		var got []string
		for _, si := range list {
			got = append(got, si.ID)
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("sessions of p by %+v: %v, %v; want %v", c.f, got, err, c.want)
		}
	}

	// Stored out of time order, read back in it.
	e.appendSession(p.ID, message("a0", "a", -1, "earliest, stored last"))
	evs, err := s.SessionEvents(ctx, p.ID, "a")
	var got []string
	for _, ev := range evs {
		got = append(got, ev.ID)
	}
	if err != nil || !slices.Equal(got, []string{"a0", "a1", "a2", "a3"}) {
		t.Errorf("events of a: %v, %v", got, err)
	}
	evs, err = s.SessionEvents(ctx, p.ID, "codex:b")
	if err != nil || len(evs) != 1 || evs[0].Title != "The later one" || evs[0].Text != "later session" || evs[0].Actor != ragd.ActorPerson {
		t.Errorf("events of codex:b: %+v, %v", evs, err)
	}
	if evs, err := s.SessionEvents(ctx, p.ID, "nope"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("events of an unknown session: %+v, %v; want ErrNotFound", evs, err)
	}
	if evs, err := s.SessionEvents(ctx, q.ID, "a"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("events of another project's session: %+v, %v; want ErrNotFound", evs, err)
	}
}

// testTranscriptFiles: a checkpoint is kept per file and project, verbatim,
// and saving again replaces it.
func testTranscriptFiles(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	p, q := e.project("p"), e.project("q")
	const path = "/home/dev/.codex/sessions/one.jsonl"
	mtime := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	save := func(tf ragd.TranscriptFile) {
		t.Helper()
		if err := s.SaveTranscriptFile(ctx, tf); err != nil {
			t.Fatalf("save checkpoint %+v: %v", tf, err)
		}
	}
	save(ragd.TranscriptFile{Path: path, ProjectID: p.ID, Format: "codex", Size: 100, ModTime: mtime, Checkpoint: []byte(`{"offset":100}`)})
	save(ragd.TranscriptFile{Path: path, ProjectID: q.ID, Format: "codex", Size: 100, ModTime: mtime, Checkpoint: []byte(`{"offset":50}`)})
	save(ragd.TranscriptFile{Path: path, ProjectID: p.ID, Format: "codex", Size: 250, ModTime: mtime.Add(time.Minute), Checkpoint: []byte(`{"offset":250}`)})
	tfs, err := s.TranscriptFiles(ctx, path)
	if err != nil || len(tfs) != 2 {
		t.Fatalf("checkpoints of %s: %+v, %v", path, tfs, err)
	}
	byProject := map[int64]ragd.TranscriptFile{}
	for _, tf := range tfs {
		byProject[tf.ProjectID] = tf
	}
	if tf := byProject[p.ID]; tf.Path != path || tf.Format != "codex" || tf.Size != 250 || !tf.ModTime.Equal(mtime.Add(time.Minute)) ||
		string(tf.Checkpoint) != `{"offset":250}` || tf.UpdatedAt.IsZero() {
		t.Errorf("p's checkpoint, saved twice: %+v", tf)
	}
	if tf := byProject[q.ID]; tf.Size != 100 || string(tf.Checkpoint) != `{"offset":50}` {
		t.Errorf("q's checkpoint: %+v", tf)
	}
	if tfs, err := s.TranscriptFiles(ctx, "/elsewhere.jsonl"); err != nil || len(tfs) != 0 {
		t.Errorf("checkpoints of an unread file: %+v, %v", tfs, err)
	}
}

// testPassages: a cited chunk is read with its file (FileChunks, in
// document order) or its message (EventChunks) and the conversation around
// it (EventsAround, of the types asked, up to n each side, in log order).
func testPassages(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	p := e.project("p")
	e.replace(p.ID, ragd.ScopeDocs, docChunk("docs/a.md", 2, "third", nil), docChunk("docs/a.md", 0, "first", unit(s, 0)),
		docChunk("docs/a.md", 1, "second", nil), docChunk("docs/b.md", 0, "other file", nil))
	chunks, err := s.FileChunks(ctx, p.ID, "docs/a.md")
	var got []string
	for _, c := range chunks {
		got = append(got, c.Content)
	}
	if err != nil || !slices.Equal(got, []string{"first", "second", "third"}) {
		t.Errorf("chunks of docs/a.md: %v, %v", got, err)
	}
	if chunks, err := s.FileChunks(ctx, p.ID, "docs/none.md"); err != nil || len(chunks) != 0 {
		t.Errorf("chunks of a file not indexed: %v, %v", chunks, err)
	}

	e.appendSession(p.ID, message("m1", "s", 0, "one"), toolCall("t1", "s", 1), message("m2", "s", 2, "two"),
		message("m3", "s", 3, "three"), toolCall("t2", "s", 4), message("m4", "s", 5, "four"), message("m5", "s", 6, "five"),
		message("o1", "other", 3, "another session"))
	if chunks, err := s.EventChunks(ctx, p.ID, "m3"); err != nil || len(chunks) != 1 || chunks[0].Content != "three" {
		t.Errorf("chunks of m3: %+v, %v", chunks, err)
	}
	if chunks, err := s.EventChunks(ctx, p.ID, "t1"); err != nil || len(chunks) != 0 {
		t.Errorf("chunks of a tool call: %+v, %v", chunks, err)
	}
	eventIDs := func(evs []ragd.Event) []string {
		var out []string
		for _, ev := range evs {
			out = append(out, ev.ID)
		}
		return out
	}
	before, after, err := s.EventsAround(ctx, p.ID, "m3", []string{ragd.TypeChatMessage}, 2)
	if err != nil || !slices.Equal(eventIDs(before), []string{"m1", "m2"}) || !slices.Equal(eventIDs(after), []string{"m4", "m5"}) {
		t.Errorf("2 messages around m3: %v, %v, %v", eventIDs(before), eventIDs(after), err)
	}
	before, after, err = s.EventsAround(ctx, p.ID, "m3", []string{ragd.TypeChatMessage, "tool.call"}, 1)
	if err != nil || !slices.Equal(eventIDs(before), []string{"m2"}) || !slices.Equal(eventIDs(after), []string{"t2"}) {
		t.Errorf("1 event around m3: %v, %v, %v", eventIDs(before), eventIDs(after), err)
	}
	before, after, err = s.EventsAround(ctx, p.ID, "m1", []string{ragd.TypeChatMessage}, 3)
	if err != nil || len(before) != 0 || !slices.Equal(eventIDs(after), []string{"m2", "m3", "m4"}) {
		t.Errorf("3 messages around m1: %v, %v, %v", eventIDs(before), eventIDs(after), err)
	}
}
