package search

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ragd/ragd"
)

// DefaultMeasureWindow is how far back Measure looks unless told: a week of
// use is enough searches to say something, recent enough to be today's index.
const DefaultMeasureWindow = 7 * 24 * time.Hour

// DefaultMeasureK is the k of precision@k unless told: the hits a default
// answer shows (DefaultLimit).
const DefaultMeasureK = DefaultLimit

// MeasureRequest selects the searches a report covers.
type MeasureRequest struct {
	// ProjectID selects one project; 0 means every project. Project is its
	// name, which the report gives.
	ProjectID int64
	Project   string
	// Since (inclusive) and Until (exclusive) bound the window. Optional:
	// Until is now, Since is Until − DefaultMeasureWindow.
	Since, Until time.Time
	// K is the k of precision@k, 1..MaxLimit. Optional: DefaultMeasureK.
	K int
}

// maxSeriesBuckets bounds a series: about the points a chart a page wide
// draws legibly (a few pixels a bar). Longer windows get wider buckets.
const maxSeriesBuckets = 120

// maxListed is how many slowest and zero-hit queries a report lists: a
// table a person reads, not an export.
const maxListed = 10

// wilsonZ is the normal quantile of the precision intervals: 95%.
const wilsonZ = 1.959963984540054

// Measure reports on the searches of a window. It returns an error wrapping
// ragd.ErrInvalid for a bad window or k; a window whose searches all ran without
// vectors is not an error but ragd.MeasureReport.Failed.
func (s *Searcher) Measure(ctx context.Context, req MeasureRequest) (*ragd.MeasureReport, error) {
	if s.Store == nil {
		return nil, errors.New("measure: no store")
	}
	if req.Until.IsZero() {
		req.Until = s.now()
	}
	if req.Since.IsZero() {
		req.Since = req.Until.Add(-DefaultMeasureWindow)
	}
	if req.K == 0 {
		req.K = DefaultMeasureK
	}
	if req.K < 1 || req.K > MaxLimit {
		return nil, fmt.Errorf("measure: %w: k %d, want 1..%d", ragd.ErrInvalid, req.K, MaxLimit)
	}
	if !req.Since.Before(req.Until) {
		return nil, fmt.Errorf("measure: %w: window from %s to %s is empty", ragd.ErrInvalid,
			req.Since.Format(time.RFC3339), req.Until.Format(time.RFC3339))
	}
	if req.ProjectID < 0 {
		return nil, fmt.Errorf("measure: %w: project id %d", ragd.ErrInvalid, req.ProjectID)
	}
	w, err := s.Store.SearchTelemetry(ctx, ragd.TelemetryFilter{ProjectID: req.ProjectID, Since: req.Since, Until: req.Until})
	if err != nil {
		return nil, fmt.Errorf("measure: %w", err)
	}
	rep := measure(w, req.K, req.Since.UTC(), req.Until.UTC())
	rep.Project = req.Project
	return rep, nil
}

// measure computes a report from the rows of the window [since, until).
func measure(w ragd.TelemetryWindow, k int, since, until time.Time) *ragd.MeasureReport {
	votes := map[int64][]ragd.Vote{}
	for _, v := range w.Votes {
		votes[v.SearchID] = append(votes[v.SearchID], v)
	}
	var keys []string
	groups := map[string][]ragd.SearchSummary{}
	for _, r := range w.Searches { // by time: groups come out oldest first
		if _, ok := groups[r.Weights]; !ok {
			keys = append(keys, r.Weights)
		}
		groups[r.Weights] = append(groups[r.Weights], r)
	}
	rep := &ragd.MeasureReport{K: k, Since: since, Until: until, Total: stats(w.Searches, votes, k), Groups: []ragd.MeasureGroup{}}
	index := map[string]int{}
	for i, key := range keys {
		index[key] = i
		rep.Groups = append(rep.Groups, ragd.MeasureGroup{Weights: json.RawMessage(key), MeasureStats: stats(groups[key], votes, k)})
	}
	rep.BucketDays, rep.Series = series(w.Searches, votes, k, index, since, until)
	rep.Slowest, rep.ZeroHitQueries = listed(w.Searches, index)
	if t := rep.Total; t.Searches > 0 && t.VectorUnavailable == t.Searches {
		rep.Failed = true
		rep.FailReason = fmt.Sprintf("all %d searches of the window ran without a query vector: this measured the lexical half, not the hybrid search", t.Searches)
	}
	return rep
}

func stats(searches []ragd.SearchSummary, votes map[int64][]ragd.Vote, k int) ragd.MeasureStats {
	st := ragd.MeasureStats{Searches: len(searches), UsefulRanks: []ragd.RankCount{}}
	latencies := make([]float64, 0, len(searches))
	ranks := map[int]int{}
	for _, r := range searches {
		if r.Degraded {
			st.Degraded++
		}
		if !r.VectorAvailable {
			st.VectorUnavailable++
		}
		if r.Hits == 0 {
			st.ZeroHit++
		}
		latencies = append(latencies, r.LatencyMs)
		for _, v := range votes[r.ID] {
			st.Votes++
			useful := v.Verdict == string(VerdictUseful)
			if useful {
				ranks[v.Rank]++
			}
			if v.Rank <= k {
				st.Judged++
				if useful {
					st.Useful++
				}
			}
		}
	}
	st.DegradedShare = ratio(st.Degraded, st.Searches)
	st.ZeroHitShare = ratio(st.ZeroHit, st.Searches)
	st.PrecisionAtK = ratio(st.Useful, st.Judged)
	slices.Sort(latencies)
	st.LatencyP50Ms = percentile(latencies, 0.50)
	st.LatencyP95Ms = percentile(latencies, 0.95)
	for rank, n := range ranks {
		st.UsefulRanks = append(st.UsefulRanks, ragd.RankCount{Rank: rank, Count: n})
	}
	slices.SortFunc(st.UsefulRanks, func(a, b ragd.RankCount) int { return a.Rank - b.Rank })
	return st
}

// series splits the searches into buckets of whole UTC days, the first
// starting at since's midnight, clipped to [since, until).
func series(searches []ragd.SearchSummary, votes map[int64][]ragd.Vote, k int, index map[string]int, since, until time.Time) (int, []ragd.MeasureBucket) {
	day := 24 * time.Hour
	first := since.Truncate(day) // UTC: Truncate works in absolute time
	days := int((until.Sub(first) + day - 1) / day)
	width := max(1, (days+maxSeriesBuckets-1)/maxSeriesBuckets)
	var out []ragd.MeasureBucket
	for start := first; start.Before(until); start = start.Add(time.Duration(width) * day) {
		end := start.Add(time.Duration(width) * day)
		out = append(out, ragd.MeasureBucket{Start: maxTime(start, since), End: minTime(end, until)})
	}
	at := func(t time.Time) int { return int(t.Sub(first) / (time.Duration(width) * day)) }
	in := make([][]ragd.SearchSummary, len(out))
	for _, r := range searches {
		if i := at(r.CreatedAt); i >= 0 && i < len(out) {
			in[i] = append(in[i], r)
		}
	}
	for i := range out {
		b := &out[i]
		st := stats(in[i], votes, k)
		b.Searches, b.Degraded, b.DegradedShare, b.ZeroHit = st.Searches, st.Degraded, st.DegradedShare, st.ZeroHit
		b.LatencyP50Ms, b.LatencyP95Ms = st.LatencyP50Ms, st.LatencyP95Ms
		b.Precision = []ragd.GroupPrecision{}
		byGroup := map[int][]ragd.SearchSummary{}
		var order []int
		for _, r := range in[i] {
			g := index[r.Weights]
			if _, ok := byGroup[g]; !ok {
				order = append(order, g)
			}
			byGroup[g] = append(byGroup[g], r)
		}
		slices.Sort(order)
		for _, g := range order {
			gs := stats(byGroup[g], votes, k)
			low, high := wilson(gs.Useful, gs.Judged)
			b.Precision = append(b.Precision, ragd.GroupPrecision{Group: g, Judged: gs.Judged, Useful: gs.Useful,
				PrecisionAtK: gs.PrecisionAtK, Low: low, High: high})
		}
	}
	return width, out
}

// listed returns the slowest searches and the most repeated zero-hit
// queries, at most maxListed of each.
func listed(searches []ragd.SearchSummary, index map[string]int) ([]ragd.SearchLine, []ragd.ZeroHitQuery) {
	slowest := make([]ragd.SearchLine, 0, len(searches))
	zero := map[string]*ragd.ZeroHitQuery{}
	for _, r := range searches {
		slowest = append(slowest, ragd.SearchLine{ID: r.ID, At: r.CreatedAt.UTC(), Query: r.Query, LatencyMs: r.LatencyMs,
			Hits: r.Hits, Degraded: r.Degraded, Group: index[r.Weights]})
		if r.Hits == 0 {
			z, ok := zero[r.Query]
			if !ok {
				z = &ragd.ZeroHitQuery{Query: r.Query}
				zero[r.Query] = z
			}
			z.Count++
			z.Last = maxTime(z.Last, r.CreatedAt.UTC())
		}
	}
	// Stable: equal latencies keep time order, the earlier first.
	slices.SortStableFunc(slowest, func(a, b ragd.SearchLine) int { return cmp.Compare(b.LatencyMs, a.LatencyMs) })
	zeros := make([]ragd.ZeroHitQuery, 0, len(zero))
	for _, z := range zero {
		zeros = append(zeros, *z)
	}
	slices.SortFunc(zeros, func(a, b ragd.ZeroHitQuery) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		if c := b.Last.Compare(a.Last); c != 0 {
			return c
		}
		return strings.Compare(a.Query, b.Query)
	})
	return slowest[:min(len(slowest), maxListed)], zeros[:min(len(zeros), maxListed)]
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// wilson is the Wilson score interval of a proportion n/d at wilsonZ: unlike
// the normal approximation it stays within [0, 1] and is honest about 1/1.
// Both are nil when d is 0.
func wilson(n, d int) (low, high *float64) {
	if d == 0 {
		return nil, nil
	}
	p, nd, z2 := float64(n)/float64(d), float64(d), wilsonZ*wilsonZ
	centre := (p + z2/(2*nd)) / (1 + z2/nd)
	half := wilsonZ / (1 + z2/nd) * math.Sqrt(p*(1-p)/nd+z2/(4*nd*nd))
	return ptr(max(0, centre-half)), ptr(min(1, centre+half))
}

func ratio(n, d int) *float64 {
	if d == 0 {
		return nil
	}
	return ptr(float64(n) / float64(d))
}

// percentile is the nearest-rank percentile of sorted values: the smallest
// value at least a fraction p of the values do not exceed; nil for none.
func percentile(sorted []float64, p float64) *float64 {
	if len(sorted) == 0 {
		return nil
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return ptr(sorted[max(0, min(i, len(sorted)-1))])
}

// GroupLabel is a measured group's weight set (its frozen JSON,
// MeasureGroup.Weights) on one line ("weighted v=0.6 l=0.4 …"), or the JSON
// verbatim when it does not decode as weights.
func GroupLabel(weights json.RawMessage) string {
	var w Weights
	if err := json.Unmarshal(weights, &w); err != nil || w.Fusion == "" {
		return string(weights)
	}
	return w.String()
}
