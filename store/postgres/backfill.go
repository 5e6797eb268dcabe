package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
	"github.com/ragd/ragd"
	"github.com/ragd/ragd/store/rules"
)

// Chunks without a vector are the queue of the background vector fill,
// newest first; the partial index chunks_without_vector keeps it cheap to
// read however large the index. In a team every daemon's fill serves the
// whole queue: a vector is the space's, whoever computes it. A daemon
// fills the chunks it may read (docs, ADRs, its owner's and the shared
// sessions): another owner's unshared text never reaches its provider.

// PendingVectors returns up to limit chunks without a vector, newest
// first, leaving out those marked unembeddable in the store's space.
func (s *Store) PendingVectors(ctx context.Context, limit int) ([]ragd.PendingVector, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+rules.PendingColumns+` FROM chunks
		WHERE embedding_space IS NULL AND `+notUnembeddable(1)+` AND `+visibleSQL(2)+`
		ORDER BY seq DESC LIMIT $3`, s.space, s.owner, limit)
	if err != nil {
		return nil, s.describe("chunks without vectors", err)
	}
	defer rows.Close()
	out, err := rules.ReadPending(rows)
	if err != nil {
		return nil, s.describe("chunks without vectors", err)
	}
	return out, nil
}

// PendingVectorCount counts the chunks without a vector that the fill may
// still embed.
func (s *Store) PendingVectorCount(ctx context.Context) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM chunks WHERE embedding_space IS NULL AND `+notUnembeddable(1)+` AND `+visibleSQL(2),
		s.space, s.owner).Scan(&n); err != nil {
		return 0, s.describe("count chunks without vectors", err)
	}
	return n, nil
}

// FillVectors stores the vectors of chunks that still exist, still hold
// the same text and still have no vector, in one short transaction, and
// returns how many it stored. Chunks replaced or deleted meanwhile (or
// filled by another daemon) are skipped.
func (s *Store) FillVectors(ctx context.Context, fills []ragd.VectorFill) (int, error) {
	vecs := make([]pgvector.Vector, len(fills))
	for i, f := range fills {
		v, err := s.vector(f.Vector)
		if err != nil {
			return 0, fmt.Errorf("fill vector of chunk %d: %w", f.Seq, err)
		}
		vecs[i] = v
	}
	if len(fills) == 0 {
		return 0, nil
	}
	b := &pgx.Batch{}
	for i, f := range fills {
		b.Queue(`UPDATE chunks SET embedding = $1, embedding_space = $2
			WHERE seq = $3 AND content_hash = $4 AND embedding_space IS NULL`, vecs[i], s.space, f.Seq, f.ContentHash)
	}
	filled := 0
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		br := tx.SendBatch(ctx, b)
		defer br.Close()
		for _, f := range fills {
			tag, err := br.Exec()
			if err != nil {
				return fmt.Errorf("chunk %d: %w", f.Seq, err)
			}
			filled += int(tag.RowsAffected())
		}
		return br.Close()
	})
	if err != nil {
		return 0, s.describe(fmt.Sprintf("fill %d vectors", len(fills)), err)
	}
	return filled, nil
}

// MarkUnembeddable records that the store's embedding space will never
// embed these chunks, so that they leave the fill's queue; it returns how
// many it marked. A chunk that changed, got a vector or was deleted
// meanwhile is skipped.
func (s *Store) MarkUnembeddable(ctx context.Context, marks []ragd.Unembeddable) (int, error) {
	if len(marks) == 0 {
		return 0, nil
	}
	b := &pgx.Batch{}
	stamp := nowUTC()
	for _, m := range marks {
		b.Queue(`INSERT INTO unembeddable_chunks (chunk_seq, embedding_space, content_hash, reason, marked_at)
			SELECT seq, $1, content_hash, $2, $3 FROM chunks WHERE seq = $4 AND content_hash = $5 AND embedding_space IS NULL
			ON CONFLICT (chunk_seq) DO UPDATE SET embedding_space = excluded.embedding_space,
				content_hash = excluded.content_hash, reason = excluded.reason, marked_at = excluded.marked_at`,
			s.space, pgText(m.Reason), stamp, m.Seq, m.ContentHash)
	}
	marked := 0
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		br := tx.SendBatch(ctx, b)
		defer br.Close()
		for _, m := range marks {
			tag, err := br.Exec()
			if err != nil {
				return fmt.Errorf("chunk %d: %w", m.Seq, err)
			}
			marked += int(tag.RowsAffected())
		}
		return br.Close()
	})
	if err != nil {
		return 0, s.describe(fmt.Sprintf("mark %d chunks unembeddable", len(marks)), err)
	}
	return marked, nil
}
