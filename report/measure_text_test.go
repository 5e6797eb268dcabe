package report

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/search"
)

func f(x float64) *float64 { return &x }

// smallMeasure is a hand-made window: two weight sets, one without votes.
func smallMeasure() *api.MeasureReport {
	at := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	weighted, _ := json.Marshal(search.SeedConfig().Weights())
	return &api.MeasureReport{
		Project: "demo", Since: at, Until: at.Add(24 * time.Hour), K: 1,
		Total: api.MeasureStats{Searches: 5, Degraded: 2, DegradedShare: f(0.4), ZeroHit: 1, ZeroHitShare: f(0.2),
			LatencyP50Ms: f(20), LatencyP95Ms: f(40), Votes: 5, Judged: 2, Useful: 1, PrecisionAtK: f(0.5),
			UsefulRanks: []api.RankCount{{Rank: 1, Count: 1}, {Rank: 2, Count: 1}, {Rank: 8, Count: 1}}},
		Groups: []api.MeasureGroup{
			{Weights: weighted, MeasureStats: api.MeasureStats{Searches: 4, Judged: 2, Useful: 1, PrecisionAtK: f(0.5)}},
			{Weights: json.RawMessage(`{"fusion":"rrf","rrfK":60}`), MeasureStats: api.MeasureStats{Searches: 1}},
		},
		Slowest: []api.SearchLine{{ID: 4, At: at.Add(4 * time.Hour), Query: "why\nsqlite-vec", LatencyMs: 40, Hits: 8}},
		ZeroHitQueries: []api.ZeroHitQuery{
			{Query: "<script>alert(1)</script>", Count: 2, Last: at.Add(2 * time.Hour)},
		},
	}
}

func TestMeasureText(t *testing.T) {
	var b strings.Builder
	if err := MeasureText(&b, smallMeasure()); err != nil {
		t.Fatal(err)
	}
	table := b.String()
	for _, want := range []string{
		"project demo", "precision@1", "not measured", "0.50 (1/2)", "weighted v=0.6 l=0.4 t=0.2 saturate c=12", "rrf k=60",
		"total", "#1×1, #2×1, #8×1", "2 (40%)",
		"slowest searches:", `40.0 ms`, `"why\nsqlite-vec"`, // the newline quoted: one line per search
		"queries that found nothing:", `2×`, `"<script>alert(1)</script>"`,
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "FAILED") {
		t.Errorf("table says FAILED:\n%s", table)
	}
}

func TestMeasureText_EmptyAndFailed(t *testing.T) {
	at := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	var b strings.Builder
	empty := &api.MeasureReport{Since: at, Until: at.Add(time.Hour), K: 6}
	if err := MeasureText(&b, empty); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"all projects", "not measured", "—", "useful votes by rank: none"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("empty table lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "slowest") || strings.Contains(b.String(), "FAILED") {
		t.Errorf("empty table:\n%s", b.String())
	}
	b.Reset()
	empty.Failed, empty.FailReason = true, "all 2 searches of the window ran without a query vector"
	MeasureText(&b, empty)
	if !strings.Contains(b.String(), "FAILED: all 2 searches") {
		t.Errorf("failed table:\n%s", b.String())
	}
}

func TestOneLine(t *testing.T) {
	long := strings.Repeat("é", maxQueryRunes+5)
	if got := oneLine(long); !strings.HasSuffix(got, `"…`) || strings.Count(got, "é") != maxQueryRunes {
		t.Errorf("long query: %q", got)
	}
	if got := oneLine("a\tb"); got != `"a\tb"` {
		t.Errorf("tab: %q", got)
	}
}
