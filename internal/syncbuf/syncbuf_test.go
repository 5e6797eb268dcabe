package syncbuf_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/ragd/ragd/internal/syncbuf"
)

// Writers in several goroutines and a reader lose nothing (run with -race).
func TestBuffer_ConcurrentWrites(t *testing.T) {
	var b syncbuf.Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				b.Write([]byte("x"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if got := b.String(); got != strings.Repeat("x", 800) {
		t.Errorf("got %d bytes, want 800", len(got))
	}
}
