package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/ragd/ragd"
)

// ScopeStats describes the chunks of one scope of a project.
type ScopeStats struct {
	Chunks int
	// LexicalOnly counts chunks without a vector.
	LexicalOnly int
	// Sources maps each source (the path for docs and adr, the session id
	// for session) to its number of chunks.
	Sources map[string]int
}

// ScopeStats counts the chunks of a project's scope by source.
func (s *Store) ScopeStats(ctx context.Context, projectID int64, scope string) (ScopeStats, error) {
	st := ScopeStats{Sources: map[string]int{}}
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
	return st, rows.Err()
}

// ChunkState is what a reindex compares a stored chunk with, beside its id.
type ChunkState struct {
	// Vector reports whether the chunk has a vector.
	Vector       bool
	SourceCommit string
	HeadingPath  []string
	Title        string
	Start, End   int
}

// Matches reports whether writing c with ReplaceScope would leave the stored
// chunk as it is: c's id is the stored chunk's, c brings no vector, and
// every field ReplaceScope updates is equal.
func (st ChunkState) Matches(c *ChunkInput) bool {
	return c.Vector == nil && st.SourceCommit == c.SourceCommit && st.Title == c.Title &&
		st.Start == c.Start && st.End == c.End && slices.Equal(st.HeadingPath, c.HeadingPath)
}

// ChunkStates maps the id of each chunk of a project's scope to its state,
// so that a reindex asks the embedder only for the chunks that are new or
// still lack a vector, and writes nothing when nothing would change.
func (s *Store) ChunkStates(ctx context.Context, projectID int64, scope string) (map[string]ChunkState, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, embedding_space IS NOT NULL, coalesce(source_commit, ''), heading_path, title,
		start_offset, end_offset FROM chunks WHERE project_id = ? AND scope = ?`, projectID, scope)
	if err != nil {
		return nil, fmt.Errorf("chunk states of %s, project %d: %w", scope, projectID, err)
	}
	defer rows.Close()
	out := map[string]ChunkState{}
	for rows.Next() {
		var id, heading string
		var st ChunkState
		if err := rows.Scan(&id, &st.Vector, &st.SourceCommit, &heading, &st.Title, &st.Start, &st.End); err != nil {
			return nil, fmt.Errorf("chunk states of %s, project %d: %w", scope, projectID, err)
		}
		if err := json.Unmarshal([]byte(heading), &st.HeadingPath); err != nil {
			return nil, fmt.Errorf("chunk %s: heading path %q: %w", id, heading, err)
		}
		out[id] = st
	}
	return out, rows.Err()
}

// SessionStats describes a project's session log against its session chunks.
// Messages are the events of the types asked for.
type SessionStats struct {
	// Sessions counts sessions with at least one message; SessionsIndexed
	// those of them that have chunks.
	Sessions, SessionsIndexed int
	// Messages counts messages; MessagesIndexed those that have chunks.
	Messages, MessagesIndexed int
	// LastAppended is when the latest message was stored; zero if none.
	LastAppended time.Time
	// AppendedSince counts messages stored after the since argument.
	AppendedSince int
}

// SessionStats counts a project's sessions and messages (events whose type is
// one of types) and how many of them have chunks, in one read snapshot.
func (s *Store) SessionStats(ctx context.Context, projectID int64, types []string, since time.Time) (SessionStats, error) {
	var st SessionStats
	if len(types) == 0 {
		return st, nil
	}
	tx, err := s.rdb.BeginTx(ctx, nil)
	if err != nil {
		return st, fmt.Errorf("session stats of project %d: %w", projectID, err)
	}
	defer tx.Rollback()
	in := "(" + placeholders(len(types)) + ")"
	args := func(extra ...any) []any {
		a := []any{projectID}
		for _, t := range types {
			a = append(a, t)
		}
		return append(a, extra...)
	}
	var last string
	err = tx.QueryRowContext(ctx, `SELECT count(*), count(DISTINCT session_id), coalesce(max(created_at), ''),
		count(*) FILTER (WHERE created_at > ?)
		FROM session_events WHERE project_id = ? AND type IN `+in,
		append([]any{formatTime(since)}, args()...)...).Scan(&st.Messages, &st.Sessions, &last, &st.AppendedSince)
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
	err = tx.QueryRowContext(ctx, `SELECT count(*) FROM session_events e WHERE e.project_id = ?1 AND e.type IN `+in+`
		AND EXISTS (SELECT 1 FROM chunks c WHERE c.project_id = ?1 AND c.scope = 'session'
			AND c.session_id = e.session_id AND c.event_id = e.id)`,
		args()...).Scan(&st.MessagesIndexed)
	if err != nil {
		return st, fmt.Errorf("indexed messages of project %d: %w", projectID, err)
	}
	return st, nil
}

// ID returns the id ReplaceScope gives the chunk c in a project's scope, so
// that a caller can tell beforehand which chunks are already stored.
func (c *ChunkInput) ID(projectID int64, scope string) string {
	return ChunkID(projectID, scope, c.source(scope), c.Position, c.ContentHash)
}
