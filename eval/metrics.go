package eval

import "math"

// Metric names.
const (
	NDCG10    = "ndcg@10"
	Recall6   = "recall@6"
	Recall10  = "recall@10"
	Recall100 = "recall@100"
	MRR10     = "mrr@10"
)

// Metrics lists the metric names in report order.
var Metrics = []string{NDCG10, Recall6, Recall10, Recall100, MRR10}

// ValidMetric reports whether name is one of Metrics.
func ValidMetric(name string) bool {
	for _, m := range Metrics {
		if m == name {
			return true
		}
	}
	return false
}

// maxUnits is the deepest rank any metric reads.
const maxUnits = 100

// DCG returns the discounted cumulative gain of the first k gains, in rank
// order: Σ gains[i] / log2(i+2) (rank i+1).
func DCG(gains []int, k int) float64 {
	var dcg float64
	for i := 0; i < k && i < len(gains); i++ {
		if gains[i] > 0 {
			dcg += float64(gains[i]) / math.Log2(float64(i+2))
		}
	}
	return dcg
}

// NDCG returns nDCG@k of a ranking whose units have the given gains, for a
// query whose relevant citations have the grades ideal (any order). It is
// NaN when ideal holds no positive grade: undefined, not 0.
func NDCG(gains, ideal []int, k int) float64 {
	best := idealGains(ideal)
	idcg := DCG(best, k)
	if idcg == 0 {
		return math.NaN()
	}
	return DCG(gains, k) / idcg
}

// idealGains returns the positive grades of ideal, best first.
func idealGains(ideal []int) []int {
	out := make([]int, 0, len(ideal))
	for _, g := range ideal {
		if g > 0 {
			out = append(out, g)
		}
	}
	// Insertion sort, descending: judgments per query are few.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] > out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// Recall returns recall@k: the units with a positive gain among the first
// k, over relevant (the number of relevant citations). It is NaN when
// relevant is 0.
func Recall(gains []int, relevant, k int) float64 {
	if relevant <= 0 {
		return math.NaN()
	}
	found := 0
	for i := 0; i < k && i < len(gains); i++ {
		if gains[i] > 0 {
			found++
		}
	}
	return float64(found) / float64(relevant)
}

// ReciprocalRank returns 1/rank of the first unit with a positive gain
// within the first k, 0 when there is none.
func ReciprocalRank(gains []int, k int) float64 {
	for i := 0; i < k && i < len(gains); i++ {
		if gains[i] > 0 {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// Scores are one query's metrics under one mode.
type Scores struct {
	NDCG10, Recall6, Recall10, Recall100, MRR10 float64
	// NoHit is set when the mode answered nothing: no hit above the
	// threshold (weighted fusion), or no candidate at all (RRF and single
	// signals, which have no threshold).
	NoHit bool
}

// score computes Scores from a judged ranking.
func score(gains, ideal []int, relevant int, noHit bool) Scores {
	return Scores{
		NDCG10:    NDCG(gains, ideal, 10),
		Recall6:   Recall(gains, relevant, 6),
		Recall10:  Recall(gains, relevant, 10),
		Recall100: Recall(gains, relevant, 100),
		MRR10:     ReciprocalRank(gains, 10),
		NoHit:     noHit,
	}
}

// Get returns the named metric.
func (s Scores) Get(metric string) float64 {
	switch metric {
	case NDCG10:
		return s.NDCG10
	case Recall6:
		return s.Recall6
	case Recall10:
		return s.Recall10
	case Recall100:
		return s.Recall100
	case MRR10:
		return s.MRR10
	}
	return math.NaN()
}
