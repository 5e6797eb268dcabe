package postgres

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/ragd/ragd"
)

func TestOpenMigratesOnceAndReopens(t *testing.T) {
	s, url := openTest(t, Options{})
	ctx := context.Background()
	v, err := s.SchemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := loadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	if v != len(ms) {
		t.Fatalf("schema version %d, want %d", v, len(ms))
	}
	s.Close()
	// Reopened: nothing applied twice, the same space accepted.
	s2 := openAt(t, url, Options{})
	var rows int
	if err := s2.pool.QueryRow(ctx, "SELECT count(*) FROM schema_version").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != len(ms) {
		t.Fatalf("schema_version has %d rows after reopening, want %d", rows, len(ms))
	}
}

func TestOpenRefusesAnotherSpace(t *testing.T) {
	s, url := openTest(t, Options{})
	p := addProject(t, s, "demo")
	replace(t, s, p.ID, "docs", doc("a.md", 0, "text", []float32{1, 0, 0, 0}))
	s.Close()
	_, err := Open(context.Background(), url, Options{Space: "other/8", Dims: 8, MaxConns: 2})
	if !errors.Is(err, ragd.ErrSpaceMismatch) {
		t.Fatalf("open with another space: %v, want ErrSpaceMismatch", err)
	}
	// The fix names the real command and what it costs on a shared database
	// (issue 35 item 12), not an internal option.
	for _, want := range []string{"ragd serve --reset-vectors", "every project on this database", "everyone"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("space mismatch message %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "ResetSpace") {
		t.Errorf("space mismatch message names an internal option: %q", err)
	}
	s2 := openAt(t, url, Options{Space: "other/8", Dims: 8, ResetSpace: true})
	if s2.Dims() != 8 || s2.Space() != "other/8" {
		t.Fatalf("reset store is %s/%d", s2.Space(), s2.Dims())
	}
	st, err := s2.ScopeStats(context.Background(), p.ID, "docs")
	if err != nil || st.Chunks != 1 || st.LexicalOnly != 1 {
		t.Fatalf("after the reset: %+v, %v; want the chunk, without its vector", st, err)
	}
	s2.Close()
	// No vector held: another space is taken without a reset.
	s3 := openAt(t, url, Options{Space: "third/3", Dims: 3})
	if s3.Dims() != 3 {
		t.Fatalf("store without vectors reopened as %s/%d", s3.Space(), s3.Dims())
	}
}

func TestOpenErrors(t *testing.T) {
	// A port nothing listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	for _, tc := range []struct {
		name, url, want string
		opt             Options
	}{
		{"scheme", "mysql://u:hunter2@h/db", `scheme "mysql"`, Options{Space: "s", Dims: 4}},
		{"not a URL", "postgres://u:hunter2@h:port/db", "not a URL", Options{Space: "s", Dims: 4}},
		{"bad parameter", "postgres://u:hunter2@h/db?sslmode=maybe", "bad connection URL", Options{Space: "s", Dims: 4}},
		{"no space", "postgres://u:hunter2@h/db", "no embedding space", Options{Dims: 4}},
		{"dims", "postgres://u:hunter2@h/db", "out of range", Options{Space: "s", Dims: 4000}},
		{"unreachable", "postgres://u:hunter2@" + dead + "/db?connect_timeout=5", "database connection failed", Options{Space: "s", Dims: 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(context.Background(), tc.url, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("open %s: %v, want an error saying %q", tc.url, err, tc.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Fatalf("error shows the password: %v", err)
			}
		})
	}
}

func TestVersionAtLeast(t *testing.T) {
	for v, want := range map[string]bool{"0.8.1": true, "0.8": true, "0.7.4": false, "1.0.0": true, "0": false, "x.y": false, "": false} {
		if got := versionAtLeast(v, 0, 8); got != want {
			t.Errorf("versionAtLeast(%q, 0, 8) = %v, want %v", v, got, want)
		}
	}
}
