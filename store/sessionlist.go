package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/ragd/ragd"
)

// ListSessions lists the sessions of project projectID, the most recent
// (by last event) first, with their event and message counts. Format is
// left for the caller, who knows the format names.
func (s *Store) ListSessions(ctx context.Context, projectID int64, f ragd.SessionFilter) ([]ragd.SessionInfo, error) {
	q := `SELECT s.id, s.title, min(e.time), max(e.time), count(*),
			sum(e.type IN ('` + ragd.TypeChatMessage + `', '` + ragd.TypeAgentResponse + `'))
		FROM sessions s JOIN session_events e ON e.project_id = s.project_id AND e.session_id = s.id
		WHERE s.project_id = ? AND substr(s.id, 1, ?) = ?
		GROUP BY s.id`
	args := []any{projectID, len(f.IDPrefix), f.IDPrefix}
	if !f.Since.IsZero() {
		q += ` HAVING max(e.time) >= ?`
		args = append(args, formatTime(f.Since))
	}
	q += ` ORDER BY max(e.time) DESC, s.id`
	rows, err := s.rdb.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list sessions of project %d: %w", projectID, err)
	}
	defer rows.Close()
	out := []ragd.SessionInfo{}
	for rows.Next() {
		var si ragd.SessionInfo
		var first, last string
		if err := rows.Scan(&si.ID, &si.Title, &first, &last, &si.Events, &si.Messages); err != nil {
			return nil, fmt.Errorf("list sessions of project %d: %w", projectID, err)
		}
		si.First, si.Last = parseTime(first), parseTime(last)
		out = append(out, si)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list sessions of project %d: %w", projectID, err)
	}
	return out, nil
}

// SessionEvents returns the events of session sessionID of project
// projectID in time order (then the order stored), each with the session's
// title as Title. It returns an error wrapping ragd.ErrNotFound when the
// project has no such session.
func (s *Store) SessionEvents(ctx context.Context, projectID int64, sessionID string) ([]ragd.Event, error) {
	fail := func(err error) ([]ragd.Event, error) {
		return nil, fmt.Errorf("events of session %q of project %d: %w", sessionID, projectID, err)
	}
	var title string
	err := s.rdb.QueryRowContext(ctx, `SELECT title FROM sessions WHERE project_id = ? AND id = ?`, projectID, sessionID).Scan(&title)
	if errors.Is(err, sql.ErrNoRows) {
		return fail(ragd.ErrNotFound)
	}
	if err != nil {
		return fail(err)
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, type, actor, text, time, payload, created_at
		FROM session_events WHERE project_id = ? AND session_id = ? ORDER BY time, seq`, projectID, sessionID)
	if err != nil {
		return fail(err)
	}
	defer rows.Close()
	out := []ragd.Event{}
	for rows.Next() {
		e := ragd.Event{SessionID: sessionID, Title: title}
		var when, created string
		var payload sql.NullString
		if err := rows.Scan(&e.ID, &e.Type, &e.Actor, &e.Text, &when, &payload, &created); err != nil {
			return fail(err)
		}
		e.Time, e.CreatedAt = parseTime(when), parseTime(created)
		if payload.Valid {
			e.Payload = []byte(payload.String)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	return out, nil
}
