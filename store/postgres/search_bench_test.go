package postgres

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"sync"
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
	if err := analyseItems(items, lang); err != nil {
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

var benchStores sync.Map // size -> *benchStore

type benchStore struct {
	once    sync.Once
	s       *Store
	project int64
	err     error
}

func populated(b *testing.B, n int) (*Store, int64) {
	b.Helper()
	v, _ := benchStores.LoadOrStore(n, &benchStore{})
	bs := v.(*benchStore)
	bs.once.Do(func() {
		url := testURL(b)
		s, err := Open(context.Background(), url, Options{Space: "bench/768", Dims: benchDims, MaxConns: testConns, Owner: "bench"})
		if err != nil {
			bs.err = err
			return
		}
		p, err := s.AddProject(context.Background(), "bench", "/bench")
		if err != nil {
			bs.err = err
			return
		}
		for _, in := range testdb.BenchFiles(n, benchDims, doc) {
			if err := s.appendChunks(context.Background(), p.ID, ragd.ScopeDocs, in); err != nil {
				bs.err = err
				return
			}
		}
		bs.s, bs.project = s, p.ID
	})
	if bs.err != nil {
		b.Fatalf("populate %d: %v", n, bs.err)
	}
	return bs.s, bs.project
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
	const n = 1000
	r := rand.New(rand.NewSource(3))
	var in []ragd.ChunkInput
	for i := 0; i < n; i++ {
		in = append(in, doc("docs/a.md", i, testdb.BenchContent(r), randomUnit(r, benchDims)))
	}
	s, err := Open(context.Background(), testURL(b), Options{Space: "bench/768", Dims: benchDims, MaxConns: testConns, Owner: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	p, err := s.AddProject(context.Background(), "p", "/p")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	flip := 0
	for b.Loop() {
		// Fresh positions every round, so every round inserts n and
		// deletes the n of the round before.
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
