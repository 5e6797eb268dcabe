package testdb

import (
	"context"
	"math/rand"
	"sync"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/vectest"
)

// BenchStores holds an engine's benchmark stores, each populated once per
// size: building 100k chunks takes longer than the measurement. Its zero
// value is ready; an engine's benchmarks share one.
type BenchStores[S Projects] struct {
	stores sync.Map // size -> *benchStore[S]
}

type benchStore[S Projects] struct {
	once    sync.Once
	s       S
	project int64
	err     error
}

// Populated returns the store of n chunks of dims dimensions (BenchFiles,
// each made by chunk) in the docs scope of a project "bench", and the
// project's id. The first call of a size makes it: open opens an empty
// store, and write writes one file's chunks to the scope without
// replacing the files written before (one ReplaceScope per file would).
func (c *BenchStores[S]) Populated(b *testing.B, n, dims int, open func() (S, error),
	write func(s S, projectID int64, chunks []ragd.ChunkInput) error,
	chunk func(path string, pos int, text string, vec []float32) ragd.ChunkInput) (S, int64) {
	b.Helper()
	v, _ := c.stores.LoadOrStore(n, &benchStore[S]{})
	bs := v.(*benchStore[S])
	bs.once.Do(func() { bs.s, bs.project, bs.err = populate(n, dims, open, write, chunk) })
	if bs.err != nil {
		b.Fatalf("populate %d chunks: %v", n, bs.err)
	}
	return bs.s, bs.project
}

// populate is Populated's making of a store.
func populate[S Projects](n, dims int, open func() (S, error), write func(s S, projectID int64, chunks []ragd.ChunkInput) error,
	chunk func(path string, pos int, text string, vec []float32) ragd.ChunkInput) (S, int64, error) {
	s, err := open()
	if err != nil {
		return s, 0, err
	}
	p, err := s.AddProject(context.Background(), "bench", "/bench")
	if err != nil {
		return s, 0, err
	}
	for _, in := range BenchFiles(n, dims, chunk) {
		if err := write(s, p.ID, in); err != nil {
			return s, 0, err
		}
	}
	return s, p.ID, nil
}

// BenchReplaceScope measures ReplaceScope of 1,000 docs chunks of dims
// dimensions (each made by chunk) into a new project of s, every round at
// fresh positions, so that each round inserts them all and deletes the
// round before's; it reports chunks/s.
func BenchReplaceScope(b *testing.B, s interface {
	Projects
	Replacer
}, dims int, chunk func(path string, pos int, text string, vec []float32) ragd.ChunkInput) {
	const n = 1000
	r := rand.New(rand.NewSource(3))
	in := make([]ragd.ChunkInput, 0, n)
	for i := range n {
		in = append(in, chunk("docs/a.md", i, BenchContent(r), vectest.RandomUnit(r, dims)))
	}
	p := AddProject(b, s, "p", "/p")
	ctx := context.Background()
	b.ReportAllocs()
	flip := 0
	for b.Loop() {
		flip++
		for i := range in {
			in[i].Position = i + flip*n
		}
		if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, in); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "chunks/s")
}
