package search

import (
	"strings"
	"testing"
)

func TestWeightedUnreliable(t *testing.T) {
	weighted := DefaultConfig()
	rrf := DefaultConfig()
	rrf.Fusion = FusionRRF
	lexical := DefaultConfig()
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
