package postgres

import (
	"context"
	"sync"
	"testing"

	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/internal/storetest"
)

// The PostgreSQL engine is an engine the daemon runs on: every method
// daemon.Store names, and the doctor's checks.
var (
	_ daemon.Store   = (*Store)(nil)
	_ daemon.Checker = (*Store)(nil)
)

// TestConformance runs the store conformance suite, the one the SQLite
// engine passes (store/conformance_test.go), on this engine: each subtest
// gets a database of its own on the package's PostgreSQL server, and
// opening again with the same test reopens that database.
func TestConformance(t *testing.T) {
	var mu sync.Mutex
	urls := map[*testing.T]string{}
	storetest.Suite{Open: func(t *testing.T) storetest.Store {
		mu.Lock()
		url, ok := urls[t]
		if !ok {
			url = testURL(t)
			urls[t] = url
		}
		mu.Unlock()
		s, err := Open(context.Background(), url, Options{Space: "conformance/8", Dims: 8, MaxConns: testConns, Owner: "alice"})
		if err != nil {
			t.Fatalf("open %s: %v", url, err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}}.Run(t)
}
