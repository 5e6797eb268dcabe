package daemon_test

import (
	"context"
	"slices"
	"testing"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/internal/daemontest"
)

// Issue 35 item 14: a PATCH of the settings that change what is read
// (here exclude) marks the scopes it touches stale at once, with the
// reason, while the excluded file's chunks still answer; a reindex reads
// by the new settings and the scope is fresh again.
func TestPatchSettings_MarksScopesStale(t *testing.T) {
	d, _ := startDocs(t, newServer(t).URL)
	c := d.Client
	daemontest.Reindex(t, c, "demo")
	if p := daemontest.Project(t, c, "demo"); len(p.Stale) != 0 {
		t.Fatalf("stale after the reindex: %v", p.Stale)
	}
	if _, err := c.PatchProject(context.Background(), "demo", api.PatchProjectRequest{
		Settings: &api.LayoutSettings{Exclude: []string{"docs/guide.md"}}}); err != nil {
		daemontest.Fatal(t, "patch", err)
	}
	if p := daemontest.Project(t, c, "demo"); !slices.Contains(p.Stale, "docs") {
		t.Errorf("stale after excluding docs/guide.md: %v, want docs", p.Stale)
	}
	sc := daemontest.ScopeCoverage(t, daemontest.Coverage(t, c, "demo"), "docs")
	if !sc.Stale || sc.StaleReason == "" {
		t.Errorf("docs coverage after the PATCH: %+v, want stale with a reason", sc)
	}
	if resp := daemontest.Search(t, c, "demo", api.SearchRequest{Query: "hybrid search weights"}); !slices.Contains(resp.Stale, "docs") {
		t.Errorf("search after the PATCH: stale %v, want docs", resp.Stale)
	}
	daemontest.Reindex(t, c, "demo")
	if p := daemontest.Project(t, c, "demo"); len(p.Stale) != 0 {
		t.Errorf("stale after a reindex by the new settings: %v", p.Stale)
	}
}
