package index_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/internal/gittest"
	"github.com/ragd/ragd/internal/testdb"
)

func TestReindex_AlreadyRunning(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	repo := gittest.New(t)
	repo.Commit(t, "docs", map[string]string{"docs/a.md": doc("A", 2)})
	p := testdb.AddProject(t, s, "p", repo.Dir)
	q := testdb.AddProject(t, s, "q", repo.Dir+"/.")
	ix := newIndexer(s, nil)
	since := time.Date(2026, 11, 29, 10, 30, 0, 0, time.UTC)
	ix.Now = func() time.Time { return since }

	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	done := make(chan error, 1)
	go func() {
		_, err := ix.Reindex(ctx, p, []string{"docs"}, func(ragd.Progress) {
			once.Do(func() { close(entered); <-release })
		})
		done <- err
	}()
	<-entered

	_, err := ix.Reindex(ctx, p, nil, nil)
	if !errors.Is(err, index.ErrAlreadyRunning) {
		t.Fatalf("second reindex: err = %v, want ErrAlreadyRunning", err)
	}
	var re *index.RunningError
	if !errors.As(err, &re) || !re.Since.Equal(since) || err.Error() != "reindex of project p already running since 2026-11-29T10:30:00Z" {
		t.Errorf("error %q (%+v)", err, re)
	}
	if _, ok := ix.Running(p.ID); !ok {
		t.Error("Running(p) = false during its reindex")
	}
	if cov, err := ix.Coverage(ctx, p); err != nil || !cov.Running {
		t.Errorf("coverage during the reindex: running %v, %v", cov != nil && cov.Running, err)
	}
	// Another project is not held up.
	reindex(t, ix, q, "docs")

	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, ok := ix.Running(p.ID); ok {
		t.Error("still running after the reindex ended")
	}
	reindex(t, ix, p, "docs") // free again
}

func TestReindex_CancelledBeforeWriteWritesNothing(t *testing.T) {
	for _, phase := range []string{ragd.PhaseRead, ragd.PhaseChunk, ragd.PhaseEmbed, ragd.PhaseWrite} {
		t.Run(phase, func(t *testing.T) {
			ctx := context.Background()
			s := openStore(t)
			_, svc := fakeOllama(t, s, testDims)
			repo := gittest.New(t)
			repo.Commit(t, "v1", map[string]string{"docs/a.md": doc("Old", 3), "docs/adr/x.md": doc("Old ADR", 1)})
			p := testdb.AddProject(t, s, "p", repo.Dir)
			ix := newIndexer(s, svc)
			reindex(t, ix, p)
			before := ids(chunks(t, s, p, "docs"))
			okRun, _ := s.LastRun(ctx, p.ID, "docs", ragd.RunOK)

			repo.Commit(t, "v2", map[string]string{"docs/a.md": doc("New", 3), "docs/b.md": doc("Added", 1)})
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			rep, err := ix.Reindex(cctx, p, nil, func(pr ragd.Progress) {
				if pr.Phase == phase && pr.Scope == "docs" {
					cancel()
				}
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if after := ids(chunks(t, s, p, "docs")); !slices.Equal(before, after) {
				t.Fatal("a cancelled reindex wrote chunks")
			}
			if rep == nil || rep.Complete || rep.Scopes[0].Status != ragd.StatusCancelled || rep.Scopes[1].Status != ragd.StatusNotRun {
				t.Fatalf("report: %+v", rep)
			}
			// Recorded as failed; the last ok run is still the old one.
			for _, scope := range ragd.Scopes {
				run, err := s.LastRun(ctx, p.ID, scope, "")
				if err != nil || run.Status != ragd.RunFailed {
					t.Errorf("%s run: %+v, %v", scope, run, err)
				}
			}
			var stored ragd.ScopeReport
			run, _ := s.LastRun(ctx, p.ID, "docs", "")
			if json.Unmarshal(run.Report, &stored); stored.Status != ragd.StatusCancelled || !strings.Contains(stored.Error, "canceled") {
				t.Errorf("stored report: %+v", stored)
			}
			if last, _ := s.LastRun(ctx, p.ID, "docs", ragd.RunOK); last.ID != okRun.ID {
				t.Errorf("last ok run %d, want %d", last.ID, okRun.ID)
			}
			if _, ok := ix.Running(p.ID); ok {
				t.Error("the lock outlived the cancelled reindex")
			}
		})
	}
}

func TestReindex_Progress(t *testing.T) {
	s := openStore(t)
	_, svc := fakeOllama(t, s, testDims)
	repo := gittest.New(t)
	files := map[string]string{}
	for i := range 300 {
		files["docs/f"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+time.Duration(i).String()+".md"] = doc("File", 1)
	}
	repo.Commit(t, "many", files)
	p := testdb.AddProject(t, s, "p", repo.Dir)
	var log progressLog
	if _, err := newIndexer(s, svc).Reindex(context.Background(), p, []string{"docs"}, log.add); err != nil {
		t.Fatal(err)
	}
	all := log.list()
	order := []string{ragd.PhaseRead, ragd.PhaseChunk, ragd.PhaseEmbed, ragd.PhaseWrite, ragd.PhaseDone}
	count := map[string]int{}
	last := 0
	for _, pr := range all {
		i := slices.Index(order, pr.Phase)
		if i < last || pr.Scope != "docs" || pr.Done > pr.Total {
			t.Fatalf("out of order or bad count: %+v in %+v", pr, all)
		}
		last = i
		count[pr.Phase]++
	}
	for _, ph := range order {
		if count[ph] == 0 || count[ph] > 25 {
			t.Errorf("phase %s reported %d times", ph, count[ph])
		}
	}
	if end := all[len(all)-1]; end.Phase != ragd.PhaseDone || end.Total == 0 || end.Done != end.Total {
		t.Errorf("last report %+v", end)
	}
}
