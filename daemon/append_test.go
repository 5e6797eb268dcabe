package daemon_test

import (
	"context"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/internal/daemontest"
)

// TestAppend_SearchableAtOnce: messages POSTed to the socket are found by
// the next search, lexically, with no reindex of the session scope; a
// title that arrives later is carried to their hits, and a refused batch
// leaves nothing searchable.
func TestAppend_SearchableAtOnce(t *testing.T) {
	daemontest.EngineIndependent(t)
	ctx := context.Background()
	d, _ := startDocs(t, newServer(t).URL)
	// Lexically, as appended: vectors filled meanwhile would move the
	// fused scores (backfill_test.go tests the fill).
	d.StopBackfill()
	c := d.Client
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

	res, err := c.AppendEvents(ctx, "demo", []ragd.Event{
		{ID: "q1", SessionID: "s-capybara", Type: "chat.message", Actor: "person", Text: "Should the capybara cache be sharded?", Time: at},
		{ID: "a1", SessionID: "s-capybara", Type: "agent.response", Actor: "agent", Text: "Shard the capybara cache by project.", Time: at.Add(time.Second)},
		{ID: "t1", SessionID: "s-capybara", Type: "tool.call", Actor: "agent", Time: at.Add(2 * time.Second)},
	})
	if err != nil {
		daemontest.Fatal(t, "append", err)
	}
	if res.Appended != 3 || res.Messages != 2 || res.Chunks != 2 || res.Unindexed != 0 {
		t.Fatalf("append: %+v", res)
	}

	resp := daemontest.Search(t, c, "demo", api.SearchRequest{Query: "capybara cache", Scopes: []string{"session"}})
	if len(resp.Hits) != 2 {
		t.Fatalf("%d session hits for the appended messages, want 2: %+v", len(resp.Hits), resp.Hits)
	}
	for _, h := range resp.Hits {
		if h.Origin.Kind != ragd.OriginSession || h.Origin.SessionID != "s-capybara" || h.Origin.Title != "s-capybara" ||
			(h.Origin.EventID != "q1" && h.Origin.EventID != "a1") {
			t.Errorf("hit %+v", h.Origin)
		}
	}

	// The session's title comes later, on an event of its own.
	if _, err := c.AppendEvents(ctx, "demo", []ragd.Event{{ID: "n1", SessionID: "s-capybara", Type: "summary",
		Actor: "agent", Time: at.Add(time.Minute), Title: "Sharding the rodent cache"}}); err != nil {
		daemontest.Fatal(t, "title", err)
	}
	resp = daemontest.Search(t, c, "demo", api.SearchRequest{Query: "rodent", Scopes: []string{"session"}})
	if len(resp.Hits) != 2 || resp.Hits[0].Origin.Title != "Sharding the rodent cache" {
		t.Errorf("search by the later title: %+v", resp.Hits)
	}

	// The same events again: nothing new, nothing written.
	again, err := c.AppendEvents(ctx, "demo", []ragd.Event{
		{ID: "q1", SessionID: "s-capybara", Type: "chat.message", Actor: "person", Text: "Should the capybara cache be sharded?", Time: at},
	})
	if err != nil || again.Appended != 0 || again.Duplicates != 1 || again.Chunks != 0 {
		t.Errorf("duplicate append: %+v, %v", again, err)
	}

	// A batch with one invalid event is refused whole: its good message is
	// not searchable.
	body := `{"events":[{"id":"g1","sessionId":"s-bad","type":"chat.message","actor":"person","text":"the wombat ledger","time":"2026-11-29T13:00:00Z"},` +
		`{"id":"g2","sessionId":"s-bad","type":"agent.response","actor":"agent","text":"   ","time":"2026-11-29T13:00:01Z"}]}`
	if a := daemontest.Do(t, d.Socket(), "POST", daemontest.ProjectPath("demo", "/events"), "application/json", []byte(body)); a.Status != 400 {
		t.Errorf("invalid batch: %d %s", a.Status, a.Body)
	}
	if resp := daemontest.Search(t, c, "demo", api.SearchRequest{Query: "wombat ledger", Scopes: []string{"session"}}); len(resp.Hits) != 0 {
		t.Errorf("a refused batch is searchable: %+v", resp.Hits)
	}

	sc := daemontest.ScopeCoverage(t, daemontest.Coverage(t, c, "demo"), "session")
	if sc.Stale || sc.MessagesIndexed != 2 || sc.Chunks != 2 {
		t.Errorf("session coverage: %+v", sc)
	}
}
