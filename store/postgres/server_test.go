package postgres

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ragd/ragd/internal/pgtest"
)

// The PGlite server of this package's tests (internal/pgtest), started by
// TestMain. PGlite is one PostgreSQL backend session shared by every
// connection: a connection's open transaction makes the others wait, and
// session state (prepared statements, SET) is common, so pgtest's URL asks
// pgx for unnamed statements (default_query_exec_mode=exec). Each test
// gets a schema of its own on it (testURL).

// serverConns is how many connections the test server accepts (its -m):
// past it, it closes a connection with "Too many connections". Every pool
// of a test fits: two stores of testConns each and a probe connection.
const serverConns = 16

// testConns is the pool size of a test's store.
const testConns = 4

var (
	serverURL  string // "" when no server could start
	skipReason string
	schemas    atomic.Int64
)

func TestMain(m *testing.M) {
	stop, err := startServer()
	if err != nil {
		if os.Getenv(pgtest.RequiredEnv) == "1" {
			fmt.Fprintln(os.Stderr, "store/postgres tests:", err)
			os.Exit(1)
		}
		skipReason = err.Error()
	}
	code := m.Run()
	if stop != nil {
		stop()
	}
	os.Exit(code)
}

// startServer starts the package's PGlite and creates the vector extension
// in public, where every test schema's search path finds it.
func startServer() (stop func(), err error) {
	ctx, cancel := context.WithTimeout(context.Background(), pgtest.StartTimeout)
	defer cancel()
	srv, err := pgtest.StartServer(ctx, pgtest.Options{MaxConns: serverConns})
	if err != nil {
		return nil, err
	}
	stop = func() { srv.Stop() }
	c, err := pgx.Connect(ctx, srv.URL)
	if err != nil {
		stop()
		return nil, fmt.Errorf("connect to PGlite: %w", err)
	}
	_, err = c.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
	c.Close(ctx)
	if err != nil {
		stop()
		return nil, fmt.Errorf("create extension vector: %w", err)
	}
	serverURL = srv.URL
	return stop, nil
}

// testURL returns the URL of a new, empty schema on the test server, or
// skips the test when there is no server.
func testURL(t testing.TB) string {
	t.Helper()
	if serverURL == "" {
		t.Skip("no PostgreSQL for the tests: " + skipReason)
	}
	name := fmt.Sprintf("t%d", schemas.Add(1))
	ctx := context.Background()
	c, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		t.Fatal(err)
	}
	// PGlite ignores the startup parameters of a connection (the URL's
	// search_path, for a real server) and shares one session between all:
	// set it there, for this test's connections, which run after the last
	// test's.
	if _, err := c.Exec(ctx, "SET search_path TO "+name+", public"); err != nil {
		t.Fatal(err)
	}
	return serverURL + "&search_path=" + name + ",public"
}

// openTest opens a store on a new schema, closed at cleanup.
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
