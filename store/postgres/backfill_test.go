package postgres

import (
	"context"
	"testing"

	"github.com/ragd/ragd"
)

func TestBackfill(t *testing.T) {
	s, _ := openTest(t, Options{})
	ctx := context.Background()
	p := addProject(t, s, "demo")
	replace(t, s, p.ID, ragd.ScopeDocs, doc("a.md", 0, "one", nil), doc("b.md", 0, "two", nil), doc("c.md", 0, "three", []float32{1, 0, 0, 0}))
	pending, err := s.PendingVectors(ctx, 10)
	if err != nil || len(pending) != 2 || pending[0].Seq < pending[1].Seq || pending[0].Content != "two" {
		t.Fatalf("pending: %+v, %v; want b then a", pending, err)
	}
	if n, err := s.PendingVectorCount(ctx); err != nil || n != 2 {
		t.Fatalf("pending count %d, %v", n, err)
	}
	// One filled; one with a stale hash skipped.
	n, err := s.FillVectors(ctx, []ragd.VectorFill{
		{Seq: pending[0].Seq, ContentHash: pending[0].ContentHash, Vector: []float32{0, 1, 0, 0}},
		{Seq: pending[1].Seq, ContentHash: "stale", Vector: []float32{0, 1, 0, 0}},
	})
	if err != nil || n != 1 {
		t.Fatalf("filled %d, %v; want 1", n, err)
	}
	if _, err := s.FillVectors(ctx, []ragd.VectorFill{{Seq: pending[1].Seq, ContentHash: pending[1].ContentHash, Vector: []float32{1}}}); err == nil {
		t.Fatal("fill with a short vector: no error")
	}
	m, err := s.MarkUnembeddable(ctx, []ragd.Unembeddable{{Seq: pending[1].Seq, ContentHash: pending[1].ContentHash, Reason: "too long"},
		{Seq: pending[0].Seq, ContentHash: pending[0].ContentHash, Reason: "has a vector now"}})
	if err != nil || m != 1 {
		t.Fatalf("marked %d, %v; want 1", m, err)
	}
	if n, _ := s.PendingVectorCount(ctx); n != 0 {
		t.Fatalf("pending after fill and mark: %d", n)
	}
	st, err := s.ScopeStats(ctx, p.ID, ragd.ScopeDocs)
	if err != nil || st.LexicalOnly != 1 || st.Unembeddable["too long"] != 1 {
		t.Fatalf("stats: %+v, %v", st, err)
	}
	states, _ := s.ChunkStates(ctx, p.ID, ragd.ScopeDocs)
	if st := states[idOf(doc("a.md", 0, "one", nil), p.ID, ragd.ScopeDocs)]; !st.Unembeddable || st.Vector {
		t.Fatalf("state of the unembeddable chunk: %+v", st)
	}
	stats, err := s.Stats(ctx)
	if err != nil || stats.Chunks[ragd.ScopeDocs] != 3 || stats.Vectors != 2 || stats.LexicalOnly != 1 || stats.Projects != 1 || stats.FileBytes == 0 {
		t.Fatalf("stats: %+v, %v", stats, err)
	}
}

func TestChecks(t *testing.T) {
	s, _ := openTest(t, Options{})
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.Server == "" || !versionAtLeast(info.Vector, 0, 5) || info.Schema != info.Known || info.Schema < 1 {
		t.Fatalf("info: %+v", info)
	}
	t.Logf("server %s; pgvector %s; schema %d", info.Server, info.Vector, info.Schema)
	checks := s.Checks(context.Background())
	if len(checks) != 4 {
		t.Fatalf("checks: %+v, want 4", checks)
	}
	for _, c := range checks {
		if !c.OK {
			t.Errorf("check %s failed: %s", c.Name, c.Detail)
		}
	}
}
