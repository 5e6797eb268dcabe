package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ragd/ragd"
	"github.com/ragd/ragd/store/rules"
)

// Index runs carry the owner whose daemon ran them. The last run of the
// shared docs or adr scope is anybody's (the index is one); of the
// session scope, the owner's own.

// StartRun records the start of a reindex of scope, with status
// ragd.RunRunning.
func (s *Store) StartRun(ctx context.Context, projectID int64, scope string) (ragd.Run, error) {
	run, err := rules.NewRun(projectID, scope, nowUTC())
	if err != nil {
		return ragd.Run{}, err
	}
	err = s.pool.QueryRow(ctx, "INSERT INTO index_runs (project_id, scope, owner, status, started_at) VALUES ($1, $2, $3, $4, $5) RETURNING id",
		projectID, scope, s.owner, ragd.RunRunning, run.StartedAt).Scan(&run.ID)
	if err != nil {
		return ragd.Run{}, s.describe(fmt.Sprintf("start %s index run of project %d", scope, projectID), err)
	}
	return run, nil
}

// FinishRun records the end of a running run: status ragd.RunOK or
// ragd.RunFailed, the commit it read ("" for none) and its JSON report
// (nil for "{}"). It returns an error wrapping ragd.ErrNotFound when no
// running run has that id: a run is finished once.
func (s *Store) FinishRun(ctx context.Context, runID int64, status, commit string, report []byte) error {
	report, err := rules.CheckFinish(runID, status, report)
	if err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `UPDATE index_runs SET status = $1, source_commit = $2, finished_at = $3, report = $4
		WHERE id = $5 AND status = $6`, status, nullable(commit), nowUTC(), pgText(string(report)), runID, ragd.RunRunning)
	if err != nil {
		return s.describe(fmt.Sprintf("finish index run %d", runID), err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("finish index run %d: no such running run: %w", runID, ragd.ErrNotFound)
	}
	return nil
}

const runColumns = "id, project_id, scope, status, coalesce(source_commit, ''), started_at, finished_at, report"

func scanRun(r pgx.Row) (ragd.Run, error) {
	var run ragd.Run
	var finished *time.Time
	var report string
	if err := r.Scan(&run.ID, &run.ProjectID, &run.Scope, &run.Status, &run.Commit, &run.StartedAt, &finished, &report); err != nil {
		return run, err
	}
	run.StartedAt = run.StartedAt.UTC()
	if finished != nil {
		run.FinishedAt = finished.UTC()
	}
	run.Report = json.RawMessage(report)
	return run, nil
}

// LastRun returns the latest run of a project's scope with the given
// status, or of any status when status is "". It returns an error wrapping
// ragd.ErrNotFound when there is none.
func (s *Store) LastRun(ctx context.Context, projectID int64, scope, status string) (ragd.Run, error) {
	q := "SELECT " + runColumns + " FROM index_runs WHERE project_id = $1 AND scope = $2 AND (scope <> 'session' OR owner = $3)"
	args := []any{projectID, scope, s.owner}
	if status != "" {
		q += " AND status = $4"
		args = append(args, status)
	}
	run, err := scanRun(s.pool.QueryRow(ctx, q+" ORDER BY id DESC LIMIT 1", args...))
	if errNoRows(err) {
		return run, fmt.Errorf("last %s index run of project %d: %w", scope, projectID, ragd.ErrNotFound)
	}
	if err != nil {
		return run, s.describe(fmt.Sprintf("last %s index run of project %d", scope, projectID), err)
	}
	return run, nil
}

// Runs lists a project's latest runs (of the docs and ADRs by anyone, of
// the owner's sessions), newest first, at most limit of them (all when
// limit <= 0).
func (s *Store) Runs(ctx context.Context, projectID int64, limit int) ([]ragd.Run, error) {
	var lim any // NULL: no limit
	if limit > 0 {
		lim = limit
	}
	rows, err := s.pool.Query(ctx, "SELECT "+runColumns+` FROM index_runs WHERE project_id = $1 AND (scope <> 'session' OR owner = $2)
		ORDER BY id DESC LIMIT $3`, projectID, s.owner, lim)
	if err != nil {
		return nil, s.describe(fmt.Sprintf("list index runs of project %d", projectID), err)
	}
	defer rows.Close()
	var out []ragd.Run
	for rows.Next() {
		run, err := scanRun(rows)
		if err != nil {
			return nil, s.describe(fmt.Sprintf("list index runs of project %d", projectID), err)
		}
		out = append(out, run)
	}
	if err := rows.Err(); err != nil {
		return nil, s.describe(fmt.Sprintf("list index runs of project %d", projectID), err)
	}
	return out, nil
}

// abandonedError is the error an abandoned run's report gets.
const abandonedError = "interrupted: the process stopped before the run finished"

// AbandonRuns marks as failed the owner's runs still "running": their
// process died before finishing them, so they never will. The daemon
// calls it at start, holding its per-user lock; other owners' running
// runs belong to daemons that may be alive, and stay.
func (s *Store) AbandonRuns(ctx context.Context) (int, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE index_runs SET status = $1, finished_at = $2,
		report = (CASE WHEN report::jsonb IS NULL OR jsonb_typeof(report::jsonb) <> 'object' THEN '{}'::jsonb ELSE report::jsonb END
			|| jsonb_build_object('error', $3::text))::text
		WHERE status = $4 AND owner = $5`, ragd.RunFailed, nowUTC(), abandonedError, ragd.RunRunning, s.owner)
	if err != nil {
		return 0, s.describe("abandon interrupted index runs of "+s.owner, err)
	}
	return int(tag.RowsAffected()), nil
}
