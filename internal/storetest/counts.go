package storetest

import (
	"maps"
	"testing"

	"github.com/ragd/ragd"
)

var countTests = []subtest{
	{"scope stats, coverage, stats", testCounts},
}

// testCounts: the counts of ScopeStats, VectorCoverage and Stats follow
// what was written, by project and scope.
func testCounts(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	if st, err := s.Stats(ctx); err != nil || st.Projects != 0 || st.Vectors != 0 || st.Sessions != 0 || st.Searches != 0 {
		t.Errorf("stats of an empty store: %+v, %v", st, err)
	}
	p, q := e.project("p"), e.project("q")
	e.replace(p.ID, ragd.ScopeDocs, docChunk("docs/a.md", 0, "a0", unit(s, 0)), docChunk("docs/a.md", 1, "a1", nil),
		docChunk("docs/b.md", 0, "b0", unit(s, 1)))
	e.replace(p.ID, ragd.ScopeADR, docChunk("docs/adr/1.md", 0, "adr", unit(s, 2)))
	e.replace(q.ID, ragd.ScopeDocs, docChunk("docs/a.md", 0, "q's", nil))
	e.appendSession(p.ID, message("e1", "s1", 0, "hello"), toolCall("e2", "s1", 1), message("e3", "s2", 2, "again"))
	searchID := e.search(p.ID, "a0", chunkID(p.ID, ragd.ScopeDocs, docChunk("docs/a.md", 0, "a0", nil)))
	e.vote(searchID, chunkID(p.ID, ragd.ScopeDocs, docChunk("docs/a.md", 0, "a0", nil)))
	e.search(q.ID, "nothing")

	st := e.scopeStats(p.ID, ragd.ScopeDocs)
	if st.Chunks != 3 || st.LexicalOnly != 1 || !maps.Equal(st.Sources, map[string]int{"docs/a.md": 2, "docs/b.md": 1}) || len(st.Unembeddable) != 0 {
		t.Errorf("docs stats of p: %+v", st)
	}
	st = e.scopeStats(p.ID, ragd.ScopeSession)
	if st.Chunks != 2 || st.LexicalOnly != 2 || !maps.Equal(st.Sources, map[string]int{"s1": 1, "s2": 1}) {
		t.Errorf("session stats of p: %+v", st)
	}
	if st := e.scopeStats(q.ID, ragd.ScopeADR); st.Chunks != 0 || len(st.Sources) != 0 {
		t.Errorf("adr stats of q: %+v", st)
	}

	sn := e.snapshot()
	for _, c := range []struct {
		f               ragd.Filter
		chunks, vectors int
	}{
		{ragd.Filter{ProjectID: p.ID}, 6, 3},
		{ragd.Filter{ProjectID: p.ID, Scopes: []string{ragd.ScopeDocs}}, 3, 2},
		{ragd.Filter{ProjectID: p.ID, Scopes: []string{ragd.ScopeADR, ragd.ScopeSession}}, 3, 1},
		{ragd.Filter{ProjectID: q.ID}, 1, 0},
	} {
		if n, v, err := sn.VectorCoverage(ctx, c.f); n != c.chunks || v != c.vectors || err != nil {
			t.Errorf("coverage of %+v: %d chunks, %d vectors, %v; want %d, %d", c.f, n, v, err, c.chunks, c.vectors)
		}
	}

	sn.Close()

	all, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{ragd.ScopeDocs: 4, ragd.ScopeADR: 1, ragd.ScopeSession: 2}
	if all.Projects != 2 || !maps.Equal(all.Chunks, want) || all.Vectors != 3 || all.LexicalOnly != 4 ||
		all.Sessions != 2 || all.Events != 3 || all.Searches != 2 || all.Votes != 1 {
		t.Errorf("stats: %+v; want 2 projects, chunks %v, 3 vectors, 4 lexical only, 2 sessions, 3 events, 2 searches, 1 vote", all, want)
	}
}
