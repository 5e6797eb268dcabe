package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/internal/testdb"
	"github.com/ragd/ragd/internal/testdb/sqlitedb"
	"github.com/ragd/ragd/store"
)

// window is a store seeded with telemetry rows at chosen times.
type window struct {
	st      *store.Store
	project int64
	chunks  []string // ids of 10 chunks, for hits
	base    time.Time
}

func newWindow(t *testing.T) *window {
	t.Helper()
	st := sqlitedb.OpenDims(t, 4)
	project := testdb.AddProject(t, st, "m", "/repos/m").ID
	var in []ragd.ChunkInput
	for i := range 10 {
		in = append(in, doc("docs/m.md", i, nil, fmt.Sprintf("chunk %d", i), nil))
	}
	testdb.Replace(t, st, project, ragd.ScopeDocs, in)
	chunks, _ := st.ScopeChunks(context.Background(), project, ragd.ScopeDocs)
	w := &window{st: st, project: project, base: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)}
	for _, c := range chunks {
		w.chunks = append(w.chunks, c.ID)
	}
	return w
}

var (
	setA = mustJSON(DefaultConfig().Weights())
	setB = mustJSON(withConfig(func(c *Config) { c.Fusion = FusionRRF }).Weights())
)

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// add records a search at base+hours with n hits and the given votes (by
// 1-based rank), and returns its id.
func (w *window) add(t *testing.T, hours float64, weights json.RawMessage, purpose string, vector bool, latency float64, n int, votes map[int]Verdict) int64 {
	t.Helper()
	return w.addQuery(t, "q", hours, weights, purpose, vector, latency, n, votes)
}

// addQuery is add with a query text.
func (w *window) addQuery(t *testing.T, query string, hours float64, weights json.RawMessage, purpose string, vector bool, latency float64, n int, votes map[int]Verdict) int64 {
	t.Helper()
	ctx := context.Background()
	var hits []ragd.TelemetryHit
	for i := range n {
		hits = append(hits, ragd.TelemetryHit{ChunkID: w.chunks[i], Rank: i + 1, Score: 0.5})
	}
	id, err := w.st.RecordSearch(ctx, ragd.SearchRecord{
		ProjectID: w.project, Query: query, Hits: hits, Weights: weights, Degraded: !vector, VectorAvailable: vector,
		LatencyMs: latency, Actor: "person", Purpose: purpose, CreatedAt: w.base.Add(time.Duration(hours * float64(time.Hour))),
	})
	if err != nil {
		t.Fatal(err)
	}
	for rank, v := range votes {
		if _, err := w.st.RecordFeedback(ctx, ragd.FeedbackInput{SearchID: id, ChunkID: w.chunks[rank-1], Verdict: string(v), Actor: "person"}); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

const (
	useful     = VerdictUseful
	irrelevant = VerdictIrrelevant
)

func TestMeasure(t *testing.T) {
	w := newWindow(t)
	// In the window [base, base+24h), weight set A:
	w.add(t, 1, setA, "search", true, 10, 3, map[int]Verdict{1: useful, 2: irrelevant})
	w.add(t, 2, setA, "search", false, 20, 0, nil) // degraded, zero hits
	w.add(t, 3, setA, "search", true, 30, 2, map[int]Verdict{1: irrelevant, 2: useful})
	w.add(t, 4, setA, "search", true, 40, 8, map[int]Verdict{8: useful}) // rank 8 > k: not judged
	// weight set B:
	w.add(t, 5, setB, "search", false, 5, 1, nil) // degraded
	// Never counted: an evaluation run, and searches outside the window.
	w.add(t, 6, setA, "eval", true, 1000, 3, map[int]Verdict{1: useful, 2: useful, 3: useful})
	w.add(t, -1, setB, "search", true, 1000, 3, map[int]Verdict{3: useful})
	w.add(t, 24, setB, "search", false, 1000, 3, map[int]Verdict{3: irrelevant})

	s := searcher(w.st, nil)
	rep, err := s.Measure(context.Background(), MeasureRequest{ProjectID: w.project, Project: "proj", Since: w.base, Until: w.base.Add(24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	// The report names the project, never its internal id (report's tests
	// check the table says so).
	if b, _ := json.Marshal(api.FromMeasureReport(rep)); rep.Project != "proj" || strings.Contains(string(b), "projectId") {
		t.Errorf("project %q, JSON %s", rep.Project, b)
	}
	f := ptr[float64]
	checkStats(t, "total", rep.Total, ragd.MeasureStats{
		Searches: 5, Degraded: 2, DegradedShare: f(0.4), VectorUnavailable: 2, ZeroHit: 1, ZeroHitShare: f(0.2),
		// latencies 5 10 20 30 40: p50 = 3rd, p95 = 5th (nearest rank).
		LatencyP50Ms: f(20), LatencyP95Ms: f(40),
		Votes: 5, Judged: 4, Useful: 2, PrecisionAtK: f(0.5),
		UsefulRanks: []ragd.RankCount{{Rank: 1, Count: 1}, {Rank: 2, Count: 1}, {Rank: 8, Count: 1}},
	})
	if len(rep.Groups) != 2 || string(rep.Groups[0].Weights) != string(setA) || string(rep.Groups[1].Weights) != string(setB) {
		t.Fatalf("groups %+v", rep.Groups)
	}
	checkStats(t, "set A", rep.Groups[0].MeasureStats, ragd.MeasureStats{
		Searches: 4, Degraded: 1, DegradedShare: f(0.25), VectorUnavailable: 1, ZeroHit: 1, ZeroHitShare: f(0.25),
		LatencyP50Ms: f(20), LatencyP95Ms: f(40), // 10 20 30 40: 2nd and 4th
		Votes: 5, Judged: 4, Useful: 2, PrecisionAtK: f(0.5),
		UsefulRanks: []ragd.RankCount{{Rank: 1, Count: 1}, {Rank: 2, Count: 1}, {Rank: 8, Count: 1}},
	})
	// No votes: precision is null ("not measured"), never 0.
	checkStats(t, "set B", rep.Groups[1].MeasureStats, ragd.MeasureStats{
		Searches: 1, Degraded: 1, DegradedShare: f(1), VectorUnavailable: 1, ZeroHit: 0, ZeroHitShare: f(0),
		LatencyP50Ms: f(5), LatencyP95Ms: f(5), UsefulRanks: []ragd.RankCount{},
	})
	if rep.Failed || rep.K != DefaultMeasureK {
		t.Errorf("failed %v k %d", rep.Failed, rep.K)
	}

	// k = 1 judges only rank-1 votes: one useful, one irrelevant.
	rep, _ = s.Measure(context.Background(), MeasureRequest{Since: w.base, Until: w.base.Add(24 * time.Hour), K: 1})
	if rep.Total.Judged != 2 || rep.Total.Useful != 1 || *rep.Total.PrecisionAtK != 0.5 || rep.Total.Searches != 5 {
		t.Errorf("k=1: %+v", rep.Total)
	}

	b, _ := json.Marshal(api.FromMeasureReport(rep))
	if !strings.Contains(string(b), `"precisionAtK":null`) || !strings.Contains(string(b), `"zeroHitShare":0,`) {
		t.Errorf("JSON %s", b)
	}
	if got := GroupLabel(rep.Groups[1].Weights); !strings.HasPrefix(got, "rrf k=60") {
		t.Errorf("label %q", got)
	}
	if got := GroupLabel(json.RawMessage(`{"x":1}`)); got != `{"x":1}` {
		t.Errorf("label of foreign weights %q", got)
	}
}

func checkStats(t *testing.T, name string, got, want ragd.MeasureStats) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("%s:\n got %s\nwant %s", name, g, w)
	}
}

func TestMeasure_Failed(t *testing.T) {
	w := newWindow(t)
	s := searcher(w.st, nil)
	day := MeasureRequest{Since: w.base, Until: w.base.Add(24 * time.Hour)}

	// An empty window measured nothing and did not fail.
	rep, err := s.Measure(context.Background(), day)
	if err != nil || rep.Failed || rep.Total.Searches != 0 || rep.Total.PrecisionAtK != nil || rep.Total.LatencyP50Ms != nil || rep.Total.DegradedShare != nil {
		t.Fatalf("empty window: %+v %v", rep, err)
	}
	if len(rep.Series) != 1 || rep.Series[0].Searches != 0 || rep.Series[0].LatencyP50Ms != nil || rep.Series[0].DegradedShare != nil ||
		len(rep.Series[0].Precision) != 0 || len(rep.Slowest) != 0 || len(rep.ZeroHitQueries) != 0 {
		t.Errorf("empty window's series and lists: %+v", rep)
	}

	// Every search without vectors: failed. An evaluation run with vectors
	// does not save it.
	w.add(t, 1, setA, "search", false, 10, 1, map[int]Verdict{1: useful})
	w.add(t, 2, setB, "search", false, 10, 0, nil)
	w.add(t, 3, setA, "eval", true, 10, 1, nil)
	rep, _ = s.Measure(context.Background(), day)
	if !rep.Failed || !strings.Contains(rep.FailReason, "lexical half") {
		t.Fatalf("all degraded: failed %v %q", rep.Failed, rep.FailReason)
	}

	// One hybrid search in the window is enough not to fail.
	w.add(t, 4, setA, "search", true, 10, 1, nil)
	rep, _ = s.Measure(context.Background(), day)
	if rep.Failed {
		t.Errorf("failed with one hybrid search: %q", rep.FailReason)
	}
}

func TestMeasure_Window(t *testing.T) {
	w := newWindow(t)
	now := w.base.Add(30 * 24 * time.Hour)
	s := searcher(w.st, nil)
	s.Now = func() time.Time { return now }
	w.add(t, 30*24-1, setA, "search", true, 10, 0, nil) // an hour ago
	w.add(t, 23*24-1, setA, "search", true, 10, 0, nil) // 7 days and an hour ago
	other := testdb.AddProject(t, w.st, "other", "/repos/other").ID
	if _, err := w.st.RecordSearch(context.Background(), ragd.SearchRecord{ProjectID: other, Query: "x", Weights: setA,
		Actor: "person", VectorAvailable: true, CreatedAt: now.Add(-time.Minute)}); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Measure(context.Background(), MeasureRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Until.Equal(now) || !rep.Since.Equal(now.Add(-7*24*time.Hour)) || rep.Total.Searches != 2 {
		t.Errorf("default window %s..%s: %d searches", rep.Since, rep.Until, rep.Total.Searches)
	}
	rep, _ = s.Measure(context.Background(), MeasureRequest{ProjectID: w.project})
	if rep.Total.Searches != 1 {
		t.Errorf("project filter: %d searches", rep.Total.Searches)
	}
	for _, req := range []MeasureRequest{
		{K: -1}, {K: MaxLimit + 1}, {Since: now, Until: now}, {Since: now, Until: now.Add(-time.Hour)}, {ProjectID: -1},
	} {
		if _, err := s.Measure(context.Background(), req); !errors.Is(err, ragd.ErrInvalid) {
			t.Errorf("%+v: %v", req, err)
		}
	}
}

func TestPercentile(t *testing.T) {
	var xs []float64
	for i := 1; i <= 20; i++ {
		xs = append(xs, float64(i))
	}
	for _, tc := range []struct {
		n        int
		p        float64
		want     float64
		wantNone bool
	}{
		{0, 0.5, 0, true},
		{1, 0.5, 1, false}, {1, 0.95, 1, false},
		{2, 0.5, 1, false}, {2, 0.95, 2, false},
		{20, 0.5, 10, false}, {20, 0.95, 19, false},
		{19, 0.95, 19, false}, {10, 0.5, 5, false}, {10, 0.95, 10, false},
	} {
		got := percentile(xs[:tc.n], tc.p)
		if (got == nil) != tc.wantNone || got != nil && *got != tc.want {
			t.Errorf("p%v of 1..%d = %s, want %v", tc.p*100, tc.n, show(got), tc.want)
		}
	}
	if !slices.IsSorted(xs) {
		t.Fatal("percentile sorted its input in place")
	}
}

func TestMeasure_Series(t *testing.T) {
	w := newWindow(t)
	h := func(n float64) time.Time { return w.base.Add(time.Duration(n * float64(time.Hour))) }
	w.addQuery(t, "early", 5, setA, "search", true, 999, 0, nil) // before the window
	w.addQuery(t, "alpha", 7, setA, "search", true, 10, 2, map[int]Verdict{1: useful})
	w.addQuery(t, "nothing", 8, setA, "search", false, 30, 0, nil)
	w.addQuery(t, "beta", 9, setB, "search", true, 20, 1, map[int]Verdict{1: irrelevant})
	// Nothing on day 1.
	w.addQuery(t, "nothing", 50, setA, "search", true, 50, 0, nil)
	w.addQuery(t, "void", 51, setA, "search", true, 50, 0, nil)
	w.addQuery(t, "gamma", 73, setB, "search", true, 5, 3, map[int]Verdict{1: useful, 2: useful, 3: irrelevant})

	s := searcher(w.st, nil)
	rep, err := s.Measure(context.Background(), MeasureRequest{Since: h(6), Until: h(74)})
	if err != nil {
		t.Fatal(err)
	}
	if rep.BucketDays != 1 || len(rep.Series) != 4 {
		t.Fatalf("bucket days %d, %d buckets, want 1 and 4", rep.BucketDays, len(rep.Series))
	}
	// The first and last buckets are clipped to the window.
	for i, want := range [][2]time.Time{{h(6), h(24)}, {h(24), h(48)}, {h(48), h(72)}, {h(72), h(74)}} {
		if b := rep.Series[i]; !b.Start.Equal(want[0]) || !b.End.Equal(want[1]) {
			t.Errorf("bucket %d: %s..%s, want %s..%s", i, b.Start, b.End, want[0], want[1])
		}
	}
	f := ptr[float64]
	low, high := wilson(1, 1)
	low0, high0 := wilson(0, 1)
	low3, high3 := wilson(2, 3)
	for i, want := range []ragd.MeasureBucket{
		{Searches: 3, Degraded: 1, DegradedShare: f(1.0 / 3), ZeroHit: 1, LatencyP50Ms: f(20), LatencyP95Ms: f(30),
			Precision: []ragd.GroupPrecision{{Group: 0, Judged: 1, Useful: 1, PrecisionAtK: f(1), Low: low, High: high},
				{Group: 1, Judged: 1, Useful: 0, PrecisionAtK: f(0), Low: low0, High: high0}}},
		{Precision: []ragd.GroupPrecision{}}, // a day without searches: no data, not zeros
		{Searches: 2, DegradedShare: f(0), ZeroHit: 2, LatencyP50Ms: f(50), LatencyP95Ms: f(50),
			Precision: []ragd.GroupPrecision{{Group: 0}}}, // searched, nothing judged: precision null
		{Searches: 1, DegradedShare: f(0), LatencyP50Ms: f(5), LatencyP95Ms: f(5),
			Precision: []ragd.GroupPrecision{{Group: 1, Judged: 3, Useful: 2, PrecisionAtK: f(2.0 / 3), Low: low3, High: high3}}},
	} {
		got := rep.Series[i]
		want.Start, want.End = got.Start, got.End
		g, _ := json.Marshal(got)
		ws, _ := json.Marshal(want)
		if string(g) != string(ws) {
			t.Errorf("bucket %d:\n got %s\nwant %s", i, g, ws)
		}
	}
	if string(rep.Groups[0].Weights) != string(setA) {
		t.Fatalf("group 0 is not set A")
	}

	var slow []string
	for _, l := range rep.Slowest {
		slow = append(slow, fmt.Sprintf("%s %.0f", l.Query, l.LatencyMs))
	}
	// Equal latencies keep time order.
	if want := []string{"nothing 50", "void 50", "nothing 30", "beta 20", "alpha 10", "gamma 5"}; !slices.Equal(slow, want) {
		t.Errorf("slowest %v, want %v", slow, want)
	}
	if l := rep.Slowest[2]; !l.Degraded || l.Hits != 0 || l.Group != 0 || !l.At.Equal(h(8)) || rep.Slowest[3].Group != 1 {
		t.Errorf("slowest line %+v", l)
	}
	if z := rep.ZeroHitQueries; len(z) != 2 || z[0].Query != "nothing" || z[0].Count != 2 || !z[0].Last.Equal(h(50)) ||
		z[1].Query != "void" || z[1].Count != 1 {
		t.Errorf("zero-hit queries %+v", z)
	}

	// A year's window: buckets widen so the series stays short, and tile
	// the window without gap or overlap.
	rep, err = s.Measure(context.Background(), MeasureRequest{Since: w.base, Until: w.base.Add(365 * 24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if rep.BucketDays != 4 || len(rep.Series) != 92 || len(rep.Series) > maxSeriesBuckets {
		t.Errorf("a year: %d-day buckets, %d of them", rep.BucketDays, len(rep.Series))
	}
	for i := 1; i < len(rep.Series); i++ {
		if !rep.Series[i].Start.Equal(rep.Series[i-1].End) {
			t.Fatalf("bucket %d starts at %s, the previous ends at %s", i, rep.Series[i].Start, rep.Series[i-1].End)
		}
	}
	if !rep.Series[0].Start.Equal(rep.Since) || !rep.Series[len(rep.Series)-1].End.Equal(rep.Until) {
		t.Errorf("series %s..%s, window %s..%s", rep.Series[0].Start, rep.Series[len(rep.Series)-1].End, rep.Since, rep.Until)
	}
	var n int
	for _, b := range rep.Series {
		n += b.Searches
	}
	if n != rep.Total.Searches {
		t.Errorf("series counts %d searches, total %d", n, rep.Total.Searches)
	}
}

func TestWilson(t *testing.T) {
	if l, h := wilson(0, 0); l != nil || h != nil {
		t.Errorf("0/0: %s %s, want none", show(l), show(h))
	}
	for _, tc := range []struct {
		n, d      int
		low, high float64
	}{
		{1, 1, 0.2065, 1}, {0, 1, 0, 0.7935}, {5, 10, 0.2366, 0.7634}, {50, 100, 0.4038, 0.5962},
	} {
		l, h := wilson(tc.n, tc.d)
		if math.Abs(*l-tc.low) > 5e-4 || math.Abs(*h-tc.high) > 5e-4 {
			t.Errorf("wilson(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", tc.n, tc.d, *l, *h, tc.low, tc.high)
		}
	}
}
