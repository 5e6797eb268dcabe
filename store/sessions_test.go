package store

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
)

// t0 and ev are the shared test events' (internal/testdb).
var (
	t0 = testdb.T0
	ev = testdb.Event
)

func TestAppendEvents_Idempotent(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	e1 := ev("e1", "s1", "chat.message", "Why SQLite?", 0)
	e1.Title = "Storage"
	e2 := ev("e2", "s1", "agent.response", "Because it is one file.", time.Second)
	e3 := ev("e3", "s1", "tool.call", "", 2*time.Second)
	e3.Payload = []byte(`{"name": "grep", "args": ["-r"]}`)

	res, err := s.AppendEvents(ctx, p.ID, []ragd.Event{e1, e2, e3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Appended != 3 || res.Duplicates != 0 || res.SessionsCreated != 1 || len(res.Conflicts) != 0 || res.ByType["chat.message"] != 1 || res.ByType["tool.call"] != 1 {
		t.Fatalf("first append: %+v", res)
	}

	// The same events again, one with its time in another zone and its
	// payload re-spaced: the same content.
	again := e3
	again.Time = e3.Time.In(time.FixedZone("CET", 3600))
	again.Payload = []byte(`{"name":"grep","args":["-r"]}`)
	res, err = s.AppendEvents(ctx, p.ID, []ragd.Event{e1, e2, again})
	if err != nil {
		t.Fatal(err)
	}
	if res.Appended != 0 || res.Duplicates != 3 || res.SessionsCreated != 0 || len(res.Conflicts) != 0 {
		t.Fatalf("second append: %+v", res)
	}

	got, err := s.Event(ctx, p.ID, "e3")
	if err != nil {
		t.Fatal(err)
	}
	if got.SessionID != "s1" || got.Type != "tool.call" || !got.Time.Equal(e3.Time) || string(got.Payload) != string(e3.Payload) {
		t.Errorf("Event(e3) = %+v", got)
	}
	if got.CreatedAt.IsZero() {
		t.Error("CreatedAt not set")
	}
	if got, _ := s.Event(ctx, p.ID, "e1"); got.Title != "Storage" || got.Text != "Why SQLite?" {
		t.Errorf("Event(e1) = %+v", got)
	}
}

func TestAppendEvents_ConflictKeepsOthers(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	if _, err := s.AppendEvents(ctx, p.ID, []ragd.Event{ev("e1", "s1", "chat.message", "hello", 0)}); err != nil {
		t.Fatal(err)
	}
	changed := ev("e1", "s2", "chat.message", "hello there", 0)
	res, err := s.AppendEvents(ctx, p.ID, []ragd.Event{changed, ev("e2", "s1", "chat.message", "next", time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Appended != 1 || len(res.Conflicts) != 1 {
		t.Fatalf("result: %+v", res)
	}
	c := res.Conflicts[0]
	if c.EventID != "e1" || !slices.Equal(c.Fields, []string{"sessionId", "text"}) {
		t.Errorf("conflict: %+v", c)
	}
	if !errors.Is(c, ragd.ErrEventConflict) {
		t.Error("conflict does not match ErrEventConflict")
	}
	if got, _ := s.Event(ctx, p.ID, "e1"); got.Text != "hello" || got.SessionID != "s1" {
		t.Errorf("stored event changed: %+v", got)
	}
	if _, err := s.Event(ctx, p.ID, "e2"); err != nil {
		t.Errorf("e2 not stored: %v", err)
	}
}

func TestAppendEvents_PerProjectAndNotFound(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p, q := mustProject(t, s, "p"), mustProject(t, s, "q")
	e := ev("e1", "s1", "chat.message", "hi", 0)
	if _, err := s.AppendEvents(ctx, p.ID, []ragd.Event{e}); err != nil {
		t.Fatal(err)
	}
	// Another project may use the same ids.
	if res, err := s.AppendEvents(ctx, q.ID, []ragd.Event{e}); err != nil || res.Appended != 1 || res.SessionsCreated != 1 {
		t.Fatalf("append to q: %+v, %v", res, err)
	}
	if _, err := s.Event(ctx, p.ID, "nope"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("unknown event: err = %v, want ErrNotFound", err)
	}
}

func TestAppendEvents_BadInputStoresNothing(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	for name, bad := range map[string]ragd.Event{
		"no id":      ev("", "s1", "chat.message", "x", 0),
		"no session": ev("e9", "", "chat.message", "x", 0),
		"no time":    {ID: "e9", SessionID: "s1", Type: "x", Actor: "a"},
		"payload":    {ID: "e9", SessionID: "s1", Type: "x", Actor: "a", Time: t0, Payload: []byte("{")},
		// The store holds events to the event format's one rule set
		// (ragd.Event.Validate), not to a weaker copy of it.
		"blank actor":       {ID: "e9", SessionID: "s1", Type: "x", Actor: " ", Time: t0},
		"message, no text":  ev("e9", "s1", "chat.message", "", 0),
		"bad UTF-8 in text": ev("e9", "s1", "chat.message", "a\xffb", 0),
		"bad UTF-8 in id":   ev("e\xff", "s1", "chat.message", "x", 0),
	} {
		_, err := s.AppendEvents(ctx, p.ID, []ragd.Event{ev("ok", "s1", "chat.message", "x", 0), bad})
		if !errors.Is(err, ragd.ErrInvalidEvent) || !strings.Contains(err.Error(), "event 1") {
			t.Errorf("%s: %v, want an invalid event naming event 1", name, err)
		}
		if want := bad.Problem(); want == "" || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want the event rule's %q", name, err, want)
		}
	}
	if _, err := s.Event(ctx, p.ID, "ok"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("a batch with a bad event was partly stored: %v", err)
	}
	if _, err := s.AppendEvents(ctx, 999, []ragd.Event{ev("e1", "s1", "chat.message", "x", 0)}); err == nil {
		t.Error("append to an unknown project: no error")
	}
}
