package storetest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/ragd/ragd"
)

var replaceTests = []subtest{
	{"diff counts", testReplaceCounts},
	{"refused leaves the old scope whole", testReplaceRefused},
	{"scopes and projects apart", testReplaceApart},
}

// testReplaceCounts: a second replacement keeps the unchanged chunks (id,
// vector), deletes the vanished and changed ones, inserts the new, and
// counts each; a nil vector keeps the vector an unchanged chunk has.
func testReplaceCounts(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	p := e.project("p")
	first := []ragd.ChunkInput{
		docChunk("docs/a.md", 0, "alpha one", unit(s, 0)),
		docChunk("docs/a.md", 1, "alpha two", unit(s, 1)),
		docChunk("docs/b.md", 0, "beta one", nil),
	}
	r := e.replace(p.ID, ragd.ScopeDocs, first...)
	if want := (ragd.ReplaceResult{Inserted: 3, Vectors: 2}); r != want {
		t.Errorf("first replace: %+v, want %+v", r, want)
	}
	states := e.states(p.ID, ragd.ScopeDocs)
	for i, c := range first {
		st, ok := states[chunkID(p.ID, ragd.ScopeDocs, c)]
		if !ok || st.Vector != (c.Vector != nil) || st.SourceCommit != "c0ffee" || st.Title != c.Title ||
			!slices.Equal(st.HeadingPath, c.HeadingPath) || st.Start != c.Start || st.End != c.End {
			t.Errorf("state of chunk %d: %+v (stored: %v)", i, st, ok)
		}
	}

	// Kept: a.md#0 (same text, no vector given: it keeps its own) and b.md#0
	// (now with a vector). Deleted: a.md#1 (its text changed) . Inserted:
	// the changed a.md#1 and c.md#0.
	kept := docChunk("docs/a.md", 0, "alpha one", nil)
	second := []ragd.ChunkInput{
		kept,
		docChunk("docs/a.md", 1, "alpha two, changed", unit(s, 2)),
		docChunk("docs/b.md", 0, "beta one", unit(s, 3)),
		docChunk("docs/c.md", 0, "gamma one", nil),
	}
	r = e.replace(p.ID, ragd.ScopeDocs, second...)
	if want := (ragd.ReplaceResult{Inserted: 2, Kept: 2, Deleted: 1, Vectors: 3}); r != want {
		t.Errorf("second replace: %+v, want %+v", r, want)
	}
	states = e.states(p.ID, ragd.ScopeDocs)
	want := map[string]bool{}
	for _, c := range second {
		want[chunkID(p.ID, ragd.ScopeDocs, c)] = c.Vector != nil
	}
	want[chunkID(p.ID, ragd.ScopeDocs, kept)] = true // kept its vector
	got := map[string]bool{}
	for id, st := range states {
		got[id] = st.Vector
	}
	if !maps.Equal(got, want) {
		t.Errorf("chunks after the second replace (id: has a vector): %v, want %v", got, want)
	}

	// The kept chunk is still nearest its old vector.
	sn := e.snapshot()
	near, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: p.ID}, unit(s, 0), 1)
	if err != nil || len(near) != 1 || near[0].ChunkID != chunkID(p.ID, ragd.ScopeDocs, kept) || near[0].Distance > 1e-5 {
		t.Errorf("nearest to the kept chunk's vector: %+v, %v", near, err)
	}
	chunks, err := sn.Chunks(ctx, []string{chunkID(p.ID, ragd.ScopeDocs, second[1])})
	if err != nil || len(chunks) != 1 || chunks[0].Content != "alpha two, changed" || chunks[0].SourcePath != "docs/a.md" ||
		chunks[0].Position != 1 || chunks[0].Scope != ragd.ScopeDocs || chunks[0].ProjectID != p.ID ||
		chunks[0].EmbeddingSpace != s.Space() {
		t.Errorf("the changed chunk read back: %+v, %v", chunks, err)
	}
	sn.Close()

	// The same input again changes nothing.
	r = e.replace(p.ID, ragd.ScopeDocs, second[0], docChunk("docs/a.md", 1, "alpha two, changed", nil),
		docChunk("docs/b.md", 0, "beta one", nil), second[3])
	if want := (ragd.ReplaceResult{Kept: 4, Vectors: 3}); r != want {
		t.Errorf("the same replace again: %+v, want %+v", r, want)
	}

	// An empty replacement empties the scope.
	r = e.replace(p.ID, ragd.ScopeDocs)
	if want := (ragd.ReplaceResult{Deleted: 4}); r != want {
		t.Errorf("an empty replace: %+v, want %+v", r, want)
	}
	if n := len(e.states(p.ID, ragd.ScopeDocs)); n != 0 {
		t.Errorf("%d chunks after an empty replace", n)
	}
}

// testReplaceRefused: a replacement refused for its input, wherever in the
// list the bad chunk is, or for a cancelled context, leaves the old scope
// exactly as it was: its chunks, their text and vectors.
func testReplaceRefused(t *testing.T, e *env) {
	s := e.store()
	p := e.project("p")
	var old []ragd.ChunkInput
	for i := range 20 {
		old = append(old, docChunk("docs/old.md", i, fmt.Sprintf("old text %d", i), unit(s, i)))
	}
	e.replace(p.ID, ragd.ScopeDocs, old...)
	before := e.states(p.ID, ragd.ScopeDocs)

	fresh := func(bad func(c *ragd.ChunkInput)) []ragd.ChunkInput {
		var out []ragd.ChunkInput
		for i := range 20 {
			out = append(out, docChunk("docs/new.md", i, fmt.Sprintf("new text %d", i), unit(s, i+1)))
		}
		// The bad chunk comes last: an engine that checks as it writes has
		// written the others by then.
		bad(&out[len(out)-1])
		return out
	}
	cases := []struct {
		name   string
		chunks []ragd.ChunkInput
		ctx    func() context.Context
	}{
		{"vector of other dims", fresh(func(c *ragd.ChunkInput) { c.Vector = []float32{1, 0} }), nil},
		{"no source path", fresh(func(c *ragd.ChunkInput) { c.SourcePath = "" }), nil},
		{"no content hash", fresh(func(c *ragd.ChunkInput) { c.ContentHash = "" }), nil},
		{"negative position", fresh(func(c *ragd.ChunkInput) { c.Position = -1 }), nil},
		{"duplicate chunk", fresh(func(c *ragd.ChunkInput) { *c = docChunk("docs/new.md", 0, "new text 0", nil) }), nil},
		{"cancelled context", fresh(func(*ragd.ChunkInput) {}), func() context.Context {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			return ctx
		}},
	}
	for _, c := range cases {
		ctx := t.Context()
		if c.ctx != nil {
			ctx = c.ctx()
		}
		if r, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, c.chunks); err == nil {
			t.Errorf("%s: replace accepted (%+v)", c.name, r)
		}
		if after := e.states(p.ID, ragd.ScopeDocs); !maps.EqualFunc(after, before, statesEqual) {
			t.Errorf("%s: the refused replace changed the scope: %d chunks, want the %d old ones", c.name, len(after), len(before))
		}
	}
	sn := e.snapshot()
	chunks, err := sn.Chunks(t.Context(), slices.Collect(maps.Keys(before)))
	if err != nil || len(chunks) != len(old) {
		t.Fatalf("the old chunks read back: %d, %v", len(chunks), err)
	}
	for _, c := range chunks {
		if c.SourcePath != "docs/old.md" || c.Content != fmt.Sprintf("old text %d", c.Position) {
			t.Errorf("chunk %s after the refused replaces: %s#%d %q", c.ID, c.SourcePath, c.Position, c.Content)
		}
	}
	if n, v, err := sn.VectorCoverage(t.Context(), ragd.Filter{ProjectID: p.ID}); n != 20 || v != 20 || err != nil {
		t.Errorf("vector coverage after the refused replaces: %d chunks, %d vectors, %v; want 20, 20", n, v, err)
	}
}

func statesEqual(a, b ragd.ChunkState) bool {
	return a.Vector == b.Vector && a.Unembeddable == b.Unembeddable && a.SourceCommit == b.SourceCommit &&
		a.Title == b.Title && a.Start == b.Start && a.End == b.End && slices.Equal(a.HeadingPath, b.HeadingPath)
}

// testReplaceApart: a replacement touches its own project's scope only.
func testReplaceApart(t *testing.T, e *env) {
	s := e.store()
	p, q := e.project("p"), e.project("q")
	e.replace(p.ID, ragd.ScopeDocs, docChunk("docs/a.md", 0, "docs of p", unit(s, 0)))
	e.replace(p.ID, ragd.ScopeADR, docChunk("docs/adr/1.md", 0, "adr of p", unit(s, 1)))
	e.replace(q.ID, ragd.ScopeDocs, docChunk("docs/a.md", 0, "docs of p", unit(s, 2)))
	if r := e.replace(p.ID, ragd.ScopeDocs); r.Deleted != 1 {
		t.Errorf("emptying docs of p: %+v", r)
	}
	if n := len(e.states(p.ID, ragd.ScopeADR)); n != 1 {
		t.Errorf("adr of p after emptying its docs: %d chunks, want 1", n)
	}
	qs := e.states(q.ID, ragd.ScopeDocs)
	if len(qs) != 1 {
		t.Errorf("docs of q after emptying docs of p: %d chunks, want 1", len(qs))
	}
	// The same file and text in two projects are two chunks.
	if _, ok := qs[chunkID(p.ID, ragd.ScopeDocs, docChunk("docs/a.md", 0, "docs of p", nil))]; ok {
		t.Error("q's chunk has p's id")
	}
}
