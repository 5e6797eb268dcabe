package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
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
	var mu sync.Mutex
	paths := map[*testing.T]string{}
	path := func(t *testing.T) string {
		mu.Lock()
		defer mu.Unlock()
		p, ok := paths[t]
		if !ok {
			p = filepath.Join(t.TempDir(), "ragd.db")
			paths[t] = p
		}
		return p
	}
	openSpace := func(t *testing.T, space string, dims int) (engine.Store, error) {
		s, err := store.Open(context.Background(), path(t), store.Options{Space: space, Dims: dims})
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { s.Close() })
		return s, nil
	}
	storetest.Suite{
		Open: func(t *testing.T) engine.Store {
			s, err := openSpace(t, "conformance/8", 8)
			if err != nil {
				t.Fatalf("open %s: %v", path(t), err)
			}
			return s
		},
		OpenSpace: openSpace,
		SchemaAhead: func(t *testing.T) {
			// go-sqlite3 registers "sqlite3"; the store's own driver adds
			// only a memory map.
			db, err := sql.Open("sqlite3", path(t))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, '0999_future.sql', 'x')"); err != nil {
				t.Fatal(err)
			}
		},
	}.Run(t)
}
