package store

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// withUmask runs the test under the common default umask, so that what
// Open creates is not private only because the environment's umask is
// strict. The umask is the process's: these tests are not parallel.
func withUmask(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
}

// ragdFiles lists the files of an open store: both databases and their WAL
// and shared-memory files.
func ragdFiles(path string) []string {
	var out []string
	for _, db := range []string{path, TelemetryPath(path)} {
		out = append(out, db, db+"-wal", db+"-shm")
	}
	return out
}

// TestOpen_FilesArePrivate checks that every file of the store is 0600
// (issue 11 #9: they were 0644, and another user read indexed text and past
// queries), whether Open creates it or finds it from an older ragd.
func TestOpen_FilesArePrivate(t *testing.T) {
	withUmask(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, path string)
	}{
		{"new", func(*testing.T, string) {}},
		{"left open to others by an older ragd", func(t *testing.T, path string) {
			s, err := Open(ctx, path, Options{Space: "test/4", Dims: 4})
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			for _, p := range ragdFiles(path) {
				if err := os.Chmod(p, 0o644); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ragd.db")
			tc.setup(t, path)
			s, err := Open(ctx, path, Options{Space: "test/4", Dims: 4})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			// A write and a read on each database, so that SQLite has made
			// its WAL and shared-memory files.
			if _, err := s.AddProject(ctx, "p", "/repos/p"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Projects(ctx); err != nil {
				t.Fatal(err)
			}
			if err := s.IntegrityCheck(ctx); err != nil {
				t.Fatal(err)
			}
			for _, p := range ragdFiles(path) {
				fi, err := os.Stat(p)
				if err != nil {
					t.Fatalf("%s: %v", filepath.Base(p), err)
				}
				if perm := fi.Mode().Perm(); perm != 0o600 {
					t.Errorf("%s is %#o, want 0600", filepath.Base(p), perm)
				}
			}
		})
	}
}

func TestPermissionWarnings(t *testing.T) {
	withUmask(t)
	for _, tc := range []struct {
		name    string
		dirMode fs.FileMode
		dbMode  fs.FileMode
		want    [][]string // per warning, what it must say
	}{
		{"private", 0o700, 0o600, nil},
		{"folder others can read", 0o755, 0o600, [][]string{{"others can read it", "chmod 700"}}},
		{"folder others can write", 0o777, 0o600, [][]string{{"others can read and write it", "chmod 700"}}},
		{"folder the group can read", 0o750, 0o600, [][]string{{"others can read it", "chmod 700"}}},
		{"database others can read", 0o700, 0o644, [][]string{{"ragd.db is readable by others", "chmod 600"}}},
		{"both", 0o755, 0o604, [][]string{{"others can read it"}, {"ragd.db is readable by others"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "db")
			path := filepath.Join(dir, "ragd.db")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tc.dbMode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, tc.dirMode); err != nil {
				t.Fatal(err)
			}
			got := PermissionWarnings(path)
			if len(got) != len(tc.want) {
				t.Fatalf("warnings %q, want %d", got, len(tc.want))
			}
			for i, want := range tc.want {
				for _, w := range append(want, dir) {
					if !strings.Contains(got[i], w) {
						t.Errorf("warning %q: want %q", got[i], w)
					}
				}
			}
		})
	}
	if got := PermissionWarnings(filepath.Join(t.TempDir(), "missing", "ragd.db")); len(got) != 0 {
		t.Errorf("a database not created yet: %q", got)
	}
}
