package daemon

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Paths are the files and folders the daemon uses. Every one follows the XDG
// base directories, so a test gives a daemon a private world by setting
// XDG_RUNTIME_DIR, XDG_STATE_HOME, XDG_DATA_HOME, XDG_CONFIG_HOME and
// XDG_CACHE_HOME.
type Paths struct {
	// Config is the configuration file: $XDG_CONFIG_HOME/ragd/config.toml.
	Config string
	// Database is the SQLite file, $XDG_DATA_HOME/ragd/ragd.db, or the URL
	// of another engine's database ([daemon] database, RAGD_DB).
	Database string
	// RuntimeDir holds the socket: $XDG_RUNTIME_DIR/ragd, else
	// $XDG_STATE_HOME/ragd/run. ragd creates it 0700; an existing one must
	// be writable by its owner alone.
	RuntimeDir string
	// Socket is the Unix socket the daemon listens on.
	Socket string
	// Lock is the file whose flock lets one daemon at a time use the
	// database: the database's path with ".lock" added, beside it whichever
	// socket the daemon listens on; for a database at a URL, which one
	// daemon per person shares, the socket's path with ".lock" added. Open
	// derives it from the database in force.
	Lock string
	// StateDir holds logs: $XDG_STATE_HOME/ragd.
	StateDir string
	// CacheDir holds disposable files (evaluation repositories):
	// $XDG_CACHE_HOME/ragd.
	CacheDir string
}

// DefaultPaths computes the paths from the environment.
func DefaultPaths() (Paths, error) {
	home, err := os.UserHomeDir()
	if err != nil && (os.Getenv("XDG_CONFIG_HOME") == "" || os.Getenv("XDG_DATA_HOME") == "" || os.Getenv("XDG_STATE_HOME") == "") {
		return Paths{}, fmt.Errorf("find home directory for ragd's files: %w", err)
	}
	xdg := func(env, fallback string) string {
		if v := os.Getenv(env); filepath.IsAbs(v) {
			return v
		}
		return filepath.Join(home, fallback)
	}
	state := filepath.Join(xdg("XDG_STATE_HOME", ".local/state"), "ragd")
	runtime := filepath.Join(state, "run")
	if v := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(v) {
		runtime = filepath.Join(v, "ragd")
	}
	p := Paths{
		Config:     filepath.Join(xdg("XDG_CONFIG_HOME", ".config"), "ragd", "config.toml"),
		Database:   filepath.Join(xdg("XDG_DATA_HOME", ".local/share"), "ragd", "ragd.db"),
		RuntimeDir: runtime,
		Socket:     filepath.Join(runtime, "ragd.sock"),
		Lock:       filepath.Join(xdg("XDG_DATA_HOME", ".local/share"), "ragd", "ragd.db.lock"),
		StateDir:   state,
		CacheDir:   filepath.Join(xdg("XDG_CACHE_HOME", ".cache"), "ragd"),
	}
	return p, nil
}

// socketDir makes sure dir may hold the socket. A folder ragd creates is
// made 0700. An existing folder keeps its mode, since ragd changes the mode
// of no folder it did not create (RAGD_SOCKET=/tmp/ragd.sock must not
// chmod /tmp), but it must be the user's and writable by no one else, who
// could otherwise replace the socket with their own.
func socketDir(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create %s: %w", dir, err)
		}
		// MkdirAll's mode went through the umask: set ours on the folder
		// made for the socket.
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("make %s private: %w", dir, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("stat %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to uid %d, not to you (uid %d): remove it or set XDG_RUNTIME_DIR", dir, st.Uid, os.Getuid())
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("%s is a folder others can write to (mode %04o), who could replace the socket: "+
			"make it yours alone with `chmod go-w %s`, or put the socket in a private folder (daemon.socket, RAGD_SOCKET)", dir, perm, dir)
	}
	return nil
}

// errLocked means another daemon holds the lock.
var errLocked = errors.New("another ragd daemon is running")

// lockFile takes an exclusive flock on path, writing our pid and socket
// into it, one a line, so that a daemon refused names the one running. The
// lock dies with the process, so a killed daemon never leaves a stale lock.
func lockFile(path, socket string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			pid, sock, _ := strings.Cut(string(holder), "\n")
			return nil, fmt.Errorf("%w (pid %s, lock %s): it listens on %s", errLocked, orUnknown(pid), path, orUnknown(strings.TrimSpace(sock)))
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"+socket+"\n"), 0)
	return f, nil
}

func orUnknown(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return "unknown"
	}
	return s
}
