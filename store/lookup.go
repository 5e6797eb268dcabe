package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/ragd/ragd"
)

// FileChunks lists the chunks of one indexed file (docs or adr) of a
// project, in document order; none when the file has no chunks.
func (s *Store) FileChunks(ctx context.Context, projectID int64, path string) ([]ragd.Chunk, error) {
	return s.listChunks(ctx, fmt.Sprintf("chunks of %s", path),
		`WHERE project_id = ? AND source_path = ? AND scope IN ('docs', 'adr') ORDER BY position`, projectID, path)
}

// EventChunks lists the chunks of one session message, in order; none when
// the event has no chunks (not indexed yet, or not a message).
func (s *Store) EventChunks(ctx context.Context, projectID int64, eventID string) ([]ragd.Chunk, error) {
	return s.listChunks(ctx, fmt.Sprintf("chunks of event %s", eventID),
		`WHERE project_id = ? AND scope = 'session' AND event_id = ? ORDER BY position`, projectID, eventID)
}

func (s *Store) listChunks(ctx context.Context, what, where string, args ...any) ([]ragd.Chunk, error) {
	rows, err := s.rdb.QueryContext(ctx, "SELECT "+chunkColumns+" FROM chunks "+where, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []ragd.Chunk
	for rows.Next() {
		c, err := scanChunk(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// EventsAround returns up to n events of types before and after event id in
// its session's log, each side in log order (time, then the order stored),
// so that a cited message is read with the conversation around it. It
// returns an error wrapping ragd.ErrNotFound when the project has no such
// event.
func (s *Store) EventsAround(ctx context.Context, projectID int64, id string, types []string, n int) (before, after []ragd.Event, err error) {
	fail := func(err error) ([]ragd.Event, []ragd.Event, error) {
		return nil, nil, fmt.Errorf("events around %q of project %d: %w", id, projectID, err)
	}
	var session, when string
	var seq int64
	err = s.rdb.QueryRowContext(ctx, `SELECT session_id, time, seq FROM session_events WHERE project_id = ? AND id = ?`,
		projectID, id).Scan(&session, &when, &seq)
	if errors.Is(err, sql.ErrNoRows) {
		return fail(ragd.ErrNotFound)
	}
	if err != nil {
		return fail(err)
	}
	if n <= 0 || len(types) == 0 {
		return nil, nil, nil
	}
	args := []any{projectID, session}
	for _, t := range types {
		args = append(args, t)
	}
	args = append(args, when, seq, n)
	side := func(cmp, order string) ([]ragd.Event, error) {
		rows, err := s.rdb.QueryContext(ctx, `SELECT e.id, e.session_id, e.type, e.actor, e.text, s.title, e.time, e.payload, e.created_at
			FROM session_events e JOIN sessions s ON s.project_id = e.project_id AND s.id = e.session_id
			WHERE e.project_id = ? AND e.session_id = ? AND e.type IN (`+placeholders(len(types))+`)
			AND (e.time, e.seq) `+cmp+` (?, ?)
			ORDER BY e.time `+order+`, e.seq `+order+` LIMIT ?`, args...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []ragd.Event
		for rows.Next() {
			var e ragd.Event
			var when, created string
			var payload sql.NullString
			if err := rows.Scan(&e.ID, &e.SessionID, &e.Type, &e.Actor, &e.Text, &e.Title, &when, &payload, &created); err != nil {
				return nil, err
			}
			e.Time, e.CreatedAt = parseTime(when), parseTime(created)
			if payload.Valid {
				e.Payload = []byte(payload.String)
			}
			out = append(out, e)
		}
		return out, rows.Err()
	}
	if before, err = side("<", "DESC"); err != nil {
		return fail(err)
	}
	slices.Reverse(before)
	if after, err = side(">", "ASC"); err != nil {
		return fail(err)
	}
	return before, after, nil
}
