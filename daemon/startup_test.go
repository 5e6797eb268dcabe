package daemon_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/internal/daemontest"
)

// Issue 27 items 16 and 25: a daemon that starts (after a clean stop or a
// kill) answers before its projects' statistics are computed: here they
// wait for the test, and health and the project list answer meanwhile;
// once they come, the project's stale scopes are known.
func TestStart_AnswersBeforeStatistics(t *testing.T) {
	daemontest.EngineIndependent(t)
	srv := newServer(t)
	w := daemontest.NewWorld(t)
	first := daemontest.Start(t, w, daemontest.Config(srv.URL))
	daemontest.AddProject(t, first.Client, daemontest.Repo(t, daemontest.Docs).Dir, "demo")
	first.Stop(t)

	release := make(chan struct{})
	defer daemon.SetStartupHook(func(ctx context.Context) {
		select {
		case <-release:
		case <-ctx.Done():
		}
	})()
	started := make(chan *daemontest.Daemon, 1)
	go func() { started <- daemontest.Start(t, w, daemontest.Config(srv.URL)) }()
	var d *daemontest.Daemon
	select {
	case d = <-started:
	case <-time.After(daemontest.Timeout):
		close(release)
		t.Fatal("the daemon did not start while its start-up statistics waited")
	}
	ctx := context.Background()
	if _, err := d.Client.Health(ctx); err != nil {
		daemontest.Fatal(t, "health while the statistics wait", err)
	}
	if ps, err := d.Client.Projects(ctx); err != nil || len(ps) != 1 {
		t.Fatalf("projects while the statistics wait: %+v, %v", ps, err)
	}

	refreshed := make(chan int64, 1)
	d.SetRefreshHook(func(id int64) { refreshed <- id })
	close(release)
	select {
	case <-refreshed:
	case <-time.After(daemontest.Timeout):
		t.Fatal("no start-up refresh after the statistics were released")
	}
	if p := daemontest.Project(t, d.Client, "demo"); !slices.Equal(p.Stale, []string{"docs", "adr"}) {
		t.Errorf("stale after the start-up refresh: %v, want [docs adr] (never indexed)", p.Stale)
	}
}
