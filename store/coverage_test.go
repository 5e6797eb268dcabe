package store

import (
	"context"
	"math/rand"
	"testing"

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
