package daemon_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
)

// TestListen_OwnerOnly checks that only the daemon's user can reach its
// socket: the socket is 0600 in a 0700 directory, and, when the test runs
// as root, user nobody's connection is refused by each of the two on its
// own. Without root there is no other user to try as, and the test checks
// the modes only.
func TestListen_OwnerOnly(t *testing.T) {
	w := daemontest.NewWorld(t)
	d := daemontest.Start(t, w, daemontest.Config(ollamatest.ClosedURL(t)))
	p := w.Paths

	assertMode(t, p.Socket, os.ModeSocket|0o600)
	assertMode(t, p.RuntimeDir, os.ModeDir|0o700)
	assertMode(t, p.Lock, 0o600)
	if _, err := d.Client.Health(context.Background()); err != nil {
		daemontest.Fatal(t, "the owner connects", err)
	}
	if os.Getuid() != 0 {
		t.Logf("not root (uid %d): no other user to connect as; checked the modes only", os.Getuid())
		return
	}

	// The probe is this test binary, copied where nobody may run it.
	bin := filepath.Join(w.Dir, "probe")
	copyFile(t, os.Args[0], bin, 0o755)
	// Everything above ragd's own directory is open to others, so that its
	// modes are the only barrier.
	for _, dir := range []string{w.Dir, filepath.Dir(p.RuntimeDir)} {
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	asNobody := func() string {
		t.Helper()
		cmd := exec.Command("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", bin, "-test.run=^$")
		cmd.Env = append(os.Environ(), probeEnv+"="+p.Socket)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("probe as nobody: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	chmod := func(path string, mode os.FileMode) {
		t.Helper()
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}

	if got := asNobody(); got != probeDenied {
		t.Errorf("nobody connecting as ragd left it: %q, want %q", got, probeDenied)
	}
	// Each barrier holds alone: the socket's 0600 in an open directory...
	chmod(p.RuntimeDir, 0o755)
	if got := asNobody(); got != probeDenied {
		t.Errorf("nobody connecting to a 0600 socket in a 0755 directory: %q, want %q", got, probeDenied)
	}
	// ...and, as a check of the probe itself, nobody does connect to a
	// socket open to all.
	chmod(p.Socket, 0o666)
	if got := asNobody(); got != probeConnected {
		t.Errorf("nobody connecting to a 0666 socket: %q, want %q", got, probeConnected)
	}
	chmod(p.Socket, 0o600)
	// ...and the directory's 0700 around a socket open to all.
	chmod(p.RuntimeDir, 0o700)
	chmod(p.Socket, 0o666)
	if got := asNobody(); got != probeDenied {
		t.Errorf("nobody connecting to a 0666 socket in a 0700 directory: %q, want %q", got, probeDenied)
	}
	chmod(p.Socket, 0o600)
}

// TestListen_OpenRuntimeDirectoryRefused: a runtime directory others can
// write to is refused with the fix, and its mode left as it was: ragd
// changes the mode of no folder it did not create.
func TestListen_OpenRuntimeDirectoryRefused(t *testing.T) {
	for _, mode := range []os.FileMode{0o777, 0o770, os.ModeSticky | 0o777} {
		w := daemontest.NewWorld(t)
		if err := os.MkdirAll(w.Paths.RuntimeDir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(w.Paths.RuntimeDir, mode); err != nil {
			t.Fatal(err)
		}
		_, err := daemon.Open(context.Background(), daemon.Options{Config: daemontest.Config(ollamatest.ClosedURL(t)), Paths: w.Paths, Open: daemontest.OpenSQLite, Logger: daemontest.Logger()})
		if err == nil || !strings.Contains(err.Error(), w.Paths.RuntimeDir) || !strings.Contains(err.Error(), "others can write") ||
			!strings.Contains(err.Error(), "chmod go-w "+w.Paths.RuntimeDir) {
			t.Errorf("open in a %v runtime directory: %v, want a refusal saying how to fix it", mode, err)
		}
		assertMode(t, w.Paths.RuntimeDir, os.ModeDir|mode.Perm()) // assertMode leaves the sticky bit out
	}
}

// TestListen_ExistingSocketFolderKept: RAGD_SOCKET in an existing folder of
// the user's keeps that folder's mode; a folder ragd makes is 0700.
func TestListen_ExistingSocketFolderKept(t *testing.T) {
	w := daemontest.NewWorld(t)
	cfg := daemontest.Config(ollamatest.ClosedURL(t))
	existing := filepath.Join(w.Dir, "mine")
	if err := os.Mkdir(existing, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(existing, 0o755)
	cfg.Daemon.Socket = filepath.Join(existing, "ragd.sock")
	d := daemontest.Start(t, w, cfg)
	assertMode(t, existing, os.ModeDir|0o755)
	assertMode(t, cfg.Daemon.Socket, os.ModeSocket|0o600)
	d.Stop(t)

	made := filepath.Join(w.Dir, "made", "here")
	cfg.Daemon.Socket = filepath.Join(made, "ragd.sock")
	daemontest.Start(t, w, cfg)
	assertMode(t, made, os.ModeDir|0o700)
}

// TestListen_SharedDatabaseRefused: the lock sits beside the database, so a
// second daemon on another socket but the same database is refused, with
// the first one's pid and socket.
func TestListen_SharedDatabaseRefused(t *testing.T) {
	w := daemontest.NewWorld(t)
	cfg := daemontest.Config(ollamatest.ClosedURL(t))
	d := daemontest.Start(t, w, cfg)

	other := cfg
	other.Daemon.Socket = filepath.Join(w.Dir, "elsewhere", "ragd.sock")
	second, err := daemon.Open(context.Background(), daemon.Options{Config: other, Paths: w.Paths, Open: daemontest.OpenSQLite, Logger: daemontest.Logger()})
	if err == nil {
		second.Close(context.Background())
		t.Fatal("a second daemon opened the same database on another socket")
	}
	for _, want := range []string{"another ragd daemon is running", "pid " + strconv.Itoa(os.Getpid()), w.Paths.Socket, w.Paths.Database} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}
	if _, err := os.Lstat(other.Daemon.Socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused daemon left a socket at %s: %v", other.Daemon.Socket, err)
	}
	if _, err := d.Client.Health(context.Background()); err != nil {
		daemontest.Fatal(t, "first daemon after the refusal", err)
	}
}

func TestListen_SecondDaemonRefused(t *testing.T) {
	w := daemontest.NewWorld(t)
	cfg := daemontest.Config(ollamatest.ClosedURL(t))
	d := daemontest.Start(t, w, cfg)

	second, err := daemon.Open(context.Background(), daemon.Options{Config: cfg, Paths: w.Paths, Open: daemontest.OpenSQLite, Logger: daemontest.Logger()})
	if err == nil {
		second.Close(context.Background())
		t.Fatal("a second daemon opened beside a live one")
	}
	msg := err.Error()
	for _, want := range []string{"another ragd daemon is running", "pid " + strconv.Itoa(os.Getpid()), w.Paths.Socket, "stop it first"} {
		if !strings.Contains(msg, want) {
			t.Errorf("refusal %q does not say %q", msg, want)
		}
	}
	// The first daemon is untouched.
	if _, err := d.Client.Health(context.Background()); err != nil {
		daemontest.Fatal(t, "first daemon after the refusal", err)
	}
	assertMode(t, w.Paths.Socket, os.ModeSocket|0o600)
}

func TestListen_NotASocketLeftAlone(t *testing.T) {
	w := daemontest.NewWorld(t)
	cfg := daemontest.Config(ollamatest.ClosedURL(t))
	if err := os.MkdirAll(w.Paths.RuntimeDir, 0o700); err != nil {
		t.Fatal(err)
	}
	const content = "somebody's file"
	if err := os.WriteFile(w.Paths.Socket, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := daemon.Open(context.Background(), daemon.Options{Config: cfg, Paths: w.Paths, Open: daemontest.OpenSQLite, Logger: daemontest.Logger()})
	if err == nil || !strings.Contains(err.Error(), w.Paths.Socket) || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("open over a regular file: %v, want a refusal naming %s", err, w.Paths.Socket)
	}
	if b, err := os.ReadFile(w.Paths.Socket); err != nil || string(b) != content {
		t.Fatalf("the file at the socket path: %q, %v; want it untouched", b, err)
	}
	// The refusal released the lock: once the file is moved away, a daemon starts.
	if err := os.Rename(w.Paths.Socket, w.Paths.Socket+".moved"); err != nil {
		t.Fatal(err)
	}
	daemontest.Start(t, w, cfg)
}

func TestListen_SocketPathTooLong(t *testing.T) {
	w := daemontest.NewWorld(t)
	cfg := daemontest.Config(ollamatest.ClosedURL(t))
	cfg.Daemon.Socket = filepath.Join(w.Dir, strings.Repeat("s", 110)+".sock")
	_, err := daemon.Open(context.Background(), daemon.Options{Config: cfg, Paths: w.Paths, Open: daemontest.OpenSQLite, Logger: daemontest.Logger()})
	if err == nil || !strings.Contains(err.Error(), "the limit is 104") {
		t.Fatalf("open with a %d-byte socket path: %v", len(cfg.Daemon.Socket), err)
	}
}

// TestListen_StaleSocketReplaced kills a daemon (a child process) with
// SIGKILL, which leaves its socket file behind, and starts the next daemon
// over it.
func TestListen_StaleSocketReplaced(t *testing.T) {
	w := daemontest.NewWorld(t)
	paths, err := json.Marshal(w.Paths)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childDaemonEnv+"="+string(paths))
	stdin, err := cmd.StdinPipe() // closed when the test ends: the child then exits
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !awaitLine(t, stdout, readyLine) {
		cmd.Process.Kill()
		t.Fatalf("child daemon never ready: %v\n%s", cmd.Wait(), stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("child after SIGKILL: %v", err)
	}

	// The socket outlives its daemon; nobody answers on it.
	assertMode(t, w.Paths.Socket, os.ModeSocket|0o600)
	if c, err := net.Dial("unix", w.Paths.Socket); err == nil || !errors.Is(err, syscall.ECONNREFUSED) {
		if c != nil {
			c.Close()
		}
		t.Fatalf("dial the stale socket: %v, want connection refused", err)
	}

	d := daemontest.Start(t, w, daemontest.Config(ollamatest.ClosedURL(t)))
	h, err := d.Client.Health(context.Background())
	if err != nil {
		daemontest.Fatal(t, "the daemon after the stale socket", err)
	}
	if h.Socket != w.Paths.Socket {
		t.Errorf("health socket %s, want %s", h.Socket, w.Paths.Socket)
	}
	assertMode(t, w.Paths.Socket, os.ModeSocket|0o600)
	if b, err := os.ReadFile(w.Paths.Lock); err != nil || string(b) != strconv.Itoa(os.Getpid())+"\n"+w.Paths.Socket+"\n" {
		t.Errorf("lock file holds %q, %v; want this process's pid and socket", b, err)
	}

	// Closed, the daemon removes its socket.
	d.Stop(t)
	if _, err := os.Lstat(w.Paths.Socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket after Close: %v, want it removed", err)
	}
}

// awaitLine reads r until a line equal to want, and reports whether it came
// before r ended or daemontest.Timeout passed. The rest of r is drained in
// the background.
func awaitLine(tb testing.TB, r io.Reader, want string) bool {
	tb.Helper()
	found := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(r)
		ok := false
		for sc.Scan() {
			if !ok && sc.Text() == want {
				ok = true
				found <- true
			}
		}
		if !ok {
			found <- false
		}
	}()
	select {
	case ok := <-found:
		return ok
	case <-time.After(daemontest.Timeout):
		return false
	}
}

func assertMode(tb testing.TB, path string, want os.FileMode) {
	tb.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		tb.Fatal(err)
	}
	if got := fi.Mode() & (os.ModeType | os.ModePerm); got != want {
		tb.Errorf("%s: mode %v, want %v", path, got, want)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		tb.Errorf("%s: owner uid %d, want %d", path, st.Uid, os.Getuid())
	}
}

func copyFile(tb testing.TB, from, to string, mode os.FileMode) {
	tb.Helper()
	src, err := os.Open(from)
	if err != nil {
		tb.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		tb.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		tb.Fatal(err)
	}
}
