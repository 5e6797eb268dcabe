package eval

import (
	"context"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/engine"
	"github.com/ragd/ragd/search"
)

// Store is what an evaluation reads of the database it runs on: what the
// searcher needs, the embedding cache its queries use, the project's
// citations and telemetry, and the profile of its embedding space. The
// SQLite store (package store) is one; an evaluation opens it, then uses
// it through this.
type Store interface {
	search.Store
	embedding.Cache
	CitationStore
	TelemetryStore
	// Project finds a project by name or path; an error wrapping
	// ragd.ErrNotFound when there is none.
	Project(ctx context.Context, nameOrPath string) (ragd.Project, error)
	// RandomPairCosine is the mean cosine of up to pairs random pairs of
	// stored vectors, and how many pairs it measured.
	RandomPairCosine(ctx context.Context, pairs int) (mean float64, n int, err error)
	Close() error
}

// CitationStore is what resolving a golden file's citations reads of a
// project (NewProjectResolver): its conversation messages and its chunks.
type CitationStore interface {
	Messages(ctx context.Context, projectID int64, types []string) ([]ragd.Message, error)
	ScopeChunks(ctx context.Context, projectID int64, scope string) ([]ragd.Chunk, error)
}

// TelemetryStore is what judgments from telemetry read (TelemetrySet): the
// votes of a window, and each voted search.
type TelemetryStore interface {
	SearchTelemetry(ctx context.Context, f ragd.TelemetryFilter) (ragd.TelemetryWindow, error)
	LoadSearch(ctx context.Context, id int64) (ragd.SearchRecord, error)
}

// waitVectorIndex waits for st's vector index, if it loads one.
func waitVectorIndex(ctx context.Context, st any) error {
	if w, ok := st.(engine.VectorIndexWaiter); ok {
		return w.WaitVectorIndex(ctx)
	}
	return nil
}
