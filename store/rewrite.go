package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/store/rules"
)

// RewriteSessions rewrites, in place, the session text stored for project
// projectID: its events' text and payloads, its sessions' titles, the
// content and titles of its session chunks with their rows of the
// lexical index, and its transcript checkpoints, in one transaction. A
// chunk keeps its id and its vector; its content hash follows its
// content. When anything changed, the database is vacuumed, so that the
// old text survives in no free page. Running it again with the same
// rewriter changes nothing.
func (s *Store) RewriteSessions(ctx context.Context, projectID int64, rw ragd.Rewriter) (ragd.RewriteResult, error) {
	var res ragd.RewriteResult
	fail := func(what string, err error) (ragd.RewriteResult, error) {
		return ragd.RewriteResult{}, fmt.Errorf("rewrite the sessions of project %d: %s: %w", projectID, what, err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fail("begin", err)
	}
	defer tx.Rollback()

	// Events.
	type eventRow struct {
		seq     int64
		text    string
		payload sql.NullString
	}
	var events []eventRow
	rows, err := tx.QueryContext(ctx, `SELECT seq, text, payload FROM session_events WHERE project_id = ? ORDER BY seq`, projectID)
	if err != nil {
		return fail("read events", err)
	}
	for rows.Next() {
		var r eventRow
		if err := rows.Scan(&r.seq, &r.text, &r.payload); err != nil {
			rows.Close()
			return fail("read events", err)
		}
		text := rw.Text(r.text, true)
		payload := r.payload
		if payload.Valid {
			payload.String = string(rw.JSON([]byte(payload.String)))
		}
		if text != r.text || payload != r.payload {
			events = append(events, eventRow{r.seq, text, payload})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fail("read events", err)
	}
	for _, r := range events {
		if _, err := tx.ExecContext(ctx, `UPDATE session_events SET text = ?, payload = ? WHERE seq = ?`, r.text, r.payload, r.seq); err != nil {
			return fail("update event", err)
		}
	}
	res.Events = len(events)

	// Session titles.
	n, err := rewriteColumn(ctx, tx, `SELECT id, title FROM sessions WHERE project_id = ?`, `UPDATE sessions SET title = ? WHERE project_id = ? AND id = ?`,
		projectID, func(v string) string { return rw.Text(v, true) })
	if err != nil {
		return fail("sessions", err)
	}
	res.Sessions = n

	// Chunks, and their lexical rows.
	if res.Chunks, err = s.rewriteChunks(ctx, tx, projectID, func(v string) string { return rw.Text(v, false) }); err != nil {
		return fail("chunks", err)
	}

	// Checkpoints.
	n, err = rewriteColumn(ctx, tx, `SELECT path, checkpoint FROM transcript_files WHERE project_id = ?`,
		`UPDATE transcript_files SET checkpoint = ? WHERE project_id = ? AND path = ?`,
		projectID, func(v string) string { return string(rw.JSON([]byte(v))) })
	if err != nil {
		return fail("checkpoints", err)
	}
	res.Checkpoints = n
	if err := tx.Commit(); err != nil {
		return fail("commit", err)
	}
	if res != (ragd.RewriteResult{}) {
		// The writer zeroes what it frees, but text written before it did
		// (or before this pass) may linger in free space: rebuild the file
		// without any, and empty the WAL.
		if _, err := s.db.ExecContext(ctx, "VACUUM"); err != nil {
			return res, fmt.Errorf("rewrite the sessions of project %d: vacuum: %w", projectID, err)
		}
		s.truncateWAL(ctx)
	}
	return res, nil
}

// rewriteColumn reads (key, value) rows of a project with sel and writes
// the changed values back with upd (value, project, key).
func rewriteColumn(ctx context.Context, tx *sql.Tx, sel, upd string, projectID int64, fn func(string) string) (int, error) {
	rows, err := tx.QueryContext(ctx, sel, projectID)
	if err != nil {
		return 0, err
	}
	type kv struct{ k, v string }
	var changed []kv
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return 0, err
		}
		if nv := fn(v); nv != v {
			changed = append(changed, kv{k, nv})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	for _, c := range changed {
		if _, err := tx.ExecContext(ctx, upd, c.v, projectID, c.k); err != nil {
			return 0, err
		}
	}
	return len(changed), nil
}

// rewriteChunks rewrites the content and title of the project's session
// chunks, and replaces the lexical rows of those that changed.
func (s *Store) rewriteChunks(ctx context.Context, tx *sql.Tx, projectID int64, fn func(string) string) (int, error) {
	type chunkRow struct {
		seq                  int64
		title, heading, text string
		newTitle, newText    string
	}
	rows, err := tx.QueryContext(ctx, `SELECT seq, title, heading_path, content FROM chunks WHERE project_id = ? AND scope = 'session'`, projectID)
	if err != nil {
		return 0, err
	}
	var changed []chunkRow
	for rows.Next() {
		var r chunkRow
		if err := rows.Scan(&r.seq, &r.title, &r.heading, &r.text); err != nil {
			rows.Close()
			return 0, err
		}
		r.newTitle, r.newText = fn(r.title), fn(r.text)
		if r.newTitle != r.title || r.newText != r.text {
			changed = append(changed, r)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if len(changed) == 0 {
		return 0, nil
	}
	_, built, err := projectLanguages(ctx, tx, projectID)
	if err != nil {
		return 0, err
	}
	a, err := rules.AnalyzerFor(built)
	if err != nil {
		return 0, err
	}
	lw, err := newLexicalWriter(ctx, tx, projectID)
	if err != nil {
		return 0, err
	}
	defer lw.Close()
	for _, r := range changed {
		sum := sha256.Sum256([]byte(r.newText))
		if _, err := tx.ExecContext(ctx, `UPDATE chunks SET title = ?, content = ?, content_hash = ? WHERE seq = ?`,
			r.newTitle, r.newText, hex.EncodeToString(sum[:]), r.seq); err != nil {
			return 0, err
		}
		if err := lw.delete(ctx, r.seq, analyseChunk(a, r.title, r.heading, r.text)); err != nil {
			return 0, err
		}
		if err := lw.insert(ctx, r.seq, analyseChunk(a, r.newTitle, r.heading, r.newText)); err != nil {
			return 0, err
		}
	}
	if err := lw.flush(ctx); err != nil {
		return 0, err
	}
	// The old rows' terms stay in the contentless index until a merge:
	// rewrite it without them.
	if err := optimizeLexical(ctx, tx, projectID); err != nil {
		return 0, err
	}
	return len(changed), nil
}
