package store

import (
	"context"
	"math/rand"
	"testing"
	"time"

	"github.com/ragd/ragd"
)

func TestScopeStatsAndChunkStates(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	r := rand.New(rand.NewSource(1))
	in := []ragd.ChunkInput{
		docChunk("docs/a.md", 0, "alpha", randomUnit(r, 4)),
		docChunk("docs/a.md", 1, "beta", nil),
		docChunk("docs/b.md", 0, "gamma", randomUnit(r, 4)),
	}
	if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, in); err != nil {
		t.Fatal(err)
	}
	st, err := s.ScopeStats(ctx, p.ID, ragd.ScopeDocs)
	if err != nil {
		t.Fatal(err)
	}
	if st.Chunks != 3 || st.LexicalOnly != 1 || st.Sources["docs/a.md"] != 2 || st.Sources["docs/b.md"] != 1 || len(st.Sources) != 2 {
		t.Errorf("stats: %+v", st)
	}
	states, err := s.ChunkStates(ctx, p.ID, ragd.ScopeDocs)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range in {
		id := ragd.ChunkID(p.ID, ragd.ScopeDocs, c.SourcePath, c.Position, c.ContentHash)
		st, ok := states[id]
		if !ok || st.Vector != (c.Vector != nil) || st.SourceCommit != "c0ffee" || st.Title != "Title" {
			t.Errorf("%s#%d: state %+v (listed %v)", c.SourcePath, c.Position, st, ok)
		}
		same := c
		same.Vector = nil
		if !st.Matches(&same) {
			t.Errorf("%s#%d: state %+v does not match its own input", c.SourcePath, c.Position, st)
		}
		for name, edit := range map[string]func(*ragd.ChunkInput){
			"vector":  func(c *ragd.ChunkInput) { c.Vector = randomUnit(r, 4) },
			"commit":  func(c *ragd.ChunkInput) { c.SourceCommit = "beef" },
			"heading": func(c *ragd.ChunkInput) { c.HeadingPath = []string{"Other"} },
			"title":   func(c *ragd.ChunkInput) { c.Title = "Other" },
			"offsets": func(c *ragd.ChunkInput) { c.End++ },
		} {
			changed := same
			edit(&changed)
			if st.Matches(&changed) {
				t.Errorf("%s#%d: a changed %s matches", c.SourcePath, c.Position, name)
			}
		}
	}
	if _, err := s.ScopeStats(ctx, p.ID, "code"); err == nil {
		t.Error("unknown scope: no error")
	}
}

func TestSessionStats(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	types := []string{"chat.message", "agent.response"}
	if st, err := s.SessionStats(ctx, p.ID, types, time.Time{}); err != nil || st != (ragd.SessionStats{}) {
		t.Fatalf("empty log: %+v, %v", st, err)
	}
	events := []ragd.Event{
		ev("a1", "s1", "chat.message", "one", 0),
		ev("a2", "s1", "agent.response", "two", time.Second),
		ev("b1", "s2", "chat.message", "three", 0),
		ev("c1", "s3", "tool.call", "", 0), // no message: not counted
	}
	if _, err := s.AppendEvents(ctx, p.ID, events); err != nil {
		t.Fatal(err)
	}
	chunk := ragd.ChunkInput{SessionID: "s1", EventID: "a1", Content: "one", ContentHash: "h1"}
	if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeSession, []ragd.ChunkInput{chunk}); err != nil {
		t.Fatal(err)
	}
	st, err := s.SessionStats(ctx, p.ID, types, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Sessions != 2 || st.SessionsIndexed != 1 || st.Messages != 3 || st.MessagesIndexed != 1 || st.UnindexedSince != 2 || st.LastAppended.IsZero() {
		t.Errorf("stats: %+v", st)
	}
	// a1 has a chunk: of the three messages, two are unindexed.
	later, err := s.SessionStats(ctx, p.ID, types, st.LastAppended)
	if err != nil || later.UnindexedSince != 0 {
		t.Errorf("appended since the last one: %+v, %v", later, err)
	}
	// A message appended with its chunk is indexed at once.
	c2 := ragd.ChunkInput{SessionID: "s2", EventID: "b2", Content: "four", ContentHash: "h4"}
	if _, err := s.AppendSession(ctx, p.ID, []ragd.Event{ev("b2", "s2", "chat.message", "four", 2*time.Second)},
		[][]ragd.ChunkInput{{c2}}); err != nil {
		t.Fatal(err)
	}
	if st, err := s.SessionStats(ctx, p.ID, types, time.Time{}); err != nil || st.Messages != 4 || st.MessagesIndexed != 2 || st.UnindexedSince != 2 {
		t.Errorf("after an indexed append: %+v, %v", st, err)
	}
}

func TestChunkInputID_MatchesStoredIDs(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	docs := []ragd.ChunkInput{docChunk("docs/a.md", 0, "alpha", nil)}
	sessions := []ragd.ChunkInput{{SessionID: "s1", EventID: "e1", Position: 2, Content: "hi", ContentHash: "h"}}
	for scope, in := range map[string][]ragd.ChunkInput{ragd.ScopeDocs: docs, ragd.ScopeSession: sessions} {
		if _, err := s.ReplaceScope(ctx, p.ID, scope, in); err != nil {
			t.Fatal(err)
		}
		stored, err := s.ScopeChunks(ctx, p.ID, scope)
		if err != nil || len(stored) != 1 {
			t.Fatalf("%s: %v, %v", scope, stored, err)
		}
		if got := in[0].ID(p.ID, scope); got != stored[0].ID {
			t.Errorf("%s: ID() = %s, stored %s", scope, got, stored[0].ID)
		}
	}
}
