package main

import (
	"context"
	"fmt"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/engine"
	"github.com/ragd/ragd/engines"
	"github.com/ragd/ragd/store"
)

// vectorModer is an engine that may search approximate vectors: its
// recall is measured against an exact search of the same database.
type vectorModer interface {
	VectorMode() store.VectorMode
}

var _ vectorModer = (*store.Store)(nil)

// hnswMode is the vector mode of the PostgreSQL engine's rows: pgvector's
// HNSW index, the engine's only search.
const hnswMode = "hnsw"

// isURL reports whether db is a URL rather than a SQLite file's path.
func isURL(db string) bool { return ragd.IsDatabaseURL(db) }

// checkDB refuses a URL no engine opens, before a build removes or
// creates anything.
func checkDB(db string) error {
	if _, err := engines.Lookup(db); err != nil {
		return fmt.Errorf("-db: %w", err)
	}
	return nil
}

// openCorpus opens db for build.
func openCorpus(ctx context.Context, db string) (engine.Store, error) {
	return engines.Open(ctx, db, engine.Options{Space: space, Dims: dims, Logger: quiet})
}

// openBench opens db for measure with vector search mode: a SQLite mode
// (exact, quantized), or hnsw for a postgres:// URL.
func openBench(ctx context.Context, db, mode string) (engine.Store, error) {
	if isURL(db) {
		if mode != hnswMode {
			return nil, fmt.Errorf("mode %q: a postgres:// database searches its vectors by %s only", mode, hnswMode)
		}
		mode = ""
	} else if _, err := store.ParseVectorMode(mode); err != nil {
		return nil, err
	}
	return engines.Open(ctx, db, engine.Options{Space: space, Dims: dims, Logger: quiet, Vectors: mode})
}

// dbMB is the size of db: its SQLite file and write-ahead log, or what
// the server says the database takes.
func dbMB(ctx context.Context, st interface {
	Stats(context.Context) (ragd.IndexStats, error)
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
func redact(db string) string { return ragd.RedactDatabase(db) }
