package daemon

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// limits bound what a connection may hold of the daemon: a client that
// stalls mid-request is cut after a timeout, and at most MaxConns
// connections are served at once (the next wait to be accepted), so a
// pile of stalled clients neither exhausts the daemon's files nor keeps a
// search from being answered once a slot frees.
type limits struct {
	// ReadHeader bounds the request line and headers.
	ReadHeader time.Duration
	// Read bounds the whole request, body included: an 8 MiB body over a
	// local socket takes milliseconds. Handlers lift it once the body is
	// read, so that a long handler is not cancelled by it.
	Read time.Duration
	// Write bounds writing an answer; handlers that compute for minutes
	// (reindex, import) lift it while computing and set it again to write.
	Write time.Duration
	// Idle bounds a kept-alive connection between requests.
	Idle time.Duration
	// MaxConns bounds the connections served at once.
	MaxConns int
}

// defaultLimits are generous for every client that talks, tight for one
// that does not: a searcher's connection lives milliseconds.
var defaultLimits = limits{
	ReadHeader: 10 * time.Second,
	Read:       30 * time.Second,
	Write:      2 * time.Minute,
	Idle:       2 * time.Minute,
	// Far below the usual 1024 open files, with room for the database, the
	// watcher and the provider's connections.
	MaxConns: 256,
}

// liftReadDeadline removes the read deadline of a request whose body is
// read (or absent): once passed, it would cancel the request's context
// (net/http's background read of the connection fails) under a handler
// that computes for long.
func liftReadDeadline(w http.ResponseWriter) {
	http.NewResponseController(w).SetReadDeadline(time.Time{})
}

// writeSoon sets the write deadline for an answer about to be written.
func (d *Daemon) writeSoon(rc *http.ResponseController) {
	rc.SetWriteDeadline(time.Now().Add(d.limits.Write))
}

// isTimeout reports whether err is a passed read deadline.
func isTimeout(err error) bool {
	return errors.Is(err, os.ErrDeadlineExceeded)
}

// idleReader reads a long body, giving each read the Read timeout: a body
// that keeps coming is never cut, one that stalls is. At the end it lifts
// the deadline for the handler's remaining work.
type idleReader struct {
	r       io.ReadCloser
	rc      *http.ResponseController
	timeout time.Duration
}

func (ir *idleReader) Read(p []byte) (int, error) {
	ir.rc.SetReadDeadline(time.Now().Add(ir.timeout))
	n, err := ir.r.Read(p)
	if err == io.EOF {
		ir.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

func (ir *idleReader) Close() error { return ir.r.Close() }

// limitListener accepts at most max connections at once; Accept waits for
// one to close.
type limitListener struct {
	net.Listener
	slots     chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	open      atomic.Int64
	peak      atomic.Int64
}

func newLimitListener(ln net.Listener, max int) *limitListener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, max), done: make(chan struct{})}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	n := l.open.Add(1)
	for p := l.peak.Load(); n > p && !l.peak.CompareAndSwap(p, n); p = l.peak.Load() {
	}
	return &limitedConn{Conn: c, l: l}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

type limitedConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.open.Add(-1)
		<-c.l.slots
	})
	return err
}
