package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/store/rules"
)

// Telemetry: one rag_searches row per search and one rag_feedback row per
// judged (search, chunk), each with the owner who searched or voted. A
// store reads and votes on its owner's searches only: another person's
// search id is not found. Ids come from the table's identity sequence,
// which never hands one out twice, whatever is deleted.

// RecordSearch inserts a rag_searches row for the store's owner and
// returns its id. A zero CreatedAt means now.
func (s *Store) RecordSearch(ctx context.Context, rec ragd.SearchRecord) (int64, error) {
	row, err := rules.PrepareSearch(&rec, nowUTC)
	if err != nil {
		return 0, err
	}
	var id int64
	err = s.pool.QueryRow(ctx, `INSERT INTO rag_searches (project_id, owner, query, scopes, hits, weights, degraded,
		vector_available, latency_ms, actor, session_id, purpose, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id`,
		row.Project, s.owner, pgText(rec.Query), row.Scopes, row.Hits, pgText(string(rec.Weights)), rec.Degraded,
		rec.VectorAvailable, rec.LatencyMs, rec.Actor, nullable(rec.SessionID), rec.Purpose, rec.CreatedAt).Scan(&id)
	if err != nil {
		return 0, s.describe(fmt.Sprintf("record search %q", rec.Query), err)
	}
	return id, nil
}

// LoadSearch reads one of the owner's rag_searches rows. It returns
// ragd.ErrNotFound when the owner has no search of that id.
func (s *Store) LoadSearch(ctx context.Context, id int64) (ragd.SearchRecord, error) {
	rec, err := s.loadSearch(ctx, s.pool, id, "")
	if err != nil {
		return rec, s.describe(fmt.Sprintf("load search %d", id), err)
	}
	return rec, nil
}

func (s *Store) loadSearch(ctx context.Context, q querier, id int64, lock string) (ragd.SearchRecord, error) {
	var rec ragd.SearchRecord
	var project *int64
	var session *string
	var scopes, hits, weights string
	err := q.QueryRow(ctx, `SELECT id, project_id, query, scopes, hits, weights, degraded, vector_available,
		latency_ms, actor, session_id, purpose, created_at FROM rag_searches WHERE id = $1 AND owner = $2`+lock, id, s.owner).Scan(
		&rec.ID, &project, &rec.Query, &scopes, &hits, &weights, &rec.Degraded, &rec.VectorAvailable,
		&rec.LatencyMs, &rec.Actor, &session, &rec.Purpose, &rec.CreatedAt)
	if errNoRows(err) {
		return rec, ragd.ErrNotFound
	}
	if err != nil {
		return rec, err
	}
	if project != nil {
		rec.ProjectID = *project
	}
	if session != nil {
		rec.SessionID = *session
	}
	rec.CreatedAt = rec.CreatedAt.UTC()
	rec.Weights = json.RawMessage(weights)
	return rec, rules.DecodeSearch(&rec, scopes, hits)
}

// SearchProject returns the project one of the owner's searches ran in. It
// returns ragd.ErrNotFound when the owner has no search of that id or the
// search belongs to no project.
func (s *Store) SearchProject(ctx context.Context, searchID int64) (ragd.Project, error) {
	var projectID *int64
	err := s.pool.QueryRow(ctx, "SELECT project_id FROM rag_searches WHERE id = $1 AND owner = $2", searchID, s.owner).Scan(&projectID)
	if errNoRows(err) || err == nil && projectID == nil {
		return ragd.Project{}, fmt.Errorf("project of search %d: %w", searchID, ragd.ErrNotFound)
	}
	if err != nil {
		return ragd.Project{}, s.describe(fmt.Sprintf("project of search %d", searchID), err)
	}
	p, err := s.projectByID(ctx, s.pool, *projectID)
	if err != nil {
		return p, fmt.Errorf("project of search %d: %w", searchID, err)
	}
	return p, nil
}

// RecordFeedback stores the owner's vote, replacing an earlier vote on the
// same chunk of the same search. In one transaction it checks that the
// search is the owner's (else ragd.ErrNotFound), that the chunk was among
// its hits (else ragd.ErrNotInHits) and still exists (else
// ragd.ErrChunkGone), and copies the chunk's rank from the hits.
func (s *Store) RecordFeedback(ctx context.Context, in ragd.FeedbackInput) (ragd.FeedbackResult, error) {
	var res ragd.FeedbackResult
	what := fmt.Sprintf("record %s vote on chunk %s of search %d", in.Verdict, in.ChunkID, in.SearchID)
	if in.CreatedAt.IsZero() {
		in.CreatedAt = nowUTC()
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return res, s.describe(what+": begin", err)
	}
	defer tx.Rollback(ctx)
	rec, err := s.loadSearch(ctx, tx, in.SearchID, " FOR KEY SHARE")
	if err != nil {
		return res, s.describe(what, err)
	}
	for _, h := range rec.Hits {
		if h.ChunkID == in.ChunkID {
			res.Rank = h.Rank
			break
		}
	}
	if res.Rank == 0 {
		return ragd.FeedbackResult{}, fmt.Errorf("%s: %w", what, ragd.ErrNotInHits)
	}
	// The chunk's row, shared until commit: a reindex deleting it waits,
	// then takes the vote with it (the foreign key's cascade).
	var exists bool
	if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM chunks WHERE id = $1 FOR KEY SHARE)", in.ChunkID).Scan(&exists); err != nil {
		return ragd.FeedbackResult{}, s.describe(what, err)
	}
	if !exists {
		return ragd.FeedbackResult{}, fmt.Errorf("%s: %w", what, ragd.ErrChunkGone)
	}
	err = tx.QueryRow(ctx, "SELECT verdict FROM rag_feedback WHERE search_id = $1 AND chunk_id = $2", in.SearchID, in.ChunkID).Scan(&res.Previous)
	if err != nil && !errNoRows(err) {
		return ragd.FeedbackResult{}, s.describe(what, err)
	}
	_, err = tx.Exec(ctx, `INSERT INTO rag_feedback (search_id, chunk_id, owner, rank, verdict, actor, session_id, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (search_id, chunk_id) DO UPDATE SET verdict = excluded.verdict, actor = excluded.actor,
			session_id = excluded.session_id, created_at = excluded.created_at`,
		in.SearchID, in.ChunkID, s.owner, res.Rank, in.Verdict, in.Actor, nullable(in.SessionID), in.CreatedAt)
	if err != nil {
		return ragd.FeedbackResult{}, s.describe(what, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return ragd.FeedbackResult{}, s.describe(what+": commit", err)
	}
	return res, nil
}

const voteColumns = "f.search_id, f.chunk_id, f.rank, f.verdict, f.actor, coalesce(f.session_id, ''), f.created_at"

func scanVotes(rows interface {
	Next() bool
	Scan(...any) error
	Err() error
	Close()
}) ([]ragd.Vote, error) {
	defer rows.Close()
	var out []ragd.Vote
	for rows.Next() {
		var v ragd.Vote
		if err := rows.Scan(&v.SearchID, &v.ChunkID, &v.Rank, &v.Verdict, &v.Actor, &v.SessionID, &v.CreatedAt); err != nil {
			return nil, err
		}
		v.CreatedAt = v.CreatedAt.UTC()
		out = append(out, v)
	}
	return out, rows.Err()
}

// SearchVotes lists the votes on one of the owner's searches, by rank.
func (s *Store) SearchVotes(ctx context.Context, searchID int64) ([]ragd.Vote, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+voteColumns+` FROM rag_feedback f JOIN rag_searches r ON r.id = f.search_id
		WHERE f.search_id = $1 AND r.owner = $2 ORDER BY f.rank, f.chunk_id`, searchID, s.owner)
	if err != nil {
		return nil, s.describe(fmt.Sprintf("votes of search %d", searchID), err)
	}
	votes, err := scanVotes(rows)
	if err != nil {
		return nil, s.describe(fmt.Sprintf("votes of search %d", searchID), err)
	}
	return votes, nil
}

// SearchTelemetry reads the owner's searches created in the filter's
// window and the votes on them, in one read-only snapshot. Evaluation
// searches (ragd.PurposeEval) are left out: they never count in a
// measurement.
func (s *Store) SearchTelemetry(ctx context.Context, f ragd.TelemetryFilter) (ragd.TelemetryWindow, error) {
	var w ragd.TelemetryWindow
	what := fmt.Sprintf("read search telemetry of %s from %s to %s (project %d)", s.owner,
		f.Since.UTC().Format(time.RFC3339Nano), f.Until.UTC().Format(time.RFC3339Nano), f.ProjectID)
	where := "s.purpose = 'search' AND s.owner = $1 AND s.created_at >= $2 AND s.created_at < $3 AND ($4::bigint = 0 OR s.project_id = $4)"
	args := []any{s.owner, f.Since, f.Until, f.ProjectID}
	tx, err := s.pool.BeginTx(ctx, readOnly)
	if err != nil {
		return w, s.describe(what, err)
	}
	defer tx.Rollback(ctx)
	rows, err := tx.Query(ctx, `SELECT s.id, coalesce(s.project_id, 0), s.query, s.weights, s.degraded, s.vector_available,
		s.latency_ms, jsonb_array_length(s.hits::jsonb), s.created_at FROM rag_searches s WHERE `+where+` ORDER BY s.created_at, s.id`, args...)
	if err != nil {
		return w, s.describe(what, err)
	}
	for rows.Next() {
		var r ragd.SearchSummary
		if err := rows.Scan(&r.ID, &r.ProjectID, &r.Query, &r.Weights, &r.Degraded, &r.VectorAvailable, &r.LatencyMs, &r.Hits, &r.CreatedAt); err != nil {
			rows.Close()
			return w, s.describe(what, err)
		}
		r.CreatedAt = r.CreatedAt.UTC()
		w.Searches = append(w.Searches, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return w, s.describe(what, err)
	}
	rows, err = tx.Query(ctx, "SELECT "+voteColumns+` FROM rag_feedback f JOIN rag_searches s ON s.id = f.search_id
		WHERE `+where+" ORDER BY f.search_id, f.rank, f.chunk_id", args...)
	if err != nil {
		return w, s.describe(what, err)
	}
	if w.Votes, err = scanVotes(rows); err != nil {
		return w, s.describe(what, err)
	}
	return w, nil
}
