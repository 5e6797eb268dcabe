// Package vectest makes vectors for tests and benchmarks.
package vectest

import (
	"math"
	"math/rand"
)

// RandomUnit returns a random unit vector of dims values, uniformly spread
// over the sphere (normal components, normalised), drawn from r so that a
// seeded r gives the same vectors every run.
func RandomUnit(r *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	var sum float64
	for i := range v {
		v[i] = float32(r.NormFloat64())
		sum += float64(v[i]) * float64(v[i])
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(sum))
	}
	return v
}

// Norm is v's Euclidean length, summed in float64.
func Norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}
