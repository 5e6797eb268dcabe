//go:build repos

package index_test

import (
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/benchrepos"
	"github.com/ragd/ragd/internal/gittest"
	"github.com/ragd/ragd/internal/testdb"
)

// reach is what a reindex indexed of one real repository against its
// manifest.
type reach struct {
	name              string
	prose, proseFound int
	adr, adrFound     int
	indexed, notProse int
	took              time.Duration
	missed, extra     []string
}

// TestReach_BenchRepos is the tier of the issue on documentation layouts:
// the 22 real repositories of the shared bench folder, each laid out as a
// git repository as upstream has it (prose files byte for byte, every
// other file a stub), registered as it is (no settings) and reindexed
// lexical only. What was indexed is compared with the manifest, per
// repository and in total, and held to the targets: prose found ≥ 90% on
// average and for the median repository, decision records in scope adr
// ≥ 90%, files indexed that are not prose ≤ 5% of what is indexed.
func TestReach_BenchRepos(t *testing.T) {
	dir := benchrepos.Dir()
	repos, err := benchrepos.Manifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	var all []reach
	for _, r := range repos {
		all = append(all, reachOf(t, dir, r))
	}
	var shares []float64
	var sum float64
	var adr, adrFound, indexed, notProse int
	for _, rr := range all {
		s := share(rr.proseFound, rr.prose)
		shares = append(shares, s)
		sum += s
		adr, adrFound = adr+rr.adr, adrFound+rr.adrFound
		indexed, notProse = indexed+rr.indexed, notProse+rr.notProse
		t.Logf("%-46s prose %4d/%-4d %5.1f%%  adr %3d/%-3d  indexed %4d, not prose %2d  (reindex %v)",
			rr.name, rr.proseFound, rr.prose, 100*s, rr.adrFound, rr.adr, rr.indexed, rr.notProse, rr.took.Round(time.Millisecond))
		for _, p := range rr.missed[:min(5, len(rr.missed))] {
			t.Logf("    missed: %s", p)
		}
		for _, p := range rr.extra[:min(5, len(rr.extra))] {
			t.Logf("    not prose: %s", p)
		}
	}
	sort.Float64s(shares)
	n := len(shares)
	median := (shares[(n-1)/2] + shares[n/2]) / 2
	mean := sum / float64(n)
	summary := fmt.Sprintf("%d repositories: prose found mean %.1f%%, median %.1f%%; decision records in adr %d/%d (%.1f%%); not prose %d of %d indexed (%.1f%%)",
		n, 100*mean, 100*median, adrFound, adr, 100*share(adrFound, adr), notProse, indexed, 100*share(notProse, indexed))
	t.Log(summary)
	if mean < 0.9 || median < 0.9 || share(adrFound, adr) < 0.9 || share(notProse, indexed) > 0.05 {
		t.Errorf("below the targets (prose ≥ 90%% mean and median, ADRs ≥ 90%% in adr, not prose ≤ 5%%): %s", summary)
	}
}

func reachOf(t *testing.T, dir string, r benchrepos.Repo) reach {
	t.Helper()
	files, err := benchrepos.Files(dir, r.Name)
	if err != nil {
		t.Fatal(err)
	}
	g := gittest.New(t)
	g.CommitTree(t, "upstream", files)
	s := openStore(t)
	p := testdb.AddProject(t, s, "p", g.Dir)
	start := time.Now()
	rep := reindex(t, newIndexer(s, nil), p, ragd.ScopeDocs, ragd.ScopeADR)
	took := time.Since(start)
	for _, sr := range rep.Scopes {
		if len(sr.Skipped) > 0 {
			t.Logf("%s %s skipped: %v", r.Name, sr.Scope, sr.Skipped[:min(3, len(sr.Skipped))])
		}
	}
	scopeOf := map[string]string{}
	for _, scope := range []string{ragd.ScopeDocs, ragd.ScopeADR} {
		for _, c := range chunks(t, s, p, scope) {
			scopeOf[c.SourcePath] = scope
		}
	}
	rr := reach{name: r.Name, prose: len(r.Prose), adr: len(r.ADR), indexed: len(scopeOf), took: took}
	prose := map[string]bool{}
	for _, f := range r.Prose {
		prose[f] = true
		if _, ok := scopeOf[f]; ok {
			rr.proseFound++
		} else {
			rr.missed = append(rr.missed, f)
		}
	}
	for _, f := range r.ADR {
		if scopeOf[f] == ragd.ScopeADR {
			rr.adrFound++
		} else {
			rr.missed = append(rr.missed, f+" (ADR, in "+scopeOf[f]+")")
		}
	}
	for f := range scopeOf {
		if !prose[f] {
			rr.notProse++
			rr.extra = append(rr.extra, f)
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
