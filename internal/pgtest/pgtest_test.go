package pgtest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// testTimeout bounds each test's queries: two loaded cores.
const testTimeout = 60 * time.Second

// blockedWait is how long a test watches a query it expects to stay
// unanswered: ample for PGlite to answer a one-row insert (it takes
// about a millisecond), and the test fails if the answer comes.
const blockedWait = 500 * time.Millisecond

func connect(t *testing.T, ctx context.Context, url string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func mustExec(t *testing.T, ctx context.Context, c *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := c.Exec(ctx, sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// TestStart_Features runs through pgx what the PostgreSQL engine relies on:
// pgvector with an HNSW cosine index, a tsvector of the simple
// configuration with GIN and ts_rank_cd, and a REPEATABLE READ READ ONLY
// transaction.
func TestStart_Features(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	url := Start(t)
	if !strings.HasPrefix(url, "postgres://") {
		t.Fatalf("URL %q", url)
	}
	c := connect(t, ctx, url)
	var version string
	if err := c.QueryRow(ctx, "SHOW server_version").Scan(&version); err != nil || !strings.HasPrefix(version, "17") {
		t.Fatalf("server_version %q, %v: want PostgreSQL 17", version, err)
	}
	mustExec(t, ctx, c, "CREATE EXTENSION vector")
	mustExec(t, ctx, c, "CREATE TABLE chunk (id text PRIMARY KEY, body text NOT NULL, embedding vector(3), tsv tsvector)")
	mustExec(t, ctx, c, "CREATE INDEX chunk_embedding ON chunk USING hnsw (embedding vector_cosine_ops)")
	mustExec(t, ctx, c, "CREATE INDEX chunk_tsv ON chunk USING gin (tsv)")
	for _, r := range []struct{ id, body, vec string }{
		{"a", "the daemon listens on a unix socket", "[1,0,0]"},
		{"b", "vectors live in sqlite-vec", "[0,1,0]"},
		{"c", "the socket mode is 0600 socket", "[0.9,0.1,0]"},
	} {
		mustExec(t, ctx, c, "INSERT INTO chunk VALUES ($1, $2, $3::vector, to_tsvector('simple', $2))", r.id, r.body, r.vec)
	}
	// The planner uses the HNSW index once sequential scans are off.
	mustExec(t, ctx, c, "SET enable_seqscan = off")
	var plan strings.Builder
	rows, err := c.Query(ctx, "EXPLAIN SELECT id FROM chunk ORDER BY embedding <=> '[1,0,0]' LIMIT 2")
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	plan.WriteString(strings.Join(lines, "\n"))
	if !strings.Contains(plan.String(), "chunk_embedding") {
		t.Errorf("the nearest-neighbour query does not use the HNSW index:\n%s", plan.String())
	}
	rows, err = c.Query(ctx, "SELECT id FROM chunk ORDER BY embedding <=> '[1,0,0]' LIMIT 2")
	if err != nil {
		t.Fatal(err)
	}
	nearest, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || fmt.Sprint(nearest) != "[a c]" {
		t.Errorf("nearest to [1,0,0]: %v, %v; want [a c]", nearest, err)
	}
	mustExec(t, ctx, c, "RESET enable_seqscan")
	rows, err = c.Query(ctx, `SELECT id FROM chunk WHERE tsv @@ to_tsquery('simple', 'socket')
		ORDER BY ts_rank_cd(tsv, to_tsquery('simple', 'socket')) DESC, id`)
	if err != nil {
		t.Fatal(err)
	}
	lexical, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || fmt.Sprint(lexical) != "[c a]" {
		t.Errorf("lexical matches of socket: %v, %v; want [c a] (c holds it twice)", lexical, err)
	}

	tx, err := c.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	var iso, ro string
	if err := tx.QueryRow(ctx, "SELECT current_setting('transaction_isolation'), current_setting('transaction_read_only')").Scan(&iso, &ro); err != nil {
		t.Fatal(err)
	}
	if iso != "repeatable read" || ro != "on" {
		t.Errorf("transaction: isolation %q, read only %q", iso, ro)
	}
	_, err = tx.Exec(ctx, "INSERT INTO chunk (id, body) VALUES ('d', 'x')")
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "25006" { // read_only_sql_transaction
		t.Errorf("insert in a read-only transaction: %v, want SQLSTATE 25006", err)
	}
}

// TestStart_Connections pins how pglite-server serves several connections:
// up to MaxConns, one shared session, a transaction holding the others'
// queries until it ends.
func TestStart_Connections(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	url := StartOptions(t, Options{MaxConns: 2})
	a := connect(t, ctx, url)
	b := connect(t, ctx, url)

	t.Run("past MaxConns refused", func(t *testing.T) {
		c, err := pgx.Connect(ctx, url)
		if err == nil {
			c.Close(ctx)
			t.Fatal("a third connection to a server of 2 was accepted")
		}
	})

	t.Run("a transaction holds the other connection's queries", func(t *testing.T) {
		mustExec(t, ctx, a, "CREATE TABLE held (i int)")
		tx, err := a.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM held").Scan(&n); err != nil || n != 0 {
			t.Fatalf("count in the snapshot: %d, %v", n, err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := b.Exec(ctx, "INSERT INTO held VALUES (1)")
			done <- err
		}()
		select {
		case err := <-done:
			t.Fatalf("the insert was answered (%v) while another connection's transaction was open", err)
		case <-time.After(blockedWait):
		}
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM held").Scan(&n); err != nil || n != 0 {
			t.Errorf("count in the snapshot again: %d, %v", n, err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatalf("the held insert, once the transaction ended: %v", err)
		}
		if err := a.QueryRow(ctx, "SELECT count(*) FROM held").Scan(&n); err != nil || n != 1 {
			t.Errorf("count after both: %d, %v", n, err)
		}
	})

}

// TestStart_CachedStatementsCollide: pgx's default mode prepares each query
// under a name made from its SQL, and the connections share one session, so
// a second connection preparing the same query finds the name taken; the
// URL's exec mode prepares none.
func TestStart_CachedStatementsCollide(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	url := Start(t)
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

// TestStart_ConcurrentQueries: two connections querying at once in the
// URL's exec mode each get their own answers (the describe-then-execute
// mode, two round trips per query, mixed them up here: one connection's
// Bind reached the other's statement).
func TestStart_ConcurrentQueries(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	url := Start(t)
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

// TestServer_Reset: a reset server holds an empty public schema, and
// pgvector can be created again.
func TestServer_Reset(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := startServer(t)
	c := connect(t, ctx, s.URL)
	mustExec(t, ctx, c, "CREATE EXTENSION vector")
	mustExec(t, ctx, c, "CREATE SCHEMA ragd")
	mustExec(t, ctx, c, "CREATE TABLE ragd.t (v vector(2))")
	mustExec(t, ctx, c, "CREATE TABLE public.t (i int)")
	c.Close(ctx)
	if err := s.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	c = connect(t, ctx, s.URL)
	var tables int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname IN ('public', 'ragd')").Scan(&tables); err != nil || tables != 0 {
		t.Errorf("tables after reset: %d, %v", tables, err)
	}
	mustExec(t, ctx, c, "CREATE EXTENSION vector")
}

func startServer(tb testing.TB) *Server {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	s, err := StartServer(ctx, Options{})
	if errors.Is(err, ErrUnavailable) {
		tb.Skip(err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Stop() })
	return s
}

// BenchmarkStart is the cost of a fresh database as a new server: exec to
// the first answered query, then stop.
//
//	/work/bin/rgo test -run '^$' -bench Start -benchtime 5x ./internal/pgtest/
func BenchmarkStart(b *testing.B) {
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
		s, err := StartServer(ctx, Options{})
		cancel()
		if errors.Is(err, ErrUnavailable) {
			b.Skip(err)
		}
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Stop(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReset is the cost of a fresh database on a shared server: a
// reset after pgvector and a table were made.
func BenchmarkReset(b *testing.B) {
	s := startServer(b)
	ctx := context.Background()
	for b.Loop() {
		c, err := pgx.Connect(ctx, s.URL)
		if err != nil {
			b.Fatal(err)
		}
		for _, sql := range []string{"CREATE EXTENSION vector", "CREATE TABLE t (v vector(3))"} {
			if _, err := c.Exec(ctx, sql); err != nil {
				b.Fatal(err)
			}
		}
		c.Close(ctx)
		if err := s.Reset(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFresh: each call empties the shared server's database.
func TestFresh(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	url := Fresh(t)
	c := connect(t, ctx, url)
	mustExec(t, ctx, c, "CREATE TABLE left_over (i int)")
	c.Close(ctx)
	if again := Fresh(t); again != url {
		t.Errorf("second Fresh: %q, want the shared server's %q", again, url)
	}
	c = connect(t, ctx, url)
	var n int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename = 'left_over'").Scan(&n); err != nil || n != 0 {
		t.Errorf("a table of the last test after Fresh: %d, %v", n, err)
	}
	c.Close(ctx)
	if err := StopShared(); err != nil {
		t.Error(err)
	}
}
