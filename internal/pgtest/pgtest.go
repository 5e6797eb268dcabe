// Package pgtest starts PostgreSQL servers with pgvector for tests: a real
// server (PostgreSQL 18.3, pgvector 0.8.2), the programs scripts/postgres.sh
// installs in the module's .build/postgres (scripts/setup.sh runs it), or
// those of the folder BinEnv names. Each server is a data directory of its
// own in the temporary folder, made by initdb and removed when the server
// stops, on a port the kernel picked, reached over TCP on the loopback with
// a password (scram-sha-256), so that roles are real: a role connects with
// its own password or not at all.
//
// Fresh gives a test an empty database of its own (CREATE DATABASE, dropped
// at t.Cleanup) on a server its test binary shares (started on first use);
// tests that use Fresh may run in parallel. Start gives a test a server of
// its own, stopped at t.Cleanup (a test that stops or kills the server);
// StartServer and Server.Stop are the same for a TestMain. A server dies
// with the test binary even if it crashes (the parent-death signal), and
// the next server started on the machine removes the folder it left.
// Without RAGD_PG_TESTS=1 a test skips when the server is not installed;
// with it (scripts/test.sh sets it) that is a failure.
//
// PostgreSQL refuses to run as root. Run as root (a container), the server
// runs in a user namespace of its own where it is uid 1; outside it is
// still root, so it reads and writes the folders root does.
//
// Costs measured here (BenchmarkStart, BenchmarkFresh, 3 runs each; 2
// cores at a load average of 17 to 21 from other engineers' builds): a
// server starts and stops in 1.9 s (initdb most of it), a fresh database
// takes 0.09 to 0.11 s.
//
// The server runs with fsync and full_page_writes off: a test's data need
// not survive a crash of the machine, and a test that kills the server
// still sees what a crash does to the engine (a commit is acknowledged once
// its write-ahead log is written to the kernel, so it survives a killed
// server; synchronous_commit stays on for that).
//
// PGlite (pglite.go) stays for what only it shows: connections that share
// one session.
package pgtest

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ragd/ragd/internal/syncbuf"
)

// RequiredEnv makes a missing server a test failure instead of a skip when
// set to 1 (scripts/test.sh sets it in the unit tier).
const RequiredEnv = "RAGD_PG_TESTS"

// BinEnv names a folder holding PostgreSQL's initdb and postgres, with
// pgvector installed, instead of the module's binDir.
const BinEnv = "RAGD_PG_BIN"

// binDir is where scripts/postgres.sh installs the server's programs,
// relative to the module's root (the wheel's layout: its libraries are
// found relative to the programs).
const binDir = ".build/postgres/pgserver/pginstall/bin"

// AdminUser is the superuser of a test server.
const AdminUser = "postgres"

// DefaultMaxConns is a test server's max_connections: room for a test
// binary's parallel tests, each with a pool or two (the engine's default
// pool is 8) and its own connections.
const DefaultMaxConns = 200

// StartTimeout bounds a server's startup: generous, because two loaded cores
// are shared with other test binaries.
const StartTimeout = 90 * time.Second

// stopTimeout is how long a server may take to stop after SIGINT (fast
// shutdown: connections are ended, open transactions rolled back) before it
// is killed.
const stopTimeout = 30 * time.Second

// bindAttempts is how many ports StartServer tries: the kernel's free port
// is closed before the server binds it, and another process may take it in
// between.
const bindAttempts = 3

// dirPrefix starts the name of a server's folder in the temporary folder,
// followed by the test binary's process id.
const dirPrefix = "ragd-pgtest-"

// ErrUnavailable says the server (or node and PGlite) is not installed.
var ErrUnavailable = errors.New("PostgreSQL for the tests is not available")

// ready is the line the server logs once it accepts connections.
const readyLine = "database system is ready to accept connections"

// Options configure a server. The zero value is DefaultMaxConns connections.
type Options struct {
	// MaxConns is the server's max_connections. Optional: DefaultMaxConns.
	MaxConns int
	// Settings are more server settings (name → value, as postgres -c).
	// Optional.
	Settings map[string]string
}

// Server is a running PostgreSQL server.
type Server struct {
	// URL is the admin role's URL of the server's database postgres.
	URL string
	// Port is the server's TCP port on 127.0.0.1.
	Port int
	// Password is the admin role's password.
	Password string

	dir  string // the server's folder: data, password file
	opt  Options
	bin  string
	cmd  *exec.Cmd
	out  *syncbuf.Buffer
	done chan struct{} // closed when the process has exited
	err  error         // its exit status, valid once done is closed
	once sync.Once
	dbs  atomic.Int64
}

// Start starts a server of t's own and returns its admin URL; the server
// stops when t ends. It skips t when the server is not installed, unless
// RequiredEnv is 1, and fails t when it does not start.
func Start(t testing.TB) string {
	t.Helper()
	return StartOptions(t, Options{}).URL
}

// StartOptions is Start with options, returning the server.
func StartOptions(t testing.TB, opt Options) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	s, err := StartServer(ctx, opt)
	if err != nil {
		failStart(t, err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stop PostgreSQL: %v", err)
		}
	})
	return s
}

// shared is the server Fresh makes databases on.
var shared struct {
	sync.Mutex
	s *Server
}

// Shared returns the test binary's shared server, starting it on first use
// (it lives until the binary exits, or StopShared). It skips or fails t as
// Start does.
func Shared(t testing.TB) *Server {
	t.Helper()
	shared.Lock()
	defer shared.Unlock()
	if shared.s == nil {
		ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
		defer cancel()
		s, err := StartServer(ctx, Options{})
		if err != nil {
			failStart(t, err)
		}
		shared.s = s
	}
	return shared.s
}

// Fresh returns the admin URL of a new, empty database for t on the shared
// server; the database is dropped when t ends. It skips or fails t as Start
// does.
func Fresh(t testing.TB) string {
	t.Helper()
	return Shared(t).Fresh(t)
}

// StopShared stops the server Fresh started, if any: for a TestMain that
// wants it stopped (and its folder removed) before the binary exits.
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

// Fresh returns the admin URL of a new, empty database on s, dropped when t
// ends (with the connections still open to it).
func (s *Server) Fresh(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	name := fmt.Sprintf("t%d", s.dbs.Add(1))
	if err := s.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		select {
		case <-s.done:
			return // stopped: its folder is gone with the database
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
		defer cancel()
		if err := s.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop the test's database: %v", err)
		}
	})
	return DatabaseURL(s.URL, name)
}

// Exec runs statements as the admin role in the database postgres.
func (s *Server) Exec(ctx context.Context, sql string, args ...any) error {
	c, err := pgx.Connect(ctx, s.URL)
	if err != nil {
		return fmt.Errorf("connect to the test server: %w", err)
	}
	defer c.Close(context.WithoutCancel(ctx))
	if _, err := c.Exec(ctx, sql, args...); err != nil {
		return fmt.Errorf("%s: %w", sql, err)
	}
	return nil
}

// DatabaseURL returns raw with its database replaced by name.
func DatabaseURL(raw, name string) string {
	u, err := url.Parse(raw)
	if err != nil {
		panic(fmt.Sprintf("pgtest: parse %q: %v", raw, err))
	}
	u.Path = "/" + name
	return u.String()
}

// RoleURL returns raw with its user and password replaced: how a team
// member's daemon reaches the same database.
func RoleURL(raw, role, password string) string {
	u, err := url.Parse(raw)
	if err != nil {
		panic(fmt.Sprintf("pgtest: parse %q: %v", raw, err))
	}
	u.User = url.UserPassword(role, password)
	return u.String()
}

// failStart skips t when the server is unavailable and RequiredEnv is not
// 1, and fails it otherwise.
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

// Bin returns the folder of the server's programs: BinEnv's, or the one
// scripts/postgres.sh installs. The error wraps ErrUnavailable when it
// holds no postgres.
func Bin() (string, error) {
	dir := os.Getenv(BinEnv)
	if dir == "" {
		root, err := moduleRoot()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(root, binDir)
	}
	if _, err := os.Stat(filepath.Join(dir, "postgres")); err != nil {
		return "", fmt.Errorf("%w: no PostgreSQL server in %s (`bash scripts/postgres.sh install`, or %s): %v",
			ErrUnavailable, dir, BinEnv, err)
	}
	return dir, nil
}

// StartServer starts a server and waits until it answers a query. The
// caller stops it with Stop. It returns an error wrapping ErrUnavailable
// when the server is not installed.
func StartServer(ctx context.Context, opt Options) (*Server, error) {
	if opt.MaxConns <= 0 {
		opt.MaxConns = DefaultMaxConns
	}
	bin, err := Bin()
	if err != nil {
		return nil, err
	}
	removeAbandoned()
	dir, err := os.MkdirTemp("", dirPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return nil, fmt.Errorf("start PostgreSQL: %w", err)
	}
	s := &Server{dir: dir, bin: bin, Password: randomPassword()}
	if err := s.initdb(ctx); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		err = s.start(ctx, opt, 0)
		if err == nil {
			return s, nil
		}
		if attempt == bindAttempts || !strings.Contains(err.Error(), "could not bind") {
			os.RemoveAll(dir)
			return nil, err
		}
	}
}

// initdb makes the server's data directory, its admin role's password
// from a file.
func (s *Server) initdb(ctx context.Context) error {
	pwfile := filepath.Join(s.dir, "password")
	if err := os.WriteFile(pwfile, []byte(s.Password+"\n"), 0o600); err != nil {
		return fmt.Errorf("start PostgreSQL: %w", err)
	}
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, "initdb"), "-D", filepath.Join(s.dir, "data"),
		"-U", AdminUser, "-E", "UTF8", "--locale=C", "--no-sync",
		"--auth-host=scram-sha-256", "--auth-local=trust", "--pwfile="+pwfile)
	cmd.SysProcAttr = serverAttr()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb in %s: %w: %s", s.dir, err, out)
	}
	return nil
}

// start runs postgres on port (0: a free one) and waits for its ready line
// and a first answered query.
func (s *Server) start(ctx context.Context, opt Options, port int) error {
	s.opt = opt
	if port == 0 {
		p, err := freePort()
		if err != nil {
			return err
		}
		port = p
	}
	args := []string{"-D", filepath.Join(s.dir, "data"), "-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=",
		"-c", "max_connections=" + strconv.Itoa(opt.MaxConns),
		"-c", "fsync=off", "-c", "full_page_writes=off"}
	for k, v := range opt.Settings {
		args = append(args, "-c", k+"="+v)
	}
	cmd := exec.Command(filepath.Join(s.bin, "postgres"), args...)
	cmd.SysProcAttr = serverAttr()
	pr, pw := io.Pipe()
	s.out = &syncbuf.Buffer{}
	s.done = make(chan struct{})
	s.once = sync.Once{}
	cmd.Stdout = s.out
	cmd.Stderr = io.MultiWriter(pw, s.out)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	s.cmd = cmd
	done := s.done
	go func() {
		s.err = cmd.Wait()
		pw.Close()
		close(done)
	}()
	ready := make(chan struct{}, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), readyLine) {
				ready <- struct{}{}
				break
			}
		}
		io.Copy(io.Discard, pr) // keep the pipe drained until the process exits
	}()
	select {
	case <-ready:
	case <-done:
		return fmt.Errorf("postgres exited before it was ready (%v): %s", s.err, s.out.String())
	case <-ctx.Done():
		s.Stop()
		return fmt.Errorf("postgres was not ready: %w: %s", ctx.Err(), s.out.String())
	}
	s.Port = port
	s.URL = fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/postgres?sslmode=disable", AdminUser, s.Password, port)
	var one int
	c, err := pgx.Connect(ctx, s.URL)
	if err == nil {
		err = c.QueryRow(ctx, "SELECT 1").Scan(&one)
		c.Close(context.WithoutCancel(ctx))
	}
	if err != nil {
		s.Stop()
		return fmt.Errorf("query the test server at port %d: %w: %s", port, err, s.out.String())
	}
	return nil
}

// Stop stops the server (fast shutdown: SIGINT; SIGKILL after stopTimeout)
// and removes its folder. Safe to call more than once.
func (s *Server) Stop() error {
	err := s.signal(syscall.SIGINT)
	os.RemoveAll(s.dir)
	return err
}

// Kill kills the server's postmaster at once (SIGKILL), as a crash would:
// its backends notice and exit, and the data directory stays for Restart,
// which recovers from the write-ahead log.
func (s *Server) Kill() error { return s.signal(syscall.SIGKILL) }

// Restart starts the stopped or killed server again on the same port and
// data directory (after a kill, the server recovers from its write-ahead
// log before it is ready).
func (s *Server) Restart(ctx context.Context) error {
	select {
	case <-s.done:
	default:
		return errors.New("restart PostgreSQL: it is still running")
	}
	return s.start(ctx, s.opt, s.Port)
}

// signal sends sig to the postmaster, waits for it to exit (SIGKILL after
// stopTimeout) and reports a kill.
func (s *Server) signal(sig syscall.Signal) error {
	if s.cmd == nil {
		return nil
	}
	var err error
	s.once.Do(func() {
		select {
		case <-s.done:
			return
		default:
		}
		s.cmd.Process.Signal(sig)
		select {
		case <-s.done:
		case <-time.After(stopTimeout):
			s.cmd.Process.Kill()
			<-s.done
			err = fmt.Errorf("postgres (pid %d) did not stop within %v of %v: killed", s.cmd.Process.Pid, stopTimeout, sig)
		}
	})
	return err
}

// Output is what the server logged so far, for a failing test's message.
func (s *Server) Output() string { return s.out.String() }

// freePort returns a port on the loopback the kernel had free.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// serverAttr is how initdb and postgres run: in a process group of their
// own, killed when this process dies, and as uid 1 of a user namespace of
// their own when this process is root (PostgreSQL refuses root).
func serverAttr() *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if os.Geteuid() == 0 {
		attr.Cloneflags = syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 1, HostID: 0, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 1, HostID: 0, Size: 1}}
	}
	return attr
}

// removeAbandoned removes the folders of servers whose test binary is gone
// (killed: it ran no cleanup).
func removeAbandoned() {
	matches, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, dir := range matches {
		rest := strings.TrimPrefix(filepath.Base(dir), dirPrefix)
		pid, err := strconv.Atoi(strings.SplitN(rest, "-", 2)[0])
		if err != nil || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			os.RemoveAll(dir)
		}
	}
}

// randomPassword is a test server's admin password.
func randomPassword() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// moduleRoot finds the folder of go.mod above the working directory (a test
// runs in its package's folder, somewhere below the module's root).
func moduleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find the module's root: %w", err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("%w: no go.mod above %s", ErrUnavailable, wd)
		}
	}
}
