package index_test

import (
	"context"
	"slices"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/gittest"
	"github.com/ragd/ragd/internal/testdb"
)

// TestLayout_DaemonAndProjectSettings: the daemon's settings for every
// project (the configuration's [index] exclude, package_readmes,
// root_files) and a project's own combine: excludes add up, a rule off in
// either is off.
func TestLayout_DaemonAndProjectSettings(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	repo := gittest.New(t)
	repo.Commit(t, "docs", map[string]string{
		"README.md":         "# Readme",
		"pkg/README.md":     "# Package",
		"docs/guide.md":     "# Guide",
		"docs/drafts/a.md":  "# Draft",
		"docs/archive/b.md": "# Old",
	})
	p := testdb.AddProject(t, s, "p", repo.Dir)
	ix := newIndexer(s, nil)
	ix.Source.Layout = ragd.Layout{Exclude: []string{"drafts"}, NoRootFiles: true}
	p.Layout = ragd.Layout{Exclude: []string{"docs/archive"}}
	l, err := ix.Layout(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range l.Found {
		got = append(got, f.Rule)
	}
	if want := []string{"docs/ (docs folder)", "package README"}; !slices.Equal(got, want) {
		t.Errorf("found %v, want %v", got, want)
	}
	left := map[string]int{}
	for _, lo := range l.LeftOut {
		left[lo.Reason] = lo.Count
	}
	if left["excluded by the project's settings"] != 2 || left["root files are off for this project"] != 1 {
		t.Errorf("left out %v", left)
	}
	if len(l.Settings.Exclude) != 1 || l.Settings.NoRootFiles {
		t.Errorf("the project's own settings shown %+v: want its own only", l.Settings)
	}
}
