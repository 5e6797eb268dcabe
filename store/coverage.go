package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/store/rules"
)

// ragd.ScopeStats counts the chunks of a project's scope by source.
func (s *Store) ScopeStats(ctx context.Context, projectID int64, scope string) (ragd.ScopeStats, error) {
	st := ragd.ScopeStats{Sources: map[string]int{}, Unembeddable: map[string]int{}}
	if !ragd.ValidScope(scope) {
		return st, fmt.Errorf("scope stats: unknown scope %q", scope)
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT coalesce(source_path, session_id, ''), count(*), count(*) - count(embedding_space)
		FROM chunks WHERE project_id = ? AND scope = ? GROUP BY 1`, projectID, scope)
	if err != nil {
		return st, fmt.Errorf("%s stats of project %d: %w", scope, projectID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var src string
		var n, lexical int
		if err := rows.Scan(&src, &n, &lexical); err != nil {
			return st, fmt.Errorf("%s stats of project %d: %w", scope, projectID, err)
		}
		st.Sources[src] = n
		st.Chunks += n
		st.LexicalOnly += lexical
	}
	if err := rows.Err(); err != nil {
		return st, fmt.Errorf("%s stats of project %d: %w", scope, projectID, err)
	}
	reasons, err := s.rdb.QueryContext(ctx, `SELECT u.reason, count(*) FROM unembeddable_chunks u JOIN chunks c ON c.seq = u.chunk_seq
		WHERE c.project_id = ? AND c.scope = ? AND c.embedding_space IS NULL AND u.embedding_space = ? AND u.content_hash = c.content_hash
		GROUP BY u.reason`, projectID, scope, s.space)
	if err != nil {
		return st, fmt.Errorf("%s unembeddable chunks of project %d: %w", scope, projectID, err)
	}
	defer reasons.Close()
	for reasons.Next() {
		var reason string
		var n int
		if err := reasons.Scan(&reason, &n); err != nil {
			return st, fmt.Errorf("%s unembeddable chunks of project %d: %w", scope, projectID, err)
		}
		st.Unembeddable[reason] = n
	}
	return st, reasons.Err()
}

// ChunkStates maps the id of each chunk of a project's scope to its state,
// so that a reindex asks the embedder only for the chunks that are new or
// still lack a vector, and writes nothing when nothing would change.
func (s *Store) ChunkStates(ctx context.Context, projectID int64, scope string) (map[string]ragd.ChunkState, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, embedding_space IS NOT NULL, embedding_space IS NULL AND NOT `+notUnembeddable+`,
		coalesce(source_commit, ''), heading_path, title, start_offset, end_offset FROM chunks WHERE project_id = ? AND scope = ?`,
		s.space, projectID, scope)
	if err != nil {
		return nil, fmt.Errorf("chunk states of %s, project %d: %w", scope, projectID, err)
	}
	defer rows.Close()
	out, err := rules.ReadChunkStates(rows)
	if err != nil {
		return nil, fmt.Errorf("chunk states of %s, project %d: %w", scope, projectID, err)
	}
	return out, nil
}

// SessionStats counts a project's sessions and messages (events whose type
// is one of types), how many of them have chunks, and how many of those
// stored after since have none, in one read snapshot.
func (s *Store) SessionStats(ctx context.Context, projectID int64, types []string, since time.Time) (ragd.SessionStats, error) {
	var st ragd.SessionStats
	if len(types) == 0 {
		return st, nil
	}
	tx, err := s.rdb.BeginTx(ctx, nil)
	if err != nil {
		return st, fmt.Errorf("session stats of project %d: %w", projectID, err)
	}
	defer tx.Rollback()
	// Numbered parameters: ?1 the project, then the types, then since,
	// which the last query names before them in its text (a bare ? would
	// be numbered after it).
	numbered := make([]string, len(types))
	for i := range types {
		numbered[i] = "?" + strconv.Itoa(i+2)
	}
	in := "(" + strings.Join(numbered, ",") + ")"
	sinceParam := "?" + strconv.Itoa(len(types)+2)
	args := func(extra ...any) []any {
		a := []any{projectID}
		for _, t := range types {
			a = append(a, t)
		}
		return append(a, extra...)
	}
	var last string
	err = tx.QueryRowContext(ctx, `SELECT count(*), count(DISTINCT session_id), coalesce(max(created_at), '')
		FROM session_events WHERE project_id = ?1 AND type IN `+in,
		args()...).Scan(&st.Messages, &st.Sessions, &last)
	if err != nil {
		return st, fmt.Errorf("session stats of project %d: %w", projectID, err)
	}
	if last != "" {
		st.LastAppended = parseTime(last)
	}
	err = tx.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT DISTINCT session_id FROM session_events
		WHERE project_id = ?1 AND type IN `+in+`) AS m
		WHERE EXISTS (SELECT 1 FROM chunks c WHERE c.project_id = ?1 AND c.scope = 'session' AND c.session_id = m.session_id)`,
		args()...).Scan(&st.SessionsIndexed)
	if err != nil {
		return st, fmt.Errorf("indexed sessions of project %d: %w", projectID, err)
	}
	err = tx.QueryRowContext(ctx, indexedMessagesQuery(in, sinceParam),
		args(formatTime(since))...).Scan(&st.MessagesIndexed, &st.UnindexedSince)
	if err != nil {
		return st, fmt.Errorf("indexed messages of project %d: %w", projectID, err)
	}
	return st, nil
}

// indexedMessagesQuery counts the messages with a chunk, and those without
// one stored after since: in is the types' list, sinceParam since's
// parameter. Each message's question is one seek of chunks_session_event
// (migration 8), not a read of its session's chunks.
func indexedMessagesQuery(in, sinceParam string) string {
	return `SELECT count(*) FILTER (WHERE indexed),
		count(*) FILTER (WHERE NOT indexed AND created_at > ` + sinceParam + `)
		FROM (SELECT e.created_at, EXISTS (SELECT 1 FROM chunks c WHERE c.project_id = ?1 AND c.scope = 'session'
			AND c.session_id = e.session_id AND c.event_id = e.id) AS indexed
		FROM session_events e WHERE e.project_id = ?1 AND e.type IN ` + in + `)`
}
