package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ragd/ragd/internal/pgtest"
)

// Issue 33: on a server whose connections share one session (PGlite here;
// a pooler in transaction mode alike), pgx's cached statements collide.
// Open chooses the simple protocol by itself when the server is PGlite and
// the URL names no mode, so two stores on one PGlite both work; a URL that
// asks for cached statements gets the collision, and the error says what
// to add to the URL.
func TestSharedSession_PGlite(t *testing.T) {
	url := pgtest.StartPGlite(t)
	bare := strings.Replace(url, "&default_query_exec_mode=exec", "", 1)
	if bare == url {
		t.Fatalf("no exec mode to take out of %q", url)
	}
	ctx := context.Background()
	open := func(url, owner string) (*Store, error) {
		return Open(ctx, url, Options{Space: "test/4", Dims: 4, MaxConns: 2, Owner: owner})
	}
	t.Run("ModeChosen", func(t *testing.T) {
		a, err := open(bare, "alice")
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		b, err := open(bare, "bob")
		if err != nil {
			t.Fatalf("a second store on PGlite, no mode in the URL: %v", err)
		}
		defer b.Close()
		for _, s := range []*Store{a, b, a, b} {
			if _, err := s.Projects(ctx); err != nil {
				t.Fatalf("%s's query: %v", s.Owner(), err)
			}
		}
	})
	t.Run("CachedStatementsSaySo", func(t *testing.T) {
		cached := bare + "&default_query_exec_mode=cache_statement"
		var err error
		for _, owner := range []string{"alice", "bob"} {
			var s *Store
			s, err = open(cached, owner)
			if err != nil {
				break
			}
			defer s.Close()
			if _, err = s.Projects(ctx); err != nil {
				break
			}
		}
		if err == nil {
			t.Fatal("two stores with cached statements on one PGlite session: no error")
		}
		if !strings.Contains(err.Error(), "add default_query_exec_mode=simple_protocol") ||
			!strings.Contains(err.Error(), "42P05") {
			t.Errorf("error %q: want SQLSTATE 42P05 and what to add to the URL", err)
		}
	})
}

func TestIsPGlite(t *testing.T) {
	for v, want := range map[string]bool{
		"PostgreSQL 17.5 on wasm32-unknown-linux-gnu, compiled by emcc (Emscripten gcc/clang-like replacement + linker emulating GNU ld) 3.1.74, 32-bit": true,
		"PostgreSQL 18.3 on x86_64-pc-linux-gnu, compiled by gcc (GCC) 10.2.1 20210130 (Red Hat 10.2.1-11), 64-bit":                                      false,
	} {
		if got := isPGlite(v); got != want {
			t.Errorf("isPGlite(%q) = %v", v, got)
		}
	}
}

func TestSharedSessionError(t *testing.T) {
	for code, wantFix := range map[string]bool{"42P05": true, "26000": true, "42P01": false} {
		err := sharedSessionError(&pgconn.PgError{Code: code, Message: "m"})
		if got := strings.Contains(err.Error(), "add default_query_exec_mode"); got != wantFix {
			t.Errorf("SQLSTATE %s: %q, fix named %v, want %v", code, err, got, wantFix)
		}
	}
}
