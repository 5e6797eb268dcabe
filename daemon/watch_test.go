package daemon_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/internal/daemontest"
)

// refreshes returns a channel that receives a value after each refresh of
// a project's stale scopes. The hook never blocks the watcher: a refresh
// that finds the channel full is announced by the values already in it.
func refreshes(d *daemontest.Daemon) <-chan int64 {
	ch := make(chan int64, 64)
	d.SetRefreshHook(func(id int64) {
		select {
		case ch <- id:
		default:
		}
	})
	return ch
}

// awaitRefresh waits until cond holds, checking it again after each
// refresh the watcher announces on ch.
func awaitRefresh(tb testing.TB, ch <-chan int64, what string, cond func() bool) {
	tb.Helper()
	timeout := time.After(daemontest.Timeout)
	for !cond() {
		select {
		case <-ch:
		case <-timeout:
			tb.Fatalf("no refresh brought %s within %s", what, daemontest.Timeout)
		}
	}
}

func TestWatch_CommitMarksScopesStale(t *testing.T) {
	daemontest.EngineIndependent(t)
	d, repo := startDocs(t, newServer(t).URL)
	c := d.Client
	ch := refreshes(d)
	daemontest.Reindex(t, c, "demo")
	if p := daemontest.Project(t, c, "demo"); len(p.Stale) != 0 {
		t.Fatalf("stale after reindex: %v", p.Stale)
	}
	old := repo.Head(t)

	head := repo.Commit(t, "ADR 2", map[string]string{"docs/adr/0002-watch.md": "# ADR 2: Watch\n\nHEAD moves, scopes go stale.\n"})
	awaitRefresh(t, ch, "adr stale in GET /v1/projects", func() bool {
		return slices.Contains(daemontest.Project(t, c, "demo").Stale, "adr")
	})
	if p := daemontest.Project(t, c, "demo"); !slices.Equal(p.Stale, []string{"docs", "adr"}) {
		t.Errorf("GET /v1/projects stale %v, want [docs adr]", p.Stale)
	}
	cov := daemontest.Coverage(t, c, "demo")
	adr := daemontest.ScopeCoverage(t, cov, "adr")
	if !adr.Stale || adr.LastCommit != old || cov.Head.Commit != head || adr.Total != 2 || adr.Indexed != 1 ||
		!slices.Equal(adr.Unindexed, []string{"docs/adr/0002-watch.md"}) {
		t.Errorf("adr coverage after a commit: %+v (head %+v)", adr, cov.Head)
	}
	if s := daemontest.ScopeCoverage(t, cov, "session"); s.Stale {
		t.Errorf("session stale after a commit: %+v", s)
	}
	resp := daemontest.Search(t, c, "demo", api.SearchRequest{Query: "scopes stale"})
	if !slices.Contains(resp.Stale, "adr") {
		t.Errorf("search answer stale %v, want adr in it", resp.Stale)
	}

	// A reindex clears it, at once (the daemon refreshes after it).
	daemontest.Reindex(t, c, "demo", "docs", "adr")
	if p := daemontest.Project(t, c, "demo"); len(p.Stale) != 0 {
		t.Errorf("stale after the reindex: %v", p.Stale)
	}

	// Messages appended are indexed with them: the session scope stays
	// fresh (coverage is computed on asking, not from the watcher).
	ev := map[string]any{"id": "m1", "sessionId": "s1", "type": "chat.message", "actor": "person",
		"text": "Is the index stale?", "time": "2026-11-29T12:00:00Z"}
	body, _ := json.Marshal(ev)
	if a := daemontest.Do(t, d.Socket(), "POST", daemontest.ProjectPath("demo", "/events"), "application/json", body); a.Status != http.StatusOK {
		t.Fatalf("append: %d %s", a.Status, a.Body)
	}
	if s := daemontest.ScopeCoverage(t, daemontest.Coverage(t, c, "demo"), "session"); s.Stale || s.MessagesIndexed != 1 {
		t.Errorf("session coverage after an append: %+v", s)
	}

	// A detached checkout of the old commit moves HEAD too.
	daemontest.Reindex(t, c, "demo")
	repo.Checkout(t, old)
	awaitRefresh(t, ch, "stale after a checkout", func() bool {
		return slices.Equal(daemontest.Project(t, c, "demo").Stale, []string{"docs", "adr"})
	})
}

func TestWatch_AutoReindex(t *testing.T) {
	daemontest.EngineIndependent(t)
	d, repo := startDocs(t, newServer(t).URL)
	c := d.Client
	ch := refreshes(d)
	daemontest.Reindex(t, c, "demo")

	p, err := c.PatchProject(context.Background(), "demo", api.PatchProjectRequest{AutoReindex: ptr(true)})
	if err != nil {
		daemontest.Fatal(t, "patch", err)
	}
	if !p.AutoReindex || !daemontest.Project(t, c, "demo").AutoReindex {
		t.Fatalf("after PATCH autoReindex true: %+v", p)
	}

	head := repo.Commit(t, "xylophone", map[string]string{"docs/xylophone.md": "# Xylophone\n\nThe xylophone note is indexed by itself.\n"})
	awaitRefresh(t, ch, "an auto-reindex of the new commit", func() bool {
		sc := daemontest.ScopeCoverage(t, daemontest.Coverage(t, c, "demo"), "docs")
		return sc.LastCommit == head && !sc.Stale && sc.Indexed == 2
	})
	resp := daemontest.Search(t, c, "demo", api.SearchRequest{Query: "xylophone"})
	if len(resp.Hits) == 0 || resp.Hits[0].Origin.SourcePath != "docs/xylophone.md" || len(resp.Stale) != 0 {
		t.Errorf("search after the auto-reindex: stale %v hits %+v", resp.Stale, resp.Hits)
	}

	// Turned off, a commit only marks the scopes stale.
	if p, err = c.PatchProject(context.Background(), "demo", api.PatchProjectRequest{AutoReindex: ptr(false)}); err != nil || p.AutoReindex {
		t.Fatalf("patch off: %+v, %v", p, err)
	}
	repo.Commit(t, "marimba", map[string]string{"docs/marimba.md": "# Marimba\n\nNot indexed by itself.\n"})
	awaitRefresh(t, ch, "docs stale", func() bool {
		return slices.Contains(daemontest.Project(t, c, "demo").Stale, "docs")
	})
}
