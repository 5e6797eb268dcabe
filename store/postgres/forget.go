package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/ragd/ragd"
)

// ForgetSession deletes session sessionID of project projectID on purpose:
// its events, its chunks with their vectors and votes (the votes' foreign
// key), and the session itself, in one transaction, and remembers that it
// was forgotten so that a transcript import or follower does not bring it
// back. Only the owner forgets a session: it returns an error wrapping
// ragd.ErrNotFound when the project has no such session of the store's
// owner (another owner's, shared or not, included).
//
// Unlike the SQLite engine, it cannot promise that no byte of the text
// stays on disk: the server keeps deleted rows in its pages until a
// VACUUM reuses them, and in its write-ahead log and backups; that is the
// database administrator's to manage.
func (s *Store) ForgetSession(ctx context.Context, projectID int64, sessionID string) (ragd.ForgetResult, error) {
	what := fmt.Sprintf("forget session %q of project %d", sessionID, projectID)
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return ragd.ForgetResult{}, s.describe(what+": begin", err)
	}
	defer tx.Rollback(ctx)
	// The owner's session scope, as a reindex of it takes it.
	if err := LockScope(ctx, tx, projectID, ragd.ScopeSession, s.owner); err != nil {
		return ragd.ForgetResult{}, s.describe(what, err)
	}
	var found bool
	err = tx.QueryRow(ctx, `SELECT true FROM sessions WHERE project_id = $1 AND id = $2 AND owner = $3 FOR UPDATE`,
		projectID, sessionID, s.owner).Scan(&found)
	if errors.Is(err, pgx.ErrNoRows) {
		return ragd.ForgetResult{}, fmt.Errorf("%s: %w", what, ragd.ErrNotFound)
	}
	if err != nil {
		return ragd.ForgetResult{}, s.describe(what+": look up", err)
	}
	var res ragd.ForgetResult
	tag, err := tx.Exec(ctx, `DELETE FROM chunks WHERE project_id = $1 AND scope = 'session' AND session_id = $2`, projectID, sessionID)
	if err != nil {
		return ragd.ForgetResult{}, s.describe(what+": delete chunks", err)
	}
	res.Chunks = int(tag.RowsAffected())
	if tag, err = tx.Exec(ctx, `DELETE FROM session_events WHERE project_id = $1 AND session_id = $2`, projectID, sessionID); err != nil {
		return ragd.ForgetResult{}, s.describe(what+": delete events", err)
	}
	res.Events = int(tag.RowsAffected())
	if _, err := tx.Exec(ctx, `DELETE FROM sessions WHERE project_id = $1 AND id = $2`, projectID, sessionID); err != nil {
		return ragd.ForgetResult{}, s.describe(what+": delete session", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO forgotten_sessions (project_id, session_id, owner, forgotten_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (project_id, session_id) DO UPDATE SET owner = excluded.owner, forgotten_at = excluded.forgotten_at`,
		projectID, sessionID, s.owner, nowUTC()); err != nil {
		return ragd.ForgetResult{}, s.describe(what+": remember", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return ragd.ForgetResult{}, s.describe(what+": commit", err)
	}
	return res, nil
}

// ForgottenSessions returns the ids of project projectID's sessions that
// were forgotten on purpose (see ForgetSession), which an import leaves
// out: every owner's. Session ids are one namespace per project (a
// session is one owner's), so an id forgotten by anyone is never brought
// back by anyone's import; what another owner learns of it is an opaque
// id its importer skips, never shown.
func (s *Store) ForgottenSessions(ctx context.Context, projectID int64) (map[string]bool, error) {
	what := fmt.Sprintf("forgotten sessions of project %d", projectID)
	rows, err := s.pool.Query(ctx, `SELECT session_id FROM forgotten_sessions WHERE project_id = $1`, projectID)
	if err != nil {
		return nil, s.describe(what, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, s.describe(what, err)
	}
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}
