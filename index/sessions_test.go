package index_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/internal/testdb"
)

var at = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func event(id, session, typ, text string, sec int) ragd.Event {
	actor := map[string]string{"chat.message": "person", "agent.response": "agent"}[typ]
	if actor == "" {
		actor = "tool"
	}
	return ragd.Event{ID: id, SessionID: session, Type: typ, Actor: actor, Text: text, Time: at.Add(time.Duration(sec) * time.Second)}
}

func TestAppendEvents_IdempotentAndConflicts(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	p := testdb.AddProject(t, s, "p", t.TempDir())
	ix := newIndexer(s, nil)
	first := event("e1", "s1", "chat.message", "Why SQLite?", 0)
	first.Title = "Storage"
	tool := event("e2", "s1", "tool.call", "", 1)
	tool.Payload = json.RawMessage(`{"name":"grep"}`)
	batch := []ragd.Event{first, tool, event("e3", "s1", "agent.response", "One file, no server.", 2)}

	res, err := ix.AppendEvents(ctx, p, batch)
	if err != nil {
		t.Fatal(err)
	}
	if res.Appended != 3 || res.Messages != 2 || res.Duplicates != 0 || res.SessionsCreated != 1 || len(res.Conflicts) != 0 || res.Err() != nil {
		t.Fatalf("first append: %+v", res)
	}
	res, err = ix.AppendEvents(ctx, p, batch)
	if err != nil || res.Appended != 0 || res.Duplicates != 3 || res.Messages != 0 {
		t.Fatalf("same events again: %+v, %v", res, err)
	}

	changed := event("e3", "s1", "agent.response", "Another answer.", 2)
	res, err = ix.AppendEvents(ctx, p, []ragd.Event{changed, event("e4", "s1", "chat.message", "Thanks", 3)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Appended != 1 || len(res.Conflicts) != 1 || res.Conflicts[0].EventID != "e3" || !slices.Equal(res.Conflicts[0].Fields, []string{"text"}) {
		t.Fatalf("conflict: %+v", res)
	}
	if err := res.Err(); !errors.Is(err, index.ErrEventConflict) || !strings.Contains(err.Error(), `"e3"`) {
		t.Errorf("Err() = %v", err)
	}
	got, err := ix.Event(ctx, p, "e3")
	if err != nil || got.Text != "One file, no server." {
		t.Errorf("conflicting event replaced the stored one: %+v, %v", got, err)
	}
}

func TestAppendEvents_InvalidStoresNothing(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	p := testdb.AddProject(t, s, "p", t.TempDir())
	ix := newIndexer(s, nil)
	noText := event("e2", "s1", "chat.message", "  ", 1)
	_, err := ix.AppendEvents(ctx, p, []ragd.Event{event("e1", "s1", "chat.message", "ok", 0), noText})
	if !errors.Is(err, index.ErrInvalidEvent) || !strings.Contains(err.Error(), `"e2"`) {
		t.Fatalf("err = %v, want ErrInvalidEvent naming e2", err)
	}
	if _, err := ix.Event(ctx, p, "e1"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("e1 stored from a refused batch: %v", err)
	}
}

func TestEvent_FetchByID(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	p := testdb.AddProject(t, s, "p", t.TempDir())
	other := testdb.AddProject(t, s, "other", t.TempDir())
	ix := newIndexer(s, nil)
	e := event("e1", "s1", "tool.result", "", 0)
	e.Time = e.Time.In(time.FixedZone("BRT", -3*3600))
	e.Payload = json.RawMessage(`{"exit": 0, "out": ["a"]}`)
	e.Title = "Tools"
	if _, err := ix.AppendEvents(ctx, p, []ragd.Event{e}); err != nil {
		t.Fatal(err)
	}
	got, err := ix.Event(ctx, p, "e1")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "e1" || got.SessionID != "s1" || got.Type != "tool.result" || got.Actor != "tool" || !got.Time.Equal(e.Time) ||
		string(got.Payload) != string(e.Payload) || got.Title != "Tools" {
		t.Errorf("Event = %+v", got)
	}
	if err := got.Validate(); err != nil {
		t.Errorf("fetched event is not valid: %v", err)
	}
	for _, tc := range []struct {
		p  ragd.Project
		id string
	}{{p, "nope"}, {other, "e1"}} {
		if _, err := ix.Event(ctx, tc.p, tc.id); !errors.Is(err, ragd.ErrNotFound) {
			t.Errorf("Event(%s, %s): err = %v, want ragd.ErrNotFound", tc.p.Name, tc.id, err)
		}
	}
}

// eventFile is an event file with every kind of line ImportEvents meets.
const eventFile = `{"id":"e1","sessionId":"s1","type":"chat.message","actor":"person","text":"How are chunks cut?","time":"2026-11-29T12:00:00Z","title":"Chunking"}
{"id":"e2","sessionId":"s1","type":"agent.response","actor":"agent","text":"At paragraph breaks near 1200 runes.","time":"2026-11-29T12:00:05Z"}
{"id":"e3","sessionId":"s1","type":"tool.call","actor":"tool","time":"2026-11-29T12:00:06Z","payload":{"name":"grep"}}
this is not json

{"id":"e4","sessionId":"s1","type":"custom.unknown","actor":"plugin","text":"a type nobody knows","time":"2026-11-29T12:00:07Z"}
{"id":"e5","sessionId":"s2","type":"chat.message","actor":"person","text":"Second session, no title","time":"2026-11-29T13:00:00Z"}
{"id":"e6","sessionId":"s2","type":"chat.message","actor":"person","time":"2026-11-29T13:00:01Z"}
{"id":"e2","sessionId":"s1","type":"agent.response","actor":"agent","text":"At paragraph breaks near 1200 runes.","time":"2026-11-29T12:00:05Z"}
{"id":"c1","sessionId":"s3","type":"chat.message","actor":"person","text":"changed since the first import","time":"2026-11-29T14:00:00Z"}
`

func TestImportEvents_ReportsBadLinesAndGoesOn(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	p := testdb.AddProject(t, s, "p", t.TempDir())
	ix := newIndexer(s, nil)
	// c1 is already stored with other text: a conflict at import.
	if _, err := ix.AppendEvents(ctx, p, []ragd.Event{event("c1", "s3", "chat.message", "the original", 0)}); err != nil {
		t.Fatal(err)
	}

	rep, err := ix.ImportEvents(ctx, p, strings.NewReader(eventFile))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Lines != 10 || rep.Events != 7 || rep.Bad != 2 || rep.Appended != 5 || rep.Duplicates != 1 || rep.Messages != 3 || rep.SessionsCreated != 2 {
		t.Errorf("report: %+v", rep)
	}
	if len(rep.LineErrors) != 2 || rep.LineErrors[0].Line != 4 || rep.LineErrors[1].Line != 8 || !strings.Contains(rep.LineErrors[1].Reason, "missing text") {
		t.Errorf("line errors: %+v", rep.LineErrors)
	}
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].EventID != "c1" {
		t.Errorf("conflicts: %+v", rep.Conflicts)
	}
	// The unknown type is stored, and fetched by id.
	if got, err := ix.Event(ctx, p, "e4"); err != nil || got.Type != "custom.unknown" {
		t.Errorf("unknown type: %+v, %v", got, err)
	}

	// Importing the same file again changes nothing.
	again, err := ix.ImportEvents(ctx, p, strings.NewReader(eventFile))
	if err != nil || again.Appended != 0 || again.Duplicates != 6 || len(again.Conflicts) != 1 {
		t.Errorf("second import: %+v, %v", again, err)
	}

	b, _ := json.Marshal(api.FromImportReport(rep))
	for _, k := range []string{`"lines":`, `"events":`, `"appended":`, `"duplicates":`, `"bad":`, `"lineErrors":[{"line":4,`, `"conflicts":[{"eventId":"c1"`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("import report JSON lacks %s: %s", k, b)
		}
	}
}

func TestImportEvents_ManyBatches(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	p := testdb.AddProject(t, s, "p", t.TempDir())
	var b strings.Builder
	enc := json.NewEncoder(&b)
	const n = 1234
	for i := range n {
		enc.Encode(event("e"+string(rune('a'+i%26))+time.Duration(i).String(), "s", "chat.message", "hello", i))
	}
	rep, err := newIndexer(s, nil).ImportEvents(ctx, p, strings.NewReader(b.String()))
	if err != nil || rep.Appended != n || rep.Messages != n || rep.SessionsCreated != 1 {
		t.Fatalf("report: %+v, %v", rep, err)
	}
}

func TestReindex_SessionChunksCiteEvents(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	srv, svc := fakeOllama(t, s, testDims)
	p := testdb.AddProject(t, s, "p", t.TempDir()) // sessions need no repository
	ix := newIndexer(s, svc)
	if _, err := ix.ImportEvents(ctx, p, strings.NewReader(eventFile)); err != nil {
		t.Fatal(err)
	}
	long := event("e9", "s2", "agent.response", strings.Repeat("A long answer goes on and on. ", 100), 9)
	if _, err := ix.AppendEvents(ctx, p, []ragd.Event{long}); err != nil {
		t.Fatal(err)
	}

	rep := reindex(t, ix, p, "session")
	cs := chunks(t, s, p, ragd.ScopeSession)
	byEvent := map[string][]ragd.Chunk{}
	for _, c := range cs {
		byEvent[c.EventID] = append(byEvent[c.EventID], c)
		if c.SourcePath != "" || len(c.HeadingPath) != 0 || c.EmbeddingSpace != testSpace {
			t.Errorf("session chunk %+v", c)
		}
	}
	// Only chat.message and agent.response become chunks.
	if got := slices.Sorted(func(yield func(string) bool) {
		for id := range byEvent {
			if !yield(id) {
				return
			}
		}
	}); !slices.Equal(got, []string{"c1", "e1", "e2", "e5", "e9"}) {
		t.Errorf("events with chunks: %v", got)
	}
	if c := byEvent["e1"][0]; c.SessionID != "s1" || c.Title != "Chunking" || c.Content != "How are chunks cut?" {
		t.Errorf("e1 chunk: %+v", c)
	}
	if c := byEvent["e5"][0]; c.SessionID != "s2" || c.Title != "s2" {
		t.Errorf("untitled session's chunk is titled %q, want its id", c.Title)
	}
	if n := len(byEvent["e9"]); n < 2 {
		t.Errorf("a long message gave %d chunk(s)", n)
	}
	// A chunk resolves to its event.
	if e, err := ix.Event(ctx, p, byEvent["e2"][0].EventID); err != nil || e.Type != "agent.response" {
		t.Errorf("citation of e2: %+v, %v", e, err)
	}

	sr := rep.Scopes[0]
	if sr.Sessions != 3 || sr.Messages != 5 || sr.Chunks.Total != len(cs) || !sr.Complete || sr.EventsThrough == nil {
		t.Errorf("report: %+v", sr)
	}
	if !strings.HasPrefix(sr.Summary, "session: 3 sessions, 5 messages, ") {
		t.Errorf("summary %q", sr.Summary)
	}

	// Unchanged log: same ids, no provider call. A renamed session keeps
	// its chunks' ids and updates their title.
	calls := srv.Calls()
	renamed := event("e10", "s2", "chat.message", "Renaming this session", 20)
	renamed.Title = "Named later"
	if _, err := ix.AppendEvents(ctx, p, []ragd.Event{renamed}); err != nil {
		t.Fatal(err)
	}
	reindex(t, ix, p, "session")
	after := chunks(t, s, p, ragd.ScopeSession)
	kept := 0
	for _, c := range after {
		if slices.Contains(ids(cs), c.ID) {
			kept++
		}
		if c.SessionID == "s2" && c.Title != "Named later" {
			t.Errorf("chunk of renamed session titled %q", c.Title)
		}
	}
	if kept != len(cs) || len(after) != len(cs)+1 {
		t.Errorf("after one more message: %d of %d kept, %d chunks", kept, len(cs), len(after))
	}
	if got := srv.Calls() - calls; got != 1 {
		t.Errorf("%d provider calls for one new message, want 1", got)
	}
}

func TestImportEvents_ReadFailureKeepsWhatWasRead(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	p := testdb.AddProject(t, s, "p", t.TempDir())
	ix := newIndexer(s, nil)
	lines := strings.Join(strings.Split(eventFile, "\n")[:3], "\n") + "\n"
	broken := io.MultiReader(strings.NewReader(lines), iotest.ErrReader(errors.New("disk gone")))
	rep, err := ix.ImportEvents(ctx, p, broken)
	if err == nil || !strings.Contains(err.Error(), "disk gone") {
		t.Fatalf("err = %v", err)
	}
	if rep.Appended != 3 {
		t.Errorf("report: %+v", rep)
	}
	if _, err := ix.Event(ctx, p, "e3"); err != nil {
		t.Errorf("event read before the failure not stored: %v", err)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ix.ImportEvents(cancelled, p, strings.NewReader(eventFile)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled import: err = %v", err)
	}
	if _, err := ix.Event(ctx, p, "e5"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("a cancelled import stored events: %v", err)
	}
}
