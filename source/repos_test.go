package source

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/benchrepos"
	"github.com/ragd/ragd/internal/gittest"
)

// repoReach is what ReadDocs found of one real repository against its
// manifest.
type repoReach struct {
	name                    string
	prose, proseFound       int
	adr, adrFound           int
	read, notProse          int
	missedProse, missedADRs []string
	extra                   []string
}

// reach reads one bench repository, laid out as a git repository with no
// settings, and compares what ReadDocs found with the manifest.
func reach(t *testing.T, dir string, r benchrepos.Repo) repoReach {
	t.Helper()
	files, err := benchrepos.Files(dir, r.Name)
	if err != nil {
		t.Fatal(err)
	}
	g := gittest.New(t)
	g.CommitTree(t, "upstream", files)
	tree, err := ReadDocs(context.Background(), g.Dir, Options{})
	if err != nil {
		t.Fatalf("%s: ReadDocs: %v", r.Name, err)
	}
	got := map[string]string{}
	for _, f := range tree.Files {
		got[f.Path] = f.Scope
	}
	rr := repoReach{name: r.Name, prose: len(r.Prose), adr: len(r.ADR), read: len(tree.Files)}
	prose := map[string]bool{}
	for _, p := range r.Prose {
		prose[p] = true
		if _, ok := got[p]; ok {
			rr.proseFound++
		} else {
			rr.missedProse = append(rr.missedProse, p)
		}
	}
	for _, p := range r.ADR {
		if got[p] == ragd.ScopeADR {
			rr.adrFound++
		} else {
			rr.missedADRs = append(rr.missedADRs, p+" ("+got[p]+")")
		}
	}
	for p := range got {
		if !prose[p] {
			rr.notProse++
			rr.extra = append(rr.extra, p)
		}
	}
	slices.Sort(rr.extra)
	return rr
}

func share(n, of int) float64 {
	if of == 0 {
		return 1
	}
	return float64(n) / float64(of)
}

// TestReach_BenchRepos reads the 22 real repositories of the shared bench
// folder as they are laid out upstream and holds ReadDocs to the issue's
// targets: prose found ≥ 90% on average and for the median repository,
// decision records in scope adr ≥ 90% of all, files read that are not
// prose ≤ 5% of what is read.
func TestReach_BenchRepos(t *testing.T) {
	dir := benchrepos.Dir()
	repos, err := benchrepos.Manifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	var all []repoReach
	var shares []float64
	var sum float64
	var adr, adrFound, read, notProse int
	for _, r := range repos {
		rr := reach(t, dir, r)
		all = append(all, rr)
		s := share(rr.proseFound, rr.prose)
		shares = append(shares, s)
		sum += s
		adr += rr.adr
		adrFound += rr.adrFound
		read += rr.read
		notProse += rr.notProse
		t.Logf("%-46s prose %4d/%-4d %5.1f%%  adr %3d/%-3d  read %4d, not prose %3d",
			rr.name, rr.proseFound, rr.prose, 100*s, rr.adrFound, rr.adr, rr.read, rr.notProse)
		for _, p := range first(rr.missedProse, 5) {
			t.Logf("    missed prose: %s", p)
		}
		for _, p := range first(rr.missedADRs, 5) {
			t.Logf("    missed ADR:   %s", p)
		}
		for _, p := range first(rr.extra, 5) {
			t.Logf("    not prose:    %s", p)
		}
	}
	sort.Float64s(shares)
	median := shares[len(shares)/2]
	if len(shares)%2 == 0 {
		median = (shares[len(shares)/2-1] + shares[len(shares)/2]) / 2
	}
	mean := sum / float64(len(shares))
	summary := fmt.Sprintf("prose found: mean %.1f%%, median %.1f%%; decision records in adr: %d/%d (%.1f%%); not prose: %d of %d read (%.1f%%)",
		100*mean, 100*median, adrFound, adr, 100*share(adrFound, adr), notProse, read, 100*share(notProse, read))
	t.Log(summary)
	if mean < 0.9 || median < 0.9 || share(adrFound, adr) < 0.9 || share(notProse, read) > 0.05 {
		t.Errorf("below target (prose ≥ 90%% mean and median, ADRs ≥ 90%%, not prose ≤ 5%%): %s", summary)
	}
}

func first(s []string, n int) []string { return s[:min(n, len(s))] }
