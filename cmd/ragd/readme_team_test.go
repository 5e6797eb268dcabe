package main

import (
	"net/url"
	"strings"
	"testing"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/internal/daemontest"
)

// The README's "For a team" configuration, run: the block parses and
// validates as a configuration file, and a daemon started with it — its
// database URL pointed at a test server in place of db.internal, its
// owner and sharing as written — opens the PostgreSQL engine, indexes and
// searches a project, and writes the block's owner on its search.
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
	if cfg.Daemon.Owner == "" || cfg.Sessions.Share {
		t.Errorf("the README's block: owner %q share %v, want an owner and share = false", cfg.Daemon.Owner, cfg.Sessions.Share)
	}

	srv := newOllama(t)
	run := daemontest.Config(srv.URL)
	run.Daemon.Database = pgDatabase(t)
	run.Daemon.Owner, run.Sessions.Share = cfg.Daemon.Owner, cfg.Sessions.Share
	d := daemontest.StartWith(t, daemontest.NewWorld(t), run, openPostgres)
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
	if err := pgConn(t, run.Daemon.Database).QueryRow(t.Context(), "SELECT owner FROM rag_searches WHERE id = $1", *resp.SearchID).Scan(&owner); err != nil {
		t.Fatal(err)
	}
	if owner != cfg.Daemon.Owner {
		t.Errorf("search %d recorded for %q, want the README's owner %q", *resp.SearchID, owner, cfg.Daemon.Owner)
	}
}
