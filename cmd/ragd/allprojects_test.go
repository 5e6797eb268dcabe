package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
)

// garden is a second project, of words the first has none of.
var garden = map[string]string{
	"docs/pond.md": "# Pond\n\n## Axolotls\n\nThe axolotl tank is kept at sixteen degrees; axolotls hate warm water.\n\n" +
		"## Filters\n\nA sponge filter keeps the pond water clear without a strong current.\n",
}

// TestCLI_SearchAllProjects searches two registered projects at once:
// each query finds its own project's section first, each hit names its
// project and the search id that a vote on it takes.
func TestCLI_SearchAllProjects(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	startDaemon(t, srv.URL)
	ragd(t, "add", daemontest.Repo(t, daemontest.Docs).Dir, "--name", "demo", "--json")
	ragd(t, "add", daemontest.Repo(t, garden).Dir, "--name", "garden", "--json")
	ragd(t, "reindex", "--project", "demo", "--json")
	ragd(t, "reindex", "--project", "garden", "--json")

	for _, tc := range []struct{ query, project, path string }{
		{"axolotl tank water", "garden", "docs/pond.md"},
		{"sqlite-vec FTS5 telemetry", "demo", "docs/adr/0001-storage.md"},
	} {
		resp := decode[api.AllProjectsResponse](t, ragd(t, "search", tc.query, "--all-projects", "--json"))
		if len(resp.Projects) != 2 || resp.Fusion != api.FusionRRF || len(resp.Hits) == 0 {
			t.Fatalf("%q: %+v", tc.query, resp)
		}
		top := resp.Hits[0]
		if top.Project != tc.project || top.Origin.SourcePath != tc.path || top.Position != 1 || top.SearchID == nil {
			t.Errorf("%q: top hit %s %s (position %d), want %s %s", tc.query, top.Project, top.Origin.SourcePath, top.Position, tc.project, tc.path)
		}
		for _, h := range resp.Hits {
			if h.Project != "demo" && h.Project != "garden" {
				t.Errorf("%q: hit of project %q", tc.query, h.Project)
			}
		}
		// The hit's own search id takes the vote.
		vote := decode[api.Vote](t, ragd(t, "feedback", strconv.FormatInt(*top.SearchID, 10), top.ChunkID, "useful", "--json"))
		if vote.Rank != top.Rank {
			t.Errorf("%q: vote recorded rank %d, the hit's rank in its project is %d", tc.query, vote.Rank, top.Rank)
		}
		text := string(ragd(t, "search", tc.query, "--all-projects"))
		if !strings.Contains(text, "[1] "+tc.project+"  "+tc.path) || !strings.Contains(text, "2 projects merged by rank (rrf k=60)") {
			t.Errorf("%q: text output:\n%s", tc.query, text)
		}
	}
	if _, _, err := ragdErr(t, "search", "x", "--all-projects", "--project", "demo"); err == nil || !strings.Contains(err.Error(), "leave out --project") {
		t.Errorf("--all-projects --project: %v", err)
	}
}

// Issue 35 item 6: without --limit, the default limit applies to the
// merged list: two projects with one hit each answer two hits, not the
// largest project's own count.
func TestCLI_SearchAllProjects_DefaultLimitIsTheMergedList(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	startDaemon(t, srv.URL)
	for _, p := range []struct{ name, text string }{
		{"north", "# Herons\n\nHerons nest in tall trees by the river.\n"},
		{"south", "# Herons\n\nHerons wade in the marsh in winter.\n"},
	} {
		ragd(t, "add", daemontest.Repo(t, map[string]string{"docs/" + p.name + ".md": p.text}).Dir, "--name", p.name, "--json")
		ragd(t, "reindex", "--project", p.name, "--json")
	}
	resp := decode[api.AllProjectsResponse](t, ragd(t, "search", "herons", "--all-projects", "--json"))
	per := 0
	for _, p := range resp.Projects {
		per = max(per, p.Hits)
	}
	if per != 1 || len(resp.Hits) != 2 {
		t.Errorf("%d merged hits (at most %d per project), want 2: the default limit is the merged list's: %+v", len(resp.Hits), per, resp)
	}
}

// Issue 35 item 6: the footer counts the projects that merged, and says
// how many were not searched.
func TestPrintAllHits_CountsOnlyMergedProjects(t *testing.T) {
	var b strings.Builder
	printAllHits(&b, &api.AllProjectsResponse{Hits: []api.ProjectHit{}, RRFK: 60, Projects: []api.ProjectSearch{
		{Project: "a"}, {Project: "b"}, {Project: "c", Error: "database unavailable"},
	}}, "q")
	if out := b.String(); !strings.Contains(out, "2 projects merged by rank (rrf k=60); 1 not searched") {
		t.Errorf("footer:\n%s\nwant 2 projects merged, 1 not searched", out)
	}
}
