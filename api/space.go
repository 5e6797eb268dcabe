package api

import "github.com/ragd/ragd"

// SpaceProfile is how flat the stored embedding space is: the mean cosine
// similarity of random pairs of chunks' vectors. Unrelated texts score
// near 0 in a space that tells them apart, 0.7–0.9 in a flat one
// (glove-100d), where weighted fusion's vector half scores every chunk
// high and exact keyword matches sink.
type SpaceProfile struct {
	Space string `json:"space"`
	// Pairs is how many random pairs were measured.
	Pairs        int     `json:"pairs"`
	RandomCosine float64 `json:"randomCosine"`
	// WeightedUnreliable is set when the configured weighted fusion is
	// unreliable in this space (search.Config.WeightedUnreliable); Advice
	// then says why and what to do.
	WeightedUnreliable bool   `json:"weightedUnreliable"`
	Advice             string `json:"advice,omitempty"`
}

// FromSpaceProfile returns p on the wire; nil for nil.
func FromSpaceProfile(p *ragd.SpaceProfile) *SpaceProfile {
	return fromPtr(p, func(p ragd.SpaceProfile) SpaceProfile { return SpaceProfile(p) })
}
