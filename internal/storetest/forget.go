package storetest

import (
	"errors"
	"maps"
	"testing"

	"github.com/ragd/ragd"
)

var forgetTests = []subtest{
	{"forget a session", testForget},
}

// testForget: ForgetSession deletes a session's events and chunks (with the
// votes on them), remembers it as forgotten, and leaves the other sessions
// alone.
func testForget(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	p, q := e.project("p"), e.project("q")
	m1 := message("m1", "s1", 0, "a secret pasted by mistake")
	e.appendSession(p.ID, m1, toolCall("t1", "s1", 1), message("m2", "s1", 2, "more of it"), message("m3", "s2", 3, "kept"))
	e.appendSession(q.ID, message("m1", "s1", 0, "q's own session of that id"))
	hit := chunkID(p.ID, ragd.ScopeSession, sessionChunk(m1))
	searchID := e.search(p.ID, "secret", hit)
	e.vote(searchID, hit)

	res, err := s.ForgetSession(ctx, p.ID, "s1")
	if err != nil || res != (ragd.ForgetResult{Events: 3, Chunks: 2}) {
		t.Fatalf("forget s1: %+v, %v; want 3 events, 2 chunks", res, err)
	}
	if _, err := s.SessionEvents(ctx, p.ID, "s1"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("events of the forgotten session: %v, want ErrNotFound", err)
	}
	if _, err := s.Event(ctx, p.ID, "m1"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("an event of the forgotten session: %v, want ErrNotFound", err)
	}
	if chunks, err := s.EventChunks(ctx, p.ID, "m1"); err != nil || len(chunks) != 0 {
		t.Errorf("chunks of a forgotten event: %+v, %v", chunks, err)
	}
	sn := e.snapshot()
	if chunks, err := sn.Chunks(ctx, []string{hit}); err != nil || len(chunks) != 0 {
		t.Errorf("a forgotten chunk in a snapshot: %+v, %v", chunks, err)
	}
	sn.Close()
	if votes, err := s.SearchVotes(ctx, searchID); err != nil || len(votes) != 0 {
		t.Errorf("votes on a forgotten chunk: %+v, %v", votes, err)
	}
	list, err := s.ListSessions(ctx, p.ID, ragd.SessionFilter{})
	if err != nil || len(list) != 1 || list[0].ID != "s2" {
		t.Errorf("sessions after forgetting s1: %+v, %v", list, err)
	}
	if st := e.scopeStats(p.ID, ragd.ScopeSession); st.Chunks != 1 {
		t.Errorf("session chunks after forgetting s1: %+v", st)
	}
	forgotten, err := s.ForgottenSessions(ctx, p.ID)
	if err != nil || !maps.Equal(forgotten, map[string]bool{"s1": true}) {
		t.Errorf("forgotten sessions of p: %v, %v", forgotten, err)
	}
	if _, err := s.ForgetSession(ctx, p.ID, "s1"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("forget s1 again: %v, want ErrNotFound", err)
	}
	if forgotten, err := s.ForgottenSessions(ctx, p.ID); err != nil || !forgotten["s1"] {
		t.Errorf("forgotten sessions of p after forgetting again: %v, %v", forgotten, err)
	}
	// The other project's session of the same id is untouched.
	if evs, err := s.SessionEvents(ctx, q.ID, "s1"); err != nil || len(evs) != 1 {
		t.Errorf("q's session s1: %+v, %v", evs, err)
	}
	if forgotten, err := s.ForgottenSessions(ctx, q.ID); err != nil || len(forgotten) != 0 {
		t.Errorf("forgotten sessions of q: %v, %v", forgotten, err)
	}
}
