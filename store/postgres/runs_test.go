package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/ragd/ragd"
)

func TestRuns(t *testing.T) {
	alice, url := openTest(t, Options{Owner: "alice"})
	bob := openAt(t, url, Options{Owner: "bob"})
	ctx := context.Background()
	p := addProject(t, alice, "demo")
	addProject(t, bob, "demo")

	if _, err := alice.LastRun(ctx, p.ID, ragd.ScopeDocs, ""); !errors.Is(err, ragd.ErrNotFound) {
		t.Fatalf("last run of none: %v, want ErrNotFound", err)
	}
	r1, err := alice.StartRun(ctx, p.ID, ragd.ScopeDocs)
	if err != nil {
		t.Fatal(err)
	}
	if err := alice.FinishRun(ctx, r1.ID, ragd.RunOK, "abc", []byte(`{"chunks": 3}`)); err != nil {
		t.Fatal(err)
	}
	if err := alice.FinishRun(ctx, r1.ID, ragd.RunOK, "abc", nil); !errors.Is(err, ragd.ErrNotFound) {
		t.Fatalf("finish twice: %v, want ErrNotFound", err)
	}
	if err := alice.FinishRun(ctx, r1.ID, "maybe", "", nil); err == nil {
		t.Fatal("unknown status: no error")
	}
	// Bob's docs run is the shared docs' last; his session run is his own.
	r2, err := bob.StartRun(ctx, p.ID, ragd.ScopeDocs)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := bob.StartRun(ctx, p.ID, ragd.ScopeSession)
	if err != nil {
		t.Fatal(err)
	}
	last, err := alice.LastRun(ctx, p.ID, ragd.ScopeDocs, "")
	if err != nil || last.ID != r2.ID || last.Status != ragd.RunRunning || !last.FinishedAt.IsZero() {
		t.Fatalf("last docs run: %+v, %v; want bob's running one", last, err)
	}
	ok, err := alice.LastRun(ctx, p.ID, ragd.ScopeDocs, ragd.RunOK)
	if err != nil || ok.ID != r1.ID || ok.Commit != "abc" || ok.FinishedAt.IsZero() || !ok.StartedAt.Equal(r1.StartedAt) {
		t.Fatalf("last ok docs run: %+v, %v", ok, err)
	}
	var report map[string]int
	if err := json.Unmarshal(ok.Report, &report); err != nil || report["chunks"] != 3 {
		t.Fatalf("report %s: %v", ok.Report, err)
	}
	if _, err := alice.LastRun(ctx, p.ID, ragd.ScopeSession, ""); !errors.Is(err, ragd.ErrNotFound) {
		t.Fatalf("alice's last session run: %v, want ErrNotFound (bob's is his)", err)
	}
	runs, err := alice.Runs(ctx, p.ID, 0)
	if err != nil || len(runs) != 2 || runs[0].ID != r2.ID {
		t.Fatalf("alice's runs: %+v, %v; want both docs runs, newest first", runs, err)
	}
	if runs, _ := bob.Runs(ctx, p.ID, 1); len(runs) != 1 || runs[0].ID != rs.ID {
		t.Fatalf("bob's latest run: %+v", runs)
	}
	// Alice's daemon restarting abandons none of Bob's live runs.
	if n, err := alice.AbandonRuns(ctx); err != nil || n != 0 {
		t.Fatalf("alice abandoned %d, %v; want 0", n, err)
	}
	if n, err := bob.AbandonRuns(ctx); err != nil || n != 2 {
		t.Fatalf("bob abandoned %d, %v; want 2", n, err)
	}
	last, err = bob.LastRun(ctx, p.ID, ragd.ScopeSession, "")
	if err != nil || last.Status != ragd.RunFailed || last.FinishedAt.IsZero() {
		t.Fatalf("abandoned run: %+v, %v", last, err)
	}
	var why map[string]string
	if err := json.Unmarshal(last.Report, &why); err != nil || why["error"] != abandonedError {
		t.Fatalf("abandoned run's report %s: %v", last.Report, err)
	}
}
