package daemon_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/internal/daemontest"
)

// longSection is a section cut into several overlapping chunks: numbered
// sentences, so that a join that loses or repeats text shows.
func longSection() string {
	var b strings.Builder
	for i := range 120 {
		fmt.Fprintf(&b, "Sentence %03d of the long weights section explains one more detail. ", i)
	}
	return strings.TrimSpace(b.String())
}

func TestAPI_Passage(t *testing.T) {
	daemontest.EngineIndependent(t)
	ctx := context.Background()
	d := daemontest.Start(t, daemontest.NewWorld(t), daemontest.Config(newServer(t).URL))
	c := d.Client
	adr := "# ADR 2: Fusion\n\nIntro under the title.\n\n## Decision\n\nWe fuse two signals.\n\n" +
		"### Weights\n\n" + longSection() + "\n\n### Threshold\n\nHits below 0.2 are dropped.\n\n## Consequences\n\nTuning needs judged queries.\n"
	repo := daemontest.Repo(t, map[string]string{"docs/adr/0002-fusion.md": adr})
	head := repo.Head(t)
	daemontest.AddProject(t, c, repo.Dir, "demo")
	at := func(s string) time.Time { t, _ := time.Parse(time.RFC3339, s); return t }
	var events []ragd.Event
	for i := range 7 {
		typ, actor := ragd.TypeChatMessage, "person"
		if i%2 == 1 {
			typ, actor = ragd.TypeAgentResponse, "agent"
		}
		events = append(events, ragd.Event{ID: fmt.Sprintf("m%d", i), SessionID: "s1", Type: typ, Actor: actor,
			Text: fmt.Sprintf("message %d about the zeppelin", i), Time: at(fmt.Sprintf("2026-11-29T12:00:%02dZ", i*2)), Title: "Talk"})
	}
	// A tool call between messages is not a message: never a neighbour.
	events = append(events, ragd.Event{ID: "t1", SessionID: "s1", Type: "tool.call", Actor: "agent", Time: at("2026-11-29T12:00:07Z")})
	if _, err := c.AppendEvents(ctx, "demo", events); err != nil {
		daemontest.Fatal(t, "append", err)
	}
	daemontest.Reindex(t, c, "demo")

	// By file and heading path: the whole section, its chunks joined once.
	p, err := c.Passage(ctx, "demo", api.PassageQuery{Path: "docs/adr/0002-fusion.md", HeadingPath: []string{"Decision", "Weights"}})
	if err != nil {
		daemontest.Fatal(t, "passage by heading", err)
	}
	if len(p.Chunks) < 3 {
		t.Fatalf("the long section is %d chunks, want several to test the join", len(p.Chunks))
	}
	if want := "### Weights\n\n" + longSection(); p.Text != want {
		t.Errorf("section text:\n%q\nwant\n%q", p.Text, want)
	}
	if p.Scope != "adr" || p.Origin.Kind != ragd.OriginFile || p.Origin.Commit != head || p.Origin.Title != "ADR 2: Fusion" ||
		!slices.Equal(p.Origin.HeadingPath, []string{"Decision", "Weights"}) || p.Parent == nil ||
		!slices.Equal(p.Parent.HeadingPath, []string{"Decision"}) || p.Previous == nil ||
		!slices.Equal(p.Previous.HeadingPath, []string{"Decision"}) || p.Next == nil ||
		!slices.Equal(p.Next.HeadingPath, []string{"Decision", "Threshold"}) || len(p.Subsections) != 0 || p.ChunkID != "" {
		t.Errorf("passage %+v", p)
	}

	// The title as first heading and another case still find it; a
	// top-level section's parent is the text under the title.
	p, err = c.Passage(ctx, "demo", api.PassageQuery{Path: "docs/adr/0002-fusion.md", HeadingPath: []string{"ADR 2: Fusion", "decision"}})
	if err != nil {
		daemontest.Fatal(t, "passage by loose heading", err)
	}
	if !slices.Equal(p.Origin.HeadingPath, []string{"Decision"}) || p.Parent == nil || len(p.Parent.HeadingPath) != 0 ||
		len(p.Subsections) != 2 || !strings.Contains(p.Text, "We fuse two signals.") {
		t.Errorf("loose heading: %+v", p)
	}
	// The text under the title has no parent.
	p, err = c.Passage(ctx, "demo", api.PassageQuery{Path: "docs/adr/0002-fusion.md"})
	if err != nil {
		daemontest.Fatal(t, "passage of the title", err)
	}
	if p.Parent != nil || p.Previous != nil || p.Next == nil || !strings.Contains(p.Text, "Intro under the title.") {
		t.Errorf("title passage: %+v", p)
	}

	// By chunk id: the chunk's whole section, the chunk named.
	resp := daemontest.Search(t, c, "demo", api.SearchRequest{Query: "hits below 0.2 dropped", Scopes: []string{"adr"}})
	if len(resp.Hits) == 0 {
		t.Fatal("no hits")
	}
	hit := resp.Hits[0]
	p, err = c.Passage(ctx, "demo", api.PassageQuery{ChunkID: hit.ChunkID})
	if err != nil {
		daemontest.Fatal(t, "passage by chunk", err)
	}
	if p.ChunkID != hit.ChunkID || !slices.Equal(p.Origin.HeadingPath, hit.Origin.HeadingPath) || !slices.Contains(p.Chunks, hit.ChunkID) {
		t.Errorf("by chunk: %+v, hit %+v", p, hit)
	}

	// By event: the message and two messages either side, tool calls left out.
	two := 2
	p, err = c.Passage(ctx, "demo", api.PassageQuery{EventID: "m3", SessionID: "s1", Around: &two})
	if err != nil {
		daemontest.Fatal(t, "passage by event", err)
	}
	ids := func(es []ragd.Event) (out []string) {
		for _, e := range es {
			out = append(out, e.ID)
		}
		return out
	}
	if p.Message == nil || p.Message.ID != "m3" || p.Text != "message 3 about the zeppelin" || p.Scope != "session" ||
		p.Origin.Kind != ragd.OriginSession || p.Origin.SessionID != "s1" || p.Origin.Title != "Talk" || len(p.Chunks) != 1 ||
		!slices.Equal(ids(p.Before), []string{"m1", "m2"}) || !slices.Equal(ids(p.After), []string{"m4", "m5"}) {
		t.Errorf("by event: %+v before %v after %v", p, ids(p.Before), ids(p.After))
	}
	// A session chunk resolves to its message; the first message has none before.
	p, err = c.Passage(ctx, "demo", api.PassageQuery{ChunkID: p.Chunks[0]})
	if err != nil || p.Message == nil || p.Message.ID != "m3" || len(p.Before) != 2 {
		t.Errorf("session chunk: %+v %v", p, err)
	}
	zero := 0
	if p, err = c.Passage(ctx, "demo", api.PassageQuery{EventID: "m0", Around: &zero}); err != nil || len(p.Before)+len(p.After) != 0 {
		t.Errorf("around 0: %+v %v", p, err)
	}

	// Bad citations: 400 for a malformed question, 404 for a missing answer,
	// with what there is to ask for.
	for _, tt := range []struct {
		name string
		q    api.PassageQuery
		want error
		says string
	}{
		{"nothing named", api.PassageQuery{}, ragd.ErrInvalid, "name one citation"},
		{"two named", api.PassageQuery{ChunkID: "x", EventID: "m1"}, ragd.ErrInvalid, "name one citation"},
		{"heading without path", api.PassageQuery{EventID: "m1", HeadingPath: []string{"x"}}, ragd.ErrInvalid, "heading needs path"},
		{"around too far", api.PassageQuery{EventID: "m1", Around: new(api.MaxAround + 1)}, ragd.ErrInvalid, "around"},
		{"unknown chunk", api.PassageQuery{ChunkID: "nope"}, ragd.ErrNotFound, "search again"},
		{"unknown file", api.PassageQuery{Path: "docs/none.md"}, ragd.ErrNotFound, "no indexed file"},
		{"unknown section", api.PassageQuery{Path: "docs/adr/0002-fusion.md", HeadingPath: []string{"Nope"}}, ragd.ErrNotFound, `["Decision" "Weights"]`},
		{"unknown event", api.PassageQuery{EventID: "nope"}, ragd.ErrNotFound, "no event"},
		{"event of another session", api.PassageQuery{EventID: "m1", SessionID: "s2"}, ragd.ErrNotFound, `in session "s1"`},
	} {
		_, err := c.Passage(ctx, "demo", tt.q)
		var ce *client.Error
		if !errors.Is(err, tt.want) || !errors.As(err, &ce) || !strings.Contains(ce.Message, tt.says) {
			t.Errorf("%s: %v, want %v saying %q", tt.name, err, tt.want, tt.says)
		}
	}
}
