package ollamatest

import (
	"hash/fnv"
	"math"
	"strings"
	"unicode"
)

// Vector returns the fake model's embedding of text with dims values: a
// hashed bag of words, so texts sharing words are close and texts sharing
// none are nearly orthogonal. It is deterministic and L2-normalised, and,
// as with a real model, "" still gets a vector (of the special token alone).
func Vector(text string, dims int) []float32 {
	return vectorOf(Words(text), dims)
}

// Words returns the fake model's tokens of text: lower-cased runs of letters
// and digits.
func Words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// hashesPerWord spreads each word over a few coordinates, so that dims as
// low as a handful still tell words apart.
const hashesPerWord = 4

func vectorOf(words []string, dims int) []float32 {
	acc := make([]float64, dims)
	add := func(token string, weight float64) {
		for k := range hashesPerWord {
			h := fnv.New64a()
			h.Write([]byte{byte(k)})
			h.Write([]byte(token))
			x := h.Sum64()
			sign := 1.0
			if x>>63 == 1 {
				sign = -1
			}
			acc[int(x%uint64(dims))] += sign * weight
		}
	}
	// Like a BERT model's [CLS] token: every text has it, so "" has a
	// vector and unrelated texts are not exactly orthogonal.
	add("[CLS]", 0.25)
	for _, w := range words {
		add(w, 1)
	}
	out := make([]float32, dims)
	for i, x := range acc {
		out[i] = float32(x)
	}
	return normalize(out)
}

// normalize scales v to unit length in place, as Ollama does; a zero vector
// becomes the first basis vector, so the fake never answers one unasked.
func normalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		v[0] = 1
		return v
	}
	norm := math.Sqrt(sum)
	for i, x := range v {
		v[i] = float32(float64(x) / norm)
	}
	return v
}
