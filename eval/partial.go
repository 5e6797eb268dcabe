package eval

import (
	"context"
	"fmt"
	"hash/fnv"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/search"
)

// partialStore is a search.Store whose snapshots show the vectors of only
// a share of the chunks, as a project whose background fill has come that
// far: the vector KNN finds only those chunks, fill scores only those,
// and the coverage counts only those. Which chunks have one is fixed by
// their id (vectorFilled), so every query and every run sees the same
// part. Nothing is written: the store's vectors stay as they are.
type partialStore struct {
	search.Store
	share float64
}

// vectorFilled reports whether the chunk id is in the filled share: the
// FNV-1a hash of the id falls in the first share of the hash space, a
// sample of the chunks independent of their order and content.
func vectorFilled(id string, share float64) bool {
	h := fnv.New64a()
	h.Write([]byte(id))
	return float64(h.Sum64()%1_000_000) < share*1_000_000
}

func (p partialStore) Snapshot(ctx context.Context) (ragd.Snapshot, error) {
	sn, err := p.Store.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	return partialSnapshot{Snapshot: sn, share: p.share}, nil
}

type partialSnapshot struct {
	ragd.Snapshot
	share float64
}

// maxPartialK bounds how deep the KNN is asked to find k filled chunks
// (sqlite-vec's largest k): the store's list is cut to the filled share,
// so it is asked for about k/share, doubling until k are found, the whole
// scope is listed or this depth is reached.
const maxPartialK = 4096

// VectorCandidates returns the k nearest filled chunks.
func (s partialSnapshot) VectorCandidates(ctx context.Context, f ragd.Filter, vec []float32, k int) ([]ragd.VectorCandidate, error) {
	ask := min(maxPartialK, max(k, int(float64(k)/max(s.share, 1e-3))+k))
	for {
		all, err := s.Snapshot.VectorCandidates(ctx, f, vec, ask)
		if err != nil {
			return nil, fmt.Errorf("partial fill: %w", err)
		}
		out := make([]ragd.VectorCandidate, 0, k)
		for _, c := range all {
			if vectorFilled(c.ChunkID, s.share) {
				out = append(out, c)
				if len(out) == k {
					return out, nil
				}
			}
		}
		if len(all) < ask || ask >= maxPartialK {
			return out, nil
		}
		ask = min(maxPartialK, 2*ask)
	}
}

// VectorDistances returns the distances of the filled chunks of ids.
func (s partialSnapshot) VectorDistances(ctx context.Context, vec []float32, ids []string) (map[string]float64, error) {
	var filled []string
	for _, id := range ids {
		if vectorFilled(id, s.share) {
			filled = append(filled, id)
		}
	}
	if len(filled) == 0 {
		return nil, nil
	}
	return s.Snapshot.VectorDistances(ctx, vec, filled)
}

// VectorCoverage counts the filled share of the vectors, in expectation.
func (s partialSnapshot) VectorCoverage(ctx context.Context, f ragd.Filter) (int, int, error) {
	chunks, vectors, err := s.Snapshot.VectorCoverage(ctx, f)
	return chunks, int(float64(vectors) * s.share), err
}
