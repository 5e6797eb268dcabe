package search

import (
	"cmp"
	"math"
	"slices"

	"github.com/ragd/ragd"
)

// Candidates is what the two signals found for one query in one snapshot.
type Candidates struct {
	// Vector is the KNN list, nearest first.
	Vector []ragd.VectorCandidate
	// Lexical is the store's lexical list, best first.
	Lexical []ragd.LexicalCandidate
	// VectorFill holds cosine distances of candidates the vector list lacks,
	// and LexicalFill lexical scores of candidates the lexical list lacks, by
	// chunk id. Fuse reads them only with Config.Fill; a candidate absent
	// from the map cannot be scored by that signal (no stored vector, or no
	// query term in its text).
	VectorFill  map[string]float64
	LexicalFill map[string]float64
	// Baseline is the mean cosine of random chunk pairs in the vectors'
	// space (store.RandomPairCosine): what the vector signal scores by
	// chance, read by NormSpace and NormChance. 0 when not measured: cosine as it is.
	Baseline float64
}

// Fused is one candidate after fusion.
type Fused struct {
	ChunkID string
	Score   float64
	// VectorScore is the cosine similarity 1 − distance (min-max normalised
	// under NormMinMax), LexicalScore the normalised lexical score. Each is nil when
	// that signal did not score the chunk: absent, not 0.
	VectorScore  *float64
	LexicalScore *float64
	// VectorRank and LexicalRank are 1-based ranks in the candidate lists,
	// 0 when the list does not hold the chunk (even if fill scored it).
	VectorRank  int
	LexicalRank int
	// Distance (cosine) and Lexical (the store's lexical score, higher is
	// better) are the raw scores, listed or filled; nil when absent.
	Distance *float64
	Lexical  *float64
}

// Fuse merges the candidate lists under cfg.Effective(c), cfg being valid:
// it scores every candidate of the union, drops weighted-fusion scores below
// the threshold, and orders the rest by score, best first, ties by chunk id.
// Fuse is pure: calibration can replay stored candidate lists through it.
//
// With fill, weighted fusion knows which candidates have no stored vector
// (listed by neither the vector list nor VectorFill while the query has a
// vector): while a scope's vectors are being filled, such a chunk is scored
// by the lexical signal alone, VectorWeight + LexicalWeight times its
// lexical score, as if its vector agreed with its words. Counting its
// missing vector as 0 would rank every chunk that has one above it, the
// keyword matches of the unfilled part below vector-only noise.
func Fuse(c Candidates, cfg Config) []Fused {
	cfg = cfg.Effective(c)
	all := make([]*Fused, 0, len(c.Vector)+len(c.Lexical))
	byID := make(map[string]*Fused, cap(all))
	get := func(id string) *Fused {
		f, ok := byID[id]
		if !ok {
			f = &Fused{ChunkID: id}
			byID[id] = f
			all = append(all, f)
		}
		return f
	}
	for i, v := range c.Vector {
		f := get(v.ChunkID)
		if f.VectorRank == 0 {
			f.VectorRank, f.Distance = i+1, ptr(v.Distance)
		}
	}
	for i, l := range c.Lexical {
		f := get(l.ChunkID)
		if f.LexicalRank == 0 {
			f.LexicalRank, f.Lexical = i+1, ptr(l.Score)
		}
	}
	if cfg.Fill {
		for _, f := range all {
			if d, ok := c.VectorFill[f.ChunkID]; ok && f.Distance == nil {
				f.Distance = ptr(d)
			}
			if s, ok := c.LexicalFill[f.ChunkID]; ok && f.Lexical == nil {
				f.Lexical = ptr(s)
			}
		}
	}

	normalize(all, cfg.Normalization, c.Baseline)

	out := make([]Fused, 0, len(all))
	for _, f := range all {
		switch cfg.Fusion {
		case FusionRRF:
			if f.VectorRank > 0 {
				f.Score += 1 / float64(cfg.RRFK+f.VectorRank)
			}
			if f.LexicalRank > 0 {
				f.Score += 1 / float64(cfg.RRFK+f.LexicalRank)
			}
		default:
			if f.VectorScore != nil {
				f.Score += cfg.VectorWeight * *f.VectorScore
			}
			if f.LexicalScore != nil {
				f.Score += cfg.LexicalWeight * *f.LexicalScore
			}
			if unvectored(f, c, cfg) {
				f.Score = (cfg.VectorWeight + cfg.LexicalWeight) * *f.LexicalScore
			}
			if f.Score < cfg.Threshold {
				continue
			}
		}
		out = append(out, *f)
	}
	slices.SortFunc(out, func(a, b Fused) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ChunkID, b.ChunkID)
	})
	return out
}

// Effective returns the configuration Fuse applies to cands: c itself, except
// that weighted fusion without any vector score (the provider is down, or no
// chunk of the scopes has a vector) ranks the lexical signal alone: weights
// 0 and 1, the lexical score over the query's best (NormMax), the threshold on that
// (docs/adr/0007-degraded-fusion.md). A fixed scale such as s/(s+1) cannot
// stand alone: a word in most chunks has an idf near FTS5's floor, every
// match scores near 0, and the answer would be empty. RRF needs no change:
// over one list it keeps that list's order and has no threshold.
func (c Config) Effective(cands Candidates) Config {
	if c.Fusion != FusionWeighted || len(cands.Vector) > 0 || c.Fill && len(cands.VectorFill) > 0 {
		return c
	}
	c.VectorWeight, c.LexicalWeight, c.Normalization = 0, 1, NormMax
	return c
}

// unvectored reports whether weighted fusion with fill knows that f's
// chunk has no stored vector: the query has one and found candidates, but
// neither the list nor the fill scored f, which the lexical list holds.
func unvectored(f *Fused, c Candidates, cfg Config) bool {
	return cfg.Fill && cfg.VectorWeight > 0 && len(c.Vector) > 0 && f.Distance == nil && f.LexicalScore != nil && f.LexicalRank > 0
}

// minRoom is the least room above the baseline NormSpace and NormChance divide by: a
// best cosine at the baseline leaves no scale to read.
const minRoom = 1e-3

// normalize sets VectorScore and LexicalScore from the raw scores;
// baseline is Candidates.Baseline.
func normalize(all []*Fused, n Normalization, baseline float64) {
	for _, f := range all {
		if f.Distance != nil {
			f.VectorScore = ptr(1 - *f.Distance)
		}
		if f.Lexical != nil {
			// A match scores above 0 (SQLite's −bm25: FTS5 floors its idf
			// above 0); clamp so that no rounding makes s negative.
			f.LexicalScore = ptr(math.Max(0, *f.Lexical))
		}
	}
	if n.readsBaseline() {
		// Cosine over the room between chance and its top: the query's
		// best (NormSpace) or identity (NormChance).
		top := 1.0
		if n == NormSpace {
			top = math.Inf(-1)
			for _, f := range all {
				if f.Distance != nil {
					top = math.Max(top, 1-*f.Distance)
				}
			}
		}
		room := max(minRoom, top-baseline)
		for _, f := range all {
			if f.Distance != nil {
				f.VectorScore = ptr(min(1, max(0, (1-*f.Distance-baseline)/room)))
			}
		}
	}
	switch n {
	case NormMinMax:
		minMax(all, func(f *Fused) *float64 { return f.VectorScore })
		minMax(all, func(f *Fused) *float64 { return f.LexicalScore })
	case NormMax, NormSpace, NormChance:
		best := math.Inf(-1)
		for _, f := range all {
			if f.LexicalScore != nil {
				best = math.Max(best, *f.LexicalScore)
			}
		}
		for _, f := range all {
			if f.LexicalScore != nil {
				if best > 0 {
					*f.LexicalScore /= best
				} else {
					*f.LexicalScore = 1 // all tied at 0: each is the best found
				}
			}
		}
	default: // NormSaturate
		for _, f := range all {
			if s := f.LexicalScore; s != nil {
				*s /= *s + 1
			}
		}
	}
}

// minMax rescales the present values of one signal to 0..1 over the
// candidates; when they are all equal, each becomes 1.
func minMax(all []*Fused, score func(*Fused) *float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, f := range all {
		if s := score(f); s != nil {
			lo, hi = math.Min(lo, *s), math.Max(hi, *s)
		}
	}
	for _, f := range all {
		if s := score(f); s != nil {
			if hi > lo {
				*s = (*s - lo) / (hi - lo)
			} else {
				*s = 1
			}
		}
	}
}

func ptr[T any](v T) *T { return &v }
