package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/ragd/ragd"
)

// readOnly is the transaction of a consistent read of several tables.
var readOnly = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}

// Stats counts what the store's owner may read: every project, the docs
// and ADRs, the owner's and the shared sessions, the owner's searches and
// votes. FileBytes is the whole database's size on the server.
func (s *Store) Stats(ctx context.Context) (ragd.IndexStats, error) {
	st := ragd.IndexStats{Chunks: map[string]int{}}
	for _, sc := range ragd.Scopes {
		st.Chunks[sc] = 0
	}
	tx, err := s.pool.BeginTx(ctx, readOnly)
	if err != nil {
		return st, s.describe("index stats", err)
	}
	defer tx.Rollback(ctx)
	rows, err := tx.Query(ctx, "SELECT scope, count(*), count(embedding_space) FROM chunks WHERE "+visibleSQL(1)+" GROUP BY scope", s.owner)
	if err != nil {
		return st, s.describe("index stats", err)
	}
	for rows.Next() {
		var scope string
		var n, vec int
		if err := rows.Scan(&scope, &n, &vec); err != nil {
			rows.Close()
			return st, s.describe("index stats", err)
		}
		st.Chunks[scope] = n
		st.Vectors += vec
		st.LexicalOnly += n - vec
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return st, s.describe("index stats", err)
	}
	err = tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM projects),
		(SELECT count(*) FROM sessions WHERE owner = $1 OR shared),
		(SELECT count(*) FROM session_events e JOIN sessions ss ON ss.project_id = e.project_id AND ss.id = e.session_id
			WHERE ss.owner = $1 OR ss.shared),
		(SELECT count(*) FROM rag_searches WHERE owner = $1),
		(SELECT count(*) FROM rag_feedback WHERE owner = $1),
		pg_database_size(current_database())`, s.owner).Scan(&st.Projects, &st.Sessions, &st.Events, &st.Searches, &st.Votes, &st.FileBytes)
	if err != nil {
		return st, s.describe("index stats", err)
	}
	return st, nil
}
