package store

import (
	"context"
	"fmt"
)

// VectorMode chooses how VectorCandidates finds the nearest chunks.
type VectorMode string

// Vector modes.
const (
	// VectorsExact scans every float vector of the project with
	// sqlite-vec: exact, and linear in the project's size.
	VectorsExact VectorMode = "exact"
	// VectorsQuantized scans one-bit codes of the vectors held in memory
	// for a shortlist, then ranks the shortlist exactly from the stored
	// floats (docs/adr/0009-scale.md).
	VectorsQuantized VectorMode = "quantized"
)

// ParseVectorMode reads a VectorMode; "" is the default, VectorsQuantized.
func ParseVectorMode(s string) (VectorMode, error) {
	switch VectorMode(s) {
	case "":
		return VectorsQuantized, nil
	case VectorsExact, VectorsQuantized:
		return VectorMode(s), nil
	}
	return "", fmt.Errorf("vector mode %q: want %q or %q", s, VectorsExact, VectorsQuantized)
}

// WaitVectorIndex waits until the in-memory vector codes are loaded (at once
// in exact mode): searches before then scan exactly.
func (s *Store) WaitVectorIndex(ctx context.Context) error {
	if s.codes == nil {
		return nil
	}
	select {
	case <-s.codes.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.codes.mu.RLock()
	defer s.codes.mu.RUnlock()
	return s.codes.loadErr
}

// VectorMode returns the store's vector search mode.
func (s *Store) VectorMode() VectorMode {
	if s.codes == nil {
		return VectorsExact
	}
	return VectorsQuantized
}
