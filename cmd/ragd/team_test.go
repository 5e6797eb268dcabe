package main

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/ragd/ragd/engine"
	"github.com/ragd/ragd/engines"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	domain "github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/internal/daemontest"
	"github.com/ragd/ragd/internal/pgtest"
	"github.com/ragd/ragd/store/postgres"
)

// ensureRole makes role a login role of the test server (roles are the
// server's, shared by the binary's tests) with the password "pw-" and its
// name.
func ensureRole(t *testing.T, role string) {
	t.Helper()
	if err := pgtest.Shared(t).Exec(context.Background(), `DO $$ BEGIN
		IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '`+role+`') THEN CREATE ROLE `+role+`; END IF;
		END $$`); err != nil {
		t.Fatal(err)
	}
	if err := pgtest.Shared(t).Exec(context.Background(), "ALTER ROLE "+role+" LOGIN PASSWORD 'pw-"+role+"'"); err != nil {
		t.Fatal(err)
	}
}

// teamDatabase makes a test database a team's with `ragd team init` and
// `ragd team add` for each role (created when missing, password "pw-" and
// its name), and returns its admin URL (with the test pool) and each
// role's.
func teamDatabase(t *testing.T, roles ...string) (admin string, as func(role string) string) {
	t.Helper()
	raw := pgtest.Fresh(t)
	for _, r := range roles {
		ensureRole(t, r)
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("RAGD_MODEL", daemontest.Model)
	t.Setenv("RAGD_DIMS", "64")
	ragd(t, "team", "init", "--database", raw)
	for _, r := range roles {
		ragd(t, "team", "add", r, "--database", raw)
	}
	return raw + "&pool_max_conns=" + pgPool, func(role string) string {
		return pgtest.RoleURL(raw, role, "pw-"+role) + "&pool_max_conns=" + pgPool
	}
}

// Issue 33: TestPostgres_TwoDaemons with each person's daemon connected as
// their own role on a team database: the same concurrent reindexes, the
// same sessions kept apart and shared, the same telemetry and measure —
// now enforced by the server's row security.
func TestTeam_TwoDaemons(t *testing.T) {
	admin, as := teamDatabase(t, "alice", "bob")
	testTwoDaemons(t, admin, as)
}

// Issue 33: what bob cannot reach of alice's private session on a team
// database, by his daemon's routes (search, get, sessions, passage) or by
// SQL as his role; a daemon configured with alice's name but connected as
// bob is refused at start; a role never added is told the fix.
func TestTeam_Privacy(t *testing.T) {
	ctx := context.Background()
	admin, as := teamDatabase(t, "alice", "bob", "mallory")
	srv := newOllama(t)
	alice := startPG(t, srv.URL, as("alice"), "", false)
	bob := startPG(t, srv.URL, as("bob"), "", false)
	repo := daemontest.Repo(t, daemontest.Corpus(3, 2, "v1"))
	for _, d := range []*daemontest.Daemon{alice, bob} {
		daemontest.AddProject(t, d.Client, repo.Dir, "app")
	}
	if _, err := alice.Client.AppendEvents(ctx, "app", []domain.Event{{ID: "a-1", SessionID: "s-alice", Type: "chat.message",
		Actor: "person", Text: "The okapi password rotation is on Tuesday.", Time: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}}); err != nil {
		daemontest.Fatal(t, "alice's append", err)
	}
	if l, err := alice.Client.Sessions(ctx, "app", api.SessionsQuery{}); err != nil || len(l.Sessions) != 1 {
		t.Fatalf("alice's sessions: %+v, %v", l, err)
	}
	if l, err := bob.Client.Sessions(ctx, "app", api.SessionsQuery{}); err != nil || len(l.Sessions) != 0 {
		t.Errorf("bob lists alice's session: %+v, %v", l, err)
	}
	if ev, err := bob.Client.Event(ctx, "app", "a-1"); err == nil {
		t.Errorf("bob gets alice's event: %+v", ev)
	}
	for _, q := range []string{"okapi password", "rotation Tuesday"} {
		for _, h := range daemontest.Search(t, bob.Client, "app", api.SearchRequest{Query: q}).Hits {
			if h.Origin.SessionID == "s-alice" || strings.Contains(h.Content, "okapi") {
				t.Errorf("bob's search %q finds alice's session: %+v", q, h)
			}
		}
	}
	// The same questions through `ragd mcp`, the route an agent takes: alice's
	// finds her session (so the check can fail), bob's never does.
	for _, q := range []string{"okapi password", "rotation Tuesday"} {
		if got := mcpSearch(t, alice, repo.Dir, q); !strings.Contains(got, "okapi") {
			t.Errorf("alice's MCP search %q misses her own session: %s", q, got)
		}
		if got := mcpSearch(t, bob, repo.Dir, q); strings.Contains(got, "okapi") || strings.Contains(got, "s-alice") {
			t.Errorf("bob's MCP search %q finds alice's session: %s", q, got)
		}
	}
	bobSQL := pgConn(t, as("bob"))
	var n int
	if err := bobSQL.QueryRow(ctx, "SELECT count(*) FROM session_events WHERE text LIKE '%okapi%'").Scan(&n); err != nil || n != 0 {
		t.Errorf("bob's SQL reads alice's event text: %d rows, %v", n, err)
	}
	if err := bobSQL.QueryRow(ctx, "SELECT count(*) FROM chunks WHERE content LIKE '%okapi%'").Scan(&n); err != nil || n != 0 {
		t.Errorf("bob's SQL reads alice's session chunks: %d rows, %v", n, err)
	}
	if err := pgConn(t, admin).QueryRow(ctx, "SELECT count(*) FROM session_events WHERE text LIKE '%okapi%'").Scan(&n); err != nil || n != 1 {
		t.Fatalf("the admin counts %d of alice's events, %v: the checks above prove nothing", n, err)
	}

	opt := engine.Options{Space: daemontest.Model + "/64", Dims: 64, Owner: "alice"}
	if s, err := engines.Open(ctx, as("bob"), opt); !errors.Is(err, postgres.ErrOwnerMismatch) {
		if s != nil {
			s.Close()
		}
		t.Errorf("a daemon configured as alice, connected as bob: %v, want refused", err)
	}
	opt.Owner = ""
	if s, err := engines.Open(ctx, pgtest.RoleURL(strings.Replace(admin, "&pool_max_conns="+pgPool, "", 1), "eve", "x"), opt); err == nil {
		s.Close()
		t.Error("an unknown role opened the database")
	}
	ensureRole(t, "trudy")
	s, err := engines.Open(ctx, as("trudy"), opt)
	if err == nil {
		s.Close()
	}
	if !errors.Is(err, postgres.ErrNotMember) || !strings.Contains(err.Error(), "ragd team add trudy") {
		t.Errorf("a role never added: %v, want refused naming `ragd team add trudy`", err)
	}
}

// mcpSearch runs the MCP tool search through `ragd mcp` against d, from the
// project folder dir, and returns its structured answer as JSON.
func mcpSearch(t *testing.T, d *daemontest.Daemon, dir, query string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), daemontest.Timeout)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "team-test", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: ragdMCP(t, d, dir)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": query}})
	if err != nil || res.IsError {
		t.Fatalf("MCP search %q: %v %+v", query, err, res)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
