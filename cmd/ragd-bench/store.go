package main

import (
	"context"
	"fmt"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/eval"
	"github.com/ragd/ragd/search"
	"github.com/ragd/ragd/store"
	"github.com/ragd/ragd/store/postgres"
)

// corpusStore is what build writes the corpus into.
type corpusStore interface {
	Project(ctx context.Context, nameOrPath string) (ragd.Project, error)
	AddProject(ctx context.Context, name, path string) (ragd.Project, error)
	RemoveProject(ctx context.Context, projectID int64) (ragd.RemovedTelemetry, error)
	ReplaceScope(ctx context.Context, projectID int64, scope string, chunks []ragd.ChunkInput) (ragd.ReplaceResult, error)
	Stats(ctx context.Context) (api.IndexStats, error)
	Close() error
}

// benchStore is what measure times: snapshots to draw candidates from, the
// searcher's store, and the corpus's project.
type benchStore interface {
	search.Store
	Project(ctx context.Context, nameOrPath string) (ragd.Project, error)
	Stats(ctx context.Context) (api.IndexStats, error)
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
	_ corpusStore       = (*postgres.Store)(nil)
	_ benchStore        = (*postgres.Store)(nil)
)

// hnswMode is the vector mode of the PostgreSQL engine's rows: pgvector's
// HNSW index, the engine's only search.
const hnswMode = "hnsw"

// isURL reports whether db is a URL (eval.DatabaseScheme's rule) rather
// than a SQLite file's path.
func isURL(db string) bool { return eval.IsURL(db) }

// checkDB refuses a URL of another engine than PostgreSQL, before a build
// removes or creates anything.
func checkDB(db string) error {
	switch scheme := ragd.DatabaseScheme(db); scheme {
	case "", "postgres", "postgresql":
		return nil
	default:
		return fmt.Errorf("-db %s: unknown scheme %q: want a SQLite file's path or a postgres:// URL", redact(db), scheme)
	}
}

// openCorpus opens db for build.
func openCorpus(ctx context.Context, db string) (corpusStore, error) {
	if isURL(db) {
		return nilOnError(openPG(ctx, db))
	}
	return nilOnError(store.Open(ctx, db, store.Options{Space: space, Dims: dims, Logger: quiet}))
}

// openBench opens db for measure with vector search mode: a SQLite mode
// (exact, quantized), or hnsw for a postgres:// URL.
func openBench(ctx context.Context, db, mode string) (benchStore, error) {
	if isURL(db) {
		if mode != hnswMode {
			return nil, fmt.Errorf("mode %q: a postgres:// database searches its vectors by %s only", mode, hnswMode)
		}
		return nilOnError(openPG(ctx, db))
	}
	vm, err := store.ParseVectorMode(mode)
	if err != nil {
		return nil, err
	}
	return nilOnError(store.Open(ctx, db, store.Options{Space: space, Dims: dims, Logger: quiet, Vectors: vm}))
}

func openPG(ctx context.Context, db string) (*postgres.Store, error) {
	return postgres.Open(ctx, db, postgres.Options{Space: space, Dims: dims, Logger: quiet})
}

// engine is either engine's store.
type engine interface {
	corpusStore
	benchStore
}

// nilOnError returns a nil interface, not an interface holding a nil
// store, when opening failed.
func nilOnError[S engine](st S, err error) (engine, error) {
	if err != nil {
		return nil, err
	}
	return st, nil
}

// dbMB is the size of db: its SQLite file and write-ahead log, or what
// the server says the database takes.
func dbMB(ctx context.Context, st interface {
	Stats(context.Context) (api.IndexStats, error)
}, db string) (float64, error) {
	if !isURL(db) {
		return fileMB(db, db+"-wal"), nil
	}
	s, err := st.Stats(ctx)
	if err != nil {
		return 0, err
	}
	return float64(s.FileBytes) / (1 << 20), nil
}

// redact is a database for messages: a URL without its password.
func redact(db string) string {
	if isURL(db) {
		return postgres.Redact(db)
	}
	return db
}
