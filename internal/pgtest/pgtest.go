// Package pgtest starts a PostgreSQL server with pgvector for tests: PGlite
// (PostgreSQL 17 compiled to WebAssembly, @electric-sql/pglite 0.4.6) served
// over the wire protocol by pglite-server (@electric-sql/pglite-socket
// 0.1.6), both installed by scripts/setup.sh (`npm ci` in tests/pglite) and
// run with the machine's node. Each server holds one in-memory database
// (memory://, the server's default): nothing is written to disk, and the
// database is gone when the server stops.
//
// Fresh gives a test an empty database on a server its package shares
// (started on first use), and Start a server of its own, stopped at
// t.Cleanup; StartServer and Server.Stop are the same for a TestMain. A
// server dies with the test binary even if it crashes (the parent-death
// signal). Without RAGD_PG_TESTS=1 a test skips when node or PGlite is
// missing; with it (scripts/test.sh sets it) that is a failure.
//
// Fresh, not Start, is the default because of what a server costs. Measured
// here (BenchmarkStart, BenchmarkReset; 2 cores shared with other test
// binaries, so the spread is wide):
//
//   - Startup: 3.6 to 8 s alone, 19 s a start under load, from exec to the
//     first answered query (node compiles PGlite's WebAssembly, unpacks a
//     fresh data directory into memory, loads pgvector); about 450 MB of
//     memory per server. A reset (Server.Reset: drop every schema, make an
//     empty public) takes 0.2 s. So a fresh database per test, on one server
//     per package: tests that use Fresh must not run in parallel.
//   - Connections: a server serves MaxConns connections (pglite-server's
//     -m, default 1; here DefaultMaxConns). One more is accepted by TCP and
//     closed at once (pgx: "connection reset by peer" or "unexpected EOF"
//     while connecting), not answered with a PostgreSQL error. A slot is
//     freed a moment after its connection closes (a reconnect at once was
//     refused once here), and after a connection's query was held behind
//     another's transaction, closing both freed only one of two slots: keep
//     connections open (a pool), with MaxConns well below the server's.
//   - Concurrency: the connections share ONE PostgreSQL backend session
//     (PGlite is single-user). Their queries go through one queue, one at a
//     time; while a connection has a transaction open, the others' queries
//     wait, unanswered, until it commits or rolls back: neither refused nor
//     interleaved (TestStart_Connections). So on PGlite a writer blocks
//     behind an open REPEATABLE READ snapshot on another connection, where
//     a real server lets it commit; a test that holds a snapshot and writes
//     from the same goroutine deadlocks.
//   - Session state is shared too: pgx's default mode prepares each query
//     under a name made from its SQL, so a second connection preparing the
//     same query fails ("prepared statement ... already exists", SQLSTATE
//     42P05), and pgx's describe-then-execute mode (two round trips a
//     query) let one connection's Bind reach the other's statement. The URL
//     Fresh and Start return asks for default_query_exec_mode=exec (one
//     round trip, no named statement), under which concurrent connections
//     got their own answers (TestStart_ConcurrentQueries). An engine must
//     not override that mode when the URL names it.
package pgtest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// RequiredEnv makes a missing node or PGlite a test failure instead of a
// skip when set to 1 (scripts/test.sh sets it in the unit tier).
const RequiredEnv = "RAGD_PG_TESTS"

// NodeDir is the folder, relative to the module's root, that holds the
// locked package.json of PGlite and pglite-server (scripts/setup.sh runs
// `npm ci` there).
const NodeDir = "tests/pglite"

// serverScript is pglite-server's entry point inside NodeDir (the package's
// "bin"), run with node so that a missing node is told apart from a missing
// package.
const serverScript = "node_modules/@electric-sql/pglite-socket/dist/scripts/server.js"

// DefaultMaxConns is the number of connections Start's server accepts: a
// pool of up to 4 (they are served one query at a time anyway) plus room
// for the two moments the server counts one too many: a closed connection
// it has not yet noticed, and the extra connection pgx opens to cancel a
// query whose context ended.
const DefaultMaxConns = 8

// execMode is the pgx query mode URL asks for: the extended protocol
// without named prepared statements, which the connections' one shared
// session would otherwise see collide (see the package comment).
const execMode = "exec"

// StartTimeout bounds a server's startup: generous, because two loaded cores
// are shared with other test binaries and PGlite unpacks its data directory
// on every start.
const StartTimeout = 90 * time.Second

// stopTimeout is how long a server may take to exit after SIGTERM before it
// is killed: it closes its sockets and its in-memory database, nothing more.
const stopTimeout = 10 * time.Second

// ErrUnavailable says node or PGlite is not installed.
var ErrUnavailable = errors.New("PGlite is not available")

// listening matches the line pglite-server prints once its socket listens,
// after its database is ready: PGLiteSocketServer listening on {"port":N,...}.
var listening = regexp.MustCompile(`PGLiteSocketServer listening on \{"port":(\d+)`)

// Options configure a server. The zero value is DefaultMaxConns connections
// with pgvector loaded.
type Options struct {
	// MaxConns is the number of connections served at once (-m).
	// Optional: DefaultMaxConns.
	MaxConns int
}

// Server is a running pglite-server.
type Server struct {
	// URL is a postgres:// URL of the server's one database, for pgx.
	URL string

	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{} // closed when the process has exited
	err  error         // its exit status, valid once done is closed
	once sync.Once
}

// Start starts a server of t's own, with an empty database, and returns its
// URL; the server stops when t ends. It skips t when node or PGlite is
// missing, unless RequiredEnv is 1, and fails t when the server does not
// start. A test that needs a server alone (its connections, its options)
// uses it; others use Fresh, which costs a reset, not a start.
func Start(t testing.TB) string {
	t.Helper()
	return StartOptions(t, Options{})
}

// StartOptions is Start with options.
func StartOptions(t testing.TB, opt Options) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	s, err := StartServer(ctx, opt)
	if err != nil {
		failStart(t, err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stop PGlite: %v", err)
		}
	})
	return s.URL
}

// shared is the server Fresh resets for each test of the package.
var shared struct {
	sync.Mutex
	s *Server
}

// Fresh returns the URL of an empty database for t on the package's shared
// server, starting it on first use (it lives until the test binary exits).
// It skips or fails t as Start does. Tests that use Fresh must not run in
// parallel with one another: they share one database, emptied by each.
func Fresh(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	shared.Lock()
	defer shared.Unlock()
	if shared.s == nil {
		s, err := StartServer(ctx, Options{})
		if err != nil {
			failStart(t, err)
		}
		shared.s = s
	}
	if err := shared.s.Reset(ctx); err != nil {
		t.Fatalf("%v: %s", err, shared.s.Output())
	}
	return shared.s.URL
}

// StopShared stops the server Fresh started, if any: for a TestMain that
// wants it stopped before the binary exits (it dies with the binary anyway).
func StopShared() error {
	shared.Lock()
	defer shared.Unlock()
	if shared.s == nil {
		return nil
	}
	err := shared.s.Stop()
	shared.s = nil
	return err
}

// failStart skips t when PGlite is unavailable and RequiredEnv is not 1,
// and fails it otherwise.
func failStart(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, ErrUnavailable) && os.Getenv(RequiredEnv) != "1" {
		t.Skipf("PostgreSQL tests skipped: %v (run scripts/setup.sh; %s=1 makes this a failure)", err, RequiredEnv)
	}
	if errors.Is(err, ErrUnavailable) {
		t.Fatalf("%v (%s=1 requires it: run scripts/setup.sh)", err, RequiredEnv)
	}
	t.Fatal(err)
}

// StartServer starts a server and waits until it answers a query. The
// caller stops it with Stop. It returns an error wrapping ErrUnavailable
// when node or PGlite is not installed.
func StartServer(ctx context.Context, opt Options) (*Server, error) {
	if opt.MaxConns <= 0 {
		opt.MaxConns = DefaultMaxConns
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("%w: no node in PATH: %v", ErrUnavailable, err)
	}
	dir, err := nodeDir()
	if err != nil {
		return nil, err
	}
	script := filepath.Join(dir, serverScript)
	if _, err := os.Stat(script); err != nil {
		return nil, fmt.Errorf("%w: pglite-server is not installed (`npm ci` in %s): %v", ErrUnavailable, dir, err)
	}
	// Port 0: the server listens on a port the kernel picks and prints it,
	// so no other process can take it between choosing and binding.
	cmd := exec.Command(node, script, "--port=0", "--extensions=vector", "--db=memory://",
		"--max-connections="+strconv.Itoa(opt.MaxConns))
	cmd.Dir = dir
	// Its own process group, so Stop reaches any child it started.
	// Pdeathsig: killed when this process dies, however it dies (a test
	// binary ended by -timeout runs no cleanup).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	pr, pw := io.Pipe()
	s := &Server{cmd: cmd, out: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout = io.MultiWriter(pw, s.out)
	cmd.Stderr = s.out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start pglite-server: %w", err)
	}
	go func() {
		s.err = cmd.Wait()
		pw.Close()
		close(s.done)
	}()
	port := make(chan int, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := listening.FindSubmatch(sc.Bytes()); m != nil {
				n, _ := strconv.Atoi(string(m[1]))
				port <- n
				break
			}
		}
		io.Copy(io.Discard, pr) // keep the pipe drained until the process exits
	}()
	var p int
	select {
	case p = <-port:
	case <-s.done:
		return nil, fmt.Errorf("pglite-server exited before listening (%v): %s", s.err, s.out.String())
	case <-ctx.Done():
		s.Stop()
		return nil, fmt.Errorf("pglite-server did not listen: %w: %s", ctx.Err(), s.out.String())
	}
	s.URL = fmt.Sprintf("postgres://postgres:postgres@127.0.0.1:%d/postgres?sslmode=disable&default_query_exec_mode=%s", p, execMode)
	if err := s.ready(ctx); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// ready connects and runs a query: the server listens only once its
// database is ready, so one round trip confirms it speaks PostgreSQL.
func (s *Server) ready(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, s.URL)
	if err != nil {
		return fmt.Errorf("connect to pglite-server at %s: %w: %s", s.URL, err, s.out.String())
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1", pgx.QueryExecModeSimpleProtocol).Scan(&one); err != nil {
		return fmt.Errorf("query pglite-server at %s: %w", s.URL, err)
	}
	return nil
}

// Stop stops the server and any child it started, and waits for it to
// exit: SIGTERM to its process group, SIGKILL after stopTimeout. Safe to
// call more than once.
func (s *Server) Stop() error {
	var err error
	s.once.Do(func() {
		pgid := s.cmd.Process.Pid
		select {
		case <-s.done:
			return
		default:
		}
		syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(stopTimeout):
			syscall.Kill(-pgid, syscall.SIGKILL)
			<-s.done
			err = fmt.Errorf("pglite-server (pid %d) did not exit within %v of SIGTERM: killed", pgid, stopTimeout)
		}
	})
	return err
}

// Reset empties the database: it drops every schema but PostgreSQL's own
// (and with them the extensions and tables they hold) and makes an empty
// public schema, so tests of a package can share one server one after
// another (never in parallel: they would share one database).
func (s *Server) Reset(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, s.URL)
	if err != nil {
		return fmt.Errorf("reset PGlite at %s: %w", s.URL, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	rows, err := conn.Query(ctx, `SELECT nspname FROM pg_namespace
		WHERE nspname NOT LIKE 'pg\_%' AND nspname <> 'information_schema'`)
	if err != nil {
		return fmt.Errorf("reset PGlite: list schemas: %w", err)
	}
	schemas, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("reset PGlite: list schemas: %w", err)
	}
	for _, name := range schemas {
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
			return fmt.Errorf("reset PGlite: drop schema %s: %w", name, err)
		}
	}
	if _, err := conn.Exec(ctx, "CREATE SCHEMA public"); err != nil {
		return fmt.Errorf("reset PGlite: create schema public: %w", err)
	}
	return nil
}

// Output is what the server printed so far, for a failing test's message.
func (s *Server) Output() string { return s.out.String() }

// nodeDir finds NodeDir above the working directory (a test runs in its
// package's folder, somewhere below the module's root).
func nodeDir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find %s: %w", NodeDir, err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, NodeDir), nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("%w: no go.mod above %s to find %s in", ErrUnavailable, wd, NodeDir)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the process's writers and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
