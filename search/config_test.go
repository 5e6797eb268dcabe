package search

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestConfig_Validate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	for _, tc := range []struct {
		name string
		mut  func(*Config)
		want string
	}{
		{"zero value", func(c *Config) { *c = Config{} }, `fusion ""`},
		{"unknown fusion", func(c *Config) { c.Fusion = "sum" }, `fusion "sum"`},
		{"unknown normalization", func(c *Config) { c.Normalization = "log" }, `normalization "log"`},
		{"negative weight", func(c *Config) { c.VectorWeight = -0.1 }, "vectorWeight -0.1"},
		{"NaN weight", func(c *Config) { c.LexicalWeight = math.NaN() }, "lexicalWeight NaN"},
		{"infinite threshold", func(c *Config) { c.Threshold = math.Inf(1) }, "threshold +Inf"},
		{"both weights zero", func(c *Config) { c.VectorWeight, c.LexicalWeight = 0, 0 }, "both 0"},
		{"negative rrf k", func(c *Config) { c.RRFK = -1 }, "rrfK -1"},
		{"no candidates", func(c *Config) { c.Candidates = 0 }, "candidates 0"},
		{"too many candidates", func(c *Config) { c.Candidates = MaxCandidates + 1 }, "candidates 201"},
	} {
		c := DefaultConfig()
		tc.mut(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to say %q", tc.name, err, tc.want)
		}
	}
	// Every problem at once.
	err := Config{Candidates: -1, RRFK: -1}.Validate()
	for _, want := range []string{"fusion", "normalization", "rrfK", "candidates"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("zero config: %v lacks %s", err, want)
		}
	}
	// RRF ignores the weights, so zero weights are fine there.
	rrf := withConfig(func(c *Config) { c.Fusion = FusionRRF; c.VectorWeight, c.LexicalWeight = 0, 0 })
	if err := rrf.Validate(); err != nil {
		t.Errorf("rrf with zero weights: %v", err)
	}
}

// The seed's configuration is what ragd shipped first; evaluation reports
// it beside the default.
func TestSeedConfig(t *testing.T) {
	b, _ := json.Marshal(SeedConfig().Weights())
	const want = `{"vector":0.6,"lexical":0.4,"threshold":0.2,"fusion":"weighted","normalization":"saturate","rrfK":60,"candidates":12,"fill":false}`
	if string(b) != want {
		t.Errorf("seed %s\nwant %s", b, want)
	}
}

func TestConfig_Weights(t *testing.T) {
	c := DefaultConfig()
	w := c.Weights()
	c.VectorWeight, c.Fill = 0.1, true // a later change does not reach the copy
	b, _ := json.Marshal(w)
	const want = `{"vector":0.6,"lexical":0.4,"threshold":0.2,"fusion":"weighted","normalization":"space","rrfK":60,"candidates":50,"fill":true}`
	if string(b) != want {
		t.Errorf("weights %s\nwant %s", b, want)
	}
	if got := c.Weights().String(); got != "weighted v=0.1 l=0.4 t=0.2 space c=50 fill" {
		t.Errorf("String() = %q", got)
	}
}
