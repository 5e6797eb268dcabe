package store

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"

	"github.com/ragd/ragd/migrations"

	"github.com/ragd/ragd"
)

// migration is one numbered SQL file of the migrations package, and the Go
// step that completes it, if any.
type migration struct {
	version int
	name    string
	sql     string
	// after runs in the migration's transaction, after its SQL.
	after func(ctx context.Context, tx *sql.Tx) error
}

// mainSteps are the Go steps of the main database's migrations, by
// version: work SQL cannot do, done in the same transaction so that a
// migration is applied whole or not at all.
var mainSteps = map[int]func(ctx context.Context, tx *sql.Tx) error{
	2: fillLexicalTables,
	3: createVocabTables,
	5: copyFloats,
}

// createVocabTables completes migration 3: the vocabulary table of every
// project's lexical table.
func createVocabTables(ctx context.Context, tx *sql.Tx) error {
	ids, err := projectIDs(ctx, tx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := createVocabTable(ctx, tx, id); err != nil {
			return err
		}
	}
	return nil
}

// projectIDs lists every project's id.
func projectIDs(ctx context.Context, tx *sql.Tx) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, "SELECT id FROM projects ORDER BY id")
	if err != nil {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("list projects: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	return ids, nil
}

// copyFloats completes migration 5: the floats of every stored vector, read
// from the vec0 table (absent in a database that never had a space).
func copyFloats(ctx context.Context, tx *sql.Tx) error {
	var held bool
	if err := tx.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'chunk_vectors')").Scan(&held); err != nil {
		return fmt.Errorf("look for the vector table: %w", err)
	}
	if !held {
		return nil
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO chunk_floats (seq, embedding) SELECT chunk_seq, embedding FROM chunk_vectors"); err != nil {
		return fmt.Errorf("copy the stored vectors' floats: %w", err)
	}
	return nil
}

// fillLexicalTables completes migration 2: a lexical table per project,
// filled from its chunks as analysed for the language recorded ('english'
// for every project with chunks).
func fillLexicalTables(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, "SELECT id, lexical_language FROM projects ORDER BY id")
	if err != nil {
		return fmt.Errorf("list projects: %w", err)
	}
	type project struct {
		id   int64
		lang string
	}
	var ps []project
	for rows.Next() {
		var p project
		if err := rows.Scan(&p.id, &p.lang); err != nil {
			rows.Close()
			return fmt.Errorf("list projects: %w", err)
		}
		ps = append(ps, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("list projects: %w", err)
	}
	for _, p := range ps {
		if p.lang == "" {
			if err := createLexicalTable(ctx, tx, p.id); err != nil {
				return err
			}
			continue
		}
		if _, err := rebuildLexical(ctx, tx, p.id, p.lang); err != nil {
			return err
		}
	}
	return nil
}

// loadMigrations reads and orders the embedded migration files
// (migrations.Load).
func loadMigrations(fsys fs.FS) ([]migration, error) {
	files, err := migrations.Load(fsys)
	if err != nil {
		return nil, err
	}
	ms := make([]migration, len(files))
	for i, f := range files {
		ms[i] = migration{version: f.Version, name: f.Name, sql: f.SQL}
	}
	return ms, nil
}

// migrate applies the pending migrations, each in its own transaction together
// with its record in schema_migrations, and refuses a database that a newer
// ragd has migrated.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := loadMigrations(migrations.Main)
	if err != nil {
		return err
	}
	for i := range ms {
		ms[i].after = mainSteps[ms[i].version]
	}
	if err := s.applyMigrations(ctx, s.db, s.path, ms); err != nil {
		return err
	}
	ts, err := loadMigrations(migrations.Telemetry)
	if err != nil {
		return err
	}
	return s.applyMigrations(ctx, s.tdb, s.telemetryPath, ts)
}

func (s *Store) applyMigrations(ctx context.Context, db *sql.DB, path string, ms []migration) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at TEXT NOT NULL
	) STRICT`); err != nil {
		return describeOpenError(path, err)
	}
	var current int
	if err := db.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&current); err != nil {
		return fmt.Errorf("read schema version of %s: %w", path, err)
	}
	if current > len(ms) {
		return fmt.Errorf("open store %s: %w: schema version %d, this binary knows up to %d: upgrade ragd, or use another database path", path, ragd.ErrSchemaTooNew, current, len(ms))
	}
	for _, m := range ms[current:] {
		if err := applyMigration(ctx, db, path, m); err != nil {
			return err
		}
		s.logger.Info("applied migration", "database", path, "version", m.version, "name", m.name)
	}
	return nil
}

func applyMigration(ctx context.Context, db *sql.DB, path string, m migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migration %s: begin: %w", m.name, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("migration %s on %s: %w", m.name, path, err)
	}
	if m.after != nil {
		if err := m.after(ctx, tx); err != nil {
			return fmt.Errorf("migration %s on %s: %w", m.name, path, err)
		}
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)", m.version, m.name, now()); err != nil {
		return fmt.Errorf("migration %s: record: %w", m.name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migration %s: commit: %w", m.name, err)
	}
	return nil
}

// SchemaVersion returns the highest applied migration.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.rdb.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}
