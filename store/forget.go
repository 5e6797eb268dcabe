package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/lexical"
	"github.com/ragd/ragd/store/rules"
)

// ForgetSession deletes session sessionID of project projectID on purpose:
// its events, its chunks with their vectors, and the session itself, in one
// transaction, and remembers that it was forgotten so that a transcript
// import or follower does not bring it back. Votes on its chunks go in a
// second step, as ReplaceScope's do. It returns an error wrapping
// ragd.ErrNotFound when the project has no such session.
func (s *Store) ForgetSession(ctx context.Context, projectID int64, sessionID string) (ragd.ForgetResult, error) {
	var res ragd.ForgetResult
	fail := func(what string, err error) (ragd.ForgetResult, error) {
		return ragd.ForgetResult{}, fmt.Errorf("forget session %q of project %d: %s: %w", sessionID, projectID, what, err)
	}
	// Forgetting erases: the writer overwrites what it frees with zeros
	// (secure_delete, see dsn), and the project's lexical index is
	// rewritten without the session's terms (optimizeLexical).
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fail("begin", err)
	}
	defer tx.Rollback()
	n, err := countRows(ctx, tx, `SELECT count(*) FROM sessions WHERE project_id = ? AND id = ?`, projectID, sessionID)
	if err != nil {
		return fail("look up", err)
	}
	if n == 0 {
		return ragd.ForgetResult{}, fmt.Errorf("forget session %q of project %d: %w", sessionID, projectID, ragd.ErrNotFound)
	}
	rows, err := tx.QueryContext(ctx, `SELECT seq, id FROM chunks WHERE project_id = ? AND scope = 'session' AND session_id = ?`, projectID, sessionID)
	if err != nil {
		return fail("list chunks", err)
	}
	var seqs []int64
	var ids []string
	for rows.Next() {
		var seq int64
		var id string
		if err := rows.Scan(&seq, &id); err != nil {
			rows.Close()
			return fail("list chunks", err)
		}
		seqs, ids = append(seqs, seq), append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fail("list chunks", err)
	}
	var a *lexical.Analyzer
	if _, built, err := projectLanguages(ctx, tx, projectID); err != nil {
		return fail("language", err)
	} else if built != "" {
		if a, err = rules.AnalyzerFor(built); err != nil {
			return fail("language", err)
		}
	}
	if err := deleteChunks(ctx, tx, projectID, a, seqs); err != nil {
		return fail("delete chunks", err)
	}
	r, err := tx.ExecContext(ctx, `DELETE FROM session_events WHERE project_id = ? AND session_id = ?`, projectID, sessionID)
	if err != nil {
		return fail("delete events", err)
	}
	events, _ := r.RowsAffected()
	if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE project_id = ? AND id = ?`, projectID, sessionID); err != nil {
		return fail("delete session", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO forgotten_sessions (project_id, session_id, forgotten_at) VALUES (?, ?, ?)
		ON CONFLICT DO NOTHING`, projectID, sessionID, now()); err != nil {
		return fail("remember", err)
	}
	if len(seqs) > 0 {
		if err := optimizeLexical(ctx, tx, projectID); err != nil {
			return fail("rewrite the lexical index", err)
		}
	}
	// The session's vectors leave the quantized codes with the commit.
	ops := make([]codeOp, len(seqs))
	for i, seq := range seqs {
		ops[i] = codeOp{seq: seq}
	}
	if err := s.commitVectors(tx, ops); err != nil {
		return fail("commit", err)
	}
	res.Events, res.Chunks = int(events), len(seqs)
	// The WAL still holds the pages as they were before: copy the erased
	// ones into the database and empty it.
	s.truncateWAL(ctx)
	if err := s.dropVotes(ctx, ids); err != nil {
		s.logger.Warn("drop votes of forgotten chunks (retried at next open)", "err", err)
	}
	return res, nil
}

// optimizeLexical rewrites project projectID's lexical index into one
// segment. Its tables are contentless, so a delete only records the
// rowid as deleted (FTS5 cannot know a deleted row's terms to remove
// them); the rewrite leaves them out, and secure_delete zeroes the pages
// that held them; the bounds of the words no row holds any more are
// deleted (pruneBounds). It costs a pass over the project's index.
func optimizeLexical(ctx context.Context, tx *sql.Tx, projectID int64) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = ?`, lexicalTable(projectID)).Scan(&n); err != nil || n == 0 {
		return err
	}
	t := lexicalTable(projectID)
	if _, err := tx.ExecContext(ctx, "INSERT INTO "+t+"("+t+") VALUES ('optimize')"); err != nil {
		return err
	}
	// A word's bound names it: the words gone go with their bounds.
	return pruneBounds(ctx, tx, projectID)
}

// truncateWAL checkpoints the WAL into the database and truncates it, so
// that no frame of what was just erased stays in it. It is best effort: a
// reader holding an old snapshot keeps the WAL until it ends, and the
// next checkpoint overwrites it then.
func (s *Store) truncateWAL(ctx context.Context) {
	var busy, logFrames, done int
	err := s.db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &done)
	if err != nil || busy != 0 {
		s.logger.Warn("truncate the WAL after forgetting (the next checkpoint overwrites it)", "err", err, "busy", busy)
	}
}
