package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/store/rules"
)

// The vec0 table stores unit-normalised vectors and ranks them by L2 distance.
// For unit vectors |a-b|² = 2 - 2·cos(a,b), so L2 orders exactly as cosine,
// and sqlite-vec's L2 kernel has an AVX path that its cosine kernel lacks
// (docs/adr/0003-vector-distance.md). Distances leave the store as cosine
// distances, 1 - cos = d²/2.
const vectorTableSQL = `CREATE VIRTUAL TABLE chunk_vectors USING vec0(
	chunk_seq INTEGER PRIMARY KEY,
	project_id INTEGER PARTITION KEY,
	scope TEXT,
	embedding FLOAT[%d] distance_metric=l2
)`

// ensureVectorTable creates the vec0 table for the configured space, or checks
// that the existing one matches it.
func (s *Store) ensureVectorTable(ctx context.Context, reset bool) error {
	space, dims, err := s.storedSpace(ctx)
	if err != nil {
		return err
	}
	if dims == 0 {
		return s.createVectorTable(ctx, false)
	}
	if space == s.space && dims == s.dims {
		return nil
	}
	// A table without a single vector (an index built lexical-only) has
	// nothing of the old space to lose: it takes the configured one.
	var held bool
	if err := s.db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM chunk_vectors)").Scan(&held); err != nil {
		return fmt.Errorf("open store %s: count vectors of %s: %w", s.path, space, err)
	}
	switch {
	case !held:
		s.logger.Info("embedding space changed on an index without vectors", "from", space, "to", s.space)
		return s.createVectorTable(ctx, true)
	case reset:
		s.logger.Warn("embedding space changed: dropping stored vectors", "from", space, "to", s.space)
		return s.createVectorTable(ctx, true)
	default:
		return fmt.Errorf("open store %s: %w: it holds %s (%d dims), the configuration says %s (%d dims): "+
			"start ragd once with --reset-vectors to drop the old vectors, then reindex every project "+
			"(or configure the old model again)", s.path, ragd.ErrSpaceMismatch, space, dims, s.space, s.dims)
	}
}

func (s *Store) storedSpace(ctx context.Context) (space string, dims int, err error) {
	rows, err := s.db.QueryContext(ctx, "SELECT key, value FROM meta WHERE key IN ('embedding_space', 'embedding_dims')")
	if err != nil {
		return "", 0, fmt.Errorf("read embedding space of %s: %w", s.path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return "", 0, fmt.Errorf("read embedding space of %s: %w", s.path, err)
		}
		if k == "embedding_space" {
			space = v
		} else if dims, err = strconv.Atoi(v); err != nil {
			return "", 0, fmt.Errorf("read embedding space of %s: dims %q: %w", s.path, v, err)
		}
	}
	return space, dims, rows.Err()
}

func (s *Store) createVectorTable(ctx context.Context, replace bool) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("create vector table: %w", err)
	}
	defer tx.Rollback()
	if replace {
		if _, err := tx.ExecContext(ctx, "DROP TABLE IF EXISTS chunk_vectors"); err != nil {
			return fmt.Errorf("drop vector table: %w", err)
		}
		if _, err := tx.ExecContext(ctx, "UPDATE chunks SET embedding_space = NULL"); err != nil {
			return fmt.Errorf("forget old vectors: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(vectorTableSQL, s.dims)); err != nil {
		return fmt.Errorf("create vector table (%d dims) in %s: %w", s.dims, s.path, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('embedding_space', ?), ('embedding_dims', ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, s.space, strconv.Itoa(s.dims)); err != nil {
		return fmt.Errorf("record embedding space: %w", err)
	}
	return tx.Commit()
}

// insertFloatsSQL stores a vector's floats for the rescoring reads
// (migration 5) beside the vec0 row; a chunk whose vector is replaced gets
// the new floats.
const insertFloatsSQL = "INSERT OR REPLACE INTO chunk_floats (seq, embedding) VALUES (?, ?)"

// encodeVector checks v against the store's dims, normalises it to unit length
// and encodes it as sqlite-vec's float32 little-endian blob.
func (s *Store) encodeVector(v []float32) ([]byte, error) {
	unit, err := rules.UnitVector(v, s.dims, s.space)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 4*len(unit))
	for i, x := range unit {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(x))
	}
	return buf, nil
}

// decodeVector is the inverse of encodeVector's encoding.
func decodeVector(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("%w: blob of %d bytes", ragd.ErrBadVector, len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// cosineDistance converts sqlite-vec's L2 distance between unit vectors to the
// cosine distance 1 - cos.
func cosineDistance(l2 float64) float64 { return l2 * l2 / 2 }

// scanner is what *sql.Row and *sql.Rows have in common.
type scanner interface{ Scan(dest ...any) error }

var _ scanner = (*sql.Row)(nil)

func appendFloat32(b []byte, x float32) []byte {
	return binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
}
