// Package sqlitedb opens the SQLite store for the tests of the packages
// above it (search, index, eval): a fresh database in the test's temp
// dir, closed when the test ends.
package sqlitedb

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/ragd/ragd/store"
)

// Open opens a fresh SQLite store in space (of dims dimensions), logging
// nowhere.
func Open(tb testing.TB, space string, dims int) *store.Store {
	tb.Helper()
	return OpenAt(tb, filepath.Join(tb.TempDir(), "ragd.db"), space, dims)
}

// OpenDims is Open in the space "test/DIMS" of dims dimensions: a store
// for tests that choose their vectors themselves, no provider's.
func OpenDims(tb testing.TB, dims int) *store.Store {
	tb.Helper()
	return Open(tb, fmt.Sprintf("test/%d", dims), dims)
}

// OpenAt is Open of the database at path.
func OpenAt(tb testing.TB, path, space string, dims int) *store.Store {
	tb.Helper()
	st, err := store.Open(context.Background(), path, store.Options{Space: space, Dims: dims, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		tb.Fatalf("open store %s: %v", path, err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}
