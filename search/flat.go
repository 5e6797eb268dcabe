package search

import "fmt"

// Measuring an embedding space's flatness (store.RandomPairCosine).
const (
	// ProfilePairs is how many random chunk pairs a profile measures: the
	// mean's standard error is then under 0.01 for any model.
	ProfilePairs = 500
	// MinProfilePairs is the fewest pairs a profile is worth saying (a
	// project of 40 chunks, this repository's docs are 93): random-pair
	// cosines spread about 0.1 around their mean in the models measured,
	// so 20 pairs put the mean within about ±0.05.
	MinProfilePairs = 20
)

// strongLexical is the lexical score of a strong keyword match: saturated
// bm25 s/(s+1) at s = 3, a chunk holding the query's rarer words a few
// times.
const strongLexical = 0.75

// WeightedUnreliable reports whether weighted fusion with c is unreliable
// in an embedding space whose random chunk pairs score randomCosine on
// average: then an unrelated chunk's vector half alone (VectorWeight ×
// its vector score) reaches what a strong keyword match adds when the
// vector list missed it (LexicalWeight × strongLexical), so exact keyword
// matches sink below vector-only noise (glove-100d under the seed's raw
// cosine: 0.6 × 0.92 against 0.4 × 0.75). RRF, which compares ranks, is
// immune. With the seed's weights and raw cosine the bound is a
// random-pair cosine of 0.5, which a real retrieval model passes too
// (e5-small-v2's random pairs score about 0.7); NormSpace reads cosine
// against the random pairs, so an unrelated chunk's vector half is about
// 0 in any space, and the fusion it weighs holds in every space that has
// room above its random pairs (minRoom).
func (c Config) WeightedUnreliable(randomCosine float64) bool {
	if c.Fusion != FusionWeighted {
		return false
	}
	if c.Normalization.readsBaseline() {
		return 1-randomCosine < minRoom
	}
	return c.VectorWeight*randomCosine >= c.LexicalWeight*strongLexical
}

// FlatSpaceAdvice says, when WeightedUnreliable, why and what to do;
// "" otherwise.
func (c Config) FlatSpaceAdvice(space string, randomCosine float64) string {
	if !c.WeightedUnreliable(randomCosine) {
		return ""
	}
	if c.Normalization.readsBaseline() {
		return fmt.Sprintf("the embedding space %s is flat: random chunk pairs score cosine %.2f on average, leaving no room to tell "+
			"related chunks from unrelated ones: the vector half of weighted fusion is noise with this model. "+
			"Run `ragd calibrate` to fit the weights to your searches, or set fusion = \"rrf\" in [search]", space, randomCosine)
	}
	return fmt.Sprintf("the embedding space %s is flat: random chunk pairs score cosine %.2f on average, so under weighted fusion "+
		"an unrelated chunk's vector half (%.2g × %.2f = %.2f) outweighs what a strong keyword match adds (%.2g × %.2g = %.2f): "+
		"the weighted default is unreliable with this model. Run `ragd calibrate` to fit the weights to your searches, "+
		"or set fusion = \"rrf\" in [search]",
		space, randomCosine, c.VectorWeight, randomCosine, c.VectorWeight*randomCosine, c.LexicalWeight, strongLexical, c.LexicalWeight*strongLexical)
}
