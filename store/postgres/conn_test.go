package postgres

import (
	"context"
	"errors"
	"github.com/ragd/ragd/internal/testdb"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/pgtest"
)

// proxy forwards TCP connections to a server until cut, which closes
// every connection it carries, as a network failure or a server restart
// would.
type proxy struct {
	l      net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	cutOff bool
}

func startProxy(t testing.TB, target string) *proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{l: l, target: target}
	go p.serve()
	t.Cleanup(func() { p.cut() })
	return p
}

func (p *proxy) serve() {
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.cutOff {
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

func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cutOff = true
	p.l.Close()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// viaProxy returns url with its host replaced by the proxy's.
func viaProxy(t testing.TB, raw string) (*proxy, string) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, u.Host)
	u.Host = p.l.Addr().String()
	return p, u.String()
}

// A connection lost in the middle of ReplaceScope's transaction is an
// error that says so; the server rolls the transaction back, so the old
// scope stays whole; and the store works again once the server is back
// (here: through a second proxy to it).
func TestConnectionLoss(t *testing.T) {
	direct, raw := openTest(t, Options{})
	ctx := context.Background()
	p := addProject(t, direct, "demo")
	replace(t, direct, p.ID, ragd.ScopeDocs, doc("a.md", 0, "old text", nil))

	px, via := viaProxy(t, raw)
	s := openAt(t, via, Options{})
	s.afterLock = func(ctx context.Context, tx pgx.Tx) error {
		px.cut()
		return nil
	}
	_, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, []ragd.ChunkInput{doc("a.md", 0, "new text", nil), doc("b.md", 0, "more", nil)})
	if !errors.Is(err, ErrConnection) {
		t.Fatalf("replace over a lost connection: %v, want ErrConnection", err)
	}
	t.Logf("the error: %v", err)
	if _, err := s.Projects(ctx); !errors.Is(err, ErrConnection) {
		t.Fatalf("projects with the server gone: %v, want ErrConnection", err)
	}
	if _, err := s.snapshot(ctx); !errors.Is(err, ErrConnection) {
		t.Fatalf("snapshot with the server gone: %v, want ErrConnection", err)
	}
	got, err := direct.ScopeChunks(ctx, p.ID, ragd.ScopeDocs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Content != "old text" {
		t.Fatalf("scope after a lost replace: %+v, want the old one whole", got)
	}
	// The direct store, on its own connections, still writes.
	replace(t, direct, p.ID, ragd.ScopeDocs, doc("a.md", 0, "newer text", nil))
}

// Issue 33: the server itself killed (SIGKILL, as a crash) in the middle
// of ReplaceScope's transaction, then of AppendSession's: each call fails
// with ErrConnection, nothing of it is stored once the server has
// recovered (no half scope, no half session), and the same store writes
// again without being reopened.
func TestServerKilled(t *testing.T) {
	ctx := context.Background()
	srv := pgtest.StartOptions(t, pgtest.Options{})
	s := openAt(t, srv.Fresh(t), Options{})
	p := addProject(t, s, "demo")
	replace(t, s, p.ID, ragd.ScopeDocs, doc("a.md", 0, "old text", nil))
	s.afterLock = func(ctx context.Context, tx pgx.Tx) error { return srv.Kill() }
	_, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, []ragd.ChunkInput{doc("a.md", 0, "new text", nil), doc("b.md", 0, "more", nil)})
	if !errors.Is(err, ErrConnection) {
		t.Fatalf("replace on a killed server: %v, want ErrConnection", err)
	}
	e1 := ragd.Event{ID: "e1", SessionID: "s1", Type: "chat.message", Actor: "person", Text: "half a session", Time: t0}
	if err := srv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = s.AppendSession(ctx, p.ID, []ragd.Event{e1}, testdb.ChunksOf(e1))
	if !errors.Is(err, ErrConnection) {
		t.Fatalf("append on a killed server: %v, want ErrConnection", err)
	}
	if err := srv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	s.afterLock = nil
	// The pool's connections died with the server: the first call after
	// may fail on one, as a daemon's does (503), and the next dials again.
	var got []ragd.Chunk
	for range 3 {
		if got, err = s.ScopeChunks(ctx, p.ID, ragd.ScopeDocs); !errors.Is(err, ErrConnection) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Content != "old text" {
		t.Fatalf("docs after a replace killed midway: %+v, want the old scope whole", got)
	}
	if l, err := s.ListSessions(ctx, p.ID, ragd.SessionFilter{}); err != nil || len(l) != 0 {
		t.Fatalf("sessions after an append killed midway: %+v, %v; want none", l, err)
	}
	replace(t, s, p.ID, ragd.ScopeDocs, doc("a.md", 0, "newer text", nil))
	if _, err := s.AppendSession(ctx, p.ID, []ragd.Event{e1}, testdb.ChunksOf(e1)); err != nil {
		t.Fatalf("append once the server is back: %v", err)
	}
}
