package store

import (
	"context"
	"errors"
	"testing"

	"github.com/ragd/ragd"
)

func TestRuns_Lifecycle(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")

	if _, err := s.LastRun(ctx, p.ID, ragd.ScopeDocs, ""); !errors.Is(err, ragd.ErrNotFound) {
		t.Fatalf("no runs yet: err = %v", err)
	}
	ok, err := s.StartRun(ctx, p.ID, ragd.ScopeDocs)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx, ok.ID, ragd.RunOK, "c0ffee", []byte(`{"chunks":3}`)); err != nil {
		t.Fatal(err)
	}
	// A run is finished once.
	if err := s.FinishRun(ctx, ok.ID, ragd.RunFailed, "", nil); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("second finish: err = %v, want ErrNotFound", err)
	}
	failed, _ := s.StartRun(ctx, p.ID, ragd.ScopeDocs)
	if err := s.FinishRun(ctx, failed.ID, ragd.RunFailed, "", nil); err != nil {
		t.Fatal(err)
	}
	// A crashed run: started, never finished.
	crashed, _ := s.StartRun(ctx, p.ID, ragd.ScopeDocs)

	last, err := s.LastRun(ctx, p.ID, ragd.ScopeDocs, ragd.RunOK)
	if err != nil {
		t.Fatal(err)
	}
	if last.ID != ok.ID || last.Commit != "c0ffee" || string(last.Report) != `{"chunks":3}` || last.FinishedAt.IsZero() {
		t.Errorf("last ok run: %+v", last)
	}
	if any, _ := s.LastRun(ctx, p.ID, ragd.ScopeDocs, ""); any.ID != crashed.ID || any.Status != ragd.RunRunning || !any.FinishedAt.IsZero() {
		t.Errorf("last run of any status: %+v", any)
	}
	if _, err := s.LastRun(ctx, p.ID, ragd.ScopeADR, ragd.RunOK); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("adr: err = %v", err)
	}
	runs, err := s.Runs(ctx, p.ID, 2)
	if err != nil || len(runs) != 2 || runs[0].ID != crashed.ID || runs[1].ID != failed.ID {
		t.Errorf("Runs(2) = %+v, %v", runs, err)
	}
	if all, _ := s.Runs(ctx, p.ID, 0); len(all) != 3 {
		t.Errorf("Runs(0): %d runs", len(all))
	}
}

func TestRuns_BadInput(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	if _, err := s.StartRun(ctx, p.ID, "code"); err == nil {
		t.Error("unknown scope: no error")
	}
	run, _ := s.StartRun(ctx, p.ID, ragd.ScopeSession)
	if err := s.FinishRun(ctx, run.ID, ragd.RunRunning, "", nil); err == nil {
		t.Error("finish as running: no error")
	}
	if err := s.FinishRun(ctx, run.ID, ragd.RunOK, "", []byte("{")); err == nil {
		t.Error("bad report JSON: no error")
	}
}
