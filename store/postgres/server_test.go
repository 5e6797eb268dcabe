package postgres

import (
	"context"
	"os"
	"testing"

	"github.com/ragd/ragd/internal/pgtest"
)

// The tests of this package run on a real PostgreSQL server with pgvector
// (internal/pgtest), one for the test binary, each test in a database of
// its own (testURL), created empty and dropped at its end.

// testConns is the pool size of a test's store.
const testConns = 4

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}

// testURL returns the admin URL of a new, empty database on the test
// server (skipping the test when there is none, unless RAGD_PG_TESTS=1).
func testURL(t testing.TB) string {
	t.Helper()
	return pgtest.Fresh(t)
}

// openTest opens a store on a new database, closed at cleanup.
func openTest(t testing.TB, opt Options) (*Store, string) {
	t.Helper()
	url := testURL(t)
	return openAt(t, url, opt), url
}

func openAt(t testing.TB, url string, opt Options) *Store {
	t.Helper()
	if opt.Space == "" {
		opt.Space, opt.Dims = "test/4", 4
	}
	if opt.MaxConns == 0 {
		opt.MaxConns = testConns
	}
	if opt.Owner == "" {
		opt.Owner = "alice"
	}
	s, err := Open(context.Background(), url, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
