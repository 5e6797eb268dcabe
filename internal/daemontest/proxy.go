package daemontest

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// Proxy forwards TCP connections to a database server on a port of its
// own, so that a test can take the server away from a running daemon and
// give it back: Cut closes the port and every connection it carries, as a
// server that stopped would; Restore listens on the same port again, as
// the server coming back (with its data: PGlite's database is in memory,
// so a stopped PGlite would come back empty).
type Proxy struct {
	target string
	addr   string

	mu    sync.Mutex
	l     net.Listener
	conns []net.Conn
}

// StartProxy forwards a new port of 127.0.0.1 to target (host:port),
// until the test ends.
func StartProxy(tb testing.TB, target string) *Proxy {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{target: target, addr: l.Addr().String(), l: l}
	go p.serve(l)
	tb.Cleanup(p.Cut)
	return p
}

// ProxyURL starts a Proxy to the server of the database URL raw and
// returns it with raw's host replaced by the proxy's.
func ProxyURL(tb testing.TB, raw string) (*Proxy, string) {
	tb.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		tb.Fatal(err)
	}
	p := StartProxy(tb, u.Host)
	u.Host = p.addr
	return p, u.String()
}

func (p *Proxy) serve(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.l != l {
			p.mu.Unlock()
			c.Close()
			s.Close()
			return
		}
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		go func() { io.Copy(s, c); s.Close() }()
		go func() { io.Copy(c, s); c.Close() }()
	}
}

// Cut closes the port (new connections are refused) and every connection
// carried. Safe to call more than once.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.l != nil {
		p.l.Close()
		p.l = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// Restore listens on the port again, after Cut.
func (p *Proxy) Restore(tb testing.TB) {
	tb.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.l != nil {
		return
	}
	l, err := net.Listen("tcp", p.addr)
	if err != nil {
		tb.Fatalf("proxy: listen on %s again: %v", p.addr, err)
	}
	p.l = l
	go p.serve(l)
}
