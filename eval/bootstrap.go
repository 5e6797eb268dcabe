package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Bootstrap configures paired bootstrap confidence intervals.
type Bootstrap struct {
	// Resamples of the queries, with replacement.
	Resamples int `json:"resamples"`
	// Seed makes the intervals reproducible.
	Seed uint64 `json:"seed"`
	// Level is the confidence level, e.g. 0.95.
	Level float64 `json:"level"`
}

// DefaultBootstrap is 2000 resamples, seed 1, 95%.
func DefaultBootstrap() Bootstrap { return Bootstrap{Resamples: 2000, Seed: 1, Level: 0.95} }

// Interval is the mean of paired differences and its bootstrap confidence
// interval.
type Interval struct {
	Mean float64 `json:"mean"`
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Excludes0 reports whether the interval lies wholly above or below 0.
func (iv Interval) Excludes0() bool { return iv.Low > 0 || iv.High < 0 }

// PairedBootstrap returns the mean of a[i] − b[i] and its percentile
// bootstrap interval: the queries are resampled with replacement
// bs.Resamples times with a generator seeded by bs.Seed, the mean
// difference of each resample is taken, and the interval runs from the
// (k+1)-th smallest to the (k+1)-th largest of those means, k =
// ⌊(1−Level)/2·Resamples⌋ (for 2000 resamples at 95%: the 51st from each
// end), so that b − a gives exactly the mirror of a − b. a and b must have
// the same length; with none, every field is NaN.
func PairedBootstrap(a, b []float64, bs Bootstrap) Interval {
	if len(a) != len(b) {
		panic(fmt.Sprintf("eval: paired bootstrap of %d and %d values", len(a), len(b)))
	}
	n := len(a)
	if n == 0 {
		return Interval{math.NaN(), math.NaN(), math.NaN()}
	}
	d := make([]float64, n)
	var sum float64
	for i := range a {
		d[i] = a[i] - b[i]
		sum += d[i]
	}
	iv := Interval{Mean: sum / float64(n)}
	resamples := max(1, bs.Resamples)
	rng := rand.New(rand.NewPCG(bs.Seed, 0x9e3779b97f4a7c15))
	means := make([]float64, resamples)
	for r := range means {
		var s float64
		for range n {
			s += d[rng.IntN(n)]
		}
		means[r] = s / float64(n)
	}
	slices.Sort(means)
	k := max(0, min(int(math.Floor((1-bs.Level)/2*float64(resamples))), (resamples-1)/2))
	iv.Low, iv.High = means[k], means[resamples-1-k]
	return iv
}

// Comparison is a paired comparison of two modes on one metric over the
// same queries: A − B.
type Comparison struct {
	A      string `json:"a"`
	B      string `json:"b"`
	Metric string `json:"metric"`
	// Part is the part of the queries compared ("train", "held-out"), ""
	// for all.
	Part string `json:"part,omitempty"`
	Interval
	// Verdict is "A better", "B better", or "no measured difference" when
	// the interval contains 0.
	Verdict string `json:"verdict"`
}

// Compare compares two results over the same retrievals on metric.
func Compare(a, b *ModeResult, metric string, bs Bootstrap) Comparison {
	return compareScores(a.Name, b.Name, a.Scores, b.Scores, metric, bs)
}

func compareScores(an, bn string, a, b []Scores, metric string, bs Bootstrap) Comparison {
	x, y := make([]float64, len(a)), make([]float64, len(b))
	for i := range a {
		x[i] = a[i].Get(metric)
	}
	for i := range b {
		y[i] = b[i].Get(metric)
	}
	c := Comparison{A: an, B: bn, Metric: metric, Interval: PairedBootstrap(x, y, bs)}
	switch {
	case c.Low > 0:
		c.Verdict = an + " better"
	case c.High < 0:
		c.Verdict = bn + " better"
	default:
		c.Verdict = "no measured difference"
	}
	return c
}
