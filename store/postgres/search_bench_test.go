package postgres

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
	"github.com/ragd/ragd/internal/vectest"
)

// Figures of the engine on PGlite (one single-threaded WebAssembly
// backend, one query at a time), the same corpus as package store's
// benchmarks: chunks of about 1200 characters of Zipf-distributed words,
// random unit vectors of 768 dimensions. Populating 10k chunks takes
// minutes on PGlite (about 100 chunks/s, the HNSW inserts in WebAssembly):
//
//	/work/bin/rgo test ./store/postgres/ -run '^$' -bench 'KNN|Lexical|Hybrid' -benchtime 20x -timeout 40m

const benchDims = 768

func randomUnit(r *rand.Rand, dims int) []float32 { return vectest.RandomUnit(r, dims) }

// appendChunks writes chunks to a scope without replacing it, through
// ReplaceScope's statements: populating a large scope file by file.
func (s *Store) appendChunks(ctx context.Context, projectID int64, scope string, chunks []ragd.ChunkInput) error {
	items, _, err := s.prepareChunks(projectID, scope, chunks)
	if err != nil {
		return err
	}
	lang, err := s.decideLanguage(ctx, projectID, chunks)
	if err != nil {
		return err
	}
	if err := analyseWritten(items, nil, lang); err != nil {
		return err
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := s.applyReplace(ctx, tx, projectID, scope, items, nil, nil); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// benchStores are the benchmarks' populated stores, one per size.
var benchStores testdb.BenchStores[*Store]

// populated is the store of n chunks, made once.
func populated(b *testing.B, n int) (*Store, int64) {
	b.Helper()
	open := func() (*Store, error) {
		return Open(context.Background(), testURL(b), Options{Space: "bench/768", Dims: benchDims, MaxConns: testConns, Owner: "bench"})
	}
	write := func(s *Store, projectID int64, in []ragd.ChunkInput) error {
		return s.appendChunks(context.Background(), projectID, ragd.ScopeDocs, in)
	}
	return benchStores.Populated(b, n, benchDims, open, write, doc)
}

func BenchmarkKNN(b *testing.B) {
	s, pid := populated(b, 10_000)
	q := randomUnit(rand.New(rand.NewSource(1)), benchDims)
	ctx := context.Background()
	sn, err := s.snapshot(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer sn.Close()
	for b.Loop() {
		got, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: pid}, q, 12)
		if err != nil || len(got) != 12 {
			b.Fatalf("knn: %d %v", len(got), err)
		}
	}
}

func BenchmarkLexical(b *testing.B) {
	s, pid := populated(b, 10_000)
	ctx := context.Background()
	sn, err := s.snapshot(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer sn.Close()
	// A frequent word, a mid-frequency one, and a three-word OR query.
	for _, ws := range [][]string{{"w3"}, {"w300"}, {"w20", "w700", "w4000"}} {
		var q ragd.LexicalQuery
		for _, w := range ws {
			q.Terms = append(q.Terms, ragd.LexicalTerm{Word: w, Tokens: []string{w}})
		}
		b.Run(fmt.Sprint(ws), func(b *testing.B) {
			for b.Loop() {
				m, err := sn.LexicalCandidates(ctx, ragd.Filter{ProjectID: pid}, q, 12)
				if err != nil || len(m.Candidates) != 12 {
					b.Fatalf("lexical: %d %v", len(m.Candidates), err)
				}
			}
		})
	}
}

// BenchmarkHybrid is one search's reads: a snapshot, both candidate
// lists (50 each) and the chunks of the best 10.
func BenchmarkHybrid(b *testing.B) {
	s, pid := populated(b, 10_000)
	ctx := context.Background()
	r := rand.New(rand.NewSource(2))
	q := ragd.LexicalQuery{Terms: []ragd.LexicalTerm{{Word: "w20", Tokens: []string{"w20"}}, {Word: "w700", Tokens: []string{"w700"}}, {Word: "w4000", Tokens: []string{"w4000"}}}}
	f := ragd.Filter{ProjectID: pid}
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		sn, err := s.Snapshot(ctx)
		if err != nil {
			b.Fatal(err)
		}
		v, err := sn.VectorCandidates(ctx, f, randomUnit(r, benchDims), 50)
		if err != nil || len(v) != 50 {
			b.Fatalf("knn: %d %v", len(v), err)
		}
		m, err := sn.LexicalCandidates(ctx, f, q, 50)
		if err != nil || len(m.Candidates) != 50 {
			b.Fatalf("lexical: %d %v", len(m.Candidates), err)
		}
		ids := make([]string, 0, 10)
		for i := range 5 {
			ids = append(ids, v[i].ChunkID, m.Candidates[i].ChunkID)
		}
		if _, err := sn.Chunks(ctx, ids); err != nil {
			b.Fatal(err)
		}
		sn.Close()
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[(len(took)*95)/100].Microseconds())/1000, "p95-ms")
}

func BenchmarkReplaceScope(b *testing.B) {
	s, err := Open(context.Background(), testURL(b), Options{Space: "bench/768", Dims: benchDims, MaxConns: testConns, Owner: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	testdb.BenchReplaceScope(b, s, benchDims, doc)
}
