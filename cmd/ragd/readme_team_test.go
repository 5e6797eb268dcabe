package main

import (
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/engines"
	"github.com/ragd/ragd/internal/daemontest"
	"github.com/ragd/ragd/internal/pgtest"
)

// readmeAdminURL is the admin's database in the README's team commands,
// which the test points at its own server.
const readmeAdminURL = "postgres://admin@db.internal:5432/ragd"

// The README's "For a team" section, run: the configuration block parses
// and validates, sets no owner (the role is the owner), and names its
// role in the URL; the admin's commands run as written (twice: they are
// idempotent) against a test database, once the block's role exists; a
// daemon started with the block — its URL pointed at that database, its
// sharing as written — connects as the role, indexes and searches a
// project, and its search is recorded under the role.
func TestREADME_ForATeam(t *testing.T) {
	section := readmeSection(t, "For a team: PostgreSQL + pgvector")
	text := fenced(t, section, "toml")
	cfg := daemon.DefaultConfig()
	if err := daemon.ParseConfig(strings.NewReader(text), &cfg); err != nil {
		t.Fatalf("the README's block does not parse: %v\n%s", err, text)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("the README's block is not valid: %v\n%s", err, text)
	}
	written, err := url.Parse(cfg.Daemon.Database)
	if err != nil || written.Scheme != "postgres" || written.User.Username() == "" {
		t.Fatalf("the README's database %q: want a postgres:// URL naming its user (%v)", cfg.Daemon.Database, err)
	}
	if _, has := written.User.Password(); has {
		t.Errorf("the README's database URL holds a password: %q", cfg.Daemon.Database)
	}
	if cfg.Daemon.Owner != "" || cfg.Sessions.Share {
		t.Errorf("the README's block: owner %q share %v, want no owner (the role is) and share = false", cfg.Daemon.Owner, cfg.Sessions.Share)
	}
	role := written.User.Username()

	// The admin's commands, on a database of the test server.
	admin := pgtest.Fresh(t)
	ensureRole(t, role)
	password := "pw-" + role
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("RAGD_MODEL", daemontest.Model)
	t.Setenv("RAGD_DIMS", strconv.Itoa(daemontest.Dims))
	block := fenced(t, section, "sh")
	lines := strings.Split(strings.TrimSpace(block), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "ragd team init ") || !strings.HasPrefix(lines[1], "ragd team add "+role+" ") {
		t.Fatalf("the README's admin block: %q, want team init, then team add %s", lines, role)
	}
	for range 2 {
		for _, line := range lines {
			if !strings.Contains(line, readmeAdminURL) {
				t.Fatalf("README line %q does not name %s", line, readmeAdminURL)
			}
			args := strings.Fields(strings.Replace(line, readmeAdminURL, admin, 1))
			out := string(ragd(t, args[1:]...))
			if !strings.Contains(out, "team database ready") && !strings.Contains(out, role+" is a member") {
				t.Errorf("%s: %s", line, out)
			}
		}
	}

	srv := newOllama(t)
	run := daemontest.Config(srv.URL)
	run.Daemon.Database = pgtest.RoleURL(admin, role, password) + "&pool_max_conns=" + pgPool
	run.Daemon.Owner, run.Sessions.Share = cfg.Daemon.Owner, cfg.Sessions.Share
	d := daemontest.StartWith(t, daemontest.NewWorld(t), run, engines.Open)
	repo := daemontest.Repo(t, daemontest.Corpus(3, 2, "v1"))
	daemontest.AddProject(t, d.Client, repo.Dir, "app")
	daemontest.Reindex(t, d.Client, "app")
	resp := daemontest.Search(t, d.Client, "app", api.SearchRequest{Query: "Paragraph file1 section1"})
	if len(resp.Hits) == 0 {
		t.Fatalf("no hit on the team database: %+v", resp)
	}
	if resp.SearchID == nil {
		t.Fatalf("no telemetry row for the search: %+v", resp)
	}
	var owner string
	if err := pgConn(t, admin).QueryRow(t.Context(), "SELECT owner FROM rag_searches WHERE id = $1", *resp.SearchID).Scan(&owner); err != nil {
		t.Fatal(err)
	}
	if owner != role {
		t.Errorf("search %d recorded for %q, want the README's role %q", *resp.SearchID, owner, role)
	}
}
