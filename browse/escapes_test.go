package browse

import (
	"context"
	"strings"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
)

// TestBrowse_EscapesInTheIndexAreText: a doc that clears the screen and
// writes the clipboard, a session that sets the terminal's title: browse
// draws them as text; the frame holds no control sequence but its own
// colours (none here: NoColor) (issue 35 item 7).
func TestBrowse_EscapesInTheIndexAreText(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	d := daemontest.Start(t, daemontest.NewWorld(t), daemontest.Config(srv.URL))
	daemontest.AddProject(t, d.Client, daemontest.Repo(t, map[string]string{
		"docs/x.md": "# Zebrafish \x1b[2J\n\nThe zebrafish \x1b]52;c;aGFja2Vk\a tank \x1b[31mred.\n",
	}).Dir, "demo")
	if _, err := d.Client.AppendEvents(context.Background(), "demo", []ragd.Event{
		{ID: "e1", SessionID: "s1", Type: ragd.TypeChatMessage, Actor: ragd.ActorPerson, Text: "zebrafish \x1b]0;HACKED\a",
			Time: at(0), Title: "title \x1b]0;HACKED\a"},
	}); err != nil {
		daemontest.Fatal(t, "append", err)
	}
	daemontest.Reindex(t, d.Client, "demo")
	h := newHarness(t, d.Client, "demo")
	raw := func(what string) {
		t.Helper()
		if v := h.m.View(); strings.ContainsAny(v, "\x1b\a") {
			t.Errorf("%s: the frame writes a control character raw:\n%q", what, v)
		}
	}
	h.typeText("zebrafish")
	h.wants("results", "zebrafish")
	raw("results")
	h.key("enter")
	raw("preview")
	h.key("esc", "tab")
	h.wants("sessions", "title")
	raw("sessions")
	h.key("enter")
	raw("conversation")
}
