package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/ragd/ragd"
)

// The transcript importer's tables (transcript_files, forgotten_sessions)
// are created by migration 6.

// TranscriptFiles returns the checkpoints stored for the file at path, one
// per project it was read into.
func (s *Store) TranscriptFiles(ctx context.Context, path string) ([]ragd.TranscriptFile, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT project_id, format, size, mtime_ns, checkpoint, updated_at
		FROM transcript_files WHERE path = ? ORDER BY project_id`, path)
	if err != nil {
		return nil, fmt.Errorf("transcript checkpoints of %s: %w", path, err)
	}
	defer rows.Close()
	var out []ragd.TranscriptFile
	for rows.Next() {
		tf := ragd.TranscriptFile{Path: path}
		var mtime int64
		var cp, updated string
		if err := rows.Scan(&tf.ProjectID, &tf.Format, &tf.Size, &mtime, &cp, &updated); err != nil {
			return nil, fmt.Errorf("transcript checkpoints of %s: %w", path, err)
		}
		tf.ModTime, tf.Checkpoint, tf.UpdatedAt = time.Unix(0, mtime), []byte(cp), parseTime(updated)
		out = append(out, tf)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("transcript checkpoints of %s: %w", path, err)
	}
	return out, nil
}

// SaveTranscriptFile stores (or replaces) the checkpoint of tf's file for
// tf's project.
func (s *Store) SaveTranscriptFile(ctx context.Context, tf ragd.TranscriptFile) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO transcript_files
		(path, project_id, format, size, mtime_ns, checkpoint, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (path, project_id) DO UPDATE SET format = excluded.format, size = excluded.size,
			mtime_ns = excluded.mtime_ns, checkpoint = excluded.checkpoint, updated_at = excluded.updated_at`,
		tf.Path, tf.ProjectID, tf.Format, tf.Size, tf.ModTime.UnixNano(), string(tf.Checkpoint), now())
	if err != nil {
		return fmt.Errorf("save transcript checkpoint of %s: %w", tf.Path, err)
	}
	return nil
}

// ForgottenSessions returns the ids of project projectID's sessions that
// were forgotten on purpose (see ForgetSession), which an import leaves
// out.
func (s *Store) ForgottenSessions(ctx context.Context, projectID int64) (map[string]bool, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT session_id FROM forgotten_sessions WHERE project_id = ?`, projectID)
	if err != nil {
		return nil, fmt.Errorf("forgotten sessions of project %d: %w", projectID, err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("forgotten sessions of project %d: %w", projectID, err)
		}
		out[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("forgotten sessions of project %d: %w", projectID, err)
	}
	return out, nil
}

// countRows runs a query whose one result is a count.
func countRows(ctx context.Context, q queryer, query string, args ...any) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, query, args...).Scan(&n)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	return n, err
}
