package storetest

import (
	"slices"
	"testing"

	"github.com/ragd/ragd"
)

var snapshotTests = []subtest{
	{"one state while a reindex commits", testSnapshotOneState},
}

// testSnapshotOneState: a snapshot sees the state of its Snapshot call,
// whole, while a reindex of the docs and an append to the sessions commit
// (or wait, on an engine whose writes wait for snapshots); the next
// snapshot sees both writes whole.
func testSnapshotOneState(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	p := e.project("p")
	old := []ragd.ChunkInput{docChunk("docs/a.md", 0, "old first", unit(s, 0)), docChunk("docs/a.md", 1, "old second", unit(s, 1))}
	fresh := []ragd.ChunkInput{docChunk("docs/b.md", 0, "new first", unit(s, 0)),
		docChunk("docs/b.md", 1, "new second", unit(s, 2)), docChunk("docs/b.md", 2, "new third", unit(s, 3))}
	e.replace(p.ID, ragd.ScopeDocs, old...)
	idsOf := func(chunks []ragd.ChunkInput) []string {
		var out []string
		for _, c := range chunks {
			out = append(out, chunkID(p.ID, ragd.ScopeDocs, c))
		}
		slices.Sort(out)
		return out
	}

	sn, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	done := make(chan error, 1)
	go func() {
		if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, fresh); err != nil {
			done <- err
			return
		}
		_, err := s.AppendSession(ctx, p.ID, []ragd.Event{message("e1", "s1", 0, "appended meanwhile")},
			[][]ragd.ChunkInput{{sessionChunk(message("e1", "s1", 0, "appended meanwhile"))}})
		done <- err
	}()
	if !e.su.WritesWaitForSnapshots {
		// The writes commit while the snapshot is open.
		if err := <-done; err != nil {
			t.Fatalf("reindex during the snapshot: %v", err)
		}
	}

	// What the snapshot sees: the old docs, whole, and no session.
	all := ragd.Filter{ProjectID: p.ID}
	if n, v, err := sn.VectorCoverage(ctx, all); n != 2 || v != 2 || err != nil {
		t.Errorf("coverage in the snapshot: %d chunks, %d vectors, %v; want the old 2, 2", n, v, err)
	}
	near, err := sn.VectorCandidates(ctx, all, unit(s, 0), 10)
	var got []string
	for _, c := range near {
		got = append(got, c.ChunkID)
	}
	slices.Sort(got)
	if err != nil || !slices.Equal(got, idsOf(old)) {
		t.Errorf("vector candidates in the snapshot: %v, %v; want the old chunks %v", got, err, idsOf(old))
	}
	if chunks, err := sn.Chunks(ctx, idsOf(fresh)); err != nil || len(chunks) != 0 {
		t.Errorf("the new chunks in the snapshot: %d, %v", len(chunks), err)
	}
	if chunks, err := sn.Chunks(ctx, idsOf(old)); err != nil || len(chunks) != 2 {
		t.Errorf("the old chunks in the snapshot: %d, %v", len(chunks), err)
	}
	if d, err := sn.VectorDistances(ctx, unit(s, 1), idsOf(old)); err != nil || len(d) != 2 || d[chunkID(p.ID, ragd.ScopeDocs, old[1])] > 1e-5 {
		t.Errorf("distances to the old chunks in the snapshot: %v, %v", d, err)
	}
	if err := sn.Close(); err != nil {
		t.Errorf("close the snapshot: %v", err)
	}
	if e.su.WritesWaitForSnapshots {
		if err := <-done; err != nil {
			t.Fatalf("reindex after the snapshot: %v", err)
		}
	}

	// The next snapshot sees the new docs and the session, whole.
	sn2 := e.snapshot()
	if n, v, err := sn2.VectorCoverage(ctx, all); n != 4 || v != 3 || err != nil {
		t.Errorf("coverage in the next snapshot: %d chunks, %d vectors, %v; want 4, 3", n, v, err)
	}
	near, err = sn2.VectorCandidates(ctx, ragd.Filter{ProjectID: p.ID, Scopes: []string{ragd.ScopeDocs}}, unit(s, 0), 10)
	got = got[:0]
	for _, c := range near {
		got = append(got, c.ChunkID)
	}
	slices.Sort(got)
	if err != nil || !slices.Equal(got, idsOf(fresh)) {
		t.Errorf("vector candidates in the next snapshot: %v, %v; want the new chunks %v", got, err, idsOf(fresh))
	}
	if chunks, err := sn2.Chunks(ctx, idsOf(old)); err != nil || len(chunks) != 0 {
		t.Errorf("the old chunks in the next snapshot: %d, %v", len(chunks), err)
	}
}
