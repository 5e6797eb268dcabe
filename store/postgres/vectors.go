package postgres

import (
	"errors"
	"fmt"
	"math"

	"github.com/pgvector/pgvector-go"
)

// ErrBadVector reports a vector the store refuses: wrong length, NaN, Inf
// or zero norm.
var ErrBadVector = errors.New("bad vector")

// vector checks v against the store's dims and normalises it to unit
// length, as the SQLite engine stores vectors: the cosine distance <=>
// does not need it, but the vectors read back (and the distances) are the
// same in both engines.
func (s *Store) vector(v []float32) (pgvector.Vector, error) {
	if len(v) != s.dims {
		return pgvector.Vector{}, fmt.Errorf("%w: %d dims, the store's space %s has %d", ErrBadVector, len(v), s.space, s.dims)
	}
	var sum float64
	for i, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return pgvector.Vector{}, fmt.Errorf("%w: value %d is %v", ErrBadVector, i, x)
		}
		sum += f * f
	}
	if sum == 0 {
		return pgvector.Vector{}, fmt.Errorf("%w: zero norm", ErrBadVector)
	}
	inv := 1 / math.Sqrt(sum)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return pgvector.NewVector(out), nil
}
