package store_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ragd/ragd/engine"
	"github.com/ragd/ragd/internal/storetest"
	"github.com/ragd/ragd/store"
)

// The SQLite store implements the whole contract.
var _ engine.Store = (*store.Store)(nil)

// TestConformance runs the store conformance suite on the SQLite engine:
// each subtest gets a database in a temp dir of its own, and opening again
// with the same test reopens that database.
func TestConformance(t *testing.T) {
	var mu sync.Mutex
	paths := map[*testing.T]string{}
	storetest.Run(t, func(t *testing.T) engine.Store {
		mu.Lock()
		path, ok := paths[t]
		if !ok {
			path = filepath.Join(t.TempDir(), "ragd.db")
			paths[t] = path
		}
		mu.Unlock()
		s, err := store.Open(context.Background(), path, store.Options{Space: "conformance/8", Dims: 8})
		if err != nil {
			t.Fatalf("open %s: %v", path, err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}
