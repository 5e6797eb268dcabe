package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/store/rules"
)

// Chunks without a vector are the queue of the background vector fill: a
// reindex or import whose provider was slow or down writes its chunks at
// once (they search lexically), and the fill embeds them later, newest
// first (docs/adr/0009-scale.md). Being rows, the queue survives restarts.

// The partial index chunks_without_vector (migration 6) holds only the
// chunks without a vector: the queue is cheap to read however large the
// index.

// notUnembeddable leaves out the chunks the store's space refused for good
// (migration 9); its one parameter is the space.
const notUnembeddable = `NOT EXISTS (SELECT 1 FROM unembeddable_chunks u
	WHERE u.chunk_seq = chunks.seq AND u.embedding_space = ? AND u.content_hash = chunks.content_hash)`

// PendingVectors returns up to limit chunks without a vector, newest first,
// leaving out those marked unembeddable in the store's space.
func (s *Store) PendingVectors(ctx context.Context, limit int) ([]ragd.PendingVector, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+rules.PendingColumns+` FROM chunks
		INDEXED BY chunks_without_vector WHERE embedding_space IS NULL AND `+notUnembeddable+`
		ORDER BY seq DESC LIMIT ?`, s.space, limit)
	if err != nil {
		return nil, fmt.Errorf("chunks without vectors: %w", err)
	}
	defer rows.Close()
	out, err := rules.ReadPending(rows)
	if err != nil {
		return nil, fmt.Errorf("chunks without vectors: %w", err)
	}
	return out, nil
}

// PendingVectorCount counts the chunks without a vector that the fill may
// still embed (not marked unembeddable in the store's space).
func (s *Store) PendingVectorCount(ctx context.Context) (int, error) {
	var n int
	if err := s.rdb.QueryRowContext(ctx, `SELECT count(*) FROM chunks INDEXED BY chunks_without_vector
		WHERE embedding_space IS NULL AND `+notUnembeddable, s.space).Scan(&n); err != nil {
		return 0, fmt.Errorf("count chunks without vectors: %w", err)
	}
	return n, nil
}

// FillVectors stores the vectors of chunks that still exist, still hold the
// same text and still have no vector, in one short transaction, and returns
// how many it stored. Chunks that were replaced or deleted meanwhile are
// skipped: the replacement is in the queue on its own.
func (s *Store) FillVectors(ctx context.Context, fills []ragd.VectorFill) (int, error) {
	type ready struct {
		ragd.VectorFill
		blob []byte
	}
	items := make([]ready, 0, len(fills))
	for _, f := range fills {
		blob, err := s.encodeVector(f.Vector)
		if err != nil {
			return 0, fmt.Errorf("fill vector of chunk %d: %w", f.Seq, err)
		}
		items = append(items, ready{f, blob})
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("fill vectors: %w", err)
	}
	defer tx.Rollback()
	var ops []codeOp
	filled := 0
	for _, it := range items {
		var project int64
		var scope string
		err := tx.QueryRowContext(ctx, `UPDATE chunks SET embedding_space = ? WHERE seq = ? AND content_hash = ? AND embedding_space IS NULL
			RETURNING project_id, scope`, s.space, it.Seq, it.ContentHash).Scan(&project, &scope)
		if err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			return 0, fmt.Errorf("fill vector of chunk %d: %w", it.Seq, err)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO chunk_vectors (chunk_seq, project_id, scope, embedding) VALUES (?, ?, ?, ?)",
			it.Seq, project, scope, it.blob); err != nil {
			return 0, fmt.Errorf("fill vector of chunk %d: %w", it.Seq, err)
		}
		if _, err := tx.ExecContext(ctx, insertFloatsSQL, it.Seq, it.blob); err != nil {
			return 0, fmt.Errorf("fill floats of chunk %d: %w", it.Seq, err)
		}
		filled++
		if s.codes != nil {
			ops = append(ops, codeOp{seq: it.Seq, project: project, scope: scopeIndex(scope), code: codeOfBlob(it.blob, s.codes.words)})
		}
	}
	if err := s.commitVectors(tx, ops); err != nil {
		return 0, fmt.Errorf("fill vectors: commit: %w", err)
	}
	return filled, nil
}

// MarkUnembeddable records that the store's embedding space will never
// embed these chunks, so that they leave the fill's queue; it returns how
// many it marked. A chunk that changed, got a vector or was deleted
// meanwhile is skipped.
func (s *Store) MarkUnembeddable(ctx context.Context, marks []ragd.Unembeddable) (int, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("mark unembeddable chunks: %w", err)
	}
	defer tx.Rollback()
	now := formatTime(time.Now())
	marked := 0
	for _, m := range marks {
		res, err := tx.ExecContext(ctx, `INSERT INTO unembeddable_chunks (chunk_seq, embedding_space, content_hash, reason, marked_at)
			SELECT seq, ?, content_hash, ?, ? FROM chunks WHERE seq = ? AND content_hash = ? AND embedding_space IS NULL
			ON CONFLICT (chunk_seq) DO UPDATE SET embedding_space = excluded.embedding_space,
				content_hash = excluded.content_hash, reason = excluded.reason, marked_at = excluded.marked_at`,
			s.space, m.Reason, now, m.Seq, m.ContentHash)
		if err != nil {
			return 0, fmt.Errorf("mark chunk %d unembeddable: %w", m.Seq, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, fmt.Errorf("mark chunk %d unembeddable: %w", m.Seq, err)
		}
		marked += int(n)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("mark unembeddable chunks: commit: %w", err)
	}
	return marked, nil
}
