package pgtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestPGlite pins what PGlite still shows the engine's tests: its
// connections share one session (one server for both subtests: each takes
// seconds to start).
func TestPGlite(t *testing.T) {
	url := StartPGlite(t)
	t.Run("CachedStatementsCollide", func(t *testing.T) { testPGliteCachedStatementsCollide(t, url) })
	t.Run("ConcurrentQueries", func(t *testing.T) { testPGliteConcurrentQueries(t, url) })
}

// testPGliteCachedStatementsCollide: pgx's default mode prepares each query
// under a name made from its SQL, and the connections share one session, so
// a second connection preparing the same query finds the name taken; the
// URL's exec mode prepares none.
func testPGliteCachedStatementsCollide(t *testing.T, url string) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement // pgx's default
	var conns []*pgx.Conn
	for range 2 {
		c, err := pgx.ConnectConfig(ctx, cfg.Copy())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		conns = append(conns, c)
	}
	var n int
	if err := conns[0].QueryRow(ctx, "SELECT $1::int + 1", 1).Scan(&n); err != nil || n != 2 {
		t.Fatalf("first connection: %d, %v", n, err)
	}
	err = conns[1].QueryRow(ctx, "SELECT $1::int + 1", 1).Scan(&n)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "42P05" { // duplicate_prepared_statement
		t.Errorf("second connection, same query: %d, %v; want SQLSTATE 42P05", n, err)
	}
	for i, c := range []*pgx.Conn{connect(t, ctx, url), connect(t, ctx, url)} {
		if err := c.QueryRow(ctx, "SELECT $1::int + 2", 1).Scan(&n); err != nil || n != 3 {
			t.Errorf("connection %d in the URL's mode: %d, %v", i, n, err)
		}
	}
}

// testPGliteConcurrentQueries: two connections querying at once in the
// URL's exec mode each get their own answers (the describe-then-execute
// mode, two round trips per query, mixed them up here: one connection's
// Bind reached the other's statement).
func testPGliteConcurrentQueries(t *testing.T, url string) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	const queries = 200
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for g, query := range []string{"SELECT 'a' || $1::text", "SELECT 'b' || $1::int::text"} {
		c := connect(t, ctx, url)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range queries {
				var got string
				var arg any = fmt.Sprint(i)
				if g == 1 {
					arg = i
				}
				want := fmt.Sprintf("%c%d", "ab"[g], i)
				if err := c.QueryRow(ctx, query, arg).Scan(&got); err != nil || got != want {
					errs <- fmt.Errorf("connection %d, query %d: %q, %v; want %q", g, i, got, err, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
