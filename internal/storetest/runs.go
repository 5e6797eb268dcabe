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
}

// jsonEqual reports whether b is the JSON value of want (an engine may
// store a report as JSON and give it back reformatted).
func jsonEqual(b []byte, want string) bool {
	var x, y any
	return json.Unmarshal(b, &x) == nil && json.Unmarshal([]byte(want), &y) == nil && reflect.DeepEqual(x, y)
}
