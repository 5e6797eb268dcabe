package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/store/rules"
)

// AppendEvents stores events in the log of a project, in one transaction,
// in order. Appending is idempotent on the event id: an id already stored
// with the same content (time compared as an instant, payload as compacted
// JSON) is a duplicate and changes nothing; with other content it is a
// conflict, reported in the result, and the other events are still stored.
//
// A session is created by its first event. Its title is the Title of an
// event that carries one, when the session has no title yet or when no
// stored event of the session is later than that event: the latest title
// wins, whatever order the events arrive in.
//
// It writes no chunk: AppendSession stores events with their chunks.
//
// The error is for invalid input (an event breaking the event format's
// rules, ragd.Event.Validate: it wraps ragd.ErrInvalidEvent and nothing is
// stored) and for database failures.
func (s *Store) AppendEvents(ctx context.Context, projectID int64, events []ragd.Event) (ragd.AppendResult, error) {
	return s.AppendSession(ctx, projectID, events, nil)
}

// eventWriter stores events in a transaction by the rules of AppendEvents.
type eventWriter struct {
	projectID                           int64
	lookup, newSession, retitle, insert *sql.Stmt
	stamp                               string
}

func newEventWriter(ctx context.Context, tx *sql.Tx, projectID int64) (*eventWriter, error) {
	stmts := []string{
		`SELECT session_id, type, actor, text, time, payload FROM session_events WHERE project_id = ? AND id = ?`,
		`INSERT INTO sessions (project_id, id, title, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		`UPDATE sessions SET title = ?3 WHERE project_id = ?1 AND id = ?2 AND title != ?3
			AND (title = '' OR NOT EXISTS (SELECT 1 FROM session_events
				WHERE project_id = ?1 AND session_id = ?2 AND time > ?4))`,
		`INSERT INTO session_events (project_id, session_id, id, type, actor, text, payload, time, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	}
	prepared := make([]*sql.Stmt, 0, len(stmts))
	for _, q := range stmts {
		st, err := tx.PrepareContext(ctx, q)
		if err != nil {
			for _, p := range prepared {
				p.Close()
			}
			return nil, fmt.Errorf("prepare: %w", err)
		}
		prepared = append(prepared, st)
	}
	return &eventWriter{projectID: projectID, lookup: prepared[0], newSession: prepared[1], retitle: prepared[2],
		insert: prepared[3], stamp: now()}, nil
}

func (w *eventWriter) Close() {
	for _, st := range []*sql.Stmt{w.lookup, w.newSession, w.retitle, w.insert} {
		st.Close()
	}
}

// write stores e, counting it in res. It reports whether e was stored (not
// a duplicate, not a conflict) and whether it changed its session's title.
func (w *eventWriter) write(ctx context.Context, e *ragd.Event, res *ragd.AppendResult) (stored, titled bool, err error) {
	var old ragd.Event
	var oldTime string
	var oldPayload sql.NullString
	err = w.lookup.QueryRowContext(ctx, w.projectID, e.ID).Scan(&old.SessionID, &old.Type, &old.Actor, &old.Text, &oldTime, &oldPayload)
	switch {
	case err == nil:
		old.ID, old.Time = e.ID, parseTime(oldTime)
		if oldPayload.Valid {
			old.Payload = []byte(oldPayload.String)
		}
		if diff := rules.EventDiff(old, *e); len(diff) > 0 {
			res.Conflicts = append(res.Conflicts, ragd.EventConflict{EventID: e.ID, Fields: diff})
		} else {
			res.Duplicates++
		}
		return false, false, nil
	case !errors.Is(err, sql.ErrNoRows):
		return false, false, fmt.Errorf("append event %q: look up: %w", e.ID, err)
	}

	r, err := w.newSession.ExecContext(ctx, w.projectID, e.SessionID, e.Title, w.stamp)
	if err != nil {
		return false, false, fmt.Errorf("append event %q: create session %q: %w", e.ID, e.SessionID, err)
	}
	if n, _ := r.RowsAffected(); n > 0 {
		res.SessionsCreated++
	} else if e.Title != "" {
		r, err := w.retitle.ExecContext(ctx, w.projectID, e.SessionID, e.Title, formatTime(e.Time))
		if err != nil {
			return false, false, fmt.Errorf("append event %q: title session %q: %w", e.ID, e.SessionID, err)
		}
		n, _ := r.RowsAffected()
		titled = n > 0
	}
	var payload any
	if e.Payload != nil {
		payload = string(e.Payload)
	}
	if _, err := w.insert.ExecContext(ctx, w.projectID, e.SessionID, e.ID, e.Type, e.Actor, e.Text,
		payload, formatTime(e.Time), w.stamp); err != nil {
		return false, false, fmt.Errorf("append event %q: %w", e.ID, err)
	}
	res.Appended++
	res.ByType[e.Type]++
	return true, titled, nil
}

// ragd.Event returns the event id of a project's log, with its session's current
// title as Title. It returns an error wrapping ragd.ErrNotFound when the project
// has no such event.
func (s *Store) Event(ctx context.Context, projectID int64, id string) (ragd.Event, error) {
	e := ragd.Event{ID: id}
	var when, created string
	var payload sql.NullString
	err := s.rdb.QueryRowContext(ctx, `SELECT e.session_id, e.type, e.actor, e.text, s.title, e.time, e.payload, e.created_at
		FROM session_events e JOIN sessions s ON s.project_id = e.project_id AND s.id = e.session_id
		WHERE e.project_id = ? AND e.id = ?`, projectID, id).
		Scan(&e.SessionID, &e.Type, &e.Actor, &e.Text, &e.Title, &when, &payload, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return e, fmt.Errorf("event %q of project %d: %w", id, projectID, ragd.ErrNotFound)
	}
	if err != nil {
		return e, fmt.Errorf("event %q of project %d: %w", id, projectID, err)
	}
	e.Time, e.CreatedAt = parseTime(when), parseTime(created)
	if payload.Valid {
		e.Payload = []byte(payload.String)
	}
	return e, nil
}

// Messages lists the events of a project whose type is one of types, ordered
// by session, then time, then the order they were stored in.
func (s *Store) Messages(ctx context.Context, projectID int64, types []string) ([]ragd.Message, error) {
	if len(types) == 0 {
		return nil, nil
	}
	args := []any{projectID}
	for _, t := range types {
		args = append(args, t)
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT e.session_id, s.title, e.id, e.type, e.actor, e.text, e.time, e.created_at
		FROM session_events e JOIN sessions s ON s.project_id = e.project_id AND s.id = e.session_id
		WHERE e.project_id = ? AND e.type IN (`+placeholders(len(types))+`)
		ORDER BY e.session_id, e.time, e.seq`, args...)
	if err != nil {
		return nil, fmt.Errorf("list messages of project %d: %w", projectID, err)
	}
	defer rows.Close()
	var out []ragd.Message
	for rows.Next() {
		var m ragd.Message
		var when, created string
		if err := rows.Scan(&m.SessionID, &m.SessionTitle, &m.EventID, &m.Type, &m.Actor, &m.Text, &when, &created); err != nil {
			return nil, fmt.Errorf("list messages of project %d: %w", projectID, err)
		}
		m.Time, m.CreatedAt = parseTime(when), parseTime(created)
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list messages of project %d: %w", projectID, err)
	}
	return out, nil
}
