// PGlite (PostgreSQL 17 compiled to WebAssembly, @electric-sql/pglite
// 0.4.6) served over the wire protocol by pglite-server
// (@electric-sql/pglite-socket 0.1.6), both installed by scripts/setup.sh
// (`npm ci` in tests/pglite) and run with the machine's node: the engine's
// test server before a real one (pgtest.go). It stays for what only it
// shows: a server whose connections share one session, as PGlite's do and
// a pooler's in transaction mode (PgBouncer) can, where pgx's cached
// prepared statements collide (SQLSTATE 42P05) and the engine must choose
// another exec mode (store/postgres). Each server holds one in-memory
// database (memory://): nothing is written to disk.
//
// What was measured of it (BenchmarkPGliteStart; 2 loaded cores):
//
//   - Startup: 3.6 to 8 s from exec to the first answered query on a quiet
//     machine, 18 to 27 s at a load average of 8 to 11; about 450 MB of
//     memory per server.
//   - Connections: a server serves MaxConns connections (pglite-server's
//     -m). One more is accepted by TCP and closed at once, not answered
//     with a PostgreSQL error.
//   - Concurrency: the connections share ONE PostgreSQL backend session
//     (PGlite is single-user). Their queries go through one queue, one at a
//     time; while a connection has a transaction open, the others' queries
//     wait until it commits or rolls back.
//   - Session state is shared too: pgx's default mode prepares each query
//     under a name made from its SQL, so a second connection preparing the
//     same query fails ("prepared statement ... already exists", SQLSTATE
//     42P05; TestPGlite_CachedStatementsCollide). The URL StartPGlite
//     returns asks for default_query_exec_mode=exec (one round trip, no
//     named statement), under which concurrent connections got their own
//     answers (TestPGlite_ConcurrentQueries).

package pgtest

import (
	"bufio"
	"context"
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

	"github.com/ragd/ragd/internal/syncbuf"
)

// NodeDir is the folder, relative to the module's root, that holds the
// locked package.json of PGlite and pglite-server (scripts/setup.sh runs
// `npm ci` there).
const NodeDir = "tests/pglite"

// serverScript is pglite-server's entry point inside NodeDir (the package's
// "bin"), run with node so that a missing node is told apart from a missing
// package.
const serverScript = "node_modules/@electric-sql/pglite-socket/dist/scripts/server.js"

// PGliteMaxConns is the number of connections Start's server accepts: a
// pool of up to 4 (they are served one query at a time anyway) plus room
// for the two moments the server counts one too many: a closed connection
// it has not yet noticed, and the extra connection pgx opens to cancel a
// query whose context ended.
const PGliteMaxConns = 8

// execMode is the pgx query mode URL asks for: the extended protocol
// without named prepared statements, which the connections' one shared
// session would otherwise see collide (see the package comment).
const execMode = "exec"

// pgliteStopTimeout is how long a PGlite server may take to exit after SIGTERM before it
// is killed: it closes its sockets and its in-memory database, nothing more.
const pgliteStopTimeout = 10 * time.Second

// listening matches the line pglite-server prints once its socket listens,
// after its database is ready: PGLiteSocketServer listening on {"port":N,...}.
var listening = regexp.MustCompile(`PGLiteSocketServer listening on \{"port":(\d+)`)

// PGliteOptions configure a PGlite server. The zero value is PGliteMaxConns
// connections with pgvector loaded.
type PGliteOptions struct {
	// MaxConns is the number of connections served at once (-m).
	// Optional: PGliteMaxConns.
	MaxConns int
}

// PGlite is a running pglite-server.
type PGlite struct {
	// URL is a postgres:// URL of the server's one database, for pgx.
	URL string

	cmd  *exec.Cmd
	out  *syncbuf.Buffer
	done chan struct{} // closed when the process has exited
	err  error         // its exit status, valid once done is closed
	once sync.Once
}

// StartPGlite starts a PGlite server of t's own, with an empty database,
// and returns its URL (in pgx's exec mode); the server stops when t ends.
// It skips t when node or PGlite is missing, unless RequiredEnv is 1, and
// fails t when the server does not start.
func StartPGlite(t testing.TB) string {
	t.Helper()
	return StartPGliteOptions(t, PGliteOptions{})
}

// StartPGliteOptions is StartPGlite with options.
func StartPGliteOptions(t testing.TB, opt PGliteOptions) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	s, err := StartPGliteServer(ctx, opt)
	if err != nil {
		failStart(t, fmt.Errorf("PGlite: %w", err))
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stop PGlite: %v", err)
		}
	})
	return s.URL
}

// StartPGliteServer starts a PGlite server and waits until it answers a
// query. The caller stops it with Stop. It returns an error wrapping ErrUnavailable
// when node or PGlite is not installed.
func StartPGliteServer(ctx context.Context, opt PGliteOptions) (*PGlite, error) {
	if opt.MaxConns <= 0 {
		opt.MaxConns = PGliteMaxConns
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
	s := &PGlite{cmd: cmd, out: &syncbuf.Buffer{}, done: make(chan struct{})}
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
func (s *PGlite) ready(ctx context.Context) error {
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
func (s *PGlite) Stop() error {
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
		case <-time.After(pgliteStopTimeout):
			syscall.Kill(-pgid, syscall.SIGKILL)
			<-s.done
			err = fmt.Errorf("pglite-server (pid %d) did not exit within %v of SIGTERM: killed", pgid, pgliteStopTimeout)
		}
	})
	return err
}

// Output is what the server printed so far, for a failing test's message.
func (s *PGlite) Output() string { return s.out.String() }

// nodeDir finds NodeDir in the module's root.
func nodeDir() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", fmt.Errorf("find %s: %w", NodeDir, err)
	}
	return filepath.Join(root, NodeDir), nil
}
