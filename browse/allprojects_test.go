package browse

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
)

// lanternSections is how many sections of each project's page speak of
// lanterns: fewer than a search's limit, so that each project's list is
// shorter than the merged one should be.
const lanternSections = 5

// TestBrowse_AllProjectsSearchKeepsTheLimit: a search of every project,
// plain or explained (C-r), shows the merged list cut at the searches'
// limit, not at the most hits one project found; the explained one is the
// client's merge too, each project's explanation kept.
func TestBrowse_AllProjectsSearchKeepsTheLimit(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	d := daemontest.Start(t, daemontest.NewWorld(t), daemontest.Config(srv.URL))
	projects := []string{"harbour", "lighthouse"}
	for _, name := range projects {
		var page strings.Builder
		fmt.Fprintf(&page, "# %s\n", name)
		for i := range lanternSections {
			fmt.Fprintf(&page, "\n## Lantern %d\n\nThe %s lantern number %d burns oil through the night.\n", i, name, i)
		}
		daemontest.AddProject(t, d.Client, daemontest.Repo(t, map[string]string{"docs/lanterns.md": page.String()}).Dir, name)
		daemontest.Reindex(t, d.Client, name)
	}

	// What each project's own search answers, and the limit it used.
	const query = "lantern oil"
	limit, sum, most := 0, 0, 0
	for _, p := range projects {
		r, err := d.Client.Search(context.Background(), p, api.SearchRequest{Query: query})
		if err != nil {
			daemontest.Fatal(t, "search "+p, err)
		}
		limit, sum, most = max(limit, r.Limit), sum+len(r.Hits), max(most, len(r.Hits))
	}
	if most >= limit || sum <= limit {
		t.Fatalf("the world does not test the limit: projects found at most %d, %d together, limit %d", most, sum, limit)
	}

	h := newHarness(t, &counting{Backend: d.Client}, "")
	h.typeText(query)
	if len(h.m.hits) != limit {
		t.Errorf("every project searched: %d hits, want the limit %d", len(h.m.hits), limit)
	}
	plain := h.m.hits
	h.key("ctrl+r")
	if !h.m.explaining {
		t.Fatalf("C-r on every project: not explaining (status %q)", h.m.status)
	}
	if len(h.m.hits) != limit {
		t.Errorf("every project explained: %d hits, want the limit %d (each project found at most %d)", len(h.m.hits), limit, most)
	}
	for i := range min(len(plain), len(h.m.hits)) {
		if got, want := h.m.hits[i], plain[i]; got.ChunkID != want.ChunkID || got.place != i+1 {
			t.Errorf("explained hit %d: %s of %s at %d, the plain search's %s of %s", i+1, got.ChunkID, got.project, got.place, want.ChunkID, want.project)
		}
		if h.m.hits[i].Explain == nil {
			t.Errorf("explained hit %d has no explanation", i+1)
		}
	}
	if len(h.m.explains) != len(projects) {
		t.Fatalf("explained: %d projects' explanations, want %d", len(h.m.explains), len(projects))
	}
	for i, pe := range h.m.explains {
		if pe.project != projects[i] || pe.explain == nil {
			t.Errorf("explanation %d: project %q, explain %v; want %q's", i, pe.project, pe.explain, projects[i])
		}
	}
	h.wants("every project explained", "harbour: match ", "lighthouse: match ")
}
