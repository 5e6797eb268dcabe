package search

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
	"github.com/ragd/ragd/internal/testdb/sqlitedb"
)

// Passage resolves citations against the engine through PassageStore
// alone: sections by file and heading (exactly, without the title, then
// ignoring case), their chunks joined without the overlap, and what is
// not there as an error wrapping ragd.ErrNotFound that says what is.
func TestPassage(t *testing.T) {
	ctx := context.Background()
	st := sqlitedb.OpenDims(t, 4)
	pid := testdb.AddProject(t, st, "demo", "/repos/demo").ID
	other := testdb.AddProject(t, st, "other", "/repos/other").ID
	// The document's title is "Guide"; its heading paths start below it.
	intro := doc("docs/guide.md", 0, nil, "Guide intro.", nil)
	a1 := doc("docs/guide.md", 1, []string{"Install"}, "Install with make. Then run it.", nil)
	a1.Start, a1.End = 20, 51
	a2 := doc("docs/guide.md", 2, []string{"Install"}, "Then run it. Done.", nil)
	a2.Start, a2.End = 39, 57
	sub := doc("docs/guide.md", 3, []string{"Install", "Linux"}, "apt install.", nil)
	use := doc("docs/guide.md", 4, []string{"Use"}, "Use it.", nil)
	in := []ragd.ChunkInput{intro, a1, a2, sub, use}
	for i := range in {
		in[i].Title = "Guide"
	}
	testdb.Replace(t, st, pid, ragd.ScopeDocs, in)
	testdb.Replace(t, st, other, ragd.ScopeDocs, []ragd.ChunkInput{doc("docs/x.md", 0, []string{"X"}, "elsewhere", nil)})
	ids := chunkIDs(t, st, pid)
	otherIDs := chunkIDs(t, st, other)
	p := ragd.Project{ID: pid, Name: "demo"}

	for _, tc := range []struct {
		name    string
		c       Citation
		heading []string
		text    string
	}{
		{"exact heading", Citation{Path: "docs/guide.md", Heading: []string{"Install"}}, []string{"Install"}, "Install with make. Then run it. Done."},
		{"with the title first", Citation{Path: "docs/guide.md", Heading: []string{"Guide", "Install"}}, []string{"Install"}, "Install with make. Then run it. Done."},
		{"ignoring case", Citation{Path: "docs/guide.md", Heading: []string{" guide", "USE "}}, []string{"Use"}, "Use it."},
		{"the text under the title", Citation{Path: "docs/guide.md"}, []string{}, "Guide intro."},
		{"by chunk", Citation{Chunk: ids["Then run it. Done."]}, []string{"Install"}, "Install with make. Then run it. Done."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Passage(ctx, st, p, tc.c)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(out.Origin.HeadingPath, tc.heading) || out.Text != tc.text || out.Project != "demo" || out.Origin.Commit != "c0ffee" {
				t.Fatalf("got %q %q (project %q, commit %q), want %q %q", out.Origin.HeadingPath, out.Text, out.Project, out.Origin.Commit, tc.heading, tc.text)
			}
			if out.ChunkID != tc.c.Chunk {
				t.Errorf("chunk id %q, want %q", out.ChunkID, tc.c.Chunk)
			}
		})
	}

	out, err := Passage(ctx, st, p, Citation{Path: "docs/guide.md", Heading: []string{"Install"}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Parent == nil || len(out.Parent.HeadingPath) != 0 ||
		out.Previous == nil || len(out.Previous.HeadingPath) != 0 ||
		out.Next == nil || !slices.Equal(out.Next.HeadingPath, []string{"Install", "Linux"}) ||
		len(out.Subsections) != 1 || !slices.Equal(out.Subsections[0].HeadingPath, []string{"Install", "Linux"}) ||
		!slices.Equal(out.Chunks, []string{ids[a1.Content], ids[a2.Content]}) {
		t.Errorf("around the section: %+v", out)
	}

	for _, tc := range []struct {
		name string
		c    Citation
		want string
	}{
		{"no such file", Citation{Path: "docs/none.md"}, `project demo has no indexed file "docs/none.md": paths are relative to the repository, under docs/ (coverage lists what is indexed)`},
		{"no such section", Citation{Path: "docs/guide.md", Heading: []string{"Uninstall"}}, `docs/guide.md has no section ["Uninstall"]; its sections: [] (the text under the title), ["Install"], ["Install" "Linux"], ["Use"]`},
		{"a chunk of another project", Citation{Chunk: otherIDs["elsewhere"]}, `project demo has no chunk "` + otherIDs["elsewhere"] + `": a reindex that changed its text gave it a new id; search again`},
		{"no such event", Citation{Event: "e404"}, `project demo has no event "e404"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Passage(ctx, st, p, tc.c)
			if !errors.Is(err, ragd.ErrNotFound) || err.Error() != tc.want {
				t.Fatalf("err %v, want %q wrapping ragd.ErrNotFound", err, tc.want)
			}
		})
	}
}
