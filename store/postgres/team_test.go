package postgres

import (
	"context"
	"errors"
	"github.com/ragd/ragd/internal/testdb"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/pgtest"
)

// teamRoles are the login roles of the team tests, created on the shared
// server (roles are the server's, not a database's) when missing; carol's
// password is hers alone, and dave is never added to the team.
var teamRoles = []string{"alice", "bob", "carol", "dave"}

// teamDatabase returns the admin URL of a new database made a team's
// (TeamInit as the server's superuser, every role of teamRoles but dave
// added), and a function giving a role's URL of it.
func teamDatabase(t *testing.T) (admin string, as func(role string) string) {
	t.Helper()
	ctx := context.Background()
	admin = testURL(t)
	for _, r := range teamRoles {
		if err := pgtest.Shared(t).Exec(ctx, `DO $$ BEGIN
			IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '`+r+`') THEN CREATE ROLE `+r+` LOGIN PASSWORD 'pw-`+r+`'; END IF;
			END $$`); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(ctx, admin, Options{Space: "test/4", Dims: 4, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for range 2 { // twice: the second changes nothing
		if err := s.TeamInit(ctx); err != nil {
			t.Fatal(err)
		}
		for _, r := range teamRoles[:3] {
			if err := s.TeamAdd(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
	}
	return admin, func(role string) string { return pgtest.RoleURL(admin, role, "pw-"+role) }
}

// Issue 33: each member connects as their own role, and row security
// enforces what TestOwners shows the engine does by name: the same
// scenario, each owner a role.
func TestTeam_Owners(t *testing.T) {
	_, as := teamDatabase(t)
	testOwners(t, func(owner string, share bool) *Store {
		s := openAt(t, as(owner), Options{Owner: owner, ShareSessions: share})
		if s.Owner() != owner {
			t.Fatalf("store of role %s: owner %q", owner, s.Owner())
		}
		return s
	})
}

// TestTeam_Search is TestOwners_Search with a role for each owner.
func TestTeam_Search(t *testing.T) {
	_, as := teamDatabase(t)
	testOwnersSearch(t, func(owner string, share bool) *Store {
		return openAt(t, as(owner), Options{Owner: owner, ShareSessions: share})
	})
}

// Issue 33: what the database itself refuses a member. Bob's own SQL reads
// none of alice's private session (events, chunks, the session, her
// searches) and cannot write a row in her name; a configured owner that
// is not the role is refused at Open; a role without the member grant is
// told the fix; the owner is the role when none is configured.
func TestTeam_DatabaseEnforces(t *testing.T) {
	ctx := context.Background()
	admin, as := teamDatabase(t)
	alice := openAt(t, as("alice"), Options{Owner: "alice"})
	p := sessProject(t, alice, "app")
	secret := ev("a1", "sa", "chat.message", "alice private zebra", 0)
	if _, err := alice.AppendSession(ctx, p, []ragd.Event{secret}, testdb.ChunksOf(secret)); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.pool.Exec(ctx, `INSERT INTO rag_searches (project_id, owner, query, weights, degraded, vector_available, latency_ms, actor)
		VALUES ($1, 'alice', 'zebra', '{}', false, true, 1, 'person')`, p); err != nil {
		t.Fatal(err)
	}
	bob, err := pgx.Connect(ctx, as("bob"))
	if err != nil {
		t.Fatal(err)
	}
	defer bob.Close(ctx)
	for _, q := range []string{
		"SELECT count(*) FROM session_events",
		"SELECT count(*) FROM sessions",
		"SELECT count(*) FROM chunks WHERE scope = 'session'",
		"SELECT count(*) FROM chunks WHERE content LIKE '%zebra%'",
		"SELECT count(*) FROM rag_searches",
	} {
		var n int
		if err := bob.QueryRow(ctx, q).Scan(&n); err != nil || n != 0 {
			t.Errorf("bob's %s: %d, %v; want 0", q, n, err)
		}
	}
	var n int
	if err := pgConnAs(t, admin).QueryRow(ctx, "SELECT count(*) FROM session_events").Scan(&n); err != nil || n != 1 {
		t.Fatalf("the admin counts %d events, %v; want alice's 1", n, err)
	}
	for _, q := range []string{
		"INSERT INTO sessions (project_id, id, owner) VALUES ($1, 'forged', 'alice')",
		"UPDATE chunks SET content = 'x', owner = 'alice' WHERE project_id = $1 AND scope = 'docs'",
	} {
		_, err := bob.Exec(ctx, q, p)
		if q[0] == 'I' && !isPermissionDenied(err) {
			t.Errorf("bob's %s: %v, want a row-security refusal (42501)", q, err)
		}
	}

	if _, err := Open(ctx, as("bob"), Options{Space: "test/4", Dims: 4, MaxConns: 2, Owner: "alice"}); !errors.Is(err, ErrOwnerMismatch) ||
		!strings.Contains(err.Error(), `connected as role "bob"`) || !strings.Contains(err.Error(), "remove [daemon] owner") {
		t.Errorf("bob's store with owner alice: %v, want refused, saying why and what to do", err)
	}
	_, err = Open(ctx, as("dave"), Options{Space: "test/4", Dims: 4, MaxConns: 2})
	if !errors.Is(err, ErrNotMember) || !strings.Contains(err.Error(), "ragd team add dave") {
		t.Errorf("dave's store, no member grant: %v, want refused naming `ragd team add dave`", err)
	}
	b, err := Open(ctx, as("bob"), Options{Space: "test/4", Dims: 4, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Owner() != "bob" {
		t.Errorf("bob's store with no owner configured: owner %q, want the role", b.Owner())
	}
	if err := alice.TeamInit(ctx); err == nil || !strings.Contains(err.Error(), "admin role") {
		t.Errorf("team init by a member: %v, want refused", err)
	}
	adm := openAt(t, admin, Options{Owner: "admin"})
	if err := adm.TeamAdd(ctx, "nobody_here"); err == nil || !strings.Contains(err.Error(), "CREATE ROLE") {
		t.Errorf("team add of a missing role: %v, want the CREATE ROLE to run", err)
	}
}

// pgConnAs connects the test to url, closed at the end.
func pgConnAs(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// Issue 33: a database without pgvector's extension, opened by a role that
// may not create it (it owns the database, but is no superuser), says which
// extension and how to get it; once a superuser created it, the same role
// opens the database.
func TestNoVectorExtension(t *testing.T) {
	ctx := context.Background()
	srv := pgtest.Shared(t)
	if err := srv.Exec(ctx, `DO $$ BEGIN
		IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'owner_only') THEN CREATE ROLE owner_only LOGIN PASSWORD 'pw-owner_only'; END IF;
		END $$`); err != nil {
		t.Fatal(err)
	}
	admin := testURL(t)
	name := strings.TrimPrefix(mustParse(t, admin).Path, "/")
	if err := srv.Exec(ctx, "ALTER DATABASE "+name+" OWNER TO owner_only"); err != nil {
		t.Fatal(err)
	}
	c := pgConnAs(t, admin)
	if _, err := c.Exec(ctx, "ALTER SCHEMA public OWNER TO owner_only"); err != nil {
		t.Fatal(err)
	}
	as := pgtest.RoleURL(admin, "owner_only", "pw-owner_only")
	_, err := Open(ctx, as, Options{Space: "test/4", Dims: 4, MaxConns: 2})
	if !errors.Is(err, ErrNoVector) || !strings.Contains(err.Error(), "CREATE EXTENSION vector") {
		t.Fatalf("open without the vector extension: %v, want ErrNoVector saying CREATE EXTENSION vector", err)
	}
	if _, err := c.Exec(ctx, "CREATE EXTENSION vector"); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, as, Options{Space: "test/4", Dims: 4, MaxConns: 2})
	if err != nil {
		t.Fatalf("open once the extension exists: %v", err)
	}
	s.Close()
}

func TestNoVectorExtension_NotInstalled(t *testing.T) {
	s := &Store{url: "postgres://x@db/ragd"}
	err := s.memberError(context.Background(), &pgconn.PgError{Code: "0A000",
		Message: `extension "vector" is not available`})
	if !errors.Is(err, ErrNoVector) || !strings.Contains(err.Error(), "pgvector is not installed on the server") {
		t.Errorf("%v", err)
	}
}

func mustParse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
