package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/ragd/ragd/engine"
	"github.com/ragd/ragd/internal/storetest"
	"github.com/ragd/ragd/store"
)

// The SQLite store implements the whole contract.
var _ engine.Store = (*store.Store)(nil)

// TestConformance runs the store conformance suite on the SQLite engine:
// each subtest gets a database in a temp dir of its own, and opening again
// with the same test reopens that database.
func TestConformance(t *testing.T) {
	storetest.Suite{}.OnDatabases(
		func(t *testing.T) string { return filepath.Join(t.TempDir(), "ragd.db") },
		func(path, space string, dims int) (engine.Store, error) {
			s, err := store.Open(context.Background(), path, store.Options{Space: space, Dims: dims})
			if err != nil {
				return nil, err // never a typed nil in the interface
			}
			return s, nil
		},
		func(t *testing.T, path string) {
			// go-sqlite3 registers "sqlite3"; the store's own driver adds
			// only a memory map.
			db, err := sql.Open("sqlite3", path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, '0999_future.sql', 'x')"); err != nil {
				t.Fatal(err)
			}
		},
	).Run(t)
}
