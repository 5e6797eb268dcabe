package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/ragd/ragd"
	"github.com/ragd/ragd/store/rules"
)

// Projects are keyed by name: whoever adds a name joins the one project of
// that name (its docs and ADRs are indexed once, for everybody), with a
// path of their own. A project's Path and AutoReindex are the store's
// owner's; a project the owner never added is listed with an empty Path,
// searchable but not theirs to reindex.

// querier is what a pool and a transaction have in common.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// AddProject registers the owner's checkout at path under a short name:
// a new project, or the owner joining the project of that name. It returns
// ragd.ErrExists when the owner already has that name or that path.
func (s *Store) AddProject(ctx context.Context, name, path string) (ragd.Project, error) {
	p := ragd.Project{Name: name, Path: path}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return p, s.describe(fmt.Sprintf("add project %s (%s): begin", name, path), err)
	}
	defer tx.Rollback(ctx)
	created := nowUTC()
	if _, err := tx.Exec(ctx, "INSERT INTO projects (name, created_at) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", name, created); err != nil {
		return p, s.describe(fmt.Sprintf("add project %s (%s)", name, path), err)
	}
	if err := tx.QueryRow(ctx, "SELECT id FROM projects WHERE name = $1", name).Scan(&p.ID); err != nil {
		return p, s.describe(fmt.Sprintf("add project %s (%s)", name, path), err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO project_paths (project_id, owner, path, created_at) VALUES ($1, $2, $3, $4)",
		p.ID, s.owner, path, created); err != nil {
		if isUniqueViolation(err) {
			return p, fmt.Errorf("add project %s (%s) for %s: %w", name, path, s.owner, ragd.ErrExists)
		}
		return p, s.describe(fmt.Sprintf("add project %s (%s)", name, path), err)
	}
	if p, err = s.projectByID(ctx, tx, p.ID); err != nil {
		return p, err
	}
	if err := tx.Commit(ctx); err != nil {
		return p, s.describe(fmt.Sprintf("add project %s (%s): commit", name, path), err)
	}
	return p, nil
}

// projectSelect reads projects with the owner's path ($1 is the owner).
const projectSelect = `SELECT p.id, p.name, coalesce(pp.path, ''), coalesce(pp.auto_reindex, false), p.created_at,
	p.language, p.lexical_language, p.layout
	FROM projects p LEFT JOIN project_paths pp ON pp.project_id = p.id AND pp.owner = $1`

func scanProject(r rules.Scanner) (ragd.Project, error) {
	var created time.Time
	p, err := rules.ScanProject(r, &created)
	if err != nil {
		return p, err
	}
	p.CreatedAt = created.UTC()
	return p, nil
}

// projectByID reads one project, ragd.ErrNotFound when there is none.
func (s *Store) projectByID(ctx context.Context, q querier, projectID int64) (ragd.Project, error) {
	p, err := scanProject(q.QueryRow(ctx, projectSelect+" WHERE p.id = $2", s.owner, projectID))
	if errors.Is(err, pgx.ErrNoRows) {
		return p, fmt.Errorf("project %d: %w", projectID, ragd.ErrNotFound)
	}
	if err != nil {
		return p, s.describe(fmt.Sprintf("read project %d", projectID), err)
	}
	return p, nil
}

// Projects lists every project of the database by name, each with the
// owner's path ("" for a project the owner has not added).
func (s *Store) Projects(ctx context.Context) ([]ragd.Project, error) {
	rows, err := s.pool.Query(ctx, projectSelect+" ORDER BY p.name", s.owner)
	if err != nil {
		return nil, s.describe("list projects", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ragd.Project, error) { return scanProject(r) })
	if err != nil {
		return nil, s.describe("list projects", err)
	}
	return out, nil
}

// Project finds a project by name, or by the owner's path. It returns
// ragd.ErrNotFound when neither matches.
func (s *Store) Project(ctx context.Context, nameOrPath string) (ragd.Project, error) {
	p, err := scanProject(s.pool.QueryRow(ctx, projectSelect+" WHERE p.name = $2 OR pp.path = $2 ORDER BY p.name = $2 DESC LIMIT 1",
		s.owner, nameOrPath))
	if errors.Is(err, pgx.ErrNoRows) {
		return p, fmt.Errorf("project %q: %w", nameOrPath, ragd.ErrNotFound)
	}
	if err != nil {
		return p, s.describe(fmt.Sprintf("project %q", nameOrPath), err)
	}
	return p, nil
}

// SetAutoReindex turns the owner's automatic reindex of a project on or
// off. It returns ragd.ErrNotFound when the owner has not added the
// project.
func (s *Store) SetAutoReindex(ctx context.Context, projectID int64, on bool) error {
	tag, err := s.pool.Exec(ctx, "UPDATE project_paths SET auto_reindex = $1 WHERE project_id = $2 AND owner = $3", on, projectID, s.owner)
	if err != nil {
		return s.describe(fmt.Sprintf("set auto-reindex of project %d", projectID), err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("set auto-reindex of project %d for %s: %w", projectID, s.owner, ragd.ErrNotFound)
	}
	return nil
}

// SetLayout replaces a project's settings for where its docs are (the
// shared project's: every owner's next reindex reads by them).
func (s *Store) SetLayout(ctx context.Context, projectID int64, l ragd.Layout) error {
	text, err := rules.EncodeLayout(projectID, l)
	if err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, "UPDATE projects SET layout = $1 WHERE id = $2", text, projectID)
	if err != nil {
		return s.describe(fmt.Sprintf("set layout of project %d", projectID), err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("set layout of project %d: %w", projectID, ragd.ErrNotFound)
	}
	return nil
}

// RemoveProject removes the owner from a project: their path, their
// sessions with their events and chunks, their transcript checkpoints and
// forgotten sessions, their runs, and their searches with the votes on
// them, which it counts. The last owner to leave removes the project and
// everything indexed for it (its docs and ADRs, and whatever is left).
// One transaction: a failure removes nothing.
func (s *Store) RemoveProject(ctx context.Context, projectID int64) (ragd.RemovedTelemetry, error) {
	var gone ragd.RemovedTelemetry
	what := fmt.Sprintf("remove project %d for %s", projectID, s.owner)
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return gone, s.describe(what+": begin", err)
	}
	defer tx.Rollback(ctx)
	// The project's row first: a concurrent reindex holds it shared.
	var exists bool
	if err := tx.QueryRow(ctx, "SELECT true FROM projects WHERE id = $1 FOR UPDATE", projectID).Scan(&exists); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return gone, fmt.Errorf("%s: %w", what, ragd.ErrNotFound)
		}
		return gone, s.describe(what, err)
	}
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM rag_feedback f JOIN rag_searches r ON r.id = f.search_id
		WHERE r.project_id = $1 AND r.owner = $2`, projectID, s.owner).Scan(&gone.Votes); err != nil {
		return gone, s.describe(what+": count votes", err)
	}
	tag, err := tx.Exec(ctx, "DELETE FROM rag_searches WHERE project_id = $1 AND owner = $2", projectID, s.owner)
	if err != nil {
		return gone, s.describe(what+": searches", err)
	}
	gone.Searches = int(tag.RowsAffected())
	for _, q := range []string{
		"DELETE FROM project_paths WHERE project_id = $1 AND owner = $2",
		"DELETE FROM chunks WHERE project_id = $1 AND scope = 'session' AND owner = $2",
		"DELETE FROM sessions WHERE project_id = $1 AND owner = $2",
		"DELETE FROM transcript_files WHERE project_id = $1 AND owner = $2",
		"DELETE FROM forgotten_sessions WHERE project_id = $1 AND owner = $2",
		"DELETE FROM index_runs WHERE project_id = $1 AND owner = $2",
	} {
		if _, err := tx.Exec(ctx, q, projectID, s.owner); err != nil {
			return gone, s.describe(what+": "+q, err)
		}
	}
	var others bool
	if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM project_paths WHERE project_id = $1)", projectID).Scan(&others); err != nil {
		return gone, s.describe(what, err)
	}
	if !others {
		// The last owner: the project goes, with whatever cascades, and
		// the searches of it by owners who never added it.
		if _, err := tx.Exec(ctx, "DELETE FROM rag_searches WHERE project_id = $1", projectID); err != nil {
			return gone, s.describe(what+": searches", err)
		}
		if _, err := tx.Exec(ctx, "DELETE FROM projects WHERE id = $1", projectID); err != nil {
			return gone, s.describe(what, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return gone, s.describe(what+": commit", err)
	}
	return gone, nil
}
