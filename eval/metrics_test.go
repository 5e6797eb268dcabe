package eval

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestNDCGGradedByHand(t *testing.T) {
	// Ranking: grade 2, not relevant, grade 1. Judged relevant: grades 2, 1, 1
	// (one grade-1 citation never found).
	gains, ideal := []int{2, 0, 1}, []int{1, 2, 1}
	// DCG = 2/log2(2) + 0/log2(3) + 1/log2(4) = 2 + 0.5
	// IDCG = 2/log2(2) + 1/log2(3) + 1/log2(4) = 2 + 0.630929753571 + 0.5
	want := 2.5 / (2.5 + 1/math.Log2(3))
	if got := NDCG(gains, ideal, 10); !near(got, want) {
		t.Errorf("nDCG@10 = %.12f, want %.12f (≈0.798)", got, want)
	}
	if got := NDCG(gains, ideal, 1); !near(got, 1) {
		t.Errorf("nDCG@1 = %v, want 1 (the best unit first)", got)
	}
	// @2: DCG 2, IDCG 2 + 1/log2(3).
	if got, want := NDCG(gains, ideal, 2), 2/(2+1/math.Log2(3)); !near(got, want) {
		t.Errorf("nDCG@2 = %v, want %v", got, want)
	}
	// Linear gain: a grade-3 unit gains 3, not 2^3−1 = 7.
	if got, want := DCG([]int{3}, 10), 3.0; !near(got, want) {
		t.Errorf("DCG of one grade-3 unit = %v, want %v (linear gain)", got, want)
	}
	// A relevant unit beyond k counts nothing.
	if got := NDCG([]int{0, 0, 1}, []int{1}, 2); got != 0 {
		t.Errorf("nDCG@2 with the only relevant unit at rank 3 = %v, want 0", got)
	}
	// The perfect ranking scores 1 whatever the order of the ideal grades.
	if got := NDCG([]int{2, 1, 1}, []int{1, 1, 2}, 10); !near(got, 1) {
		t.Errorf("perfect ranking: nDCG = %v, want 1", got)
	}
}

func TestNDCGTiesOfEqualGrade(t *testing.T) {
	// Units of equal grade may come in any order: same nDCG.
	a := NDCG([]int{1, 0, 1, 2}, []int{1, 1, 2}, 10)
	b := NDCG([]int{1, 0, 1, 2}, []int{2, 1, 1}, 10)
	if !near(a, b) {
		t.Errorf("ideal order changed nDCG: %v vs %v", a, b)
	}
	c := NDCG([]int{2, 0, 1, 1}, []int{2, 1, 1}, 10)
	d := NDCG([]int{2, 0, 1, 1}, []int{2, 1, 1}, 10)
	if !near(c, d) {
		t.Errorf("swapping two grade-1 units changed nDCG: %v vs %v", c, d)
	}
}

func TestNoRelevantIsUndefined(t *testing.T) {
	if got := NDCG([]int{0, 0}, nil, 10); !math.IsNaN(got) {
		t.Errorf("nDCG without relevant citations = %v, want NaN (excluded, not 0)", got)
	}
	if got := NDCG([]int{0}, []int{0, 0}, 10); !math.IsNaN(got) {
		t.Errorf("nDCG with only grade-0 judgments = %v, want NaN", got)
	}
	if got := Recall([]int{1}, 0, 10); !math.IsNaN(got) {
		t.Errorf("recall without relevant citations = %v, want NaN", got)
	}
}

func TestRecallAndMRRByHand(t *testing.T) {
	gains := []int{0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1}
	for _, c := range []struct {
		k    int
		want float64
	}{{1, 0}, {2, 1.0 / 3}, {6, 1.0 / 3}, {7, 2.0 / 3}, {100, 1}} {
		if got := Recall(gains, 3, c.k); !near(got, c.want) {
			t.Errorf("recall@%d = %v, want %v", c.k, got, c.want)
		}
	}
	if got := ReciprocalRank(gains, 10); !near(got, 0.5) {
		t.Errorf("MRR@10 = %v, want 0.5 (first relevant at rank 2)", got)
	}
	if got := ReciprocalRank([]int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 10); got != 0 {
		t.Errorf("MRR@10 with the first relevant at rank 11 = %v, want 0", got)
	}
	if got := ReciprocalRank(nil, 10); got != 0 {
		t.Errorf("MRR of an empty ranking = %v, want 0", got)
	}
}

func TestPairedBootstrapKnownCases(t *testing.T) {
	bs := DefaultBootstrap()
	// Every pair differs by 0.25: every resample's mean is 0.25.
	iv := PairedBootstrap([]float64{1, 0.5, 0.25}, []float64{0.75, 0.25, 0}, bs)
	if !near(iv.Mean, 0.25) || !near(iv.Low, 0.25) || !near(iv.High, 0.25) {
		t.Errorf("constant differences: %+v, want 0.25 [0.25, 0.25]", iv)
	}
	// Two queries with differences 0 and 1: a resample's mean is 0, 0.5 or
	// 1 with probability 1/4, 1/2, 1/4, so the 2.5% and 97.5% quantiles of
	// 2000 resamples are 0 and 1.
	iv = PairedBootstrap([]float64{0, 1}, []float64{0, 0}, bs)
	if iv.Mean != 0.5 || iv.Low != 0 || iv.High != 1 {
		t.Errorf("differences {0, 1}: %+v, want 0.5 [0, 1]", iv)
	}
	if iv.Excludes0() {
		t.Error("[0, 1] excludes 0")
	}
	// Reproducible with the seed, and antisymmetric.
	a := []float64{0.9, 0.1, 0.4, 0.7, 0.3, 0.8, 0.2}
	b := []float64{0.5, 0.2, 0.4, 0.1, 0.3, 0.6, 0.0}
	x, y := PairedBootstrap(a, b, bs), PairedBootstrap(a, b, bs)
	if x != y {
		t.Errorf("same seed, different intervals: %+v vs %+v", x, y)
	}
	z := PairedBootstrap(b, a, bs)
	if !near(z.Mean, -x.Mean) || !near(z.Low, -x.High) || !near(z.High, -x.Low) {
		t.Errorf("b − a = %+v is not the mirror of a − b = %+v", z, x)
	}
	if !(x.Low <= x.Mean && x.Mean <= x.High) {
		t.Errorf("interval %+v does not hold the mean", x)
	}
	if !x.Excludes0() {
		t.Errorf("a is better on 4 of 7 queries and never worse: %+v should exclude 0", x)
	}
	if other := PairedBootstrap(a, b, Bootstrap{Resamples: 2000, Seed: 2, Level: 0.95}); other == x {
		t.Logf("seed 2 gave the same interval (possible, unlikely): %+v", other)
	}
}

func TestCompareVerdicts(t *testing.T) {
	better := []Scores{{NDCG10: 1}, {NDCG10: 0.8}, {NDCG10: 0.9}}
	worse := []Scores{{NDCG10: 0.5}, {NDCG10: 0.4}, {NDCG10: 0.6}}
	c := compareScores("hybrid", "lexical", better, worse, NDCG10, DefaultBootstrap())
	if c.Verdict != "hybrid better" || c.A != "hybrid" || c.B != "lexical" {
		t.Errorf("comparison %+v, want hybrid better", c)
	}
	c = compareScores("lexical", "hybrid", worse, better, NDCG10, DefaultBootstrap())
	if c.Verdict != "hybrid better" {
		t.Errorf("reversed comparison %+v, want hybrid better", c)
	}
	same := compareScores("a", "b", []Scores{{NDCG10: 1}, {NDCG10: 0}}, []Scores{{NDCG10: 0}, {NDCG10: 1}}, NDCG10, DefaultBootstrap())
	if same.Verdict != "no measured difference" {
		t.Errorf("mixed comparison %+v, want no measured difference", same)
	}
}
