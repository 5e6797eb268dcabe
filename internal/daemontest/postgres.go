package daemontest

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/daemon"
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

// PostgresConns is the connection pool of each daemon OpenPostgres opens:
// small, as a team member's daemon on a shared server would keep it.
const PostgresConns = 3

// OpenPostgres is the engine of daemons on PostgreSQL (daemon.Options.Open),
// as ragd serve opens a postgres:// URL, with a pool of PostgresConns.
func OpenPostgres(ctx context.Context, database string, opt daemon.EngineOptions) (daemon.Store, error) {
	s, err := postgres.Open(ctx, database, postgres.Options{
		Space: opt.Space, Dims: opt.Dims, ResetSpace: opt.ResetSpace, Logger: opt.Logger,
		Owner: opt.Owner, ShareSessions: opt.ShareSessions, MaxConns: PostgresConns})
	if err != nil {
		return nil, err
	}
	return s, nil
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
func (d *Daemon) Engine() daemon.Store { return d.engine }

// messageStore is what both engines offer beyond daemon.Store to read a
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
