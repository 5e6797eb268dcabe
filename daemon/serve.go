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
	// IdleWhenFull is Idle while a client waits for a slot. Optional:
	// defaultIdleWhenFull.
	IdleWhenFull time.Duration
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
	// A client that waits for a slot waits at most this for an idle one,
	// and a connection idle this long will rarely be used again at once.
	IdleWhenFull: defaultIdleWhenFull,
	// Far below the usual 1024 open files, with room for the database, the
	// watcher and the provider's connections.
	MaxConns: 256,
}

// defaultIdleWhenFull is the idle time of kept-alive connections while a
// client waits for a slot: a second, far below Idle.
const defaultIdleWhenFull = time.Second

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

// limitListener serves at most max connections at once. A client that
// comes when every slot is taken waits for one; meanwhile the idle time of
// kept-alive connections (between two requests) is shortened to
// idleWhenFull: 256 idle keep-alives would otherwise hold every slot for
// the whole idle timeout (a search waited 88 s).
type limitListener struct {
	net.Listener
	slots     chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	open      atomic.Int64
	peak      atomic.Int64
	// idleWhenFull is the idle time of a kept-alive connection while a
	// client waits for a slot.
	idleWhenFull time.Duration

	mu sync.Mutex
	// idle are the connections between two requests, with when they
	// went idle.
	idle map[net.Conn]time.Time
	// waiting is set while a client waits for a slot; wentIdle then
	// tells it that a connection went idle.
	waiting  bool
	wentIdle chan struct{}
}

func newLimitListener(ln net.Listener, max int, idleWhenFull time.Duration) *limitListener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, max), done: make(chan struct{}),
		idleWhenFull: idleWhenFull, idle: map[net.Conn]time.Time{}, wentIdle: make(chan struct{}, 1)}
}

// Accept accepts the next client, then waits for a slot for it.
func (l *limitListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	select {
	case l.slots <- struct{}{}:
	default:
		if err := l.awaitSlot(); err != nil {
			c.Close()
			return nil, err
		}
	}
	n := l.open.Add(1)
	for p := l.peak.Load(); n > p && !l.peak.CompareAndSwap(p, n); p = l.peak.Load() {
	}
	return &limitedConn{Conn: c, l: l}, nil
}

// awaitSlot takes a slot for a client that found none, closing the
// connections idle for idleWhenFull meanwhile.
func (l *limitListener) awaitSlot() error {
	l.mu.Lock()
	l.waiting = true
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.waiting = false
		l.mu.Unlock()
	}()
	for {
		next := l.closeIdle(time.Now())
		var timer *time.Timer
		var expired <-chan time.Time
		if next > 0 {
			timer = time.NewTimer(next)
			expired = timer.C
		}
		select {
		case l.slots <- struct{}{}:
			if timer != nil {
				timer.Stop()
			}
			return nil
		case <-l.done:
			return net.ErrClosed
		case <-expired:
		case <-l.wentIdle:
			if timer != nil {
				timer.Stop()
			}
		}
	}
}

// closeIdle closes the connections idle for idleWhenFull at now, and
// returns how long until the next one will be (0: none is idle).
func (l *limitListener) closeIdle(now time.Time) time.Duration {
	l.mu.Lock()
	var expired []net.Conn
	var next time.Duration
	for c, since := range l.idle {
		left := l.idleWhenFull - now.Sub(since)
		if left <= 0 {
			expired = append(expired, c)
			delete(l.idle, c)
		} else if next == 0 || left < next {
			next = left
		}
	}
	l.mu.Unlock()
	for _, c := range expired {
		c.Close()
	}
	return next
}

// connState is the server's ConnState hook: it keeps the set of idle
// connections, and tells a waiting client when one goes idle.
func (l *limitListener) connState(c net.Conn, st http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if st != http.StateIdle {
		delete(l.idle, c)
		return
	}
	l.idle[c] = time.Now()
	if l.waiting {
		select {
		case l.wentIdle <- struct{}{}:
		default:
		}
	}
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
