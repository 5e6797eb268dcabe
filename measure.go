package ragd

import (
	"encoding/json"
	"time"
)

// A measurement of the searches of a window (package search measures it;
// the measure route sends it).

// MeasureReport is a measurement of the searches in a window (evaluation searches
// never count), in total and per frozen weight set.
type MeasureReport struct {
	// Project names the project measured; "" for every project.
	Project string
	Since   time.Time
	Until   time.Time
	K       int
	Total   MeasureStats
	// Groups splits the window by weight set, oldest first: a calibration
	// compares a group with the next.
	Groups []MeasureGroup
	// Failed is true for one reason only: the window has searches and none
	// had a query vector, so what was measured is the lexical half, not the
	// hybrid. Everything else is a report, not a failure.
	Failed     bool
	FailReason string
	// BucketDays is the width of Series' buckets in UTC days: 1 unless the
	// window is longer than maxSeriesBuckets days.
	BucketDays int
	// Series is the window bucket by bucket, oldest first: every bucket of
	// the window, those without searches too (their ratios nil).
	Series []MeasureBucket
	// Slowest are the window's slowest searches, slowest first (at most
	// maxListed).
	Slowest []SearchLine
	// ZeroHitQueries are the queries of the window that found nothing, the
	// most often repeated first (at most maxListed).
	ZeroHitQueries []ZeroHitQuery
}

// MeasureBucket is the measurement of the searches of one bucket of the window:
// [Start, End), whole UTC days clipped to the window.
type MeasureBucket struct {
	Start         time.Time
	End           time.Time
	Searches      int
	Degraded      int
	DegradedShare *float64
	ZeroHit       int
	LatencyP50Ms  *float64
	LatencyP95Ms  *float64
	// Precision is precision@k per weight set that ran in the bucket, in
	// Groups order.
	Precision []GroupPrecision
}

// GroupPrecision is precision@k of one weight set over some searches.
type GroupPrecision struct {
	// Group is the index of the weight set in MeasureReport.Groups.
	Group  int
	Judged int
	Useful int
	// PrecisionAtK is Useful / Judged, nil when nothing was judged;
	// Low and High its 95% Wilson score interval.
	PrecisionAtK *float64
	Low          *float64
	High         *float64
}

// SearchLine is one search of the window.
type SearchLine struct {
	ID        int64
	At        time.Time
	Query     string
	LatencyMs float64
	Hits      int
	Degraded  bool
	// Group is the index of its weight set in MeasureReport.Groups.
	Group int
}

// ZeroHitQuery is a query text that found nothing, and how often.
type ZeroHitQuery struct {
	Query string
	Count int
	Last  time.Time
}

// MeasureGroup is the measurement of the searches that ran with one weight set.
type MeasureGroup struct {
	// Weights is the frozen JSON of the set, verbatim.
	Weights json.RawMessage
	MeasureStats
}

// MeasureStats are the figures of a set of searches. Ratios are nil when
// their denominator is 0: not measured, never 0.
type MeasureStats struct {
	Searches int
	// Degraded counts searches that ran without a query vector.
	Degraded      int
	DegradedShare *float64
	// VectorUnavailable counts searches whose provider did not embed the
	// query.
	VectorUnavailable int
	// ZeroHit counts searches that returned no hit above the threshold.
	ZeroHit      int
	ZeroHitShare *float64
	// LatencyP50Ms and LatencyP95Ms are nearest-rank percentiles: the
	// smallest latency that at least 50% (95%) of the searches did not
	// exceed, i.e. sorted[ceil(p·n) − 1].
	LatencyP50Ms *float64
	LatencyP95Ms *float64
	// Votes counts every vote on these searches.
	Votes int
	// Judged counts votes on hits of rank ≤ k, Useful those that were
	// "useful". PrecisionAtK = Useful / Judged: a hit nobody voted on is
	// unknown, not irrelevant.
	Judged       int
	Useful       int
	PrecisionAtK *float64
	// UsefulRanks is the rank distribution of "useful" votes, every rank:
	// the right chunk at rank 7 says the weights are wrong, not the index.
	UsefulRanks []RankCount
}

// RankCount is how many useful votes went to one rank.
type RankCount struct {
	Rank  int
	Count int
}
