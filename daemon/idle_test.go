package daemon_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/internal/daemontest"
)

// Issue 27 item 22: kept-alive connections idle between requests hold
// every slot; a new client is served at once, the idle connection that
// waited longest giving its slot, not after the idle timeout.
func TestServe_IdleConnectionsGiveWayWhenFull(t *testing.T) {
	const bound = 4
	defer daemon.SetServeLimits(daemon.ServeLimits{
		ReadHeader: time.Minute, Read: time.Minute, Write: time.Minute, Idle: time.Hour, IdleWhenFull: 100 * time.Millisecond, MaxConns: bound,
	})()
	d := daemontest.Start(t, daemontest.NewWorld(t), daemontest.Config(newServer(t).URL))
	idle := make([]net.Conn, bound)
	for i := range idle {
		c, err := net.Dial("unix", d.Socket())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(daemontest.Timeout))
		io.WriteString(c, "GET /v1/health HTTP/1.1\r\nHost: ragd\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("kept-alive connection %d: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Close {
			t.Fatalf("kept-alive connection %d: %d, close %v", i, resp.StatusCode, resp.Close)
		}
		idle[i] = c
	}
	// Every slot is held by an idle connection; these are served anyway.
	for i := range 2 * bound {
		if a := daemontest.Do(t, d.Socket(), "GET", "/v1/health", "", nil); a.Status != http.StatusOK {
			t.Fatalf("request %d beside %d idle connections: %d %s", i, bound, a.Status, a.Body)
		}
	}
	// The first idle connection, idle the longest, was closed for them.
	idle[0].SetReadDeadline(time.Now().Add(daemontest.Timeout))
	if n, err := idle[0].Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("the connection idle the longest: read %d, %v; want it closed (EOF)", n, err)
	}
	if peak := d.PeakConns(); peak > bound {
		t.Errorf("%d connections served at once, the bound is %d", peak, bound)
	}
}
