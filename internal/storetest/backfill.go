package storetest

import (
	"maps"
	"slices"
	"testing"

	"github.com/ragd/ragd"
)

var backfillTests = []subtest{
	{"pending, filled, unembeddable", testBackfill},
}

// testBackfill: chunks written without a vector wait in the fill's queue,
// newest first; a fill stores a vector only for a chunk that still holds
// the text it was computed from; a chunk marked unembeddable leaves the
// queue and is counted by its reason.
func testBackfill(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	p := e.project("p")
	docs := []ragd.ChunkInput{docChunk("docs/a.md", 0, "to fill", nil), docChunk("docs/a.md", 1, "too long to embed", nil),
		docChunk("docs/a.md", 2, "left waiting", nil), docChunk("docs/a.md", 3, "has one", unit(s, 3))}
	e.replace(p.ID, ragd.ScopeDocs, docs...)
	e.appendSession(p.ID, message("e1", "s1", 0, "appended last"))

	n, err := s.PendingVectorCount(ctx)
	if err != nil || n != 4 {
		t.Fatalf("pending count: %d, %v; want 4", n, err)
	}
	pending, err := s.PendingVectors(ctx, 10)
	if err != nil || len(pending) != 4 {
		t.Fatalf("pending: %+v, %v; want 4", pending, err)
	}
	if pending[0].Scope != ragd.ScopeSession || pending[0].Content != "appended last" {
		t.Errorf("first pending: %+v, want the chunk appended last (newest first)", pending[0])
	}
	bySeq := map[string]ragd.PendingVector{}
	for _, pv := range pending {
		if pv.ProjectID != p.ID || pv.ContentHash != hash(pv.Content) {
			t.Errorf("pending %+v", pv)
		}
		bySeq[pv.Content] = pv
	}
	// The fill embeds what the reindex would (ragd.EmbeddingText): the
	// document's title and the section's heading path come with the text.
	for _, d := range docs[:3] {
		if pv := bySeq[d.Content]; pv.Title != d.Title || !slices.Equal(pv.HeadingPath, d.HeadingPath) {
			t.Errorf("pending %q: title %q, heading path %q; want %q, %q", d.Content, pv.Title, pv.HeadingPath, d.Title, d.HeadingPath)
		}
	}
	if len(bySeq) != 4 {
		t.Fatalf("pending texts: %v", maps.Keys(bySeq))
	}
	if few, err := s.PendingVectors(ctx, 2); err != nil || len(few) != 2 || few[0].Seq != pending[0].Seq {
		t.Errorf("pending, 2 at most: %+v, %v", few, err)
	}

	fill, long, wait := bySeq["to fill"], bySeq["too long to embed"], bySeq["left waiting"]
	filled, err := s.FillVectors(ctx, []ragd.VectorFill{
		{Seq: fill.Seq, ContentHash: fill.ContentHash, Vector: unit(s, 0)},
		{Seq: wait.Seq, ContentHash: "stale", Vector: unit(s, 1)}, // its text changed since it was read
		{Seq: pending[0].Seq + 1000, ContentHash: "gone", Vector: unit(s, 1)},
	})
	if err != nil || filled != 1 {
		t.Errorf("fill: %d, %v; want 1 (the stale and the unknown skipped)", filled, err)
	}
	if again, err := s.FillVectors(ctx, []ragd.VectorFill{{Seq: fill.Seq, ContentHash: fill.ContentHash, Vector: unit(s, 2)}}); err != nil || again != 0 {
		t.Errorf("fill of a chunk that has a vector: %d, %v; want 0", again, err)
	}
	marked, err := s.MarkUnembeddable(ctx, []ragd.Unembeddable{
		{Seq: long.Seq, ContentHash: long.ContentHash, Reason: "input too long"},
		{Seq: wait.Seq, ContentHash: "stale", Reason: "input too long"},
		{Seq: fill.Seq, ContentHash: fill.ContentHash, Reason: "has a vector"},
	})
	if err != nil || marked != 1 {
		t.Errorf("mark unembeddable: %d, %v; want 1 (the stale one and the filled one skipped)", marked, err)
	}

	if n, err := s.PendingVectorCount(ctx); err != nil || n != 2 {
		t.Errorf("pending count after the fill: %d, %v; want 2", n, err)
	}
	pending, err = s.PendingVectors(ctx, 10)
	left := map[string]bool{}
	for _, pv := range pending {
		left[pv.Content] = true
	}
	if err != nil || !maps.Equal(left, map[string]bool{"left waiting": true, "appended last": true}) {
		t.Errorf("pending after the fill: %v, %v", left, err)
	}
	st := e.scopeStats(p.ID, ragd.ScopeDocs)
	if st.Chunks != 4 || st.LexicalOnly != 2 || !maps.Equal(st.Unembeddable, map[string]int{"input too long": 1}) {
		t.Errorf("docs stats after the fill: %+v", st)
	}
	states := e.states(p.ID, ragd.ScopeDocs)
	if st := states[chunkID(p.ID, ragd.ScopeDocs, docs[0])]; !st.Vector || st.Unembeddable {
		t.Errorf("state of the filled chunk: %+v", st)
	}
	if st := states[chunkID(p.ID, ragd.ScopeDocs, docs[1])]; st.Vector || !st.Unembeddable {
		t.Errorf("state of the unembeddable chunk: %+v", st)
	}
	sn := e.snapshot()
	near, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: p.ID}, unit(s, 0), 1)
	if err != nil || len(near) != 1 || near[0].ChunkID != chunkID(p.ID, ragd.ScopeDocs, docs[0]) || near[0].Distance > 1e-5 {
		t.Errorf("nearest to the filled vector: %+v, %v", near, err)
	}
	if n, v, err := sn.VectorCoverage(ctx, ragd.Filter{ProjectID: p.ID}); n != 5 || v != 2 || err != nil {
		t.Errorf("coverage after the fill: %d chunks, %d vectors, %v; want 5, 2", n, v, err)
	}
}
