package main

import (
	"context"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	domain "github.com/ragd/ragd"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/engine"
	"github.com/ragd/ragd/internal/daemontest"
	"github.com/ragd/ragd/store/postgres"
)

// Issue 24: a database value that is a URL is never taken for a relative
// path (RAGD_DB=postgres://… used to create a folder "postgres:" in the
// working directory, with a SQLite database inside): a server that does
// not answer, or a scheme no engine has, is refused with an error naming
// the value without its password, before anything is created.
func TestServe_DatabaseURLRefused(t *testing.T) {
	for _, tc := range []struct {
		database string
		want     []string
	}{
		// The PostgreSQL engine at a port where no server listens: the
		// connection's failure, naming the URL without its password.
		{"postgres://ragd:secret@127.0.0.1:" + deadPort(t) + "/ragd", []string{"database connection failed", "postgres://ragd:xxxxx@127.0.0.1:"}},
		{"postgresql://127.0.0.1:" + deadPort(t) + "/ragd?password=secret", []string{"database connection failed", "127.0.0.1:"}},
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

// deadPort is a TCP port of 127.0.0.1 where nothing listens: one the
// kernel gave and took back.
func deadPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// checkedEngine is an engine that is not on sqlite-vec (the SQLite store's
// VecVersion is hidden) and checks itself, as a server's engine does.
type checkedEngine struct {
	engine.Store
	checks []domain.DatabaseCheck
}

func (e checkedEngine) Checks(context.Context) []domain.DatabaseCheck { return e.checks }

// Issue 24: ragd doctor reports what the engine offers: its own checks,
// each a line (one that fails fails doctor, with its fix), and no
// sqlite-vec line for an engine without it.
func TestDoctor_EngineChecks(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	w := daemontest.NewWorld(t)
	w.Setenv(t)
	checks := []domain.DatabaseCheck{
		{Name: "server", OK: true, Detail: "PostgreSQL 17.4"},
		{Name: "pgvector", Detail: "extension vector not installed", Fix: "CREATE EXTENSION vector"},
	}
	daemontest.StartWith(t, w, daemontest.Config(srv.URL), func(ctx context.Context, database string, opt engine.Options) (engine.Store, error) {
		s, err := daemontest.OpenSQLite(ctx, database, opt)
		if err != nil {
			return nil, err
		}
		return checkedEngine{Store: s, checks: checks}, nil
	})
	out, _, err := ragdErr(t, "doctor", "--json")
	doc := decode[doctorReport](t, out)
	if err == nil || doc.OK {
		t.Errorf("doctor with a failing engine check: err %v, ok %v", err, doc.OK)
	}
	for _, want := range checks {
		i := slices.IndexFunc(doc.Checks, func(c check) bool { return c.Name == want.Name })
		if i < 0 || doc.Checks[i] != (check{Name: want.Name, OK: want.OK, Detail: want.Detail, Fix: want.Fix}) {
			t.Errorf("doctor's %s check: %+v, want %+v", want.Name, doc.Checks, want)
		}
	}
	if slices.ContainsFunc(doc.Checks, func(c check) bool { return c.Name == "sqlite-vec" }) {
		t.Errorf("doctor shows sqlite-vec for an engine without it: %+v", doc.Checks)
	}
}

// The PostgreSQL engine is no engine on sqlite-vec: the health route and
// doctor show no sqlite-vec version for it (pgvector's is a check).
func TestPostgresEngine_NotOnSqliteVec(t *testing.T) {
	var e any = (*postgres.Store)(nil)
	if _, ok := e.(engine.VecVersioner); ok {
		t.Error("the PostgreSQL store is a engine.VecVersioner: its pgvector version would show as sqlite-vec's")
	}
}
