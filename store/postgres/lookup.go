package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/ragd/ragd"
)

// FileChunks lists the chunks of one indexed file (docs or adr) of a
// project, in document order; none when the file has no chunks. Docs are
// everyone's.
func (s *Store) FileChunks(ctx context.Context, projectID int64, path string) ([]ragd.Chunk, error) {
	return s.listChunks(ctx, fmt.Sprintf("chunks of %s in project %d", path, projectID),
		`WHERE project_id = $1 AND source_path = $2 AND scope IN ('docs', 'adr') ORDER BY position`, projectID, path)
}

// EventChunks lists the chunks of one session message, in order; none when
// the event has no chunks (not indexed yet, or not a message) or they are
// another owner's, not shared.
func (s *Store) EventChunks(ctx context.Context, projectID int64, eventID string) ([]ragd.Chunk, error) {
	return s.listChunks(ctx, fmt.Sprintf("chunks of event %s in project %d", eventID, projectID),
		`WHERE project_id = $1 AND scope = 'session' AND event_id = $2 AND `+visibleSQL(3)+` ORDER BY position`,
		projectID, eventID, s.owner)
}

func (s *Store) listChunks(ctx context.Context, what, where string, args ...any) ([]ragd.Chunk, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+chunkColumns+" FROM chunks "+where, args...)
	if err != nil {
		return nil, s.describe(what, err)
	}
	out, err := collectChunks(rows)
	if err != nil {
		return nil, s.describe(what, err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// EventsAround returns up to n events of types before and after event id in
// its session's log, each side in log order (time, then the order stored),
// so that a cited message is read with the conversation around it. It
// returns an error wrapping ragd.ErrNotFound when the project has no such
// event that the store's owner may read.
func (s *Store) EventsAround(ctx context.Context, projectID int64, id string, types []string, n int) (before, after []ragd.Event, err error) {
	what := fmt.Sprintf("events around %q of project %d", id, projectID)
	var session, when string
	var seq int64
	err = s.pool.QueryRow(ctx, `SELECT e.session_id, e.time, e.seq
		FROM session_events e JOIN sessions s ON s.project_id = e.project_id AND s.id = e.session_id
		WHERE `+visibleSession+` AND e.project_id = $2 AND e.id = $3`, s.owner, projectID, id).Scan(&session, &when, &seq)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil, fmt.Errorf("%s: %w", what, ragd.ErrNotFound)
	}
	if err != nil {
		return nil, nil, s.describe(what, err)
	}
	if n <= 0 || len(types) == 0 {
		return nil, nil, nil
	}
	side := func(cmp, order string) ([]ragd.Event, error) {
		rows, err := s.pool.Query(ctx, `SELECT `+eventColumns+`
			FROM session_events e JOIN sessions s ON s.project_id = e.project_id AND s.id = e.session_id
			WHERE e.project_id = $1 AND e.session_id = $2 AND e.type = ANY($3::text[])
			AND (e.time, e.seq) `+cmp+` ($4::text, $5::bigint)
			ORDER BY e.time `+order+`, e.seq `+order+` LIMIT $6`, projectID, session, types, when, seq, n)
		if err != nil {
			return nil, err
		}
		return pgx.CollectRows(rows, func(r pgx.CollectableRow) (ragd.Event, error) { return scanEvent(r) })
	}
	if before, err = side("<", "DESC"); err != nil {
		return nil, nil, s.describe(what, err)
	}
	slices.Reverse(before)
	if after, err = side(">", "ASC"); err != nil {
		return nil, nil, s.describe(what, err)
	}
	if len(before) == 0 {
		before = nil
	}
	if len(after) == 0 {
		after = nil
	}
	return before, after, nil
}
