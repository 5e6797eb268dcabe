package store

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/ragd/ragd"
)

// Chunks written without vectors are the queue: newest first, filled in
// short transactions, never with the vector of text that changed.
func TestFillVectors_QueueNewestFirst(t *testing.T) {
	ctx := context.Background()
	const dims = 16
	for _, mode := range []VectorMode{VectorsExact, VectorsQuantized} {
		t.Run(string(mode), func(t *testing.T) {
			s, err := Open(ctx, t.TempDir()+"/ragd.db", Options{Space: "test/16", Dims: dims, Vectors: mode})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := s.WaitVectorIndex(ctx); err != nil {
				t.Fatal(err)
			}
			s.quantizedMin = 0
			p := mustProject(t, s, "p")
			r := rand.New(rand.NewSource(2))
			var in []ragd.ChunkInput
			for i := range 10 {
				c := docChunk("docs/x.md", i, fmt.Sprintf("text %d", i), nil)
				if i < 4 { // the first four come with vectors
					c.Vector = randomUnit(r, dims)
				}
				in = append(in, c)
			}
			if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, in); err != nil {
				t.Fatal(err)
			}
			if n, err := s.PendingVectorCount(ctx); err != nil || n != 6 {
				t.Fatalf("pending: %d, %v; want 6", n, err)
			}
			queue, err := s.PendingVectors(ctx, 4)
			if err != nil || len(queue) != 4 {
				t.Fatalf("queue: %d, %v", len(queue), err)
			}
			for i, q := range queue {
				if want := fmt.Sprintf("text %d", 9-i); q.Content != want || q.ProjectID != p.ID || q.Scope != ragd.ScopeDocs {
					t.Fatalf("queue[%d] = %+v, want %q first", i, q, want)
				}
			}
			vecs := map[int64][]float32{}
			var fills []ragd.VectorFill
			for i, q := range queue {
				v := randomUnit(r, dims)
				vecs[q.Seq] = v
				hash := q.ContentHash
				if i == 3 {
					hash = "changed since" // its text changed: must be skipped
				}
				fills = append(fills, ragd.VectorFill{Seq: q.Seq, ContentHash: hash, Vector: v})
			}
			n, err := s.FillVectors(ctx, fills)
			if err != nil || n != 3 {
				t.Fatalf("filled %d, %v; want 3", n, err)
			}
			if n, err := s.FillVectors(ctx, fills); err != nil || n != 0 {
				t.Fatalf("second fill: %d, %v; want 0 (they have vectors now)", n, err)
			}
			if n, err := s.PendingVectorCount(ctx); err != nil || n != 3 {
				t.Fatalf("pending after the fill: %d, %v; want 3", n, err)
			}
			sn, err := s.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer sn.Close()
			for _, q := range queue[:3] {
				got, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: p.ID}, vecs[q.Seq], 1)
				if err != nil || len(got) != 1 || got[0].Distance > 1e-6 {
					t.Fatalf("filled chunk %q not found by its vector: %+v, %v", q.Content, got, err)
				}
			}
			if _, err := s.FillVectors(ctx, []ragd.VectorFill{{Seq: queue[0].Seq, ContentHash: "x", Vector: make([]float32, dims)}}); err == nil {
				t.Fatal("a zero vector was accepted")
			}
		})
	}
}
