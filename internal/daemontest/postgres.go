package daemontest

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/engine"
	"github.com/ragd/ragd/engines"
	"github.com/ragd/ragd/internal/pgtest"
	"github.com/ragd/ragd/store/postgres"
)

// EngineEnv chooses the engine under Start's daemons: unset or "sqlite",
// the SQLite store in the World's data directory; "postgres", the
// PostgreSQL engine on PGlite (pgtest.Fresh: an empty database for each
// top-level test, shared by every daemon that test starts). scripts/test.sh
// runs a tier of the daemon's tests once with "postgres".
const EngineEnv = "RAGD_TEST_ENGINE"

// Engines Start can run on.
const (
	EngineSQLite   = "sqlite"
	EnginePostgres = "postgres"
)

// Engine returns the engine EngineEnv chooses.
func Engine() string {
	if v := os.Getenv(EngineEnv); v != "" {
		return v
	}
	return EngineSQLite
}

// OnPostgres reports whether Start's daemons run on PostgreSQL.
func OnPostgres() bool { return Engine() == EnginePostgres }

// independent holds the top-level tests marked EngineIndependent.
var independent sync.Map

// EngineIndependent marks tb's test as one whose daemon answers the same on
// every engine, so that the PostgreSQL tier (EngineEnv "postgres", run by
// scripts/test.sh) runs it again on PGlite. Call it first in the test. On
// that tier NewWorld skips every test not so marked: the tests that read
// the SQLite store beside the daemon (its files, d.Store(), a second open),
// SQLite's goldens, tests that expect one database per daemon, and the
// socket's, listener's and config's own tests, which no engine changes.
// The tier is thereby chosen by the tests themselves: a renamed test keeps
// its mark.
func EngineIndependent(tb testing.TB) {
	independent.Store(topLevel(tb), true)
}

// skipUnlessIndependent skips tb on the PostgreSQL tier unless its test
// is marked EngineIndependent.
func skipUnlessIndependent(tb testing.TB) {
	if !OnPostgres() {
		return
	}
	if _, ok := independent.Load(topLevel(tb)); !ok {
		tb.Skip("not marked daemontest.EngineIndependent: the SQLite tier runs it")
	}
}

// topLevel is the name of tb's top-level test.
func topLevel(tb testing.TB) string {
	name, _, _ := strings.Cut(tb.Name(), "/")
	return name
}

// PostgresConns is the connection pool of each daemon OpenPostgres opens:
// small, as a team member's daemon on a shared server would keep it.
const PostgresConns = 3

// OpenPostgres is the engine of daemons on PostgreSQL (daemon.Options.Open),
// as ragd serve opens a postgres:// URL, with a pool of PostgresConns.
func OpenPostgres(ctx context.Context, database string, opt engine.Options) (engine.Store, error) {
	opt.MaxConns = PostgresConns
	return engines.Open(ctx, database, opt)
}

// Postgres returns the daemon's PostgreSQL store, nil on another engine.
func (d *Daemon) Postgres() *postgres.Store { return d.pg }

// pgHeld is the database of the test that uses it: tests take turns, even
// parallel ones, each from its first daemon to its end (the daemon tests
// were written for PGlite's one session; a real server would let them run
// at once, each in its database, which is left for later).
var pgHeld = struct {
	mu     sync.Mutex
	cond   *sync.Cond
	holder string // the test's name, "" when free
	url    string
}{}

func init() { pgHeld.cond = sync.NewCond(&pgHeld.mu) }

// postgresDatabase returns the URL of tb's database: an empty one on the
// first call of a test (waiting for another test to end), the same one
// for its later calls and its subtests'.
func postgresDatabase(tb testing.TB) string {
	tb.Helper()
	pgHeld.mu.Lock()
	defer pgHeld.mu.Unlock()
	name := tb.Name()
	for pgHeld.holder != "" {
		if name == pgHeld.holder || strings.HasPrefix(name, pgHeld.holder+"/") {
			return pgHeld.url
		}
		pgHeld.cond.Wait()
	}
	url := pgtest.Fresh(tb)
	pgHeld.holder, pgHeld.url = name, url
	tb.Cleanup(func() {
		pgHeld.mu.Lock()
		pgHeld.holder, pgHeld.url = "", ""
		pgHeld.cond.Broadcast()
		pgHeld.mu.Unlock()
	})
	return url
}

// Engine returns the daemon's engine, whichever it is, for tests that ask
// it what the daemon's interface offers (Stats, Path).
func (d *Daemon) Engine() engine.Store { return d.engine }

// messageStore is what both engines offer beyond engine.Store to read a
// project's session log.
type messageStore interface {
	Messages(ctx context.Context, projectID int64, types []string) ([]ragd.Message, error)
}

// Messages reads the messages of types in the project's session log, on
// either engine.
func (d *Daemon) Messages(tb testing.TB, projectID int64, types []string) []ragd.Message {
	tb.Helper()
	ms, ok := d.engine.(messageStore)
	if !ok {
		tb.Fatalf("engine %T reads no messages", d.engine)
	}
	out, err := ms.Messages(context.Background(), projectID, types)
	if err != nil {
		tb.Fatalf("read messages %v: %v", types, err)
	}
	return out
}

// PGliteURL returns the URL of a PGlite server (pgtest.StartPGlite) with
// pgx's simple query protocol instead of its exec mode. PGlite's connections share one
// backend session (internal/pgtest), and under a daemon's concurrent
// connections (searches, the background fill, a second daemon) the
// extended protocol's unnamed statement of one connection was bound by
// another's Bind ("bind message supplies 0 parameters, but prepared
// statement \"\" requires 2", SQLSTATE 08P01, seen with two daemons on one
// database); the simple protocol sends each query whole, in one message.
func PGliteURL(raw string) string {
	return strings.Replace(raw, "default_query_exec_mode=exec", "default_query_exec_mode=simple_protocol", 1)
}
