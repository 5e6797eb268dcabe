package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/ragd/ragd"
)

// ListSessions lists the sessions of project projectID that the store's
// owner may read (its own and the shared ones), the most recent (by last
// event) first, then by id, with their event and message counts. Format is
// left for the caller, who knows the format names.
func (s *Store) ListSessions(ctx context.Context, projectID int64, f ragd.SessionFilter) ([]ragd.SessionInfo, error) {
	what := fmt.Sprintf("list sessions of project %d", projectID)
	q := `SELECT s.id, s.title, min(e.time), max(e.time), count(*),
			count(*) FILTER (WHERE e.type IN ('` + ragd.TypeChatMessage + `', '` + ragd.TypeAgentResponse + `'))
		FROM sessions s JOIN session_events e ON e.project_id = s.project_id AND e.session_id = s.id
		WHERE ` + visibleSession + ` AND s.project_id = $2 AND starts_with(s.id, $3)
		GROUP BY s.id, s.title`
	args := []any{s.owner, projectID, f.IDPrefix}
	if !f.Since.IsZero() {
		q += ` HAVING max(e.time) >= $4`
		args = append(args, formatEventTime(f.Since))
	}
	q += ` ORDER BY max(e.time) DESC, s.id COLLATE "C"`
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, s.describe(what, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ragd.SessionInfo, error) {
		var si ragd.SessionInfo
		var first, last string
		err := r.Scan(&si.ID, &si.Title, &first, &last, &si.Events, &si.Messages)
		si.First, si.Last = parseEventTime(first), parseEventTime(last)
		return si, err
	})
	if err != nil {
		return nil, s.describe(what, err)
	}
	if out == nil {
		out = []ragd.SessionInfo{}
	}
	return out, nil
}

// SessionEvents returns the events of session sessionID of project
// projectID in time order (then the order stored), each with the session's
// title as Title. It returns an error wrapping ragd.ErrNotFound when the
// project has no such session that the store's owner may read.
func (s *Store) SessionEvents(ctx context.Context, projectID int64, sessionID string) ([]ragd.Event, error) {
	what := fmt.Sprintf("events of session %q of project %d", sessionID, projectID)
	var found bool
	err := s.pool.QueryRow(ctx, `SELECT true FROM sessions s WHERE `+visibleSession+` AND s.project_id = $2 AND s.id = $3`,
		s.owner, projectID, sessionID).Scan(&found)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("%s: %w", what, ragd.ErrNotFound)
	}
	if err != nil {
		return nil, s.describe(what, err)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+eventColumns+`
		FROM session_events e JOIN sessions s ON s.project_id = e.project_id AND s.id = e.session_id
		WHERE `+visibleSession+` AND e.project_id = $2 AND e.session_id = $3 ORDER BY e.time, e.seq`,
		s.owner, projectID, sessionID)
	if err != nil {
		return nil, s.describe(what, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ragd.Event, error) { return scanEvent(r) })
	if err != nil {
		return nil, s.describe(what, err)
	}
	if out == nil {
		out = []ragd.Event{}
	}
	return out, nil
}
