package store

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/ragd/ragd"
)

// TestRandomPairCosine: random directions in 16 dimensions score near 0
// on average; vectors sharing one strong direction (a flat space) score
// near their common share; too few vectors measure nothing.
func TestRandomPairCosine(t *testing.T) {
	ctx := context.Background()
	const dims = 16
	for _, tc := range []struct {
		name     string
		n        int
		shared   float64 // weight of the common direction
		min, max float64
	}{
		{"spread", 400, 0, -0.1, 0.1},
		{"flat", 400, 3, 0.8, 0.95},
		{"one vector", 1, 0, 0, 0},
	} {
		s := mustOpen(t, dims)
		p := mustProject(t, s, "p")
		r := rand.New(rand.NewSource(1))
		var chunks []ragd.ChunkInput
		for i := range tc.n {
			v := randomUnit(r, dims)
			v[0] += float32(tc.shared)
			chunks = append(chunks, docChunk("docs/a.md", i, fmt.Sprintf("text %d", i), v))
		}
		if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, chunks); err != nil {
			t.Fatal(err)
		}
		mean, n, err := s.RandomPairCosine(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		wantN := min(100, tc.n/2)
		if n != wantN || mean < tc.min || mean > tc.max || math.IsNaN(mean) {
			t.Errorf("%s: mean %.3f over %d pairs, want %.2f..%.2f over %d", tc.name, mean, n, tc.min, tc.max, wantN)
		}
	}
}
