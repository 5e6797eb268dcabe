package search

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ragd/ragd"
)

// Fusion names how the vector and lexical candidate lists become one ranking.
type Fusion string

// Fusions.
const (
	// FusionWeighted scores a chunk VectorWeight·vector + LexicalWeight·lexical
	// and drops it below Threshold.
	FusionWeighted Fusion = ragd.FusionWeighted
	// FusionRRF scores a chunk Σ 1/(RRFK + rank) over the lists that hold it.
	FusionRRF Fusion = ragd.FusionRRF
)

// Normalization names how the lexical signal (s, the store's lexical
// score: SQLite's −bm25) is put on a 0..1 scale before weighted fusion.
type Normalization string

// Normalizations.
const (
	// NormSaturate maps s to s/(s+1): the seed's ts_rank normalisation. It
	// needs no other candidate, so a score means the same in every query.
	// Unlike ts_rank, which rarely passed 0.3, bm25 gives s ≥ 1 (0.5 or more
	// after saturation) for a good match in a corpus of any size, so a
	// keyword-only hit can pass the threshold on its own.
	NormSaturate Normalization = "saturate"
	// NormMax maps s to s divided by the query's best s: the best lexical
	// candidate scores 1.
	NormMax Normalization = "max"
	// NormMinMax maps both signals to (x − min)/(max − min) over the
	// candidates: the best scores 1, the worst 0. When every candidate of a
	// signal has the same value, each scores 1: a lone or tied candidate is
	// the best that signal found, and 0 would drop a keyword-only hit.
	NormMinMax Normalization = "minmax"
	// NormSpace reads each signal from chance to the query's best match,
	// the default. The cosine c becomes (c − b)/(best − b), at least 0: b
	// is the mean cosine of random chunk pairs in the space (Candidates.
	// Baseline, which ragd measures), best the query's best cosine among
	// the candidates. An unrelated chunk scores about 0 in every model,
	// whether its raw cosines sit near 0.1 (all-MiniLM-L6-v2) or 0.8
	// (e5-small-v2), and the nearest chunk 1. The lexical score s becomes s
	// over the query's best, as NormMax: bm25 has no fixed top either. Each
	// signal's best candidate scoring 1, the weights weigh the two signals'
	// opinions on one scale.
	NormSpace Normalization = "space"
	// NormChance reads cosine from chance to identity: c becomes
	// (c − b)/(1 − b), at least 0, b the random-pair mean as for NormSpace.
	// Unlike NormSpace it does not stretch the query's best to 1: a query
	// whose nearest chunk sits near chance (an off-topic question) has no
	// strong vector opinion, and the threshold keeps it out. The lexical
	// score is s over the query's best, as NormMax.
	NormChance Normalization = "chance"
)

// Defaults of Config: the seed's starting points, not calibrated values.
// `ragd calibrate` and `ragd measure` exist to replace them with data.
const (
	// DefaultVectorWeight: cosine similarity of a relevant pair sits around
	// 0.5–0.85 while the seed's lexical scale sat lower; the vector side
	// weighs more without erasing the lexical one.
	DefaultVectorWeight = 0.6
	// DefaultLexicalWeight: the rest of 1, so scores stay on a 0..1 scale.
	DefaultLexicalWeight = 0.4
	// DefaultThreshold: below it "found something weak" and "found nothing"
	// look the same to a reader, and a weak citation served as a strong one
	// is worse than none.
	DefaultThreshold = 0.2
	// DefaultRRFK is the usual RRF constant: it flattens the gap between
	// neighbouring ranks so two lists add up without comparing raw scores.
	DefaultRRFK = 60
	// DefaultCandidates per signal: deep enough that a chunk one signal
	// ranks well and the other only fairly is in the union (with fill,
	// scored on both), cheap for both indexes (fill scores at most 100
	// chunks). On SciFact's training queries depths 12 to 100 scored
	// within 0.002 nDCG@10 of each other (docs/quality.md); a larger
	// corpus has more near misses to bring in.
	DefaultCandidates = 50
	// DefaultLimit is the number of hits a search returns unless asked: a
	// handful of citations a reader can check in seconds.
	DefaultLimit = 6
	// MaxLimit bounds the hits of one search (ragd.MaxSearchLimit).
	MaxLimit = ragd.MaxSearchLimit
	// MaxCandidates bounds Candidates: fill scores every candidate one by
	// one, and a candidate list far beyond the limit buys nothing.
	MaxCandidates = 200
	// MaxQueryLength is the longest query, in characters after trimming
	// (ragd.MaxQueryLength).
	MaxQueryLength = ragd.MaxQueryLength
)

// Config is the fusion configuration of a search. Its zero value is not
// valid: start from DefaultConfig. The toml names are the keys of the
// [search] section of ragd's configuration file, which embeds Config.
type Config struct {
	Fusion Fusion `json:"fusion" toml:"fusion"`
	// VectorWeight and LexicalWeight weigh the two signals in weighted
	// fusion. RRF ignores them.
	VectorWeight  float64 `json:"vectorWeight" toml:"vector_weight"`
	LexicalWeight float64 `json:"lexicalWeight" toml:"lexical_weight"`
	// Threshold drops weighted-fusion hits scoring below it. RRF has no
	// threshold: its scores live around 1/(RRFK+1) ≈ 0.016 whatever the
	// match quality, so a cut on them would mean nothing; RRF returns the
	// best Limit candidates.
	Threshold float64 `json:"threshold" toml:"threshold"`
	// RRFK is the constant k of 1/(k + rank).
	RRFK int `json:"rrfK" toml:"rrf_k"`
	// Candidates is how many chunks each signal contributes before fusion;
	// a search asking for more hits uses its limit instead (Depth).
	Candidates    int           `json:"candidates" toml:"candidates"`
	Normalization Normalization `json:"normalization" toml:"normalization"`
	// Fill scores every candidate on both signals (cosine from its stored
	// vector, the lexical score restricted to the candidates) instead of
	// counting a signal that did not list the chunk as absent. In RRF, filled scores are
	// reported but ranks remain those of the candidate lists.
	Fill bool `json:"fill" toml:"fill"`
}

// DefaultConfig returns the default configuration: the seed's weighted
// fusion 0.6/0.4 with threshold 0.2, over DefaultCandidates per signal,
// each signal read against chance (NormSpace), and fill, so that every
// candidate is scored on both signals and a chunk without a vector is
// scored by the lexical signal alone (Fuse).
func DefaultConfig() Config {
	return Config{
		Fusion:        FusionWeighted,
		VectorWeight:  DefaultVectorWeight,
		LexicalWeight: DefaultLexicalWeight,
		Threshold:     DefaultThreshold,
		RRFK:          DefaultRRFK,
		Candidates:    DefaultCandidates,
		Normalization: NormSpace,
		Fill:          true,
	}
}

// SeedConfig returns the seed's configuration as it shipped: weighted
// 0.6/0.4, threshold 0.2, 12 candidates per signal, the saturated lexical
// score s/(s+1), raw cosine, no fill. Evaluation reports it beside the
// default.
func SeedConfig() Config {
	c := DefaultConfig()
	c.Candidates, c.Normalization, c.Fill = seedCandidates, NormSaturate, false
	return c
}

// seedCandidates is the seed's candidates per signal.
const seedCandidates = 12

// Depth returns the candidates per signal of a search asking for limit
// hits: Candidates, or the limit when it asks for more. A lexical-only
// answer has no other list to fill it, and the limit's range is a promise.
func (c Config) Depth(limit int) int { return max(c.Candidates, limit) }

// Fusions lists every fusion, the default first. Validation, help texts, the
// configuration template and evaluation derive from it: a new fusion is a
// constant, an entry here and its case in Fuse.
var Fusions = func() []Fusion {
	var out []Fusion
	for _, f := range ragd.Fusions() {
		out = append(out, Fusion(f))
	}
	return out
}()

// readsBaseline reports whether n reads cosine against the space's
// random-pair mean (Candidates.Baseline), which a search then measures.
func (n Normalization) readsBaseline() bool { return n == NormSpace || n == NormChance }

// Normalizations lists every lexical normalisation, the default first; the
// calibration grid tries each.
var Normalizations = []Normalization{NormSpace, NormSaturate, NormMax, NormMinMax, NormChance}

// ValidFusion reports whether f names a fusion.
func ValidFusion(f Fusion) bool { return slices.Contains(Fusions, f) }

// ValidNormalization reports whether n names a normalisation.
func ValidNormalization(n Normalization) bool { return slices.Contains(Normalizations, n) }

// FusionChoices lists the fusions for a help text: "weighted | rrf".
func FusionChoices() string { return choices(Fusions, " | ") }

// NormalizationChoices lists the normalisations for a help text.
func NormalizationChoices() string { return choices(Normalizations, " | ") }

func choices[T ~string](xs []T, sep string) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = string(x)
	}
	return strings.Join(s, sep)
}

// oneOf lists xs quoted for an error message: "a", "b" or "c".
func oneOf[T ~string](xs []T) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(string(x))
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// Validate reports every problem of c at once, each naming the field and the
// value.
func (c Config) Validate() error {
	var errs []error
	if !ValidFusion(c.Fusion) {
		errs = append(errs, fmt.Errorf("fusion %q: want %s", c.Fusion, oneOf(Fusions)))
	}
	if !ValidNormalization(c.Normalization) {
		errs = append(errs, fmt.Errorf("normalization %q: want %s", c.Normalization, oneOf(Normalizations)))
	}
	for _, w := range []struct {
		name string
		v    float64
	}{{"vectorWeight", c.VectorWeight}, {"lexicalWeight", c.LexicalWeight}, {"threshold", c.Threshold}} {
		if math.IsNaN(w.v) || math.IsInf(w.v, 0) || w.v < 0 {
			errs = append(errs, fmt.Errorf("%s %v: want a finite number ≥ 0", w.name, w.v))
		}
	}
	if c.Fusion == FusionWeighted && c.VectorWeight == 0 && c.LexicalWeight == 0 {
		errs = append(errs, errors.New("vectorWeight and lexicalWeight are both 0: weighted fusion would score every hit 0"))
	}
	if c.RRFK < 0 {
		errs = append(errs, fmt.Errorf("rrfK %d: want ≥ 0", c.RRFK))
	}
	if c.Candidates < 1 || c.Candidates > MaxCandidates {
		errs = append(errs, fmt.Errorf("candidates %d: want 1..%d", c.Candidates, MaxCandidates))
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid search config: %w", errors.Join(errs...))
	}
	return nil
}

// Weights is the fusion configuration as frozen into each telemetry row:
// a value copied at search time, so that changing the configuration later
// never changes what an old row means.
type Weights struct {
	Vector        float64       `json:"vector"`
	Lexical       float64       `json:"lexical"`
	Threshold     float64       `json:"threshold"`
	Fusion        Fusion        `json:"fusion"`
	Normalization Normalization `json:"normalization"`
	RRFK          int           `json:"rrfK"`
	Candidates    int           `json:"candidates"`
	Fill          bool          `json:"fill"`
}

// Weights returns a fresh copy of c's fusion settings.
func (c Config) Weights() Weights {
	return Weights{
		Vector:        c.VectorWeight,
		Lexical:       c.LexicalWeight,
		Threshold:     c.Threshold,
		Fusion:        c.Fusion,
		Normalization: c.Normalization,
		RRFK:          c.RRFK,
		Candidates:    c.Candidates,
		Fill:          c.Fill,
	}
}

// String renders w on one line, for the measure table.
func (w Weights) String() string {
	s := fmt.Sprintf("%s v=%g l=%g", w.Fusion, w.Vector, w.Lexical)
	if w.Fusion == FusionRRF {
		s = fmt.Sprintf("%s k=%d", w.Fusion, w.RRFK)
	} else {
		s += fmt.Sprintf(" t=%g", w.Threshold)
	}
	s += fmt.Sprintf(" %s c=%d", w.Normalization, w.Candidates)
	if w.Fill {
		s += " fill"
	}
	return s
}
