package browse

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
)

var update = flag.Bool("update", false, "rewrite the golden frames in testdata")

func TestMain(m *testing.M) {
	time.Local = time.UTC // the frames show times: the same in every zone
	os.Exit(m.Run())
}

// at is a fixed time of the sessions the tests store.
func at(min int) time.Time { return time.Date(2026, 2, 1, 10, min, 0, 0, time.UTC) }

// counting is the real client, counting the searches sent.
type counting struct {
	Backend
	searches atomic.Int32
}

func (c *counting) Search(ctx context.Context, project string, req api.SearchRequest) (*api.SearchResponse, error) {
	c.searches.Add(1)
	return c.Backend.Search(ctx, project, req)
}

// world is a real daemon with the docs project "demo", indexed, holding
// one session, and a second project "garden".
func world(t *testing.T) (*daemontest.Daemon, *counting) {
	t.Helper()
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	d := daemontest.Start(t, daemontest.NewWorld(t), daemontest.Config(srv.URL))
	daemontest.AddProject(t, d.Client, daemontest.Repo(t, daemontest.Docs).Dir, "demo")
	daemontest.AddProject(t, d.Client, daemontest.Repo(t, map[string]string{
		"docs/pond.md": "# Pond\n\n## Axolotls\n\nThe axolotl tank is kept at sixteen degrees; axolotls hate warm water.\n",
	}).Dir, "garden")
	if _, err := d.Client.AppendEvents(context.Background(), "demo", []ragd.Event{
		{ID: "codex:e1", SessionID: "codex:s1", Type: ragd.TypeChatMessage, Actor: ragd.ActorPerson, Text: "Where does the storage ADR keep telemetry?", Time: at(0), Title: "Storage questions"},
		{ID: "codex:e2", SessionID: "codex:s1", Type: "tool.call", Actor: ragd.ActorAgent, Time: at(1), Payload: []byte(`{"name":"grep","args":["telemetry","docs/adr"]}`)},
		{ID: "codex:e3", SessionID: "codex:s1", Type: ragd.TypeAgentResponse, Actor: ragd.ActorAgent, Text: "Beside the chunks, in the same SQLite database.", Time: at(2)},
		{ID: "n1", SessionID: "notes", Type: ragd.TypeChatMessage, Actor: ragd.ActorPerson, Text: "A note on filters", Time: at(30), Title: "Notes"},
	}); err != nil {
		daemontest.Fatal(t, "append", err)
	}
	daemontest.Reindex(t, d.Client, "demo")
	daemontest.Reindex(t, d.Client, "garden")
	return d, &counting{Backend: d.Client}
}

// harness drives a Model as the program would: keys in, the commands'
// messages fed back, run in order.
type harness struct {
	t       *testing.T
	m       Model
	pending []tea.Cmd
	quit    bool
}

func newHarness(t *testing.T, b Backend, project string) *harness {
	return &harness{t: t, m: New(b, Options{Project: project, Debounce: time.Millisecond, NoColor: true, Width: 80, Height: 24})}
}

// send updates the model with msg and keeps its command for settle.
func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	next, cmd := h.m.Update(msg)
	h.m = next.(Model)
	if cmd != nil {
		h.pending = append(h.pending, cmd)
	}
}

// settle runs the pending commands, in order, and those their messages
// bring, until none is left.
func (h *harness) settle() {
	h.t.Helper()
	for len(h.pending) > 0 {
		cmd := h.pending[0]
		h.pending = h.pending[1:]
		done := make(chan tea.Msg, 1)
		go func() { done <- cmd() }()
		var msg tea.Msg
		select {
		case msg = <-done:
		case <-time.After(daemontest.Timeout):
			h.t.Fatal("a command did not answer")
		}
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			h.pending = append(h.pending, msg...)
		case tea.QuitMsg:
			h.quit = true
		default:
			h.send(msg)
		}
	}
}

func (h *harness) key(keys ...string) {
	h.t.Helper()
	for _, k := range keys {
		h.send(keyMsg(k))
	}
	h.settle()
}

// typeText types s a rune at a time, then lets the debounce fire.
func (h *harness) typeText(s string) {
	for _, r := range s {
		h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	h.settle()
}

func keyMsg(k string) tea.KeyMsg {
	switch k {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	case "pgup":
		return tea.KeyMsg{Type: tea.KeyPgUp}
	case "backspace":
		return tea.KeyMsg{Type: tea.KeyBackspace}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "ctrl+g":
		return tea.KeyMsg{Type: tea.KeyCtrlG}
	case "ctrl+x":
		return tea.KeyMsg{Type: tea.KeyCtrlX}
	case "ctrl+p":
		return tea.KeyMsg{Type: tea.KeyCtrlP}
	case "ctrl+j":
		return tea.KeyMsg{Type: tea.KeyCtrlJ}
	case "ctrl+k":
		return tea.KeyMsg{Type: tea.KeyCtrlK}
	case "ctrl+s":
		return tea.KeyMsg{Type: tea.KeyCtrlS}
	case "ctrl+o":
		return tea.KeyMsg{Type: tea.KeyCtrlO}
	case "ctrl+y":
		return tea.KeyMsg{Type: tea.KeyCtrlY}
	case "ctrl+r":
		return tea.KeyMsg{Type: tea.KeyCtrlR}
	}
	if d, ok := strings.CutPrefix(k, "alt+"); ok {
		return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(d), Alt: true}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// screen is the frame as the terminal shows it, styles removed.
func (h *harness) screen() string { return ansi.Strip(h.m.View()) }

func (h *harness) wants(what string, says ...string) {
	h.t.Helper()
	s := h.screen()
	for _, w := range says {
		if !strings.Contains(s, w) {
			h.t.Errorf("%s: the screen lacks %q:\n%s", what, w, s)
		}
	}
}

// checkFrame checks every frame's size: height lines, none wider.
func checkFrame(t *testing.T, m Model, width, height int) {
	t.Helper()
	lines := strings.Split(m.View(), "\n")
	if len(lines) != height {
		t.Errorf("frame of %d lines, want %d", len(lines), height)
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > width {
			t.Errorf("line %d is %d wide, over %d: %q", i+1, w, width, ansi.Strip(l))
		}
	}
}

// TestBrowse_Keys goes through every key of every view against a real
// daemon.
func TestBrowse_Keys(t *testing.T) {
	d, b := world(t)
	h := newHarness(t, b, "demo")
	h.wants("start", "ragd browse · project demo · [x]docs(M-1) [x]adr(M-2) [x]session(M-3)", "vectors: not searched yet")

	// Typing: one search when typing pauses, not one a key.
	h.typeText("sqlite telemetry")
	if n := b.searches.Load(); n != 1 {
		t.Errorf("typing the query sent %d searches, want 1 (debounced)", n)
	}
	h.wants("results", "› 1 docs/adr/0001-storage.md § Decision", "hybrid · vectors", "(v ")
	checkFrame(t, h.m, 80, 24)
	if len(h.m.hits) < 2 {
		t.Fatalf("%d hits, want 2 or more:\n%s", len(h.m.hits), h.screen())
	}

	// Selection moves and stops at the ends.
	h.key("down")
	if h.m.sel != 1 {
		t.Errorf("down: selected %d, want 1", h.m.sel)
	}
	h.key("up", "up", "ctrl+k")
	if h.m.sel != 0 {
		t.Errorf("up at the top: selected %d", h.m.sel)
	}
	h.key("ctrl+j", "ctrl+k")

	// The preview: the whole section, its neighbours.
	h.key("enter")
	h.wants("preview", "We keep every chunk in one SQLite", "↓ next § Consequences")
	h.key("pgdown")
	if h.m.previewOffset != 1 {
		t.Errorf("pgdown: offset %d", h.m.previewOffset)
	}
	h.key("pgup", "pgup")
	if h.m.previewOffset != 0 {
		t.Errorf("pgup: offset %d", h.m.previewOffset)
	}
	h.key("down") // the preview follows the selection
	if h.m.preview == nil || h.m.preview.ChunkID != h.m.hits[1].ChunkID {
		t.Errorf("the preview did not follow the selection to %s", h.m.hits[1].ChunkID)
	}
	h.key("up", "esc")
	if h.m.previewOpen {
		t.Error("esc left the preview open")
	}

	// Votes, as a person, on the selected hit.
	h.key("ctrl+g")
	h.wants("vote", "voted useful on hit 1 of search")
	votes, err := d.Store().SearchVotes(context.Background(), *h.m.hits[0].searchID)
	if err != nil || len(votes) != 1 || votes[0].Actor != ragd.ActorPerson || votes[0].Verdict != "useful" {
		t.Errorf("recorded votes %+v, %v", votes, err)
	}
	h.key("ctrl+x")
	h.wants("re-vote", "voted irrelevant on hit 1")

	// Scopes: adr off leaves the docs guide and the session.
	h.key("alt+2")
	h.wants("adr off", "[ ]adr(M-2)")
	for _, hit := range h.m.hits {
		if hit.Scope == ragd.ScopeADR {
			t.Errorf("adr off: hit %s", hit.Origin)
		}
	}
	h.key("alt+1")
	h.key("alt+3")
	h.wants("every scope off", "at least one scope stays on", "[x]session(M-3)")
	h.key("alt+1", "alt+2")
	h.wants("scopes back", "[x]docs(M-1) [x]adr(M-2) [x]session(M-3)")

	// Every project: the pond is found, marked with its project.
	h.key("ctrl+p")
	for range "sqlite telemetry" {
		h.send(keyMsg("backspace"))
	}
	h.typeText("axolotl tank")
	h.wants("all projects", "ragd browse · all projects", "› 1 garden: docs/pond.md § Axolotls")
	h.key("ctrl+p")
	h.wants("back to demo", "ragd browse · project demo")
	for _, hit := range h.m.hits {
		if hit.project != "demo" {
			t.Errorf("back to demo: hit of %s", hit.project)
		}
	}

	// Sessions, the most recent first; one read whole.
	h.key("tab")
	h.wants("sessions", "ragd browse · sessions · project demo", "› 2026-02-01 10:30  events         1 msg  Notes", "10:02  codex         2 msgs  Storage questions")
	h.key("down", "down", "j", "k", "up", "r")
	h.key("down")
	if h.m.sessionSel != 1 {
		t.Fatalf("selected session %d, want 1", h.m.sessionSel)
	}
	h.key("enter")
	h.wants("conversation", "demo · Storage questions · 2 messages", "── person · 2026-02-01 10:00:00",
		"Where does the storage ADR keep telemetry?", "· tool.call {\"name\":\"grep\"", "Beside the chunks")
	h.key("m")
	h.wants("mechanism unfolded", "tool.call {\"name\":\"grep\",\"args\":[\"telemetry\",\"docs/adr\"]}")
	h.key("m")
	// Find within the conversation: typed after /, enter jumps, n goes on.
	h.key("/", "t", "e", "l", "x", "backspace")
	h.wants("find typed", "find: tel")
	h.key("e", "m", "e", "t", "r", "y", "enter")
	h.wants("find", `"telemetry": match 1 of 2 (n: next)`)
	h.key("n")
	h.wants("find next", `"telemetry": match 2 of 2`)
	h.key("n")
	h.wants("find wraps", `"telemetry": match 1 of 2`)
	h.key("/", "z", "z", "enter")
	h.wants("find nothing", `! no "zz" in this session`)
	h.key("/", "q", "esc")
	if h.quit || h.m.finding || h.m.view != viewConversation {
		t.Errorf("esc in a find: quit %v, finding %v, view %d", h.quit, h.m.finding, h.m.view)
	}
	h.key("down", "pgdown", "esc")
	if h.m.view != viewSessions {
		t.Errorf("esc from a conversation: view %d", h.m.view)
	}
	h.key("enter")
	h.key("tab")
	if h.m.view != viewSearch {
		t.Errorf("tab from a conversation: view %d", h.m.view)
	}
	h.key("tab", "esc")
	if h.m.view != viewSearch {
		t.Errorf("esc from sessions: view %d", h.m.view)
	}

	// Status: the provider, the fill, each scope.
	h.key("ctrl+s")
	h.wants("status", "ragd browse · status · project demo", "provider ollama, model", ": available", "docs", "adr", "session", "fresh")
	h.key("r", "esc")
	if h.m.view != viewSearch {
		t.Errorf("esc from status: view %d", h.m.view)
	}
	h.key("tab", "ctrl+s")
	h.key("tab")
	if h.m.view != viewSearch {
		t.Errorf("tab from status: view %d", h.m.view)
	}

	// Resize: every frame fits.
	for _, size := range [][2]int{{80, 24}, {120, 40}, {40, 10}, {20, 8}} {
		h.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		for _, v := range []view{viewSearch, viewSessions, viewConversation, viewStatus} {
			h.m.view = v
			checkFrame(t, h.m, size[0], size[1])
		}
	}
	h.m.view = viewSearch

	// q is a letter of the query on the search view; quit is C-c.
	h.key("q")
	if h.quit || !strings.HasSuffix(h.m.input.Value(), "q") {
		t.Errorf("q on the search view: quit %v, query %q", h.quit, h.m.input.Value())
	}
	h.key("ctrl+c")
	if !h.quit {
		t.Error("ctrl+c did not quit")
	}
	for _, v := range []view{viewSessions, viewConversation, viewStatus} {
		h := newHarness(t, b, "demo")
		h.m.view = v
		h.m.conv = &api.Conversation{}
		h.key("q")
		if !h.quit {
			t.Errorf("q on view %d did not quit", v)
		}
	}
}

// TestBrowse_StaleAnswers: an answer to an older query is dropped, and a
// debounce tick of an older edit sends nothing.
func TestBrowse_StaleAnswers(t *testing.T) {
	_, b := world(t)
	h := newHarness(t, b, "demo")
	h.send(keyMsg("s"))
	h.send(debounceMsg{seq: 0})
	h.settle()
	if n := b.searches.Load(); n != 1 {
		t.Errorf("%d searches, want 1 (the stale tick sends none)", n)
	}
	h.send(searchMsg{seq: 0, hits: []hit{{place: 9}}})
	if len(h.m.hits) == 1 && h.m.hits[0].place == 9 {
		t.Error("an answer to an older query replaced the results")
	}
	// Clearing the query clears the results, no search sent.
	h.key("backspace")
	if len(h.m.hits) != 0 || b.searches.Load() != 1 {
		t.Errorf("cleared query: %d hits, %d searches", len(h.m.hits), b.searches.Load())
	}
}

// TestBrowse_DaemonLost: the daemon stops; the view says so and runs on.
func TestBrowse_DaemonLost(t *testing.T) {
	d, b := world(t)
	h := newHarness(t, b, "demo")
	d.Stop(t)
	h.typeText("storage")
	h.wants("daemon lost", "! search failed: ")
	h.key("ctrl+s")
	h.wants("status, daemon lost", "! status failed: ")
	h.key("esc")
	h.key("tab")
	h.wants("sessions, daemon lost", "! sessions failed: ")
	checkFrame(t, h.m, 80, 24)
}

// TestBrowse_Frames compares frames at 80×24 with the golden ones in
// testdata (go test -update rewrites them).
func TestBrowse_Frames(t *testing.T) {
	_, b := world(t)
	h := newHarness(t, b, "demo")
	frames := []struct {
		name string
		do   func()
	}{
		{"start", func() {}},
		{"results", func() { h.typeText("sqlite telemetry") }},
		{"preview", func() { h.key("enter") }},
		{"explain", func() { h.key("ctrl+r") }},
		{"sessions", func() { h.key("esc", "tab") }},
		{"conversation", func() { h.key("down", "enter") }},
		{"status", func() { h.key("ctrl+s") }},
	}
	for _, f := range frames {
		f.do()
		got := h.screen() + "\n"
		path := filepath.Join("testdata", f.name+".golden")
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./browse/ -run Frames -update writes it)", err)
		}
		if got != string(want) {
			t.Errorf("frame %s differs from %s:\n%s\nwant:\n%s", f.name, path, got, want)
		}
	}
}

// TestNew_NoColor: NO_COLOR frames carry no escape sequence; colour ones do.
func TestNew_NoColor(t *testing.T) {
	for _, noColor := range []bool{true, false} {
		m := New(nil, Options{Project: "demo", NoColor: noColor, Width: 80, Height: 24})
		m.hits = []hit{{Hit: api.Hit{Rank: 1, Content: "text", Origin: ragd.Origin{SourcePath: "a.md"}}, place: 1}}
		if has := strings.Contains(m.View(), "\x1b["); has == noColor {
			t.Errorf("NoColor %v: escape sequences %v", noColor, has)
		}
	}
}
