package eval

import (
	"context"

	"github.com/ragd/ragd/engine"
)

// An evaluation runs on a whole engine (engine.Store, opened by
// engines.Open): its searcher, embedding cache, citations, telemetry and
// the profile of its embedding space. Its parts that need less name the
// engine's own subsets (engine.CitationStore, engine.TelemetryStore).

// waitVectorIndex waits for st's vector index, if it loads one.
func waitVectorIndex(ctx context.Context, st any) error {
	if w, ok := st.(engine.VectorIndexWaiter); ok {
		return w.WaitVectorIndex(ctx)
	}
	return nil
}
