package browse

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ragd/ragd/internal/daemontest"
)

// ran is a program the view ran on the terminal.
type ran struct {
	args  []string
	stdin string
}

// fakeExec makes h's model run programs in place, recording them, each
// ending with fail.
func (h *harness) fakeExec(fail error) *[]ran {
	runs := &[]ran{}
	h.m.exec = func(c *exec.Cmd, fn tea.ExecCallback) tea.Cmd {
		return func() tea.Msg {
			r := ran{args: c.Args}
			if c.Stdin != nil {
				b, err := io.ReadAll(c.Stdin)
				if err != nil {
					h.t.Errorf("read the program's input: %v", err)
				}
				r.stdin = string(b)
			}
			*runs = append(*runs, r)
			return fn(fail)
		}
	}
	return runs
}

// setEnv makes h's model read env as its environment.
func (h *harness) setEnv(env map[string]string) {
	h.m.opts.Getenv = func(k string) string { return env[k] }
}

func (h *harness) wantStatus(what, want string) {
	h.t.Helper()
	if h.m.status != want {
		h.t.Errorf("%s: status %q, want %q", what, h.m.status, want)
	}
}

// projectDir is the work tree of project name.
func projectDir(t *testing.T, d *daemontest.Daemon, name string) string {
	t.Helper()
	ps, err := d.Client.Projects(context.Background())
	if err != nil {
		daemontest.Fatal(t, "projects", err)
	}
	for _, p := range ps {
		if p.ID == name {
			return p.Path
		}
	}
	t.Fatalf("no project %s in %+v", name, ps)
	return ""
}

// selectHit selects the first hit citing want.
func (h *harness) selectHit(want string) {
	h.t.Helper()
	for i, hit := range h.m.hits {
		if hit.Origin.String() == want {
			h.m.sel = i
			return
		}
	}
	h.t.Fatalf("no hit %s:\n%s", want, h.screen())
}

// TestBrowse_Open: C-o opens a file hit in the editor at its section's
// line, in the file as it is now, and a session hit's message with its
// neighbours in the pager; what cannot be opened is said.
func TestBrowse_Open(t *testing.T) {
	d, b := world(t)
	dir := projectDir(t, d, "demo")
	adr, guide := filepath.Join(dir, "docs", "adr", "0001-storage.md"), filepath.Join(dir, "docs", "guide.md")
	h := newHarness(t, b, "demo")
	runs := h.fakeExec(nil)

	h.key("ctrl+o")
	h.wantStatus("no hits", "! no hit to open: type a query")

	h.typeText("sqlite telemetry")
	h.selectHit("docs/adr/0001-storage.md § Decision")
	for _, c := range []struct {
		name string
		env  map[string]string
		want []string
	}{
		// The section opens under the title: its heading is line 3.
		{"EDITOR", map[string]string{"EDITOR": "vim"}, []string{"vim", "+3", adr}},
		{"VISUAL first, with its arguments", map[string]string{"VISUAL": "/usr/bin/nvim -p", "EDITOR": "vim"}, []string{"/usr/bin/nvim", "-p", "+3", adr}},
		{"VISUAL blank", map[string]string{"VISUAL": " ", "EDITOR": "emacsclient -t"}, []string{"emacsclient", "-t", "+3", adr}},
		{"nano", map[string]string{"EDITOR": "nano"}, []string{"nano", "+3", adr}},
		{"an unknown editor gets the path alone", map[string]string{"EDITOR": "code --wait"}, []string{"code", "--wait", adr}},
	} {
		h.setEnv(c.env)
		*runs = nil
		h.key("ctrl+o")
		if len(*runs) != 1 || strings.Join((*runs)[0].args, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s: ran %q, want %q", c.name, *runs, c.want)
		}
	}
	h.wantStatus("opened", "opened docs/adr/0001-storage.md at line 3 in code")
	checkFrame(t, h.m, 80, 24)

	h.setEnv(map[string]string{"PATH": os.Getenv("PATH")})
	*runs = nil
	h.key("ctrl+o")
	h.wantStatus("no editor", "! no editor: set $VISUAL or $EDITOR to open docs/adr/0001-storage.md")
	if len(*runs) != 0 {
		t.Errorf("no editor: ran %q", *runs)
	}

	// The editor's failure is said; the view runs on.
	h.setEnv(map[string]string{"EDITOR": "vi"})
	h.fakeExec(errors.New("exit status 1"))
	h.key("ctrl+o")
	h.wantStatus("editor failed", "! vi failed: exit status 1")
	runs = h.fakeExec(nil)

	// The file as it is now: lines added above move the section.
	if err := os.WriteFile(adr, []byte("<!-- kept by hand -->\n\n# ADR 1: Storage\n\n## Decision\n\nWe keep every chunk in one SQLite "+
		"database: vectors in sqlite-vec, text in FTS5, telemetry beside it.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	*runs = nil
	h.key("ctrl+o")
	if len(*runs) != 1 || strings.Join((*runs)[0].args, " ") != "vi +5 "+adr {
		t.Errorf("moved section: ran %q, want vi +5 %s", *runs, adr)
	}
	// Rewritten: the section is gone; the file opens at its top, and the
	// status says why.
	if err := os.WriteFile(adr, []byte("# Something else\n\nEntirely.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	*runs = nil
	h.key("ctrl+o")
	if len(*runs) != 1 || strings.Join((*runs)[0].args, " ") != "vi +1 "+adr {
		t.Errorf("section gone: ran %q, want vi +1 %s", *runs, adr)
	}
	h.wantStatus("section gone", "opened docs/adr/0001-storage.md in vi: ! its section is not in the file as it is now")
	if err := os.Remove(adr); err != nil {
		t.Fatal(err)
	}
	*runs = nil
	h.key("ctrl+o")
	if len(*runs) != 0 || !strings.HasPrefix(h.m.status, "! open failed: docs/adr/0001-storage.md is not in the work tree of demo: ") {
		t.Errorf("file removed: ran %q, status %q", *runs, h.m.status)
	}

	// A section further down, with the preview open (its passage reused).
	for range "sqlite telemetry" {
		h.send(keyMsg("backspace"))
	}
	h.typeText("hybrid search fuses")
	h.selectHit("docs/guide.md § Search")
	h.key("enter")
	*runs = nil
	h.key("ctrl+o")
	if len(*runs) != 1 || strings.Join((*runs)[0].args, " ") != "vi +7 "+guide {
		t.Errorf("guide: ran %q, want vi +7 %s", *runs, guide)
	}

	// A message: in the pager, with those around it.
	for range "hybrid search fuses" {
		h.send(keyMsg("backspace"))
	}
	h.typeText("storage telemetry")
	h.selectHit("session codex:s1 › message codex:e1")
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"EDITOR": "vi"}, "less"},
		{map[string]string{"PAGER": "more -d"}, "more -d"},
	} {
		h.setEnv(c.env)
		*runs = nil
		h.key("ctrl+o")
		if len(*runs) != 1 || strings.Join((*runs)[0].args, " ") != c.want {
			t.Fatalf("pager %v: ran %q, want %s", c.env, *runs, c.want)
		}
		in := (*runs)[0].stdin
		for _, w := range []string{"demo · session codex:s1 › message codex:e1", "Storage questions",
			"── person · 2026-02-01 10:00:00 · the cited message\nWhere does the storage ADR keep telemetry?",
			"── agent · 2026-02-01 10:02:00\nBeside the chunks, in the same SQLite database."} {
			if !strings.Contains(in, w) {
				t.Errorf("the pager's text lacks %q:\n%s", w, in)
			}
		}
	}
	h.wantStatus("pager", "read codex:e1 in more")

	// The daemon lost: said, the view runs on.
	d.Stop(t)
	h.m.preview = nil
	h.key("ctrl+o")
	if !strings.HasPrefix(h.m.status, "! open failed: read the passage of session codex:s1 › message codex:e1: ") {
		t.Errorf("daemon lost: status %q", h.m.status)
	}
	checkFrame(t, h.m, 80, 24)
}

// TestBrowse_Copy: C-y writes the citation to the terminal as OSC 52 and
// to a local clipboard tool when there is one, and says what it did.
func TestBrowse_Copy(t *testing.T) {
	_, b := world(t)
	bin := t.TempDir()
	got := filepath.Join(bin, "clipboard")
	tool := func(name, body string) {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tool("xclip", "echo \"$0 $*\" > "+got+".args\ncat > "+got+"\n")
	tool("wl-copy", "cat > "+got+"\n")
	tool("xsel", "echo 'xsel: no display' >&2\nexit 1\n")

	h := newHarness(t, b, "demo")
	var term bytes.Buffer
	h.m.opts.Terminal = &term
	h.setEnv(map[string]string{"PATH": bin, "DISPLAY": ":0"})
	h.key("ctrl+y")
	h.wantStatus("no hits", "! no hit to copy: type a query")

	h.typeText("sqlite telemetry")
	h.selectHit("docs/adr/0001-storage.md § Decision")
	const cite = "docs/adr/0001-storage.md § Decision"
	h.key("ctrl+y")
	h.wantStatus("OSC 52 and xclip", "copied (OSC 52, xclip): "+cite)
	if want := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(cite)) + "\a"; term.String() != want {
		t.Errorf("the terminal got %q, want %q", term.String(), want)
	}
	if b, err := os.ReadFile(got); err != nil || string(b) != cite {
		t.Errorf("xclip got %q (%v), want %q", b, err, cite)
	}
	if b, err := os.ReadFile(got + ".args"); err != nil || string(b) != filepath.Join(bin, "xclip")+" -selection clipboard\n" {
		t.Errorf("xclip ran as %q (%v)", b, err)
	}

	// Wayland first; a session hit's citation.
	h.setEnv(map[string]string{"PATH": bin, "DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"})
	h.selectHit("session codex:s1 › message codex:e1")
	h.key("ctrl+y")
	h.wantStatus("wl-copy", "copied (OSC 52, wl-copy): session codex:s1 › message codex:e1")
	if b, _ := os.ReadFile(got); string(b) != "session codex:s1 › message codex:e1" {
		t.Errorf("wl-copy got %q", b)
	}

	// No tool: OSC 52 alone; no display: no X tool either.
	h.setEnv(map[string]string{"PATH": t.TempDir()})
	h.key("ctrl+y")
	h.wantStatus("no tool", "copied (OSC 52): session codex:s1 › message codex:e1")
	h.setEnv(map[string]string{"PATH": bin})
	h.key("ctrl+y")
	h.wantStatus("no display", "copied (OSC 52): session codex:s1 › message codex:e1")

	// A tool that fails is said.
	if err := os.Remove(filepath.Join(bin, "xclip")); err != nil {
		t.Fatal(err)
	}
	h.setEnv(map[string]string{"PATH": bin, "DISPLAY": ":0"})
	h.key("ctrl+y")
	h.wantStatus("xsel fails", "copied (OSC 52): session codex:s1 › message codex:e1 · ! xsel: exit status 1: xsel: no display")
	h.m.opts.Terminal = nil
	h.key("ctrl+y")
	h.wantStatus("nothing copied", "! not copied: xsel: exit status 1: xsel: no display")
	h.setEnv(map[string]string{})
	h.key("ctrl+y")
	h.wantStatus("no way", "! not copied: no terminal and no clipboard tool (wl-copy, xclip, xsel, pbcopy)")
	checkFrame(t, h.m, 80, 24)
}

// TestBrowse_Explain: C-r re-runs the query explained; the preview pane
// shows what the query matched and each hit's signals and rule, in one
// project and in every project.
func TestBrowse_Explain(t *testing.T) {
	d, b := world(t)
	h := newHarness(t, b, "demo")
	h.key("ctrl+r")
	h.wantStatus("no query", "! nothing to explain: type a query")

	h.typeText("sqlite telemetry")
	before := b.searches.Load()
	h.key("ctrl+r")
	if n := b.searches.Load() - before; n != 1 {
		t.Errorf("C-r sent %d searches, want 1", n)
	}
	if !h.m.previewOpen || !h.m.explaining || len(h.m.hits) == 0 {
		t.Fatalf("explained: preview %v, explaining %v, %d hits", h.m.previewOpen, h.m.explaining, len(h.m.hits))
	}
	for _, hit := range h.m.hits {
		if hit.Explain == nil {
			t.Errorf("hit %s has no explanation", hit.Origin)
		}
	}
	h.wants("explained", "match ", "· dropped ", "› 1 docs/adr/0001-storage.md § Decision", "    vector #", "lexical #",
		"read as adr by the rule: ")
	checkFrame(t, h.m, 80, 24)
	// The vote refers to the explained search, which was recorded.
	h.key("ctrl+g")
	votes, err := d.Store().SearchVotes(context.Background(), *h.m.hits[0].searchID)
	if err != nil || len(votes) != 1 {
		t.Errorf("vote on the explained search: %+v, %v", votes, err)
	}
	// The selection moves in the explanation; the passage is not loaded.
	h.key("down")
	if !h.m.explaining || h.m.preview != nil {
		t.Errorf("down: explaining %v, preview %v", h.m.explaining, h.m.preview)
	}
	h.wants("selection in the explanation", "› 2 ")
	h.key("pgdown", "pgup")
	// enter goes back to the passage.
	h.key("enter")
	if h.m.explaining || h.m.previewOpen {
		t.Errorf("enter on the explanation: explaining %v, open %v", h.m.explaining, h.m.previewOpen)
	}
	h.key("ctrl+r")
	h.key("esc")
	if h.m.explaining || h.m.previewOpen {
		t.Errorf("esc on the explanation: explaining %v, open %v", h.m.explaining, h.m.previewOpen)
	}
	// A new query is searched plainly.
	h.key("ctrl+r")
	h.typeText(" beside")
	if h.m.explaining || h.m.hits[0].Explain != nil {
		t.Errorf("typed after C-r: explaining %v, hit explained %v", h.m.explaining, h.m.hits[0].Explain != nil)
	}

	// Every project: each project's match, its hits marked.
	h.key("ctrl+p")
	for range "sqlite telemetry beside" {
		h.send(keyMsg("backspace"))
	}
	h.typeText("axolotl tank")
	h.key("ctrl+r")
	h.wants("every project explained", "demo: match ", "garden: match ", "› 1 garden: docs/pond.md § Axolotls")
	if h.m.hits[0].searchID == nil || h.m.hits[0].project != "garden" || h.m.hits[0].Explain == nil {
		t.Errorf("every project explained: first hit %+v", h.m.hits[0])
	}
	checkFrame(t, h.m, 80, 24)

	d.Stop(t)
	h.key("ctrl+r")
	if !strings.HasPrefix(h.m.status, "! search failed: ") {
		t.Errorf("daemon lost: status %q", h.m.status)
	}
}

func TestSectionLine(t *testing.T) {
	const md = "# Title\n\n## Decision\n\nWe keep it.\n\n## Consequences\n\nOne file.\n\n### Decision\n\nAgain.\n"
	for _, c := range []struct {
		name    string
		src     string
		text    string
		heading []string
		line    int
		found   bool
	}{
		{"a section's text opens with its heading", md, "## Consequences\n\nOne file.", []string{"Consequences"}, 7, true},
		{"its text opens with the title above it", md, "# Title\n\n## Decision\n\nWe keep it.", []string{"Decision"}, 3, true},
		{"a nested heading of the same text", md, "### Decision\n\nAgain.", []string{"Consequences", "Decision"}, 11, true},
		{"the text under the title", md, "# Title", nil, 1, true},
		{"the text edited below its first line", md, "## Consequences\n\nTwo files.", []string{"Consequences"}, 7, true},
		{"the text gone, the headings found in order", md, "Rewritten.", []string{"Consequences", "Decision"}, 11, true},
		{"setext", "Title\n=====\n\nDecision\n--------\n\nWe keep it.\n", "Decision\n--------\n\nWe keep it.", []string{"Decision"}, 4, true},
		{"AsciiDoc", "= Title\n\n== Decision\n\nWe keep it.\n", "== Decision\n\nWe keep it.", []string{"Decision"}, 3, true},
		{"CRLF", "# Title\r\n\r\n## Decision\r\n\r\nWe keep it.\r\n", "## Decision", []string{"Decision"}, 3, true},
		{"nothing of it is there", md, "Elsewhere.", []string{"Nowhere"}, 1, false},
		{"an empty file", "", "## Decision", []string{"Decision"}, 1, false},
		{"the probe cut in a rune", strings.Repeat("é", 150) + "\n", strings.Repeat("é", 150), nil, 1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			line, found := sectionLine([]byte(c.src), c.text, c.heading)
			if line != c.line || found != c.found {
				t.Errorf("line %d, found %v; want %d, %v", line, found, c.line, c.found)
			}
		})
	}
}

func FuzzSectionLine(f *testing.F) {
	f.Add("# T\n\n## A\n\ntext\n", "## A\n\ntext", "A")
	f.Add("a\r\nb", "\xff", "")
	f.Fuzz(func(t *testing.T, src, text, heading string) {
		line, _ := sectionLine([]byte(src), text, strings.Split(heading, "/"))
		if line < 1 || line > strings.Count(src, "\n")+1 {
			t.Errorf("line %d of a text of %d lines", line, strings.Count(src, "\n")+1)
		}
	})
}

func TestEditorArgs(t *testing.T) {
	for _, c := range []struct {
		editor string
		line   int
		want   string
	}{
		{"vi", 3, "vi +3 /p/a.md"},
		{"/usr/local/bin/nvim", 12, "/usr/local/bin/nvim +12 /p/a.md"},
		{"emacs -nw", 1, "emacs -nw +1 /p/a.md"},
		{"micro", 2, "micro +2 /p/a.md"},
		{"code --wait", 3, "code --wait /p/a.md"},
		{"subl -w", 3, "subl -w /p/a.md"},
		{"vim.exe", 4, "vim.exe +4 /p/a.md"},
	} {
		args, _ := editorArgs(c.editor, c.line, "/p/a.md")
		if got := strings.Join(args, " "); got != c.want {
			t.Errorf("%q at %d: %q, want %q", c.editor, c.line, got, c.want)
		}
	}
}
