package embedding

import (
	"fmt"
	"math"
)

// minNorm is the norm below which a vector counts as zero. Ollama divides by
// max(norm, 1e-12), so a vector under that bound comes back un-normalised
// and near zero: it carries no direction worth ranking by.
const minNorm = 1e-12

// vectorProblem says why a vector is not usable.
type vectorProblem int

const (
	vectorOK vectorProblem = iota
	vectorWrongDims
	vectorNonFinite
	vectorZero
)

// unitVector returns a copy of v scaled to unit L2 norm, or why v is not
// usable in a space of dims values. Ollama's vectors are already normalised,
// but this is the last gate before the index, and cached vectors come from
// a database that anything could have written. The norm is summed in
// float64, so that large finite float32 values cannot overflow it.
func unitVector(v []float32, dims int) ([]float32, vectorProblem) {
	if len(v) != dims {
		return nil, vectorWrongDims
	}
	var sum float64
	for _, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, vectorNonFinite
		}
		sum += f * f
	}
	norm := math.Sqrt(sum)
	if norm < minNorm || math.IsInf(norm, 0) {
		return nil, vectorZero
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / norm)
	}
	return out, vectorOK
}

// describe returns the Reason for a vector problem.
func (p vectorProblem) describe(provider string, got, dims int) string {
	switch p {
	case vectorWrongDims:
		return dimsReason(got, dims)
	case vectorNonFinite:
		return invalidAnswer(provider, "vector contains NaN or Inf")
	case vectorZero:
		return "model returned a zero vector (the text has nothing it can represent)"
	default:
		return ""
	}
}

func dimsReason(got, want int) string {
	return fmt.Sprintf("model returned %d dims, index expects %d", got, want)
}

func invalidAnswer(provider, detail string) string {
	return provider + " returned an invalid answer: " + detail
}
