package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/store/rules"
)

// StartRun records the start of a reindex of scope, with status ragd.RunRunning.
func (s *Store) StartRun(ctx context.Context, projectID int64, scope string) (ragd.Run, error) {
	stamp := now()
	run, err := rules.NewRun(projectID, scope, parseTime(stamp))
	if err != nil {
		return ragd.Run{}, err
	}
	r, err := s.db.ExecContext(ctx, "INSERT INTO index_runs (project_id, scope, status, started_at) VALUES (?, ?, ?, ?)",
		projectID, scope, ragd.RunRunning, stamp)
	if err != nil {
		return ragd.Run{}, fmt.Errorf("start %s index run of project %d: %w", scope, projectID, err)
	}
	if run.ID, err = r.LastInsertId(); err != nil {
		return ragd.Run{}, fmt.Errorf("start %s index run of project %d: %w", scope, projectID, err)
	}
	return run, nil
}

// FinishRun records the end of a running run: status ragd.RunOK or ragd.RunFailed, the
// commit it read ("" for none) and its JSON report (nil for "{}"). It returns
// an error wrapping ragd.ErrNotFound when no running run has that id: a run is
// finished once.
func (s *Store) FinishRun(ctx context.Context, runID int64, status, commit string, report []byte) error {
	report, err := rules.CheckFinish(runID, status, report)
	if err != nil {
		return err
	}
	r, err := s.db.ExecContext(ctx, `UPDATE index_runs SET status = ?, source_commit = ?, finished_at = ?, report = ?
		WHERE id = ? AND status = ?`, status, nullable(commit), now(), string(report), runID, ragd.RunRunning)
	if err != nil {
		return fmt.Errorf("finish index run %d: %w", runID, err)
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return fmt.Errorf("finish index run %d: no such running run: %w", runID, ragd.ErrNotFound)
	}
	return nil
}

const runColumns = "id, project_id, scope, status, coalesce(source_commit, ''), started_at, coalesce(finished_at, ''), report"

func scanRun(r scanner) (ragd.Run, error) {
	var run ragd.Run
	var started, finished, report string
	if err := r.Scan(&run.ID, &run.ProjectID, &run.Scope, &run.Status, &run.Commit, &started, &finished, &report); err != nil {
		return run, err
	}
	run.StartedAt = parseTime(started)
	if finished != "" {
		run.FinishedAt = parseTime(finished)
	}
	run.Report = json.RawMessage(report)
	return run, nil
}

// LastRun returns the latest run of a project's scope with the given status,
// or of any status when status is "". It returns an error wrapping
// ragd.ErrNotFound when there is none.
func (s *Store) LastRun(ctx context.Context, projectID int64, scope, status string) (ragd.Run, error) {
	q := "SELECT " + runColumns + " FROM index_runs WHERE project_id = ? AND scope = ?"
	args := []any{projectID, scope}
	if status != "" {
		q += " AND status = ?"
		args = append(args, status)
	}
	run, err := scanRun(s.rdb.QueryRowContext(ctx, q+" ORDER BY id DESC LIMIT 1", args...))
	if errors.Is(err, sql.ErrNoRows) {
		return run, fmt.Errorf("last %s index run of project %d: %w", scope, projectID, ragd.ErrNotFound)
	}
	if err != nil {
		return run, fmt.Errorf("last %s index run of project %d: %w", scope, projectID, err)
	}
	return run, nil
}

// Runs lists a project's latest runs, newest first, at most limit of them
// (all when limit <= 0).
func (s *Store) Runs(ctx context.Context, projectID int64, limit int) ([]ragd.Run, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := s.rdb.QueryContext(ctx, "SELECT "+runColumns+" FROM index_runs WHERE project_id = ? ORDER BY id DESC LIMIT ?", projectID, limit)
	if err != nil {
		return nil, fmt.Errorf("list index runs of project %d: %w", projectID, err)
	}
	defer rows.Close()
	var out []ragd.Run
	for rows.Next() {
		run, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("list index runs of project %d: %w", projectID, err)
		}
		out = append(out, run)
	}
	return out, rows.Err()
}

// AbandonRuns marks as failed the runs still "running": their process died
// (killed, crashed) before finishing them, so they never will. The daemon
// calls it at start, while it holds the per-user lock.
func (s *Store) AbandonRuns(ctx context.Context) (int, error) {
	r, err := s.db.ExecContext(ctx, `UPDATE index_runs SET status = ?, finished_at = ?,
		report = json_set(report, '$.error', 'interrupted: the process stopped before the run finished')
		WHERE status = ?`, ragd.RunFailed, now(), ragd.RunRunning)
	if err != nil {
		return 0, fmt.Errorf("abandon interrupted index runs: %w", err)
	}
	n, _ := r.RowsAffected()
	return int(n), nil
}
