package main

import (
	"context"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/search"
	"github.com/ragd/ragd/store"
)

// corpusStore is what build writes the corpus into.
type corpusStore interface {
	AddProject(ctx context.Context, name, path string) (ragd.Project, error)
	ReplaceScope(ctx context.Context, projectID int64, scope string, chunks []ragd.ChunkInput) (ragd.ReplaceResult, error)
	Close() error
}

// benchStore is what measure times: snapshots to draw candidates from, the
// searcher's store, and the corpus's project.
type benchStore interface {
	search.Store
	Project(ctx context.Context, nameOrPath string) (ragd.Project, error)
	Close() error
}

// vectorIndexWaiter is an engine that loads its vector index in the
// background, searching exactly until then: measure waits for it, so that
// every query is timed the same way.
type vectorIndexWaiter interface {
	WaitVectorIndex(ctx context.Context) error
}

// vectorModer is an engine that may search approximate vectors: its
// recall is measured against an exact search of the same database.
type vectorModer interface {
	VectorMode() store.VectorMode
}

var (
	_ corpusStore       = (*store.Store)(nil)
	_ benchStore        = (*store.Store)(nil)
	_ vectorIndexWaiter = (*store.Store)(nil)
	_ vectorModer       = (*store.Store)(nil)
)
