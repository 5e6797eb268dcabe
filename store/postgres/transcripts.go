package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ragd/ragd"
)

// TranscriptFiles returns the checkpoints the store's owner saved for the
// file at path (a path on the owner's machine), one per project it was
// read into, by project id.
func (s *Store) TranscriptFiles(ctx context.Context, path string) ([]ragd.TranscriptFile, error) {
	what := fmt.Sprintf("transcript checkpoints of %s", path)
	rows, err := s.pool.Query(ctx, `SELECT project_id, format, size, mtime_ns, checkpoint, updated_at
		FROM transcript_files WHERE owner = $1 AND path = $2 ORDER BY project_id`, s.owner, path)
	if err != nil {
		return nil, s.describe(what, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ragd.TranscriptFile, error) {
		tf := ragd.TranscriptFile{Path: path}
		var mtime int64
		var cp string
		err := r.Scan(&tf.ProjectID, &tf.Format, &tf.Size, &mtime, &cp, &tf.UpdatedAt)
		tf.ModTime, tf.Checkpoint, tf.UpdatedAt = time.Unix(0, mtime), []byte(cp), tf.UpdatedAt.UTC()
		return tf, err
	})
	if err != nil {
		return nil, s.describe(what, err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// SaveTranscriptFile stores (or replaces) the store owner's checkpoint of
// tf's file for tf's project.
func (s *Store) SaveTranscriptFile(ctx context.Context, tf ragd.TranscriptFile) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO transcript_files
		(project_id, owner, path, format, size, mtime_ns, checkpoint, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (project_id, owner, path) DO UPDATE SET format = excluded.format, size = excluded.size,
			mtime_ns = excluded.mtime_ns, checkpoint = excluded.checkpoint, updated_at = excluded.updated_at`,
		tf.ProjectID, s.owner, tf.Path, tf.Format, tf.Size, tf.ModTime.UnixNano(), string(tf.Checkpoint), nowUTC())
	if err != nil {
		return s.describe(fmt.Sprintf("save transcript checkpoint of %s for project %d", tf.Path, tf.ProjectID), err)
	}
	return nil
}
