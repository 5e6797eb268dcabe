package pgtest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// testTimeout bounds each test's queries: two loaded cores.
const testTimeout = 60 * time.Second

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

// TestFresh_Features runs through pgx what the PostgreSQL engine relies on:
// the server's version, pgvector ≥ 0.8 with an HNSW cosine index the
// planner uses, a tsvector of the simple configuration with GIN, a
// REPEATABLE READ READ ONLY transaction, and row-level security.
func TestFresh_Features(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	url := Fresh(t)
	if !strings.HasPrefix(url, "postgres://") {
		t.Fatalf("URL %q", url)
	}
	c := connect(t, ctx, url)
	var version, vector string
	if err := c.QueryRow(ctx, "SHOW server_version").Scan(&version); err != nil || !strings.HasPrefix(version, "18.") {
		t.Fatalf("server_version %q, %v: want PostgreSQL 18", version, err)
	}
	mustExec(t, ctx, c, "CREATE EXTENSION vector")
	if err := c.QueryRow(ctx, "SELECT extversion FROM pg_extension WHERE extname = 'vector'").Scan(&vector); err != nil || vector != "0.8.2" {
		t.Fatalf("pgvector %q, %v: want 0.8.2 (HNSW's iterative scans came in 0.8)", vector, err)
	}
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
	mustExec(t, ctx, c, "SET enable_seqscan = off")
	mustExec(t, ctx, c, "SET hnsw.iterative_scan = relaxed_order")
	rows, err := c.Query(ctx, "EXPLAIN SELECT id FROM chunk ORDER BY embedding <=> '[1,0,0]' LIMIT 2")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(plan, "\n"), "chunk_embedding") {
		t.Errorf("the nearest-neighbour query does not use the HNSW index:\n%s", strings.Join(plan, "\n"))
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
		ORDER BY ts_rank(tsv, to_tsquery('simple', 'socket')) DESC, id`)
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
	_, err = tx.Exec(ctx, "INSERT INTO chunk (id, body) VALUES ('d', 'x')")
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "25006" { // read_only_sql_transaction
		t.Errorf("insert in a read-only transaction: %v, want SQLSTATE 25006", err)
	}
}

// TestFresh_Isolated: each Fresh is a database of its own, tests using it
// may run at once, and a role's password is checked (scram-sha-256 on TCP).
func TestFresh_Isolated(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	a, b := Fresh(t), Fresh(t)
	if a == b {
		t.Fatalf("two Fresh databases share the URL %q", a)
	}
	mustExec(t, ctx, connect(t, ctx, a), "CREATE TABLE only_in_a (i int)")
	var n int
	if err := connect(t, ctx, b).QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_a'").Scan(&n); err != nil || n != 0 {
		t.Errorf("b sees a's table: %d, %v", n, err)
	}
	mustExec(t, ctx, connect(t, ctx, a), "CREATE ROLE pgtest_member LOGIN PASSWORD 'right'")
	t.Cleanup(func() { Shared(t).Exec(context.Background(), "DROP ROLE IF EXISTS pgtest_member") })
	if c, err := pgx.Connect(ctx, RoleURL(a, "pgtest_member", "wrong")); err == nil {
		c.Close(ctx)
		t.Error("a role connected with a wrong password")
	}
	var user string
	if err := connect(t, ctx, RoleURL(a, "pgtest_member", "right")).QueryRow(ctx, "SELECT current_user").Scan(&user); err != nil || user != "pgtest_member" {
		t.Errorf("current_user %q, %v", user, err)
	}
}

// TestStart_KillRestart: a killed server keeps what it committed, refuses
// connections while down, and recovers on Restart.
func TestStart_KillRestart(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := StartOptions(t, Options{})
	url := s.Fresh(t)
	c := connect(t, ctx, url)
	mustExec(t, ctx, c, "CREATE TABLE kept (i int)")
	mustExec(t, ctx, c, "INSERT INTO kept VALUES (1)")
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO kept VALUES (2)"); err != nil {
		t.Fatal(err)
	}
	if err := s.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err == nil {
		t.Error("a commit on the killed server succeeded")
	}
	if c2, err := pgx.Connect(ctx, url); err == nil {
		c2.Close(ctx)
		t.Fatal("connected to the killed server")
	}
	if err := s.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	var got []int
	rows, err := connect(t, ctx, url).Query(ctx, "SELECT i FROM kept ORDER BY i")
	if err == nil {
		got, err = pgx.CollectRows(rows, pgx.RowTo[int])
	}
	if err != nil || fmt.Sprint(got) != "[1]" {
		t.Errorf("after the restart: %v, %v; want [1] (the committed row, not the open transaction's)", got, err)
	}
}

// TestStopShared: the shared server stops, and the next Fresh starts
// another.
func TestStopShared(t *testing.T) {
	first := Shared(t)
	if err := StopShared(); err != nil {
		t.Fatal(err)
	}
	if second := Shared(t); second == first || second.URL == first.URL {
		t.Errorf("Shared after StopShared: the stopped server %q", second.URL)
	}
}

// BenchmarkStart is the cost of a new server: initdb, exec to the first
// answered query, then stop.
//
//	go test -run '^$' -bench Start -benchtime 5x ./internal/pgtest/
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

// BenchmarkFresh is the cost of a fresh database on the shared server.
func BenchmarkFresh(b *testing.B) {
	s := Shared(b)
	for b.Loop() {
		b.Run("db", func(b *testing.B) { s.Fresh(b) })
	}
}
