package daemon_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
)

// TestServe_StalledBodiesTimedOut holds twice as many connections as the
// daemon accepts at once, each with half a request body sent: every one is
// answered 408 and closed within the read timeout, the daemon never holds
// more connections than its bound, and a search still answers.
func TestServe_StalledBodiesTimedOut(t *testing.T) {
	const bound = 8
	defer daemon.SetServeLimits(daemon.ServeLimits{
		ReadHeader: 500 * time.Millisecond, Read: 500 * time.Millisecond,
		Write: time.Minute, Idle: time.Minute, MaxConns: bound,
	})()
	d, _ := startDocs(t, newServer(t).URL)
	daemontest.Reindex(t, d.Client, "demo")

	body := `{"query": "socket", "limit": 3}`
	conns := make([]net.Conn, 2*bound)
	for i := range conns {
		c, err := net.Dial("unix", d.Socket())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: ragd\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
			daemontest.ProjectPath("demo", "/search"), len(body), body[:len(body)/2])
		conns[i] = c
	}
	// A search while the stalled ones hold every slot: it waits for one.
	if resp := daemontest.Search(t, d.Client, "demo", api.SearchRequest{Query: "socket"}); len(resp.Hits) == 0 {
		t.Errorf("search beside stalled bodies: no hit")
	}
	for i, c := range conns {
		c.SetDeadline(time.Now().Add(daemontest.Timeout))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("stalled connection %d: %v, want a 408", i, err)
		}
		var eb api.ErrorBody
		err = json.NewDecoder(resp.Body).Decode(&eb)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestTimeout || err != nil || eb.Error.Code != api.CodeTimeout {
			t.Errorf("stalled connection %d: %d %+v (%v), want 408 %s", i, resp.StatusCode, eb, err, api.CodeTimeout)
		}
	}
	if peak := d.PeakConns(); peak > bound || peak == 0 {
		t.Errorf("at most %d connections open at once, want 1..%d", peak, bound)
	}
}

// TestServe_LongReindexOutlivesTimeouts: a reindex that takes longer than
// the read and write timeouts is not cut, streamed or not.
func TestServe_LongReindexOutlivesTimeouts(t *testing.T) {
	daemontest.EngineIndependent(t)
	const timeout = 200 * time.Millisecond
	srv := newServer(t)
	// The project is added by a daemon with the usual limits: under a
	// loaded machine adding it can take longer than the short write
	// timeout, which bounds every answer but a reindex.
	w := daemontest.NewWorld(t)
	first := daemontest.Start(t, w, daemontest.Config(srv.URL))
	repo := daemontest.Repo(t, daemontest.Docs)
	daemontest.AddProject(t, first.Client, repo.Dir, "demo")
	first.Stop(t)
	defer daemon.SetServeLimits(daemon.ServeLimits{
		ReadHeader: timeout, Read: timeout, Write: timeout, Idle: time.Minute, MaxConns: 4,
	})()
	d := daemontest.Start(t, w, daemontest.Config(srv.URL))
	// The provider is slow: each batch takes longer than every timeout.
	slow := func(_ http.ResponseWriter, r *http.Request, _ ollamatest.Request) bool {
		select {
		case <-time.After(3 * timeout):
		case <-r.Context().Done():
		}
		return false
	}
	srv.SetFault(slow)
	if rep := daemontest.Reindex(t, d.Client, "demo"); !rep.Complete {
		t.Errorf("slow reindex: %s", rep.Summary)
	}
	repo.Commit(t, "v2", daemontest.Corpus(3, 2, "v2"))
	var events int
	rep, err := d.Client.ReindexStream(context.Background(), "demo", api.ReindexRequest{Scope: "docs"}, func(api.Progress) { events++ })
	if err != nil || !rep.Complete || events == 0 {
		t.Fatalf("slow streamed reindex: %+v, %v after %d progress events", rep, err, events)
	}
}
