package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ragd/ragd"
)

// SessionStats counts the store owner's sessions and messages (events
// whose type is one of types) of a project, how many of them have chunks,
// and how many of those stored after since have none, in one read
// snapshot. Another owner's sessions are theirs to index, shared or not.
func (s *Store) SessionStats(ctx context.Context, projectID int64, types []string, since time.Time) (ragd.SessionStats, error) {
	var st ragd.SessionStats
	if len(types) == 0 {
		return st, nil
	}
	what := fmt.Sprintf("session stats of project %d", projectID)
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return st, s.describe(what+": begin", err)
	}
	defer tx.Rollback(ctx)
	var last *time.Time
	err = tx.QueryRow(ctx, `SELECT count(*), count(DISTINCT session_id), max(created_at)
		FROM session_events WHERE project_id = $1 AND owner = $2 AND type = ANY($3::text[])`,
		projectID, s.owner, types).Scan(&st.Messages, &st.Sessions, &last)
	if err != nil {
		return st, s.describe(what, err)
	}
	if last != nil {
		st.LastAppended = last.UTC()
	}
	err = tx.QueryRow(ctx, `SELECT count(*) FROM (SELECT DISTINCT session_id FROM session_events
		WHERE project_id = $1 AND owner = $2 AND type = ANY($3::text[])) AS m
		WHERE EXISTS (SELECT 1 FROM chunks c WHERE c.project_id = $1 AND c.scope = 'session' AND c.session_id = m.session_id)`,
		projectID, s.owner, types).Scan(&st.SessionsIndexed)
	if err != nil {
		return st, s.describe(fmt.Sprintf("indexed sessions of project %d", projectID), err)
	}
	// A message is indexed when a chunk names its event: one seek of
	// chunks_session_event each.
	err = tx.QueryRow(ctx, `SELECT count(*) FILTER (WHERE indexed), count(*) FILTER (WHERE NOT indexed AND created_at > $4)
		FROM (SELECT e.created_at, EXISTS (SELECT 1 FROM chunks c WHERE c.project_id = $1 AND c.scope = 'session'
			AND c.session_id = e.session_id AND c.event_id = e.id) AS indexed
		FROM session_events e WHERE e.project_id = $1 AND e.owner = $2 AND e.type = ANY($3::text[])) AS m`,
		projectID, s.owner, types, since).Scan(&st.MessagesIndexed, &st.UnindexedSince)
	if err != nil {
		return st, s.describe(fmt.Sprintf("indexed messages of project %d", projectID), err)
	}
	return st, nil
}
