package main

import (
	"os"
	"strings"
	"testing"

	"github.com/ragd/ragd/internal/daemontest"
)

// Issue 24: a database value that is a URL is never taken for a relative
// path (RAGD_DB=postgres://… used to create a folder "postgres:" in the
// working directory, with a SQLite database inside): an engine this build
// lacks, or a scheme no engine has, is refused with an error naming the
// value, before anything is created.
func TestServe_DatabaseURLRefused(t *testing.T) {
	for _, tc := range []struct {
		database string
		want     []string
	}{
		{"postgres://ragd:secret@localhost:5432/ragd", []string{"postgres engine not built in"}},
		{"postgresql://localhost/ragd", []string{"postgres engine not built in"}},
		{"mysql://ragd:secret@localhost/ragd", []string{`unknown scheme "mysql"`, "mysql://ragd:xxxxx@localhost/ragd", "postgres://…", "SQLite file"}},
		{"file:ragd.db", []string{`unknown scheme "file"`, `"file:ragd.db"`, "./NAME"}},
		{"sqlite:ragd.db", []string{`unknown scheme "sqlite"`}},
	} {
		t.Run(tc.database, func(t *testing.T) {
			w := daemontest.NewWorld(t)
			w.Setenv(t)
			t.Setenv("RAGD_DB", tc.database)
			cwd := t.TempDir()
			t.Chdir(cwd)
			_, stderr, err := ragdErr(t, "serve")
			if err == nil {
				t.Fatalf("ragd serve with RAGD_DB=%s: no error (stderr %s)", tc.database, stderr)
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error %q shows the password", err)
			}
			for _, dir := range []string{cwd, w.Dir} {
				entries, err := os.ReadDir(dir)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range entries {
					if strings.Contains(e.Name(), ":") {
						t.Errorf("%s holds %q after a refused database URL", dir, e.Name())
					}
				}
			}
			if entries, _ := os.ReadDir(cwd); len(entries) != 0 {
				t.Errorf("working directory holds %d entries after a refused database URL", len(entries))
			}
			if _, err := os.Stat(w.Paths.Socket); !os.IsNotExist(err) {
				t.Errorf("socket %s exists after a refused database URL (%v)", w.Paths.Socket, err)
			}
		})
	}
}

func TestChooseEngine_PlainPathIsSQLite(t *testing.T) {
	for _, path := range []string{"/var/lib/ragd/ragd.db", "ragd.db", "./odd:name.db", "data/ragd.db"} {
		if _, err := chooseEngine(path); err != nil {
			t.Errorf("chooseEngine(%q): %v, want the SQLite engine", path, err)
		}
	}
}
