package browse

import (
	"strings"
	"testing"
	"time"
)

// TestBrowse_ActionStatusOwnLineWhenDegraded: at 100 columns, a degraded
// search's reason fills the status line; the outcome of an action (a vote,
// "no editor") then gets a line of its own instead of being cut off behind
// it, and the frame keeps its size and its key help (issue 35 item 20).
func TestBrowse_ActionStatusOwnLineWhenDegraded(t *testing.T) {
	const width, height = 100, 24
	m := New(nil, Options{Project: "demo", Debounce: time.Millisecond, NoColor: true, Width: width, Height: height})
	m.res = result{degraded: true, reason: "ollama at http://127.0.0.1:11434 is unreachable (connection refused): start it with ollama serve, then ragd reindex"}
	m.status = "voted useful on hit 1 of search 42"
	for _, view := range []view{viewSearch, viewSessions, viewStatus} {
		m.view = view
		screen := m.View()
		if !strings.Contains(screen, m.status) {
			t.Errorf("view %d: the action's status is cut off:\n%s", view, screen)
		}
		if !strings.Contains(screen, "DEGRADED") {
			t.Errorf("view %d: the degraded reason is gone:\n%s", view, screen)
		}
		checkFrame(t, m, width, height)
	}
	m.view = viewSearch
	if !strings.Contains(m.View(), searchHelp[1]) {
		t.Errorf("the key help is gone:\n%s", m.View())
	}
	// Room on one line: one line.
	m.res = result{degraded: true, reason: "down"}
	lines := strings.Split(m.View(), "\n")
	if !strings.Contains(lines[2], "DEGRADED") || !strings.Contains(lines[2], m.status) {
		t.Errorf("a short status is not on the status line: %q", lines[2])
	}
}
