package postgres

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ragd/ragd/engine"
	"github.com/ragd/ragd/internal/storetest"
)

// The PostgreSQL engine is an engine the daemon runs on: every method
// engine.Store names, and the doctor's checks.
var (
	_ engine.Store   = (*Store)(nil)
	_ engine.Checker = (*Store)(nil)
)

// TestConformance runs the store conformance suite, the one the SQLite
// engine passes (store/conformance_test.go), on this engine: each subtest
// gets a database of its own on the package's PostgreSQL server, and
// opening again with the same test reopens that database.
func TestConformance(t *testing.T) {
	storetest.Suite{}.OnDatabases(
		func(t *testing.T) string { return testURL(t) },
		func(url, space string, dims int) (engine.Store, error) {
			s, err := Open(context.Background(), url, Options{Space: space, Dims: dims, MaxConns: testConns, Owner: "alice"})
			if err != nil {
				return nil, err // never a typed nil in the interface
			}
			return s, nil
		},
		func(t *testing.T, url string) {
			c, err := pgx.Connect(context.Background(), url)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(context.Background())
			if _, err := c.Exec(context.Background(), "INSERT INTO schema_version (version, name) VALUES (999, '0999_future.sql')"); err != nil {
				t.Fatal(err)
			}
		},
	).Run(t)
}
