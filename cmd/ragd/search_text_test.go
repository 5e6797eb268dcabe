package main

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
)

// hitLine is a hit's first line in the text output: "[rank] score  citation".
var hitLine = regexp.MustCompile(`(?m)^\[(\d+)\] (\S+)  `)

// TestCLI_SearchScoresTellRanksApart: RRF scores sit near 1/(k+rank), so
// three decimals printed 0.016 for ranks 1 to 4 (issue 15 #7). The text
// output must tell apart every two hits whose scores differ.
func TestCLI_SearchScoresTellRanksApart(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	startDaemon(t, srv.URL)
	repo := daemontest.Repo(t, daemontest.Docs)
	ragd(t, "add", repo.Dir, "--name", "demo", "--json")
	ragd(t, "reindex", "--project", "demo", "--json")

	for _, fusion := range []string{"rrf", "weighted"} {
		args := []string{"search", "the index search", "--project", "demo", "--fusion", fusion, "--limit", "20"}
		resp := decode[api.SearchResponse](t, ragd(t, append(args, "--json")...))
		text := string(ragd(t, args...))
		lines := hitLine.FindAllStringSubmatch(text, -1)
		if len(resp.Hits) < 2 || len(lines) != len(resp.Hits) {
			t.Fatalf("%s: %d hits, %d hit lines in:\n%s", fusion, len(resp.Hits), len(lines), text)
		}
		printed := make([]string, len(lines))
		for i, l := range lines {
			// Search ids differ between the two runs, never the ranking.
			if l[1] != strconv.Itoa(resp.Hits[i].Rank) {
				t.Fatalf("%s: line %d is rank %s", fusion, i+1, l[1])
			}
			v, err := strconv.ParseFloat(l[2], 64)
			if want := resp.Hits[i].Score; err != nil || math.Abs(v-want) > 1e-3*want {
				t.Errorf("%s: rank %d prints %q, the score is %v", fusion, i+1, l[2], want)
			}
			printed[i] = l[2]
		}
		for i := 1; i < len(printed); i++ {
			if resp.Hits[i].Score != resp.Hits[i-1].Score && printed[i] == printed[i-1] {
				t.Errorf("%s: ranks %d and %d score %v and %v, both print %s", fusion, i, i+1,
					resp.Hits[i-1].Score, resp.Hits[i].Score, printed[i])
			}
		}
	}
}

// While vectors are filled in the background, the text output says which
// share of the searched chunks has one; complete or degraded, it does not.
func TestPrintHits_VectorCoverage(t *testing.T) {
	for _, tc := range []struct {
		name     string
		resp     api.SearchResponse
		wantLine bool
	}{
		{"filling", api.SearchResponse{SearchResult: &api.SearchResult{VectorAvailable: true, VectorCoverage: api.NewVectorCoverage(200, 50)}}, true},
		{"complete", api.SearchResponse{SearchResult: &api.SearchResult{VectorAvailable: true, VectorCoverage: api.NewVectorCoverage(200, 200)}}, false},
		{"degraded", api.SearchResponse{SearchResult: &api.SearchResult{Degraded: true, Reason: "down", VectorCoverage: api.NewVectorCoverage(200, 50)}}, false},
		{"nothing to search", api.SearchResponse{SearchResult: &api.SearchResult{VectorAvailable: true}}, false},
	} {
		var b strings.Builder
		printHits(&b, &tc.resp, "")
		got := strings.Contains(b.String(), "50 of 200 searched chunks (25%) have a vector yet")
		if got != tc.wantLine {
			t.Errorf("%s: coverage line printed %v, want %v:\n%s", tc.name, got, tc.wantLine, b.String())
		}
	}
}

func TestBackfillText(t *testing.T) {
	eta := 90.0
	for _, tc := range []struct {
		b    api.BackfillProgress
		want string
	}{
		{api.BackfillProgress{Pending: 1}, "1 chunk (all projects) still without a vector, filled in the background"},
		{api.BackfillProgress{Filled: 7}, "every chunk has one (7 filled in the background since the daemon started)"},
		{api.BackfillProgress{Pending: 180, PerSecond: 2, ETASeconds: &eta}, "180 chunks (all projects) still without a vector, filled in the background at 2.0/s, about 1m30s left"},
		{api.BackfillProgress{Pending: 5, LastError: "ollama not reachable"}, "5 chunks (all projects) still without a vector, filled in the background; the provider gives none now (ollama not reachable), retrying"},
	} {
		if got := backfillText(&tc.b); got != tc.want {
			t.Errorf("backfillText(%+v) = %q, want %q", tc.b, got, tc.want)
		}
	}
}

// A reindex whose only gap is the vectors left to the background fill says
// so, not "NOT complete".
func TestPrintReport_DeferredVectors(t *testing.T) {
	ok := func(lexicalOnly, deferred, failed int) *api.ScopeReport {
		return &api.ScopeReport{Scope: "docs", Status: api.StatusOK, LexicalOnly: lexicalOnly,
			Embedding: api.EmbeddingReport{Deferred: deferred, Failed: failed}}
	}
	down := func(lexicalOnly int) *api.ScopeReport {
		sc := ok(lexicalOnly, 0, lexicalOnly)
		sc.Embedding.ProviderDown, sc.Embedding.Reason = true, "ollama not reachable"
		return sc
	}
	for _, tc := range []struct {
		name   string
		scopes []*api.ScopeReport
		want   string
	}{
		{"deferred", []*api.ScopeReport{ok(300, 300, 0), ok(0, 0, 0)}, "vectors follow in the background"},
		{"some vectors failed", []*api.ScopeReport{ok(300, 0, 300)}, "NOT complete"},
		// make run without Ollama: the expected path, not a failure.
		{"provider down", []*api.ScopeReport{down(14), ok(0, 0, 0), down(3)}, "written, searchable by keywords"},
		{"provider down and a scope failed", []*api.ScopeReport{down(14), {Scope: "adr", Status: api.StatusFailed}}, "NOT complete"},
		{"deferred and failed", []*api.ScopeReport{ok(300, 300, 0), ok(5, 0, 5)}, "NOT complete"},
		{"a scope failed", []*api.ScopeReport{ok(300, 300, 0), {Scope: "adr", Status: api.StatusFailed}}, "NOT complete"},
	} {
		var b strings.Builder
		printReport(&b, &api.Report{Project: "p", Scopes: tc.scopes})
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("%s: %q lacks %q", tc.name, b.String(), tc.want)
		}
	}
}
