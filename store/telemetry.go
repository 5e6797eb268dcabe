package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/store/rules"
)

// Telemetry: one rag_searches row per search and one rag_feedback row per
// judged (search, chunk). The search package decides what goes in a row; the
// store only writes and reads it.

// RecordSearch inserts a rag_searches row and returns its id. A zero
// CreatedAt means now.
func (s *Store) RecordSearch(ctx context.Context, rec ragd.SearchRecord) (int64, error) {
	row, err := rules.PrepareSearch(&rec, time.Now)
	if err != nil {
		return 0, err
	}
	r, err := s.tdb.ExecContext(ctx, `INSERT INTO rag_searches (project_id, query, scopes, hits, weights, degraded,
		vector_available, latency_ms, actor, session_id, purpose, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		row.Project, rec.Query, row.Scopes, row.Hits, string(rec.Weights), rec.Degraded,
		rec.VectorAvailable, rec.LatencyMs, rec.Actor, nullable(rec.SessionID), rec.Purpose, formatTime(rec.CreatedAt))
	if err != nil {
		return 0, fmt.Errorf("record search %q: %w", rec.Query, err)
	}
	id, err := r.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("record search %q: %w", rec.Query, err)
	}
	return id, nil
}

// LoadSearch reads one rag_searches row. It returns ragd.ErrNotFound when no
// search has that id.
func (s *Store) LoadSearch(ctx context.Context, id int64) (ragd.SearchRecord, error) {
	rec, err := loadSearch(ctx, s.tdb, id)
	if err != nil {
		return rec, fmt.Errorf("load search %d: %w", id, err)
	}
	return rec, nil
}

func loadSearch(ctx context.Context, q queryer, id int64) (ragd.SearchRecord, error) {
	var rec ragd.SearchRecord
	var project sql.NullInt64
	var session sql.NullString
	var scopes, hits, weights, created string
	err := q.QueryRowContext(ctx, `SELECT id, project_id, query, scopes, hits, weights, degraded, vector_available,
		latency_ms, actor, session_id, purpose, created_at FROM rag_searches WHERE id = ?`, id).Scan(
		&rec.ID, &project, &rec.Query, &scopes, &hits, &weights, &rec.Degraded, &rec.VectorAvailable,
		&rec.LatencyMs, &rec.Actor, &session, &rec.Purpose, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return rec, ragd.ErrNotFound
	}
	if err != nil {
		return rec, err
	}
	rec.ProjectID = project.Int64
	rec.SessionID = session.String
	rec.Weights = json.RawMessage(weights)
	rec.CreatedAt = parseTime(created)
	return rec, rules.DecodeSearch(&rec, scopes, hits)
}

// SearchProject returns the project a search ran in. It returns ragd.ErrNotFound
// when no search has that id or the search belongs to no project.
func (s *Store) SearchProject(ctx context.Context, searchID int64) (ragd.Project, error) {
	var projectID sql.NullInt64
	err := s.tdb.QueryRowContext(ctx, "SELECT project_id FROM rag_searches WHERE id = ?", searchID).Scan(&projectID)
	if err == nil {
		p, perr := scanProject(s.rdb.QueryRowContext(ctx, "SELECT "+projectColumns+" FROM projects WHERE id = ?", projectID))
		if perr == nil {
			return p, nil
		}
		err = perr
	}
	if errors.Is(err, sql.ErrNoRows) {
		var p ragd.Project
		return p, fmt.Errorf("project of search %d: %w", searchID, ragd.ErrNotFound)
	}
	return ragd.Project{}, fmt.Errorf("project of search %d: %w", searchID, err)
}

// RecordFeedback stores a vote, replacing an earlier vote on the same chunk
// of the same search. In one transaction it checks that the search exists
// (else ragd.ErrNotFound) and that the chunk was among its hits (else
// ragd.ErrNotInHits) and still exists (else ragd.ErrChunkGone), and copies the chunk's
// rank from the hits.
func (s *Store) RecordFeedback(ctx context.Context, in ragd.FeedbackInput) (ragd.FeedbackResult, error) {
	var res ragd.FeedbackResult
	fail := func(err error) (ragd.FeedbackResult, error) {
		return ragd.FeedbackResult{}, fmt.Errorf("record %s vote on chunk %s of search %d: %w", in.Verdict, in.ChunkID, in.SearchID, err)
	}
	if in.CreatedAt.IsZero() {
		in.CreatedAt = time.Now()
	}
	// The chunk lives in the main database: check it first. A reindex that
	// removes it after this check also drops its votes (dropVotes).
	var exists bool
	if err := s.rdb.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM chunks WHERE id = ?)", in.ChunkID).Scan(&exists); err != nil {
		return fail(err)
	}
	tx, err := s.tdb.BeginTx(ctx, nil)
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback()

	rec, err := loadSearch(ctx, tx, in.SearchID)
	if err != nil {
		return fail(err)
	}
	for _, h := range rec.Hits {
		if h.ChunkID == in.ChunkID {
			res.Rank = h.Rank
			break
		}
	}
	if res.Rank == 0 {
		return fail(ragd.ErrNotInHits)
	}
	if !exists {
		return fail(ragd.ErrChunkGone)
	}
	err = tx.QueryRowContext(ctx, "SELECT verdict FROM rag_feedback WHERE search_id = ? AND chunk_id = ?",
		in.SearchID, in.ChunkID).Scan(&res.Previous)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fail(err)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO rag_feedback (search_id, chunk_id, rank, verdict, actor, session_id, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (search_id, chunk_id) DO UPDATE SET verdict = excluded.verdict, actor = excluded.actor,
			session_id = excluded.session_id, created_at = excluded.created_at`,
		in.SearchID, in.ChunkID, res.Rank, in.Verdict, in.Actor, nullable(in.SessionID), formatTime(in.CreatedAt))
	if err != nil {
		return fail(err)
	}
	if err := tx.Commit(); err != nil {
		return fail(err)
	}
	return res, nil
}

// SearchVotes lists the votes on one search, by rank.
func (s *Store) SearchVotes(ctx context.Context, searchID int64) ([]ragd.Vote, error) {
	rows, err := s.tdb.QueryContext(ctx, "SELECT "+voteColumns+" FROM rag_feedback f WHERE f.search_id = ? ORDER BY f.rank, f.chunk_id", searchID)
	if err != nil {
		return nil, fmt.Errorf("votes of search %d: %w", searchID, err)
	}
	votes, err := scanVotes(rows)
	if err != nil {
		return nil, fmt.Errorf("votes of search %d: %w", searchID, err)
	}
	return votes, nil
}

const voteColumns = "f.search_id, f.chunk_id, f.rank, f.verdict, f.actor, coalesce(f.session_id, ''), f.created_at"

func scanVotes(rows *sql.Rows) ([]ragd.Vote, error) {
	defer rows.Close()
	var out []ragd.Vote
	for rows.Next() {
		var v ragd.Vote
		var created string
		if err := rows.Scan(&v.SearchID, &v.ChunkID, &v.Rank, &v.Verdict, &v.Actor, &v.SessionID, &created); err != nil {
			return nil, err
		}
		v.CreatedAt = parseTime(created)
		out = append(out, v)
	}
	return out, rows.Err()
}

// SearchTelemetry reads the searches created in the filter's window and the
// votes on them. Evaluation searches (ragd.PurposeEval) are left out: they never
// count in a measurement.
func (s *Store) SearchTelemetry(ctx context.Context, f ragd.TelemetryFilter) (ragd.TelemetryWindow, error) {
	var w ragd.TelemetryWindow
	fail := func(err error) (ragd.TelemetryWindow, error) {
		return w, fmt.Errorf("read search telemetry from %s to %s (project %d): %w",
			formatTime(f.Since), formatTime(f.Until), f.ProjectID, err)
	}
	where := "s.purpose = 'search' AND s.created_at >= ? AND s.created_at < ?"
	args := []any{formatTime(f.Since), formatTime(f.Until)}
	if f.ProjectID != 0 {
		where += " AND s.project_id = ?"
		args = append(args, f.ProjectID)
	}
	tx, err := s.tdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback()

	rows, err := tx.QueryContext(ctx, `SELECT s.id, coalesce(s.project_id, 0), s.query, s.weights, s.degraded, s.vector_available,
		s.latency_ms, json_array_length(s.hits), s.created_at FROM rag_searches s WHERE `+where+` ORDER BY s.created_at, s.id`, args...)
	if err != nil {
		return fail(err)
	}
	for rows.Next() {
		var r ragd.SearchSummary
		var created string
		if err := rows.Scan(&r.ID, &r.ProjectID, &r.Query, &r.Weights, &r.Degraded, &r.VectorAvailable, &r.LatencyMs, &r.Hits, &created); err != nil {
			rows.Close()
			return fail(err)
		}
		r.CreatedAt = parseTime(created)
		w.Searches = append(w.Searches, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fail(err)
	}

	rows, err = tx.QueryContext(ctx, "SELECT "+voteColumns+` FROM rag_feedback f JOIN rag_searches s ON s.id = f.search_id
		WHERE `+where+" ORDER BY f.search_id, f.rank, f.chunk_id", args...)
	if err != nil {
		return fail(err)
	}
	if w.Votes, err = scanVotes(rows); err != nil {
		return fail(err)
	}
	return w, nil
}

// dropVotes deletes the votes on the given chunks, which a reindex removed.
func (s *Store) dropVotes(ctx context.Context, chunkIDs []string) error {
	const batch = 500
	for len(chunkIDs) > 0 {
		n := min(batch, len(chunkIDs))
		args := make([]any, n)
		for i, id := range chunkIDs[:n] {
			args[i] = id
		}
		if _, err := s.tdb.ExecContext(ctx, "DELETE FROM rag_feedback WHERE chunk_id IN ("+placeholders(n)+")", args...); err != nil {
			return fmt.Errorf("drop votes: %w", err)
		}
		chunkIDs = chunkIDs[n:]
	}
	return nil
}

// dropOrphanVotes deletes votes whose chunk no longer exists: left by a
// process that died between a reindex and its dropVotes.
func (s *Store) dropOrphanVotes(ctx context.Context) error {
	rows, err := s.tdb.QueryContext(ctx, "SELECT DISTINCT chunk_id FROM rag_feedback")
	if err != nil {
		return fmt.Errorf("check votes: %w", err)
	}
	var voted []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("check votes: %w", err)
		}
		voted = append(voted, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("check votes: %w", err)
	}
	live, err := s.Chunks(ctx, voted)
	if err != nil {
		return err
	}
	alive := make(map[string]bool, len(live))
	for _, c := range live {
		alive[c.ID] = true
	}
	var orphans []string
	for _, id := range voted {
		if !alive[id] {
			orphans = append(orphans, id)
		}
	}
	if len(orphans) > 0 {
		s.logger.Info("dropping votes on chunks that no longer exist", "chunks", len(orphans))
	}
	return s.dropVotes(ctx, orphans)
}
