package store

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
)

// benchStores are the benchmarks' populated stores, one per size.
var benchStores testdb.BenchStores[*Store]

// populated is the store of n chunks of dims dimensions, made once.
func populated(b *testing.B, n, dims int) (*Store, int64) {
	b.Helper()
	open := func() (*Store, error) {
		dir, err := mkdirTemp()
		if err != nil {
			return nil, err
		}
		return Open(context.Background(), filepath.Join(dir, "bench.db"), Options{Space: "bench/768", Dims: dims})
	}
	write := func(s *Store, projectID int64, in []ragd.ChunkInput) error {
		return s.appendChunks(context.Background(), projectID, ragd.ScopeDocs, in)
	}
	return benchStores.Populated(b, n, dims, open, write, docChunk)
}

func BenchmarkKNN(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("k12_%dx768", n), func(b *testing.B) {
			s, pid := populated(b, n, 768)
			r := rand.New(rand.NewSource(1))
			q := randomUnit(r, 768)
			ctx := context.Background()
			sn, err := s.Snapshot(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer sn.Close()
			b.ReportAllocs()
			for b.Loop() {
				got, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: pid}, q, 12)
				if err != nil || len(got) != 12 {
					b.Fatalf("knn: %d %v", len(got), err)
				}
			}
		})
	}
}

func BenchmarkFTS(b *testing.B) {
	s, pid := populated(b, 100_000, 768)
	ctx := context.Background()
	sn, err := s.Snapshot(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer sn.Close()
	// A frequent word, a mid-frequency one, and a three-word OR query as the
	// search package builds from a question.
	for _, q := range []ragd.LexicalQuery{everyWord("w3"), everyWord("w300"), everyWord("w20", "w700", "w4000")} {
		b.Run(fmt.Sprintf("k12_100k/%s", MatchExpression(q)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				got, err := sn.LexicalCandidates(ctx, ragd.Filter{ProjectID: pid}, q, 12)
				if err != nil || len(got.Candidates) != 12 {
					b.Fatalf("fts: %d %v", len(got.Candidates), err)
				}
			}
		})
	}
}

func BenchmarkReplaceScope(b *testing.B) {
	testdb.BenchReplaceScope(b, mustOpen(b, 768), 768, docChunk)
}

// BenchmarkRescoreReads compares the two ways of reading a shortlist's
// floats for the exact rescoring: sqlite-vec's point read, which opens a
// blob handle per row, and the plain table of migration 5. One op is a
// shortlist of 192 (16 × k = 12) random chunks.
func BenchmarkRescoreReads(b *testing.B) {
	const shortlist = 192
	s, _ := populated(b, 100_000, 768)
	ctx := context.Background()
	r := rand.New(rand.NewSource(5))
	q, err := s.encodeVector(randomUnit(r, 768))
	if err != nil {
		b.Fatal(err)
	}
	var maxSeq int64
	if err := s.db.QueryRowContext(ctx, "SELECT max(seq) FROM chunks").Scan(&maxSeq); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct{ name, sql string }{
		{"vec0", "SELECT vec_distance_l2(embedding, ?) FROM chunk_vectors WHERE chunk_seq = ?"},
		{"floats", "SELECT vec_distance_l2(embedding, ?) FROM chunk_floats WHERE seq = ?"},
		{"floats-in", "SELECT 1"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			tx, err := s.rdb.BeginTx(ctx, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer tx.Rollback()
			stmt, err := tx.PrepareContext(ctx, tc.sql)
			if err != nil {
				b.Fatal(err)
			}
			defer stmt.Close()
			for b.Loop() {
				if tc.name == "floats-in" {
					seqs := make([]int64, shortlist)
					for i := range seqs {
						seqs[i] = 1 + r.Int63n(maxSeq)
					}
					rows, err := tx.QueryContext(ctx, "SELECT seq, vec_distance_l2(embedding, ?) FROM chunk_floats WHERE seq IN ("+joinInts(seqs)+")", q)
					if err != nil {
						b.Fatal(err)
					}
					for rows.Next() {
						var seq int64
						var l2 float64
						if err := rows.Scan(&seq, &l2); err != nil {
							b.Fatal(err)
						}
					}
					rows.Close()
					continue
				}
				for range shortlist {
					var l2 float64
					if err := stmt.QueryRowContext(ctx, q, 1+r.Int63n(maxSeq)).Scan(&l2); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
