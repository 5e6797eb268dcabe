package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/ragd/ragd/internal/daemontest"
	"github.com/ragd/ragd/mcpserver"
)

// TestTools_SearchAllProjects: allProjects searches every project, each
// hit names its project and the search id a vote on it takes.
func TestTools_SearchAllProjects(t *testing.T) {
	d, repo := startDocs(t, newOllama(t))
	garden := daemontest.Repo(t, map[string]string{
		"docs/pond.md": "# Pond\n\n## Axolotls\n\nThe axolotl tank is kept at sixteen degrees; axolotls hate warm water.\n",
	})
	daemontest.AddProject(t, d.Client, garden.Dir, "garden")
	daemontest.Reindex(t, d.Client, "demo")
	daemontest.Reindex(t, d.Client, "garden")
	// Run from the demo repository: allProjects still finds garden's.
	cs := connect(t, d.Socket(), repo.Dir)

	res := call(t, cs, "search", map[string]any{"query": "axolotl tank water", "allProjects": true})
	out := ok[mcpserver.SearchOutput](t, res)
	if !out.AllProjects || out.Project != "" || len(out.Hits) == 0 || out.SearchID != nil {
		t.Fatalf("search of every project: %+v", out)
	}
	top := out.Hits[0]
	if top.Project != "garden" || top.File != "docs/pond.md" || top.SearchID == nil || top.Rank != 1 {
		t.Errorf("top hit %+v, want garden's pond", top)
	}
	if txt := text(res); !strings.Contains(txt, "in every project") || !strings.Contains(txt, "project garden: docs/pond.md") {
		t.Errorf("text form:\n%s", txt)
	}
	v := ok[mcpserver.FeedbackOutput](t, call(t, cs, "feedback", map[string]any{"searchId": *top.SearchID, "chunkId": top.ChunkID, "verdict": "useful"}))
	if v.Verdict != "useful" {
		t.Errorf("vote on a hit of another project: %+v", v)
	}
	g := ok[mcpserver.GetOutput](t, call(t, cs, "get", map[string]any{"chunkId": top.ChunkID, "project": top.Project}))
	if !strings.Contains(g.Text, "sixteen degrees") {
		t.Errorf("get of another project's hit: %+v", g)
	}
	failed(t, "allProjects with project", call(t, cs, "search", map[string]any{"query": "x", "allProjects": true, "project": "demo"}), "leave project out")
	// Without allProjects, the search stays this project's.
	own := ok[mcpserver.SearchOutput](t, call(t, cs, "search", map[string]any{"query": "axolotl tank water"}))
	for _, h := range own.Hits {
		if h.Project != "" || h.File == "docs/pond.md" {
			t.Errorf("a search of demo returned %+v", h)
		}
	}
}
