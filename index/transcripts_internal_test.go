package index

import (
	"context"
	"errors"
	"io"
	"testing"
)

// endless is a source that never ends, as /dev/zero or a file that grows
// as fast as it is read; it cancels ctx at its third read.
type endless struct {
	reads  int
	cancel context.CancelFunc
}

func (e *endless) Read(p []byte) (int, error) {
	e.reads++
	if e.reads == 3 {
		e.cancel()
	}
	return len(p), nil
}

// Issue 27 item 15: the import's reading stops when its request ends.
func TestCtxReader_StopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	src := &endless{cancel: cancel}
	n, err := io.Copy(io.Discard, ctxReader{ctx, src})
	if !errors.Is(err, context.Canceled) || src.reads != 3 {
		t.Fatalf("read %d bytes in %d reads, err %v; want context.Canceled after the third read", n, src.reads, err)
	}
}
