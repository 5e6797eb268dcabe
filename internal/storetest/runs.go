package storetest

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/ragd/ragd"
)

var runTests = []subtest{
	{"start, finish, last", testRuns},
	{"refused runs", testRunsRefused},
}

// testRuns: a run starts running, is finished once, and LastRun finds the
// latest of a scope, by status or of any.
func testRuns(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	p := e.project("p")
	if _, err := s.LastRun(ctx, p.ID, ragd.ScopeDocs, ""); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("last run before any: %v, want ErrNotFound", err)
	}
	first, err := s.StartRun(ctx, p.ID, ragd.ScopeDocs)
	if err != nil || first.ID == 0 || first.Status != ragd.RunRunning || first.Scope != ragd.ScopeDocs || first.ProjectID != p.ID ||
		first.StartedAt.IsZero() || !first.FinishedAt.IsZero() {
		t.Fatalf("start: %+v, %v", first, err)
	}
	if err := s.FinishRun(ctx, first.ID, ragd.RunOK, "abc123", []byte(`{"chunks":3}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx, first.ID, ragd.RunFailed, "", nil); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("finish a finished run: %v, want ErrNotFound", err)
	}
	second, err := s.StartRun(ctx, p.ID, ragd.ScopeDocs)
	if err != nil || second.ID == first.ID {
		t.Fatalf("second start: %+v, %v", second, err)
	}
	if err := s.FinishRun(ctx, second.ID, ragd.RunFailed, "", nil); err != nil {
		t.Fatal(err)
	}
	running, err := s.StartRun(ctx, p.ID, ragd.ScopeADR)
	if err != nil {
		t.Fatal(err)
	}

	ok, err := s.LastRun(ctx, p.ID, ragd.ScopeDocs, ragd.RunOK)
	if err != nil || ok.ID != first.ID || ok.Commit != "abc123" || ok.FinishedAt.IsZero() || !jsonEqual(ok.Report, `{"chunks":3}`) {
		t.Errorf("last ok docs run: %+v, %v", ok, err)
	}
	last, err := s.LastRun(ctx, p.ID, ragd.ScopeDocs, "")
	if err != nil || last.ID != second.ID || last.Status != ragd.RunFailed || last.Commit != "" || !jsonEqual(last.Report, `{}`) {
		t.Errorf("last docs run: %+v, %v", last, err)
	}
	adr, err := s.LastRun(ctx, p.ID, ragd.ScopeADR, "")
	if err != nil || adr.ID != running.ID || adr.Status != ragd.RunRunning || !adr.FinishedAt.IsZero() {
		t.Errorf("last adr run: %+v, %v", adr, err)
	}
	if _, err := s.LastRun(ctx, p.ID, ragd.ScopeSession, ""); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("last session run: %v, want ErrNotFound", err)
	}
	// Runs lists the project's runs of every scope, newest first.
	runs, err := s.Runs(ctx, p.ID, 2)
	if err != nil || len(runs) != 2 || runs[0].ID != running.ID || runs[1].ID != second.ID {
		t.Errorf("the last 2 runs: %+v, %v; want the adr run, then the failed docs run", runs, err)
	}
	if all, err := s.Runs(ctx, p.ID, 0); err != nil || len(all) != 3 {
		t.Errorf("every run (limit 0): %d runs, %v; want 3", len(all), err)
	}
}

// testRunsRefused: a run of an unknown scope is not started, and one is
// finished only with a final status and a JSON report.
func testRunsRefused(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	p := e.project("p")
	if r, err := s.StartRun(ctx, p.ID, "code"); err == nil {
		t.Errorf("run of an unknown scope: %+v, no error", r)
	}
	run, err := s.StartRun(ctx, p.ID, ragd.ScopeSession)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what, status string
		report       []byte
	}{
		{"finished as running", ragd.RunRunning, nil},
		{"an unknown status", "maybe", nil},
		{"a report that is not JSON", ragd.RunOK, []byte("{")},
	} {
		if err := s.FinishRun(ctx, run.ID, c.status, "", c.report); err == nil {
			t.Errorf("%s: no error", c.what)
		}
	}
	if last, err := s.LastRun(ctx, p.ID, ragd.ScopeSession, ""); err != nil || last.ID != run.ID || last.Status != ragd.RunRunning {
		t.Errorf("after the refused finishes: %+v, %v; want the run still running", last, err)
	}
}

// jsonEqual reports whether b is the JSON value of want (an engine may
// store a report as JSON and give it back reformatted).
func jsonEqual(b []byte, want string) bool {
	var x, y any
	return json.Unmarshal(b, &x) == nil && json.Unmarshal([]byte(want), &y) == nil && reflect.DeepEqual(x, y)
}
