package daemon_test

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/internal/daemontest"
)

// TestAPI_CorruptLexicalIndex: one project's FTS5 index is corrupt on
// disk. Its search answers a clear error naming the fix, not a bare 500;
// health (ragd doctor) reports the corruption from FTS5's integrity-check;
// a reindex rebuilds the index, after which search answers again; the
// other project never noticed (issue 35 item 18).
func TestAPI_CorruptLexicalIndex(t *testing.T) {
	ctx := context.Background()
	d, _ := startDocs(t, newServer(t).URL)
	if d.Store() == nil {
		t.Skip("the SQLite engine's FTS5 index; PostgreSQL has none")
	}
	daemontest.AddProject(t, d.Client, daemontest.Repo(t, map[string]string{"docs/pond.md": "# Pond\n\nThe sqlite pond.\n"}).Dir, "garden")
	daemontest.Reindex(t, d.Client, "demo")
	daemontest.Reindex(t, d.Client, "garden")

	db, err := sql.Open("ragd_sqlite3", d.Store().Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var table string
	if err := db.QueryRow(`SELECT 'chunks_fts_' || id FROM projects WHERE name = 'demo'`).Scan(&table); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE " + table + "_data SET block = randomblob(length(block)) WHERE id NOT IN (1, 10)"); err != nil {
		t.Fatal(err)
	}

	_, err = d.Client.Search(ctx, "demo", api.SearchRequest{Query: "sqlite"})
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Status == http.StatusInternalServerError || ce.Code != api.CodeIndexCorrupt ||
		!strings.Contains(ce.Message, "ragd reindex --project demo") {
		t.Errorf("search on the corrupt index: %v, want a %s error naming the reindex", err, api.CodeIndexCorrupt)
	}
	daemontest.Search(t, d.Client, "garden", api.SearchRequest{Query: "sqlite"})

	h, err := d.Client.HealthChecked(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range h.Database.Checks {
		if !c.OK && strings.Contains(c.Detail, "demo") && strings.Contains(c.Fix, "ragd reindex --project demo") {
			found = true
		}
	}
	if !found {
		t.Errorf("health's database checks do not report demo's corrupt index: %+v", h.Database.Checks)
	}

	daemontest.Reindex(t, d.Client, "demo")
	if got := daemontest.Search(t, d.Client, "demo", api.SearchRequest{Query: "sqlite"}); len(got.Hits) == 0 {
		t.Errorf("search after the reindex: no hits")
	}
	h, err = d.Client.HealthChecked(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range h.Database.Checks {
		if !c.OK {
			t.Errorf("after the reindex, a check fails: %+v", c)
		}
	}
}
