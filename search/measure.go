package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/store"
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

// Measure reports on the searches of a window. It returns an error wrapping
// ragd.ErrInvalid for a bad window or k; a window whose searches all ran without
// vectors is not an error but api.MeasureReport.Failed.
func (s *Searcher) Measure(ctx context.Context, req MeasureRequest) (*api.MeasureReport, error) {
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
	w, err := s.Store.SearchTelemetry(ctx, store.TelemetryFilter{ProjectID: req.ProjectID, Since: req.Since, Until: req.Until})
	if err != nil {
		return nil, fmt.Errorf("measure: %w", err)
	}
	rep := measure(w, req.K)
	rep.Project, rep.Since, rep.Until = req.Project, req.Since.UTC(), req.Until.UTC()
	return rep, nil
}

// measure computes a report from a window's rows.
func measure(w store.TelemetryWindow, k int) *api.MeasureReport {
	votes := map[int64][]store.Vote{}
	for _, v := range w.Votes {
		votes[v.SearchID] = append(votes[v.SearchID], v)
	}
	var keys []string
	groups := map[string][]store.SearchSummary{}
	for _, r := range w.Searches { // by time: groups come out oldest first
		if _, ok := groups[r.Weights]; !ok {
			keys = append(keys, r.Weights)
		}
		groups[r.Weights] = append(groups[r.Weights], r)
	}
	rep := &api.MeasureReport{K: k, Total: stats(w.Searches, votes, k), Groups: []api.MeasureGroup{}}
	for _, key := range keys {
		rep.Groups = append(rep.Groups, api.MeasureGroup{Weights: json.RawMessage(key), MeasureStats: stats(groups[key], votes, k)})
	}
	if t := rep.Total; t.Searches > 0 && t.VectorUnavailable == t.Searches {
		rep.Failed = true
		rep.FailReason = fmt.Sprintf("all %d searches of the window ran without a query vector: this measured the lexical half, not the hybrid search", t.Searches)
	}
	return rep
}

func stats(searches []store.SearchSummary, votes map[int64][]store.Vote, k int) api.MeasureStats {
	st := api.MeasureStats{Searches: len(searches), UsefulRanks: []api.RankCount{}}
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
		st.UsefulRanks = append(st.UsefulRanks, api.RankCount{Rank: rank, Count: n})
	}
	slices.SortFunc(st.UsefulRanks, func(a, b api.RankCount) int { return a.Rank - b.Rank })
	return st
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

// WriteMeasureTable writes r as a table for people: one row per weight set and a
// total, then the rank distribution of useful votes, then the verdict.
func WriteMeasureTable(w io.Writer, r *api.MeasureReport) error {
	var b strings.Builder
	project := "all projects"
	if r.Project != "" {
		project = "project " + r.Project
	}
	fmt.Fprintf(&b, "searches from %s to %s, %s (evaluation runs excluded)\n\n",
		r.Since.Format(time.RFC3339), r.Until.Format(time.RFC3339), project)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "weights\tsearches\tdegraded\tzero-hit\tp50 ms\tp95 ms\tprecision@%d\tjudged\tvotes\n", r.K)
	row := func(name string, s api.MeasureStats) {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%d\t%d\n", name, s.Searches,
			share(s.Degraded, s.DegradedShare), share(s.ZeroHit, s.ZeroHitShare),
			ms(s.LatencyP50Ms), ms(s.LatencyP95Ms), precision(s), s.Judged, s.Votes)
	}
	for _, g := range r.Groups {
		row(weightsLabel(g.Weights), g.MeasureStats)
	}
	row("total", r.Total)
	tw.Flush()

	b.WriteString("\nuseful votes by rank: ")
	if len(r.Total.UsefulRanks) == 0 {
		b.WriteString("none")
	}
	for i, rc := range r.Total.UsefulRanks {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "#%d×%d", rc.Rank, rc.Count)
	}
	b.WriteString("\n")
	if r.Failed {
		fmt.Fprintf(&b, "\nFAILED: %s\n", r.FailReason)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func weightsLabel(raw json.RawMessage) string {
	var w Weights
	if err := json.Unmarshal(raw, &w); err != nil || w.Fusion == "" {
		return string(raw)
	}
	return w.String()
}

func share(n int, s *float64) string {
	if s == nil {
		return "—"
	}
	return fmt.Sprintf("%d (%.0f%%)", n, *s*100)
}

func ms(v *float64) string {
	if v == nil {
		return "—"
	}
	return strconv.FormatFloat(*v, 'f', 1, 64)
}

func precision(s api.MeasureStats) string {
	if s.PrecisionAtK == nil {
		return "not measured"
	}
	return fmt.Sprintf("%.2f (%d/%d)", *s.PrecisionAtK, s.Useful, s.Judged)
}
