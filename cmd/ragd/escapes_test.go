package main

import (
	"context"
	"strings"
	"testing"
	"time"

	domain "github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
)

// TestCLI_TerminalEscapesNeverPrinted: a doc titled with an escape, a doc
// holding a clipboard write and a screen clear, a session message setting
// the terminal's title: the human-readable output of search, reindex,
// layout and sessions show them as text, never as commands; --json stays
// exact (issue 35 item 7).
func TestCLI_TerminalEscapesNeverPrinted(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	d := startDaemon(t, srv.URL)
	const (
		red   = "\x1b[31m"
		clip  = "\x1b]52;c;aGFja2Vk\a"
		clear = "\x1b[2J"
		title = "\x1b]0;HACKED\a"
	)
	repo := daemontest.Repo(t, map[string]string{
		"docs/red.md":   "# Escapes " + red + "\n\n## Section " + title + "\n\nThe zebrafish guide " + clip + " and " + clear + " here.\n",
		"docs/guide.md": "# Guide\n\nThe zebrafish manual.\n",
	})
	ragd(t, "add", repo.Dir, "--name", "demo")
	ev := domain.Event{ID: "e1", SessionID: "s1", Type: "chat.message", Actor: "person", Title: "title " + title,
		Text: "zebrafish " + title, Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	if _, err := d.Client.AppendEvents(context.Background(), "demo", []domain.Event{ev}); err != nil {
		daemontest.Fatal(t, "append", err)
	}
	outputs := map[string]string{}
	for _, args := range [][]string{
		{"reindex", "--project", "demo"},
		{"search", "zebrafish", "--project", "demo"},
		{"layout", "--project", "demo"},
		{"sessions", "list", "--project", "demo"},
		{"sessions", "show", "s1", "--project", "demo"},
	} {
		o, e, err := ragdErr(t, args...)
		if err != nil {
			t.Fatalf("ragd %s: %v\n%s", strings.Join(args, " "), err, e)
		}
		outputs[strings.Join(args[:2], " ")] = string(o) + string(e)
	}
	for cmd, out := range outputs {
		if strings.ContainsAny(out, "\x1b\a") {
			t.Errorf("ragd %s writes a control character raw:\n%q", cmd, out)
		}
	}
	if s := outputs["search zebrafish"]; !strings.Contains(s, `\x1b[2J`) && !strings.Contains(s, `\x1b[31m`) {
		t.Errorf("search does not show the escapes as text:\n%s", s)
	}
	// --json is exact: the escapes are in the decoded strings.
	resp := decode[api.SearchResponse](t, ragd(t, "search", "zebrafish", "--project", "demo", "--json"))
	found := false
	for _, h := range resp.Hits {
		if strings.Contains(h.Content, clear) || strings.Contains(h.Origin.Title, red) {
			found = true
		}
	}
	if !found {
		t.Errorf("search --json: no hit holds the escapes exactly: %+v", resp.Hits)
	}
}
