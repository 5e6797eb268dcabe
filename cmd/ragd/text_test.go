package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	domain "github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
)

// An explicit --limit outside 1..20 is an error, as on the socket: never
// silently the default.
func TestCLI_SearchLimitOutOfRange(t *testing.T) {
	for _, limit := range []string{"0", "-1", "21"} {
		_, _, err := ragdErr(t, "search", "anything", "--limit", limit)
		var ue usageError
		if err == nil || !strings.Contains(err.Error(), "--limit "+limit+": want 1..20") || !asUsage(err, &ue) {
			t.Errorf("search --limit %s: %v, want a usage error naming the range", limit, err)
		}
	}
}

func asUsage(err error, ue *usageError) bool {
	u, ok := err.(usageError)
	*ue = u
	return ok
}

// sessions show prints what a mechanism event carries and the session's
// title; an import says how its messages become searchable, auto-reindex
// or not.
func TestCLI_SessionsShowAndImportHint(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	d := startDaemon(t, srv.URL)
	repo := daemontest.Repo(t, daemontest.Docs)
	ragd(t, "add", repo.Dir, "--name", "demo")
	ctx := context.Background()
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	_, err := d.Client.AppendEvents(ctx, "demo", []domain.Event{
		{ID: "m1", SessionID: "s1", Type: domain.TypeChatMessage, Actor: "person", Text: "grep the logs", Time: at, Title: "Log hunt"},
		{ID: "t1", SessionID: "s1", Type: "tool.call", Actor: "agent", Time: at.Add(time.Second),
			Payload: json.RawMessage(`{"tool":"grep","args":["panic","daemon.log"]}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	out := string(ragd(t, "sessions", "show", "t1", "--project", "demo"))
	for _, want := range []string{"tool.call (agent) in session s1", `"Log hunt"`, "payload:", `"tool": "grep"`, `"daemon.log"`} {
		if !strings.Contains(out, want) {
			t.Errorf("sessions show t1 lacks %q:\n%s", want, out)
		}
	}

	file := filepath.Join(t.TempDir(), "events.jsonl")
	line := func(id string) string {
		return `{"id":"` + id + `","sessionId":"s2","type":"chat.message","actor":"person","text":"hello ` + id + `","time":"2026-11-29T12:00:00Z"}` + "\n"
	}
	// Imported messages are indexed with them, with or without auto-reindex.
	os.WriteFile(file, []byte(line("a1")), 0o600)
	if out := string(ragd(t, "sessions", "import", file, "--project", "demo")); !strings.Contains(out, "searchable now: 1 chunks written") || strings.Contains(out, "ragd reindex") {
		t.Errorf("import without auto-reindex:\n%s", out)
	}
	on := true
	if _, err := d.Client.PatchProject(ctx, "demo", api.PatchProjectRequest{AutoReindex: &on}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(file, []byte(line("a2")), 0o600)
	if out := string(ragd(t, "sessions", "import", file, "--project", "demo")); !strings.Contains(out, "searchable now: 1 chunks written") || strings.Contains(out, "ragd reindex") {
		t.Errorf("import with auto-reindex on:\n%s", out)
	}
}
