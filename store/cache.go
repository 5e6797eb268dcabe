package store

import (
	"context"
	"fmt"
)

// LookupEmbeddings returns the cached vectors of space for the given keys
// (hashes of the exact text sent to the provider); missing keys are absent.
func (s *Store) LookupEmbeddings(ctx context.Context, space string, keys []string) (map[string][]float32, error) {
	out := make(map[string][]float32, len(keys))
	const batch = 500
	for start := 0; start < len(keys); start += batch {
		part := keys[start:min(start+batch, len(keys))]
		args := []any{space}
		for _, k := range part {
			args = append(args, k)
		}
		rows, err := s.rdb.QueryContext(ctx, "SELECT key, vector FROM embedding_cache WHERE space = ? AND key IN ("+placeholders(len(part))+")", args...)
		if err != nil {
			return nil, fmt.Errorf("lookup embeddings: %w", err)
		}
		for rows.Next() {
			var k string
			var b []byte
			if err := rows.Scan(&k, &b); err != nil {
				rows.Close()
				return nil, fmt.Errorf("lookup embeddings: %w", err)
			}
			v, err := decodeVector(b)
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("lookup embedding %s: %w", k, err)
			}
			out[k] = v
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("lookup embeddings: %w", err)
		}
	}
	return out, nil
}

// StoreEmbeddings caches vectors of space by key, replacing older entries.
func (s *Store) StoreEmbeddings(ctx context.Context, space string, vecs map[string][]float32) error {
	if len(vecs) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store embeddings: %w", err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, "INSERT OR REPLACE INTO embedding_cache (space, key, vector, created_at) VALUES (?, ?, ?, ?)")
	if err != nil {
		return fmt.Errorf("store embeddings: %w", err)
	}
	defer stmt.Close()
	stamp := now()
	for k, v := range vecs {
		b := make([]byte, 0, 4*len(v))
		for _, x := range v {
			b = appendFloat32(b, x)
		}
		if _, err := stmt.ExecContext(ctx, space, k, b, stamp); err != nil {
			return fmt.Errorf("store embedding %s: %w", k, err)
		}
	}
	return tx.Commit()
}
