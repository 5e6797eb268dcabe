package postgres

import (
	"context"
	"sync"
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
// gets a schema of its own on the package's PGlite, and opening again with
// the same test reopens that schema. PGlite makes a write wait while a
// snapshot is open (one backend session for every connection), which the
// suite is told.
func TestConformance(t *testing.T) {
	var mu sync.Mutex
	urls := map[*testing.T]string{}
	urlOf := func(t *testing.T) string {
		mu.Lock()
		defer mu.Unlock()
		url, ok := urls[t]
		if !ok {
			url = testURL(t)
			urls[t] = url
		}
		return url
	}
	openSpace := func(t *testing.T, space string, dims int) (engine.Store, error) {
		s, err := Open(context.Background(), urlOf(t), Options{Space: space, Dims: dims, MaxConns: testConns, Owner: "alice"})
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { s.Close() })
		return s, nil
	}
	storetest.Suite{
		WritesWaitForSnapshots: true,
		Open: func(t *testing.T) engine.Store {
			s, err := openSpace(t, "conformance/8", 8)
			if err != nil {
				t.Fatalf("open %s: %v", urlOf(t), err)
			}
			return s
		},
		OpenSpace: openSpace,
		SchemaAhead: func(t *testing.T) {
			c, err := pgx.Connect(context.Background(), urlOf(t))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(context.Background())
			if _, err := c.Exec(context.Background(), "INSERT INTO schema_version (version, name) VALUES (999, '0999_future.sql')"); err != nil {
				t.Fatal(err)
			}
		},
	}.Run(t)
}
