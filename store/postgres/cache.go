package postgres

import (
	"context"
	"fmt"
	"sort"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
)

// The embedding cache is everyone's: a vector is a function of the space
// and the exact text sent, whoever sent it.

// LookupEmbeddings returns the cached vectors of space for the given keys
// (hashes of the exact text sent to the provider); missing keys are absent.
func (s *Store) LookupEmbeddings(ctx context.Context, space string, keys []string) (map[string][]float32, error) {
	out := make(map[string][]float32, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, "SELECT key, vector FROM embedding_cache WHERE space = $1 AND key = ANY($2)", space, keys)
	if err != nil {
		return nil, s.describe(fmt.Sprintf("look up %d embeddings of %s", len(keys), space), err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var v pgvector.Vector
		if err := rows.Scan(&k, &v); err != nil {
			return nil, s.describe("look up embeddings", err)
		}
		out[k] = v.Slice()
	}
	if err := rows.Err(); err != nil {
		return nil, s.describe(fmt.Sprintf("look up %d embeddings of %s", len(keys), space), err)
	}
	return out, nil
}

// StoreEmbeddings caches vectors of space by key, replacing older entries.
func (s *Store) StoreEmbeddings(ctx context.Context, space string, vecs map[string][]float32) error {
	if len(vecs) == 0 {
		return nil
	}
	keys := make([]string, 0, len(vecs))
	for k := range vecs {
		keys = append(keys, k)
	}
	sort.Strings(keys) // a fixed order of row locks: two daemons never deadlock
	b := &pgx.Batch{}
	stamp := nowUTC()
	for _, k := range keys {
		b.Queue(`INSERT INTO embedding_cache (space, key, vector, created_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (space, key) DO UPDATE SET vector = excluded.vector, created_at = excluded.created_at`,
			space, k, pgvector.NewVector(vecs[k]), stamp)
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return tx.SendBatch(ctx, b).Close() })
	if err != nil {
		return s.describe(fmt.Sprintf("store %d embeddings of %s", len(vecs), space), err)
	}
	return nil
}
