package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ragd/ragd"
)

func TestListSessions(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	a1 := ev("codex:a1", "codex:a", "chat.message", "How do we store vectors?", 0)
	a1.Title = "Vectors"
	a2 := ev("codex:a2", "codex:a", "agent.response", "In sqlite-vec.", time.Minute)
	a3 := ev("codex:a3", "codex:a", "tool.call", "", 2*time.Minute)
	b1 := ev("b1", "b", "chat.message", "Later question", time.Hour)
	if _, err := s.AppendEvents(ctx, p.ID, []ragd.Event{a1, a2, a3, b1}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		f    ragd.SessionFilter
		want []string
	}{
		{"all, newest first", ragd.SessionFilter{}, []string{"b", "codex:a"}},
		{"by prefix", ragd.SessionFilter{IDPrefix: "codex:"}, []string{"codex:a"}},
		{"since", ragd.SessionFilter{Since: t0.Add(30 * time.Minute)}, []string{"b"}},
		{"since, at the last event", ragd.SessionFilter{Since: t0.Add(2 * time.Minute)}, []string{"b", "codex:a"}},
		{"nothing", ragd.SessionFilter{IDPrefix: "gemini:"}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.ListSessions(ctx, p.ID, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			ids := []string{}
			for _, si := range got {
				ids = append(ids, si.ID)
			}
			if len(ids) != len(tc.want) {
				t.Fatalf("ids = %v, want %v", ids, tc.want)
			}
			for i := range ids {
				if ids[i] != tc.want[i] {
					t.Fatalf("ids = %v, want %v", ids, tc.want)
				}
			}
		})
	}
	got, err := s.ListSessions(ctx, p.ID, ragd.SessionFilter{IDPrefix: "codex:"})
	if err != nil {
		t.Fatal(err)
	}
	if a := got[0]; a.Title != "Vectors" || a.Events != 3 || a.Messages != 2 || !a.First.Equal(t0) || !a.Last.Equal(t0.Add(2*time.Minute)) {
		t.Errorf("session a = %+v", a)
	}
}

func TestSessionEvents(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	// Stored out of time order: read back in time order.
	e2 := ev("e2", "s", "agent.response", "Answer", time.Second)
	e1 := ev("e1", "s", "chat.message", "Question", 0)
	e1.Title = "T"
	if _, err := s.AppendEvents(ctx, p.ID, []ragd.Event{e2, e1}); err != nil {
		t.Fatal(err)
	}
	got, err := s.SessionEvents(ctx, p.ID, "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "e1" || got[1].ID != "e2" || got[1].Title != "T" || got[0].Text != "Question" {
		t.Errorf("events = %+v", got)
	}
	if _, err := s.SessionEvents(ctx, p.ID, "nope"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("unknown session: err = %v, want ErrNotFound", err)
	}
}
