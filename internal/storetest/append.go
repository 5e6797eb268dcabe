package storetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/ragd/ragd"
)

var appendTests = []subtest{
	{"events with their chunks", testAppend},
	{"re-append is a no-op", testAppendAgain},
	{"conflict changes nothing", testAppendConflict},
	{"refused stores nothing", testAppendRefused},
	{"a session's title", testAppendTitle},
	{"messages of some types, in order", testMessages},
}

// testAppendTitle: AppendEvents titles a session by the title of its
// latest event that has one: a title on an event earlier than those
// stored does not rename it.
func testAppendTitle(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	p := e.project("p")
	titled := func(ev ragd.Event, title string) ragd.Event { ev.Title = title; return ev }
	for _, st := range []struct {
		event ragd.Event
		want  string
	}{
		{message("e1", "s1", 1, "a"), ""},
		{titled(message("e2", "s1", 2, "b"), "First"), "First"}, // no title yet
		{titled(message("e3", "s1", 0, "c"), "Older"), "First"}, // earlier than the stored events
		{titled(message("e4", "s1", 3, "d"), "Renamed"), "Renamed"},
	} {
		if _, err := s.AppendEvents(ctx, p.ID, []ragd.Event{st.event}); err != nil {
			t.Fatalf("append %s: %v", st.event.ID, err)
		}
		ms, err := s.Messages(ctx, p.ID, []string{ragd.TypeChatMessage})
		if err != nil || len(ms) == 0 {
			t.Fatalf("messages after %s: %v, %v", st.event.ID, ms, err)
		}
		if ms[0].SessionTitle != st.want {
			t.Errorf("after %s: title %q, want %q", st.event.ID, ms[0].SessionTitle, st.want)
		}
	}
}

// testMessages: Messages reads the events of the types asked, by session
// then time, with their time and when they were stored; no type asked is
// no message.
func testMessages(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	p := e.project("p")
	answer := message("b2", "s2", 2, "answer")
	answer.Type, answer.Actor = ragd.TypeAgentResponse, ragd.ActorAgent
	failed := message("a3", "s1", 7, "boom")
	failed.Type = "agent.error"
	events := []ragd.Event{answer, message("b1", "s2", 1, "question"), message("a1", "s1", 5, "first"), toolCall("a2", "s1", 6), failed}
	if _, err := s.AppendEvents(ctx, p.ID, events); err != nil {
		t.Fatal(err)
	}
	ms, err := s.Messages(ctx, p.ID, []string{ragd.TypeChatMessage, ragd.TypeAgentResponse})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.EventID)
	}
	if want := []string{"a1", "b1", "b2"}; !slices.Equal(got, want) {
		t.Fatalf("messages %v, want %v", got, want)
	}
	if m := ms[0]; m.SessionTitle != "" || !m.Time.Equal(at(5)) || m.CreatedAt.IsZero() {
		t.Errorf("message a1: %+v", m)
	}
	if none, err := s.Messages(ctx, p.ID, nil); err != nil || len(none) != 0 {
		t.Errorf("no types: %d messages, %v", len(none), err)
	}
}

// testAppend: AppendSession stores the events, creates their sessions, and
// writes the chunks of the indexed ones without vectors, titled with their
// session's title.
func testAppend(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	p := e.project("p")
	hello := message("e1", "s1", 0, "how do I rotate the signing key")
	hello.Title = "Key rotation"
	events := []ragd.Event{hello, toolCall("e2", "s1", 1), message("e3", "s1", 2, "run the rotate command"),
		message("e4", "s2", 3, "a second session")}
	r := e.appendSession(p.ID, events...)
	if r.Appended != 4 || r.ByType[ragd.TypeChatMessage] != 3 || r.ByType["tool.call"] != 1 || r.Duplicates != 0 ||
		r.SessionsCreated != 2 || len(r.Conflicts) != 0 || r.Chunks != 3 || r.Unindexed != 0 {
		t.Errorf("append: %+v", r)
	}
	states := e.states(p.ID, ragd.ScopeSession)
	if len(states) != 3 {
		t.Fatalf("%d session chunks, want 3", len(states))
	}
	for id, st := range states {
		if st.Vector {
			t.Errorf("appended chunk %s has a vector: appends leave them to the fill", id)
		}
	}
	chunks, err := s.EventChunks(ctx, p.ID, "e3")
	if err != nil || len(chunks) != 1 || chunks[0].Content != "run the rotate command" || chunks[0].SessionID != "s1" ||
		chunks[0].EventID != "e3" || chunks[0].Scope != ragd.ScopeSession || chunks[0].Title != "Key rotation" ||
		chunks[0].ID != chunkID(p.ID, ragd.ScopeSession, sessionChunk(events[2])) {
		t.Errorf("chunks of e3: %+v, %v", chunks, err)
	}
	ev, err := s.Event(ctx, p.ID, "e2")
	if err != nil || ev.Type != "tool.call" || ev.SessionID != "s1" || !ev.Time.Equal(at(1)) || string(ev.Payload) != `{"tool":"grep"}` ||
		ev.Title != "Key rotation" || ev.CreatedAt.IsZero() {
		t.Errorf("event e2 read back: %+v, %v", ev, err)
	}
	msgs, err := s.Messages(ctx, p.ID, ragd.IndexedTypes)
	var got []string
	for _, m := range msgs {
		got = append(got, m.SessionID+"/"+m.EventID)
	}
	if err != nil || !slices.Equal(got, []string{"s1/e1", "s1/e3", "s2/e4"}) {
		t.Errorf("messages: %v, %v", got, err)
	}

	// Events appended without chunks are counted as unindexed.
	r, err = s.AppendSession(ctx, p.ID, []ragd.Event{message("e5", "s2", 4, "no chunk given")}, nil)
	if err != nil || r.Appended != 1 || r.Unindexed != 1 || r.Chunks != 0 {
		t.Errorf("append without chunks: %+v, %v", r, err)
	}
}

// testAppendAgain: appending the same events again stores nothing and
// writes no chunk.
func testAppendAgain(t *testing.T, e *env) {
	p := e.project("p")
	events := []ragd.Event{message("e1", "s1", 0, "first"), toolCall("e2", "s1", 1), message("e3", "s1", 2, "second")}
	e.appendSession(p.ID, events...)
	before := e.states(p.ID, ragd.ScopeSession)
	r := e.appendSession(p.ID, events...)
	if r.Appended != 0 || r.Duplicates != 3 || r.SessionsCreated != 0 || r.Chunks != 0 || len(r.Conflicts) != 0 {
		t.Errorf("the same append again: %+v", r)
	}
	if after := e.states(p.ID, ragd.ScopeSession); len(after) != len(before) {
		t.Errorf("session chunks after a re-append: %d, want %d", len(after), len(before))
	}
	// A re-append with one new event stores that one only.
	r = e.appendSession(p.ID, append(events, message("e4", "s1", 3, "third"))...)
	if r.Appended != 1 || r.Duplicates != 3 || r.Chunks != 1 {
		t.Errorf("re-append with one new event: %+v", r)
	}
	evs, err := e.store().SessionEvents(t.Context(), p.ID, "s1")
	if err != nil || len(evs) != 4 {
		t.Errorf("events of s1: %d, %v; want 4", len(evs), err)
	}
}

// testAppendConflict: an event id stored with other content is refused as
// a conflict naming what differs; the stored event stays.
func testAppendConflict(t *testing.T, e *env) {
	s := e.store()
	p := e.project("p")
	e.appendSession(p.ID, message("e1", "s1", 0, "original text"))
	r := e.appendSession(p.ID, message("e1", "s1", 0, "other text"), message("e2", "s1", 1, "new one"))
	if r.Appended != 1 || len(r.Conflicts) != 1 || r.Conflicts[0].EventID != "e1" || !slices.Contains(r.Conflicts[0].Fields, "text") ||
		!errors.Is(r.Conflicts[0], ragd.ErrEventConflict) || r.Chunks != 1 {
		t.Errorf("append with a conflict: %+v", r)
	}
	ev, err := s.Event(t.Context(), p.ID, "e1")
	if err != nil || ev.Text != "original text" {
		t.Errorf("e1 after the conflict: %q, %v", ev.Text, err)
	}
	chunks, err := s.EventChunks(t.Context(), p.ID, "e1")
	if err != nil || len(chunks) != 1 || chunks[0].Content != "original text" {
		t.Errorf("chunks of e1 after the conflict: %+v, %v", chunks, err)
	}
}

// testAppendRefused: an invalid event, or chunks that do not match their
// events, refuse the whole call: nothing is stored.
func testAppendRefused(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	p := e.project("p")
	good := message("e1", "s1", 0, "fine")
	bad := message("", "s1", 1, "no id")
	if _, err := s.AppendSession(ctx, p.ID, []ragd.Event{good, bad}, nil); !errors.Is(err, ragd.ErrInvalidEvent) {
		t.Errorf("append with an event without id: %v, want an error wrapping ErrInvalidEvent", err)
	}
	other := sessionChunk(message("e9", "s1", 0, "fine"))
	for name, chunks := range map[string][][]ragd.ChunkInput{
		"fewer chunk lists than events": {},
		"a chunk of another event":      {{other}},
		"a chunk with a vector":         {{func() ragd.ChunkInput { c := sessionChunk(good); c.Vector = unit(s, 0); return c }()}},
	} {
		if _, err := s.AppendSession(ctx, p.ID, []ragd.Event{good}, chunks); err == nil {
			t.Errorf("append with %s: accepted", name)
		}
	}
	if _, err := s.Event(ctx, p.ID, "e1"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("e1 after refused appends: %v, want ErrNotFound", err)
	}
	if n := len(e.states(p.ID, ragd.ScopeSession)); n != 0 {
		t.Errorf("%d session chunks after refused appends", n)
	}
}
