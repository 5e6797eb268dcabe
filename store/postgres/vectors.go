package postgres

import (
	"context"
	"fmt"
	"math"

	"github.com/pgvector/pgvector-go"

	"github.com/ragd/ragd/store/rules"
)

// vector checks v against the store's dims and normalises it to unit
// length, as the SQLite engine stores vectors: the cosine distance <=>
// does not need it, but the vectors read back (and the distances) are the
// same in both engines.
func (s *Store) vector(v []float32) (pgvector.Vector, error) {
	unit, err := rules.UnitVector(v, s.dims, s.space)
	if err != nil {
		return pgvector.Vector{}, err
	}
	return pgvector.NewVector(unit), nil
}

// RandomPairCosine measures how flat the stored embedding space is: the
// mean cosine similarity of up to pairs pairs of random chunks' vectors
// (each chunk in one pair at most), and how many pairs it measured (0 with
// fewer than two vectors). The server pairs and computes them.
func (s *Store) RandomPairCosine(ctx context.Context, pairs int) (mean float64, n int, err error) {
	if pairs <= 0 {
		return 0, 0, nil
	}
	var avg *float64
	err = s.pool.QueryRow(ctx, `WITH sample AS (
			SELECT embedding, row_number() OVER () - 1 AS i FROM (
				SELECT embedding FROM chunks WHERE embedding IS NOT NULL AND vector_norm(embedding) > 0 ORDER BY random() LIMIT $1) r)
		SELECT avg(1 - (a.embedding <=> b.embedding)), count(*) FROM sample a JOIN sample b ON b.i = a.i + 1 WHERE a.i % 2 = 0`,
		2*pairs).Scan(&avg, &n)
	if err != nil {
		return 0, 0, s.describe(fmt.Sprintf("sample %d vector pairs", pairs), err)
	}
	if avg == nil || math.IsNaN(*avg) {
		return 0, 0, nil
	}
	return *avg, n, nil
}

// WaitVectorIndex returns at once: the HNSW index is the server's, always
// there (package store's SQLite engine loads its codes in the background).
func (s *Store) WaitVectorIndex(ctx context.Context) error { return ctx.Err() }
