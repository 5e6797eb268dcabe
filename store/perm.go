package store

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
)

// privateMode is the mode of every file the store writes: the databases
// hold indexed text and past queries, for their owner only.
const privateMode fs.FileMode = 0o600

// othersBits are the permission bits of the group and of other users.
const othersBits fs.FileMode = 0o077

// sideFiles are the suffixes of the files SQLite keeps beside a database.
var sideFiles = []string{"-wal", "-shm", "-journal"}

// makePrivate creates the database at path 0600 if it does not exist yet,
// before SQLite would (0644 less the umask); SQLite gives the WAL and
// shared-memory files it creates the database's mode, so they follow. Files
// an older ragd left open to others are closed to them. A file that cannot
// be changed (owned by another user) is logged, not an error: SQLite says
// whether it can use it.
func makePrivate(path string, log *slog.Logger) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, privateMode)
	switch {
	case err == nil:
		if err := f.Close(); err != nil {
			return fmt.Errorf("open store %s: create: %w", path, err)
		}
		return nil
	case !errors.Is(err, fs.ErrExist):
		return fmt.Errorf("open store %s: create: %w", path, err)
	}
	for _, p := range append([]string{path}, sidePaths(path)...) {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm()&othersBits == 0 {
			continue
		}
		if err := os.Chmod(p, fi.Mode().Perm()&^othersBits); err != nil {
			log.Warn("database file is open to other users and cannot be made private", "path", p, "mode", fmt.Sprintf("%#o", fi.Mode().Perm()), "err", err)
		}
	}
	return nil
}

func sidePaths(path string) []string {
	out := make([]string, len(sideFiles))
	for i, s := range sideFiles {
		out[i] = path + s
	}
	return out
}

// PermissionWarnings says, for `ragd doctor`, what of the database at path
// other users can reach: its folder when the group or others may read or
// write it, and each database file (the main and telemetry databases and
// their WAL, shared-memory and journal files) they may read or write. It
// returns nil when everything is private, or when nothing exists yet.
func PermissionWarnings(path string) []string {
	var out []string
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&othersBits != 0 {
		perm := fi.Mode().Perm()
		can := "read"
		if perm&0o022 != 0 {
			can = "read and write"
		}
		out = append(out, fmt.Sprintf("database folder %s is %#o: others can %s it, and it holds indexed text and past queries: chmod 700 %s", dir, perm, can, dir))
	}
	for _, db := range []string{path, TelemetryPath(path)} {
		for _, p := range append([]string{db}, sidePaths(db)...) {
			fi, err := os.Stat(p)
			if err != nil || fi.Mode().Perm()&othersBits == 0 {
				continue
			}
			perm := fi.Mode().Perm()
			what := "writable"
			if perm&0o044 != 0 {
				what = "readable"
			}
			out = append(out, fmt.Sprintf("%s is %s by others (%#o): chmod 600 %s", p, what, perm, p))
		}
	}
	return out
}
