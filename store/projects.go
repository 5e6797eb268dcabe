package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"
	"github.com/ragd/ragd"
	"github.com/ragd/ragd/store/rules"
)

// AddProject registers a repository under a short name, with an empty
// lexical index and its language to be detected at the first index.
func (s *Store) AddProject(ctx context.Context, name, path string) (ragd.Project, error) {
	defer s.projects.forget()
	p := ragd.Project{Name: name, Path: path, CreatedAt: time.Now().UTC()}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return p, fmt.Errorf("add project %s: %w", name, err)
	}
	defer tx.Rollback()
	r, err := tx.ExecContext(ctx, "INSERT INTO projects (name, path, created_at) VALUES (?, ?, ?)", name, path, formatTime(p.CreatedAt))
	if err != nil {
		var se sqlite3.Error
		if errors.As(err, &se) && se.ExtendedCode == sqlite3.ErrConstraintUnique {
			return p, fmt.Errorf("add project %s (%s): %w", name, path, ragd.ErrExists)
		}
		return p, fmt.Errorf("add project %s (%s): %w", name, path, err)
	}
	if p.ID, err = r.LastInsertId(); err != nil {
		return p, fmt.Errorf("add project %s: %w", name, err)
	}
	if err := createLexicalTable(ctx, tx, p.ID); err != nil {
		return p, fmt.Errorf("add project %s: %w", name, err)
	}
	if err := tx.Commit(); err != nil {
		return p, fmt.Errorf("add project %s: %w", name, err)
	}
	return p, nil
}

const projectColumns = "id, name, path, auto_reindex, created_at, language, lexical_language, layout"

func scanProject(r rules.Scanner) (ragd.Project, error) {
	var created string
	p, err := rules.ScanProject(r, &created)
	if err != nil {
		return p, err
	}
	p.CreatedAt = parseTime(created)
	return p, nil
}

// SetLayout replaces a project's settings for where its docs are; the
// next reindex reads by them.
func (s *Store) SetLayout(ctx context.Context, projectID int64, l ragd.Layout) error {
	defer s.projects.forget()
	text, err := rules.EncodeLayout(projectID, l)
	if err != nil {
		return err
	}
	r, err := s.db.ExecContext(ctx, "UPDATE projects SET layout = ? WHERE id = ?", text, projectID)
	if err != nil {
		return fmt.Errorf("set layout of project %d: %w", projectID, err)
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return fmt.Errorf("set layout of project %d: %w", projectID, ragd.ErrNotFound)
	}
	return nil
}

// Projects lists the registered projects by name.
func (s *Store) Projects(ctx context.Context) ([]ragd.Project, error) {
	rows, err := s.rdb.QueryContext(ctx, "SELECT "+projectColumns+" FROM projects ORDER BY name")
	if err != nil {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	defer rows.Close()
	out, err := rules.Collect(rows, scanProject)
	if err != nil {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	return out, nil
}

// ragd.Project finds a project by name or by path. It returns ragd.ErrNotFound when
// neither matches.
func (s *Store) Project(ctx context.Context, nameOrPath string) (ragd.Project, error) {
	p, ok, gen := s.projects.get(nameOrPath)
	if ok {
		return p, nil
	}
	p, err := scanProject(s.rdb.QueryRowContext(ctx, "SELECT "+projectColumns+" FROM projects WHERE name = ? OR path = ? ORDER BY name = ? DESC LIMIT 1", nameOrPath, nameOrPath, nameOrPath))
	if errors.Is(err, sql.ErrNoRows) {
		return p, fmt.Errorf("project %q: %w", nameOrPath, ragd.ErrNotFound)
	}
	if err != nil {
		return p, fmt.Errorf("project %q: %w", nameOrPath, err)
	}
	s.projects.put(nameOrPath, p, gen)
	return p, nil
}

// SetAutoReindex turns a project's automatic reindex on or off.
func (s *Store) SetAutoReindex(ctx context.Context, projectID int64, on bool) error {
	defer s.projects.forget()
	r, err := s.db.ExecContext(ctx, "UPDATE projects SET auto_reindex = ? WHERE id = ?", on, projectID)
	if err != nil {
		return fmt.Errorf("set auto-reindex of project %d: %w", projectID, err)
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return fmt.Errorf("set auto-reindex of project %d: %w", projectID, ragd.ErrNotFound)
	}
	return nil
}

// RemoveProject deletes a project and everything indexed for it: chunks,
// vectors, its lexical table, sessions, runs and its telemetry, whose rows
// it counts.
func (s *Store) RemoveProject(ctx context.Context, projectID int64) (ragd.RemovedTelemetry, error) {
	var gone ragd.RemovedTelemetry
	defer s.projects.forget()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return gone, fmt.Errorf("remove project %d: %w", projectID, err)
	}
	defer tx.Rollback()
	// vec0 rows have no foreign key: remove them by hand.
	if _, err := tx.ExecContext(ctx, "DELETE FROM chunk_vectors WHERE chunk_seq IN (SELECT seq FROM chunks WHERE project_id = ?)", projectID); err != nil {
		return gone, fmt.Errorf("remove project %d: vectors: %w", projectID, err)
	}
	r, err := tx.ExecContext(ctx, "DELETE FROM projects WHERE id = ?", projectID)
	if err != nil {
		return gone, fmt.Errorf("remove project %d: %w", projectID, err)
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return gone, fmt.Errorf("remove project %d: %w", projectID, ragd.ErrNotFound)
	}
	if err := dropLexicalTable(ctx, tx, projectID); err != nil {
		return gone, fmt.Errorf("remove project %d: %w", projectID, err)
	}
	if err := s.commitVectors(tx, []codeOp{{project: projectID, dropProject: true}}); err != nil {
		return gone, fmt.Errorf("remove project %d: %w", projectID, err)
	}
	// Its telemetry, in the other file; votes follow by cascade, so they are
	// counted first, in the same transaction.
	if gone, err = s.removeTelemetry(ctx, projectID); err != nil {
		return gone, fmt.Errorf("remove telemetry of project %d: %w", projectID, err)
	}
	return gone, nil
}

func (s *Store) removeTelemetry(ctx context.Context, projectID int64) (ragd.RemovedTelemetry, error) {
	var gone ragd.RemovedTelemetry
	tx, err := s.tdb.BeginTx(ctx, nil)
	if err != nil {
		return gone, err
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM rag_feedback WHERE search_id IN (SELECT id FROM rag_searches WHERE project_id = ?)", projectID).Scan(&gone.Votes); err != nil {
		return gone, err
	}
	r, err := tx.ExecContext(ctx, "DELETE FROM rag_searches WHERE project_id = ?", projectID)
	if err != nil {
		return gone, err
	}
	n, err := r.RowsAffected()
	if err != nil {
		return gone, err
	}
	gone.Searches = int(n)
	return gone, tx.Commit()
}
