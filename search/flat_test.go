package search

import (
	"strings"
	"testing"
)

func TestWeightedUnreliable(t *testing.T) {
	weighted := SeedConfig() // raw cosine
	rrf := SeedConfig()
	rrf.Fusion = FusionRRF
	space := DefaultConfig() // cosine read against the random pairs
	lexical := SeedConfig()
	lexical.VectorWeight, lexical.LexicalWeight = 0.2, 0.8
	for _, tc := range []struct {
		name   string
		c      Config
		cosine float64
		want   bool
	}{
		{"spread space", weighted, 0.1, false},
		{"glove-100d", weighted, 0.87, true},
		{"use-lite", weighted, 0.63, true},
		{"just past the bound", weighted, 0.51, true},
		{"just short of it", weighted, 0.49, false},
		{"rrf compares ranks", rrf, 0.87, false},
		{"weights fitted", lexical, 0.87, false},
		{"e5-small-v2, raw cosine", weighted, 0.72, true},
		{"e5-small-v2, read against its random pairs", space, 0.72, false},
		{"glove-100d, read against its random pairs", space, 0.87, false},
		{"all-MiniLM-L6-v2, read against its random pairs", space, 0.05, false},
		{"every pair identical", space, 1, true},
	} {
		if got := tc.c.WeightedUnreliable(tc.cosine); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
		advice := tc.c.FlatSpaceAdvice("glove-100d/100", tc.cosine)
		if (advice != "") != tc.want || tc.want && (!strings.Contains(advice, "ragd calibrate") || !strings.Contains(advice, `fusion = "rrf"`)) {
			t.Errorf("%s: advice %q", tc.name, advice)
		}
	}
}
