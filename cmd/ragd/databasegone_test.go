package main

import (
	"context"
	"errors"
	"github.com/ragd/ragd/engines"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/internal/daemontest"
)

// TestPG_DatabaseRecreatedEmptyIsUnavailable: the database recreated empty
// under a running daemon (its schema dropped and made again) answers 503
// database_unavailable on every request, not 500 internal after the first,
// and ragd doctor blames the database, not the socket (issue 35 item 10).
func TestPG_DatabaseRecreatedEmptyIsUnavailable(t *testing.T) {
	ctx := context.Background()
	db := pgDatabase(t)
	w := daemontest.NewWorld(t)
	w.Setenv(t)
	cfg := daemontest.Config(newOllama(t).URL)
	cfg.Daemon.Database = db
	d := daemontest.StartWith(t, w, cfg, engines.Open)
	repo := daemontest.Repo(t, daemontest.Docs)
	daemontest.AddProject(t, d.Client, repo.Dir, "demo")
	daemontest.Reindex(t, d.Client, "demo")

	conn := pgConn(t, db)
	var schema string
	if err := conn.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"DROP SCHEMA " + pgx.Identifier{schema}.Sanitize() + " CASCADE", "CREATE SCHEMA " + pgx.Identifier{schema}.Sanitize()} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for i := range 2 {
		_, herr := d.Client.Health(ctx)
		_, serr := d.Client.Search(ctx, "demo", api.SearchRequest{Query: "sqlite"})
		for what, err := range map[string]error{"health": herr, "search": serr} {
			var ce *client.Error
			if !errors.As(err, &ce) || ce.Status != http.StatusServiceUnavailable || ce.Code != api.CodeDatabaseUnavailable {
				t.Errorf("%s, request %d, after the database was recreated empty: %v, want 503 %s", what, i+1, err, api.CodeDatabaseUnavailable)
			}
		}
	}
	out, _, _ := ragdErr(t, "doctor")
	report := string(out)
	if !strings.Contains(report, "FAIL database") || strings.Contains(report, "FAIL socket") {
		t.Errorf("doctor does not blame the database:\n%s", report)
	}
}
