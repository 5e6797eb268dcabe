package postgres

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The PGlite server of this package's tests, started by TestMain until
// internal/pgtest serves it. PGlite is one PostgreSQL backend session
// shared by every connection: a connection's open transaction makes the
// others wait, and session state (prepared statements, SET) is common, so
// the URL asks pgx for unnamed statements (default_query_exec_mode=exec).
// Each test gets a schema of its own on it (testURL).

// serverConns is how many connections the test server accepts (its -m):
// past it, it closes a connection with "Too many connections". Every pool
// of a test fits: two stores of testConns each and a probe connection.
const serverConns = 16

// testConns is the pool size of a test's store.
const testConns = 4

// requiredEnv makes a missing node or PGlite a failure instead of a skip.
const requiredEnv = "RAGD_PG_TESTS"

var (
	serverURL  string // "" when no server could start
	skipReason string
	schemas    atomic.Int64
)

func TestMain(m *testing.M) {
	stop, err := startServer()
	if err != nil {
		if os.Getenv(requiredEnv) == "1" {
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

// startServer starts pglite-server from the worktree's .pgnode on a free
// port and waits until it answers a connection.
func startServer() (stop func(), err error) {
	bin, err := filepath.Abs("../../.pgnode/node_modules/.bin/pglite-server")
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("no PGlite (%v): npm install --prefix .pgnode @electric-sql/pglite@0.4.6 @electric-sql/pglite-socket@0.1.6", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		return nil, fmt.Errorf("no node: %w", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "-p", strconv.Itoa(port), "-e", "vector", "-m", strconv.Itoa(serverConns))
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start pglite-server: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop = func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	}
	url := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable&default_query_exec_mode=exec", port)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		c, err := pgx.Connect(ctx, url)
		if err == nil {
			// The extension in public, where every test schema's search
			// path finds it.
			_, err = c.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
			c.Close(ctx)
			if err != nil {
				stop()
				return nil, fmt.Errorf("create extension vector: %w", err)
			}
			serverURL = url
			return stop, nil
		}
		select {
		case err := <-exited:
			return nil, fmt.Errorf("pglite-server exited (%v): %s", err, out.String())
		case <-ctx.Done():
			stop()
			return nil, fmt.Errorf("pglite-server did not answer on port %d: %s", port, out.String())
		case <-tick.C:
		}
	}
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
