package daemon

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockDatabase takes the lock beside the database, so that one daemon at
// a time uses it whichever socket each listens on. The database's folder is
// made (0700) when missing, and left as it is otherwise.
//
// The lock, not the socket, decides who runs: a socket file can outlive its
// daemon (SIGKILL), a flock cannot.
func lockDatabase(lock, database, socket string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(lock), 0o700); err != nil {
		return nil, fmt.Errorf("database folder: %w", err)
	}
	lf, err := lockFile(lock, socket)
	if errors.Is(err, errLocked) {
		return nil, fmt.Errorf("%w on database %s; stop it first (ragd service stop, or kill that pid), or set daemon.database (RAGD_DB) to another one", err, database)
	}
	return lf, err
}

// listen clears a stale socket left by a killed daemon, and listens on the
// socket with mode 0600 in a folder only its user may write to (socketDir).
func listen(socket string) (net.Listener, error) {
	if len(socket) > 104 {
		// sun_path is 108 bytes on Linux, 104 on the BSDs.
		return nil, fmt.Errorf("socket path %s is %d bytes, the limit is 104: set daemon.socket or XDG_RUNTIME_DIR to a shorter path", socket, len(socket))
	}
	if err := socketDir(filepath.Dir(socket)); err != nil {
		return nil, fmt.Errorf("socket directory: %w", err)
	}
	if err := clearStaleSocket(socket); err != nil {
		return nil, err
	}
	// The directory is private already; the umask closes the window between
	// bind and chmod on the socket itself.
	old := syscall.Umask(0o177)
	ln, err := net.Listen("unix", socket)
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", socket, err)
	}
	if err := os.Chmod(socket, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("chmod socket %s: %w", socket, err)
	}
	return ln, nil
}

// clearStaleSocket removes a socket file that no daemon answers on. Anything
// that is not a socket is left alone: ragd never deletes a file it did not
// make.
func clearStaleSocket(socket string) error {
	fi, err := os.Lstat(socket)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check socket %s: %w", socket, err)
	}
	if fi.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("%s exists and is not a socket: move it away or set daemon.socket", socket)
	}
	if c, err := net.DialTimeout("unix", socket, time.Second); err == nil {
		c.Close()
		return fmt.Errorf("another daemon answers on %s, with another database: stop it first, or set daemon.socket (RAGD_SOCKET) to another path", socket)
	}
	if err := os.Remove(socket); err != nil {
		return fmt.Errorf("remove stale socket %s: %w", socket, err)
	}
	return nil
}

func uniq(xs ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
