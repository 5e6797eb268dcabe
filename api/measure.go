package api

import (
	"encoding/json"
	"net/url"
	"strconv"
	"time"

	"github.com/ragd/ragd"
)

// MeasureQuery selects the window of GET /v1/measure. Every field is
// optional: the daemon's defaults are the last seven days of every project,
// and k = the default search limit.
type MeasureQuery struct {
	// Project names one project; "" means every project.
	Project string
	// Since and Until are RFC 3339 times or durations back from now ("7d",
	// "36h").
	Since, Until string
	// K is the k of precision@k; 0 means the default.
	K int
}

// Encode returns q as a query string, with its "?" ("" when q is empty).
func (q MeasureQuery) Encode() string {
	v := url.Values{}
	for _, kv := range [][2]string{{"project", q.Project}, {"since", q.Since}, {"until", q.Until}} {
		if kv[1] != "" {
			v.Set(kv[0], kv[1])
		}
	}
	if q.K != 0 {
		v.Set("k", strconv.Itoa(q.K))
	}
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

// MeasureReport is a measurement of the searches in a window (evaluation searches
// never count), in total and per frozen weight set.
type MeasureReport struct {
	// Project names the project measured; absent for every project.
	Project string       `json:"project,omitempty"`
	Since   time.Time    `json:"since"`
	Until   time.Time    `json:"until"`
	K       int          `json:"k"`
	Total   MeasureStats `json:"total"`
	// Groups splits the window by weight set, oldest first: a calibration
	// compares a group with the next.
	Groups []MeasureGroup `json:"groups"`
	// Failed is true for one reason only: the window has searches and none
	// had a query vector, so what was measured is the lexical half, not the
	// hybrid. Everything else is a report, not a failure.
	Failed     bool   `json:"failed"`
	FailReason string `json:"failReason,omitempty"`
	// BucketDays is the width of Series' buckets in UTC days: 1 unless the
	// window is longer than maxSeriesBuckets days.
	BucketDays int `json:"bucketDays"`
	// Series is the window bucket by bucket, oldest first: every bucket of
	// the window, those without searches too (their ratios null).
	Series []MeasureBucket `json:"series"`
	// Slowest are the window's slowest searches, slowest first (at most
	// maxListed).
	Slowest []SearchLine `json:"slowest"`
	// ZeroHitQueries are the queries of the window that found nothing, the
	// most often repeated first (at most maxListed).
	ZeroHitQueries []ZeroHitQuery `json:"zeroHitQueries"`
}

// MeasureBucket is the measurement of the searches of one bucket of the window:
// [Start, End), whole UTC days clipped to the window.
type MeasureBucket struct {
	Start         time.Time `json:"start"`
	End           time.Time `json:"end"`
	Searches      int       `json:"searches"`
	Degraded      int       `json:"degraded"`
	DegradedShare *float64  `json:"degradedShare"`
	ZeroHit       int       `json:"zeroHit"`
	LatencyP50Ms  *float64  `json:"latencyP50Ms"`
	LatencyP95Ms  *float64  `json:"latencyP95Ms"`
	// Precision is precision@k per weight set that ran in the bucket, in
	// Groups order.
	Precision []GroupPrecision `json:"precision"`
}

// GroupPrecision is precision@k of one weight set over some searches.
type GroupPrecision struct {
	// Group is the index of the weight set in MeasureReport.Groups.
	Group  int `json:"group"`
	Judged int `json:"judged"`
	Useful int `json:"useful"`
	// PrecisionAtK is Useful / Judged, null when nothing was judged;
	// Low and High its 95% Wilson score interval.
	PrecisionAtK *float64 `json:"precisionAtK"`
	Low          *float64 `json:"low"`
	High         *float64 `json:"high"`
}

// SearchLine is one search of the window.
type SearchLine struct {
	ID        int64     `json:"id"`
	At        time.Time `json:"at"`
	Query     string    `json:"query"`
	LatencyMs float64   `json:"latencyMs"`
	Hits      int       `json:"hits"`
	Degraded  bool      `json:"degraded"`
	// Group is the index of its weight set in MeasureReport.Groups.
	Group int `json:"group"`
}

// ZeroHitQuery is a query text that found nothing, and how often.
type ZeroHitQuery struct {
	Query string    `json:"query"`
	Count int       `json:"count"`
	Last  time.Time `json:"last"`
}

// MeasureGroup is the measurement of the searches that ran with one weight set.
type MeasureGroup struct {
	// Weights is the frozen JSON of the set, verbatim.
	Weights json.RawMessage `json:"weights"`
	MeasureStats
}

// MeasureStats are the figures of a set of searches. Ratios are nil (null) when
// their denominator is 0: not measured, never 0.
type MeasureStats struct {
	Searches int `json:"searches"`
	// Degraded counts searches that ran without a query vector.
	Degraded      int      `json:"degraded"`
	DegradedShare *float64 `json:"degradedShare"`
	// VectorUnavailable counts searches whose provider did not embed the
	// query.
	VectorUnavailable int `json:"vectorUnavailable"`
	// ZeroHit counts searches that returned no hit above the threshold.
	ZeroHit      int      `json:"zeroHit"`
	ZeroHitShare *float64 `json:"zeroHitShare"`
	// LatencyP50Ms and LatencyP95Ms are nearest-rank percentiles: the
	// smallest latency that at least 50% (95%) of the searches did not
	// exceed, i.e. sorted[ceil(p·n) − 1].
	LatencyP50Ms *float64 `json:"latencyP50Ms"`
	LatencyP95Ms *float64 `json:"latencyP95Ms"`
	// Votes counts every vote on these searches.
	Votes int `json:"votes"`
	// Judged counts votes on hits of rank ≤ k, Useful those that were
	// "useful". PrecisionAtK = Useful / Judged: a hit nobody voted on is
	// unknown, not irrelevant.
	Judged       int      `json:"judged"`
	Useful       int      `json:"useful"`
	PrecisionAtK *float64 `json:"precisionAtK"`
	// UsefulRanks is the rank distribution of "useful" votes, every rank:
	// the right chunk at rank 7 says the weights are wrong, not the index.
	UsefulRanks []RankCount `json:"usefulRanks"`
}

// RankCount is how many useful votes went to one rank.
type RankCount struct {
	Rank  int `json:"rank"`
	Count int `json:"count"`
}

// FromMeasureReport returns r on the wire; nil for nil.
func FromMeasureReport(r *ragd.MeasureReport) *MeasureReport {
	if r == nil {
		return nil
	}
	return &MeasureReport{
		Project: r.Project, Since: r.Since, Until: r.Until, K: r.K, Total: fromMeasureStats(r.Total),
		Groups: fromEach(r.Groups, fromMeasureGroup), Failed: r.Failed, FailReason: r.FailReason,
		BucketDays: r.BucketDays, Series: fromEach(r.Series, fromMeasureBucket),
		Slowest:        fromEach(r.Slowest, func(l ragd.SearchLine) SearchLine { return SearchLine(l) }),
		ZeroHitQueries: fromEach(r.ZeroHitQueries, func(z ragd.ZeroHitQuery) ZeroHitQuery { return ZeroHitQuery(z) }),
	}
}

func fromMeasureStats(s ragd.MeasureStats) MeasureStats {
	return MeasureStats{
		Searches: s.Searches, Degraded: s.Degraded, DegradedShare: s.DegradedShare,
		VectorUnavailable: s.VectorUnavailable, ZeroHit: s.ZeroHit, ZeroHitShare: s.ZeroHitShare,
		LatencyP50Ms: s.LatencyP50Ms, LatencyP95Ms: s.LatencyP95Ms, Votes: s.Votes,
		Judged: s.Judged, Useful: s.Useful, PrecisionAtK: s.PrecisionAtK,
		UsefulRanks: fromEach(s.UsefulRanks, func(r ragd.RankCount) RankCount { return RankCount(r) }),
	}
}

func fromMeasureGroup(g ragd.MeasureGroup) MeasureGroup {
	return MeasureGroup{Weights: g.Weights, MeasureStats: fromMeasureStats(g.MeasureStats)}
}

func fromMeasureBucket(b ragd.MeasureBucket) MeasureBucket {
	return MeasureBucket{
		Start: b.Start, End: b.End, Searches: b.Searches, Degraded: b.Degraded, DegradedShare: b.DegradedShare,
		ZeroHit: b.ZeroHit, LatencyP50Ms: b.LatencyP50Ms, LatencyP95Ms: b.LatencyP95Ms,
		Precision: fromEach(b.Precision, func(p ragd.GroupPrecision) GroupPrecision { return GroupPrecision(p) }),
	}
}
