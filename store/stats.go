package store

import (
	"context"
	"fmt"
	"os"

	"github.com/ragd/ragd"
)

// Stats counts what the store holds.
func (s *Store) Stats(ctx context.Context) (ragd.IndexStats, error) {
	st := ragd.IndexStats{Chunks: map[string]int{}}
	for _, sc := range ragd.Scopes {
		st.Chunks[sc] = 0
	}
	// The counts the triggers keep (migration 4): counting the chunks
	// themselves reads every row, about 60 ms at a million.
	rows, err := s.rdb.QueryContext(ctx, "SELECT scope, sum(chunks), sum(vectors) FROM chunk_counts GROUP BY scope")
	if err != nil {
		return st, fmt.Errorf("index stats: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var scope string
		var n, vec int
		if err := rows.Scan(&scope, &n, &vec); err != nil {
			return st, fmt.Errorf("index stats: %w", err)
		}
		st.Chunks[scope] = n
		st.Vectors += vec
		st.LexicalOnly += n - vec
	}
	if err := rows.Err(); err != nil {
		return st, fmt.Errorf("index stats: %w", err)
	}
	err = s.rdb.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM projects), (SELECT count(*) FROM sessions),
		(SELECT count(*) FROM session_events)`).Scan(&st.Projects, &st.Sessions, &st.Events)
	if err != nil {
		return st, fmt.Errorf("index stats: %w", err)
	}
	err = s.tdb.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM rag_searches), (SELECT count(*) FROM rag_feedback)").Scan(&st.Searches, &st.Votes)
	if err != nil {
		return st, fmt.Errorf("telemetry stats: %w", err)
	}
	if fi, err := os.Stat(s.path); err == nil {
		st.FileBytes = fi.Size()
	}
	return st, nil
}
