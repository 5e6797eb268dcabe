package eval

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
	"github.com/ragd/ragd/internal/testdb/sqlitedb"
)

// A partial store shows the vectors of the filled share only: the KNN
// lists only filled chunks (the nearest of them, however deep they sit in
// the whole list), distances come back for filled chunks only, and the
// coverage counts the share.
func TestPartialStore(t *testing.T) {
	ctx := context.Background()
	st := sqlitedb.OpenDims(t, testDims)
	p, err := st.AddProject(ctx, "p", "/repos/p")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(7))
	var in []ragd.ChunkInput
	for i := range 200 {
		in = append(in, fileChunk(fmt.Sprintf("docs/%03d.md", i), 0, "T", nil, fmt.Sprintf("chunk %d", i), randomUnit(r)))
	}
	testdb.Replace(t, st, p.ID, ragd.ScopeDocs, in)
	const share = 0.1
	query := randomUnit(r)
	f := ragd.Filter{ProjectID: p.ID}

	whole, err := st.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer whole.Close()
	all, err := whole.VectorCandidates(ctx, f, query, 200)
	if err != nil {
		t.Fatal(err)
	}
	var want, ids []string
	for _, c := range all {
		ids = append(ids, c.ChunkID)
		if vectorFilled(c.ChunkID, share) && len(want) < 5 {
			want = append(want, c.ChunkID)
		}
	}
	if len(want) < 5 {
		t.Fatalf("only %d of 200 chunks in a 10%% share: the sample is not spread", len(want))
	}

	sn, err := partialStore{Store: st, share: share}.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	got, err := sn.VectorCandidates(ctx, f, query, 5)
	if err != nil {
		t.Fatal(err)
	}
	var gotIDs []string
	for _, c := range got {
		gotIDs = append(gotIDs, c.ChunkID)
	}
	if !slices.Equal(gotIDs, want) {
		t.Errorf("partial KNN %v, want the 5 nearest filled chunks %v", gotIDs, want)
	}
	dist, err := sn.VectorDistances(ctx, query, ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if _, ok := dist[id]; ok != vectorFilled(id, share) {
			t.Errorf("chunk %s: distance given %v, filled %v", id, ok, vectorFilled(id, share))
		}
	}
	chunks, vectors, err := sn.VectorCoverage(ctx, f)
	if err != nil || chunks != 200 || vectors != 20 {
		t.Errorf("coverage %d of %d (%v), want 20 of 200", vectors, chunks, err)
	}
}
