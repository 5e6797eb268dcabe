package daemon_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/internal/daemontest"
)

// TestAPI_EventConflictIsAnError: when every event of an append conflicts,
// the 409 is the error shape with the counts in error.details, and the
// typed client returns both the counts and an error matching
// ragd.ErrEventConflict.
func TestAPI_EventConflictIsAnError(t *testing.T) {
	daemontest.EngineIndependent(t)
	ctx := context.Background()
	d, _ := startDocs(t, newServer(t).URL)
	ev := ragd.Event{ID: "e1", SessionID: "s1", Type: "note", Actor: "person", Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	if _, err := d.Client.AppendEvents(ctx, "demo", []ragd.Event{ev}); err != nil {
		daemontest.Fatal(t, "append", err)
	}
	ev.Actor = "agent"
	body, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	a := daemontest.Do(t, d.Socket(), "POST", daemontest.ProjectPath("demo", "/events"), "application/json", body)
	e := a.ErrorBody(t)
	if a.Status != http.StatusConflict || e.Code != api.CodeEventConflict || !strings.Contains(e.Message, `"e1"`) {
		t.Errorf("conflict: %d %s %q; want 409 %s naming e1", a.Status, e.Code, e.Message, api.CodeEventConflict)
	}
	var shape struct {
		Error struct {
			Details api.AppendResult `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(a.Body, &shape); err != nil {
		t.Fatal(err)
	}
	if got := shape.Error.Details; got.Appended != 0 || len(got.Conflicts) != 1 || got.Conflicts[0].EventID != "e1" {
		t.Errorf("error.details %+v: want no event appended and e1's conflict", got)
	}

	res, err := d.Client.AppendEvents(ctx, "demo", []ragd.Event{ev})
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Status != http.StatusConflict || !errors.Is(err, ragd.ErrEventConflict) {
		t.Fatalf("client conflict: %v (%T), want a 409 *client.Error matching ErrEventConflict", err, err)
	}
	if res == nil || len(res.Conflicts) != 1 || res.Conflicts[0].Fields[0] != "actor" {
		t.Errorf("client conflict result %+v: want e1's conflict on actor", res)
	}
}
