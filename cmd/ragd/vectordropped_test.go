package main

import (
	"context"
	"strings"
	"testing"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/internal/daemontest"
)

// TestPG_VectorExtensionDroppedUnderTheDaemon: `DROP EXTENSION vector
// CASCADE` under a running daemon (the vector column goes with it). Search
// answers lexical-only, degraded and saying why, instead of failing; a
// restart puts the extension back (or says how) and repairs the schema, and
// a reindex brings hybrid search back (issue 35 item 11).
func TestPG_VectorExtensionDroppedUnderTheDaemon(t *testing.T) {
	ctx := context.Background()
	db := pgDatabase(t)
	host := newOllama(t).URL
	d := startPG(t, host, db, "alice", false)
	repo := daemontest.Repo(t, daemontest.Docs)
	daemontest.AddProject(t, d.Client, repo.Dir, "demo")
	daemontest.Reindex(t, d.Client, "demo")

	conn := pgConn(t, db)
	if _, err := conn.Exec(ctx, "DROP EXTENSION vector CASCADE"); err != nil {
		t.Fatal(err)
	}
	resp, err := d.Client.Search(ctx, "demo", api.SearchRequest{Query: "sqlite telemetry"})
	if err != nil {
		t.Fatalf("search with the vector extension gone: %v, want a lexical-only answer", err)
	}
	if !resp.Degraded || resp.VectorAvailable || !strings.Contains(resp.Reason, "vector extension") || len(resp.Hits) == 0 {
		t.Errorf("search with the vector extension gone: degraded %v, vectors %v, reason %q, %d hits; want a degraded lexical answer saying why",
			resp.Degraded, resp.VectorAvailable, resp.Reason, len(resp.Hits))
	}
	d.Stop(t)
	conn.Close(ctx)

	d = startPG(t, host, db, "alice", false)
	daemontest.Reindex(t, d.Client, "demo")
	resp, err = d.Client.Search(ctx, "demo", api.SearchRequest{Query: "sqlite telemetry"})
	if err != nil || resp.Degraded || !resp.VectorAvailable || resp.VectorCoverage == nil || resp.VectorCoverage.Vectors == 0 {
		t.Errorf("after a restart and a reindex: %+v, %v; want hybrid search with vectors again", resp, err)
	}
}
