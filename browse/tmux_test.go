package browse

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/internal/daemontest"
)

// tmux runs tmux on its own server socket, failing t on an error.
type tmux struct {
	t      *testing.T
	socket string
}

func (x tmux) run(args ...string) string {
	x.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", x.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		x.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (x tmux) screen() string { return x.run("capture-pane", "-p", "-t", "browse") }

// waitFor waits until the screen shows each of says.
func (x tmux) waitFor(what string, says ...string) {
	x.t.Helper()
	var last string
	ok := func() bool {
		last = x.screen()
		for _, s := range says {
			if !strings.Contains(last, s) {
				return false
			}
		}
		return true
	}
	deadline := time.Now().Add(daemontest.Timeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !ok() {
		if time.Now().After(deadline) {
			x.t.Fatalf("%s: after %s the screen does not show %q:\n%s", what, daemontest.Timeout, says, last)
		}
		<-tick.C
	}
}

// TestBrowse_Tmux runs the built ragd binary in a real terminal (tmux, at
// 80×24) against a real daemon: a query typed shows its citation, the
// preview opens, a vote is recorded, the hit opens in the editor at its
// section's line and a message in the pager (scripts that record what they
// were given) and the view comes back, the citation is copied to tmux's
// clipboard, the search is explained, the sessions open, q quits, and the
// terminal is as it was before.
func TestBrowse_Tmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatalf("tmux is not installed (scripts/setup.sh installs it): %v", err)
	}
	d, _ := world(t)
	bin := filepath.Join(t.TempDir(), "ragd")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/ragd/ragd/cmd/ragd").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := d.World.Dir
	x := tmux{t: t, socket: filepath.Join(dir, "tmux.sock")}
	// The editor is named vi, to be given +LINE; it and the pager record
	// their arguments and input.
	tools := filepath.Join(dir, "tools")
	if err := os.Mkdir(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"vi":    "printf '%s\\n' \"$@\" > " + filepath.Join(dir, "editor.args") + "\n",
		"pager": "printf '%s\\n' \"$@\" > " + filepath.Join(dir, "pager.args") + "\ncat > " + filepath.Join(dir, "pager.in") + "\n",
	} {
		if err := os.WriteFile(filepath.Join(tools, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := append(append([]string{}, d.World.Env...), "TZ=UTC", "NO_COLOR=1", "VISUAL=", "EDITOR="+filepath.Join(tools, "vi"),
		"PAGER="+filepath.Join(tools, "pager"), "DISPLAY=", "WAYLAND_DISPLAY=")
	script := filepath.Join(dir, "run.sh")
	// The terminal's modes before and after, and what the program exits with.
	body := "#!/bin/sh\ncd " + dir + "\nstty -g > stty.before\necho before-browse\nenv " + strings.Join(env, " ") + " " + bin +
		" browse --project demo 2> browse.err\necho \"browse-exited $?\"\nstty -g > stty.after\nexec sleep 600\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	x.run("new-session", "-d", "-s", "browse", "-x", "80", "-y", "24", script)
	t.Cleanup(func() { exec.Command("tmux", "-S", x.socket, "kill-server").Run() })
	x.run("set-option", "-s", "set-clipboard", "on") // OSC 52 from the pane makes a buffer

	x.waitFor("start", "ragd browse · project demo", "vectors: not searched yet")
	x.run("send-keys", "-t", "browse", "-l", "sqlite telemetry")
	x.waitFor("results", "› 1 docs/adr/0001-storage.md § Decision", "hybrid · vectors")
	x.run("send-keys", "-t", "browse", "Enter")
	x.waitFor("preview", "We keep every chunk in one SQLite database", "↓ next § Consequences")
	// The real terminal shows the model's golden frame (the README's
	// screenshot), cell for cell.
	want, err := os.ReadFile(filepath.Join("testdata", "preview.golden"))
	if err != nil {
		t.Fatal(err)
	}
	if got := trimLines(x.screen()); got != trimLines(string(want)) {
		t.Errorf("the terminal's preview frame:\n%s\nis not testdata/preview.golden:\n%s", got, want)
	}
	x.run("send-keys", "-t", "browse", "C-g")
	x.waitFor("vote", "voted useful on hit 1 of search")

	// C-o: the editor, at the section's line; the view is back after it.
	x.run("send-keys", "-t", "browse", "C-o")
	x.waitFor("editor", "opened docs/adr/0001-storage.md at line 3 in vi", "ragd browse · project demo", "› 1 docs/adr/0001-storage.md")
	adr := filepath.Join(projectDir(t, d, "demo"), "docs", "adr", "0001-storage.md")
	if got, err := os.ReadFile(filepath.Join(dir, "editor.args")); err != nil || string(got) != "+3\n"+adr+"\n" {
		t.Errorf("the editor was given %q (%v), want +3 %s", got, err, adr)
	}
	// C-y: the citation in tmux's clipboard, by OSC 52.
	x.run("send-keys", "-t", "browse", "C-y")
	x.waitFor("copy", "copied (OSC 52): docs/adr/0001-storage.md")
	if got := x.run("show-buffer"); got != "docs/adr/0001-storage.md § Decision" {
		t.Errorf("tmux's clipboard holds %q", got)
	}
	// C-o on a message: the pager reads it with its neighbours.
	x.run("send-keys", "-t", "browse", "Down", "C-o")
	x.waitFor("pager", "read codex:e1 in pager", "ragd browse · project demo", "› 2 codex · Storage questions › codex:e1")
	in, err := os.ReadFile(filepath.Join(dir, "pager.in"))
	if err != nil || !strings.Contains(string(in), "Where does the storage ADR keep telemetry?") || !strings.Contains(string(in), "Beside the chunks") {
		t.Errorf("the pager was given %q (%v)", in, err)
	}
	if args, err := os.ReadFile(filepath.Join(dir, "pager.args")); err != nil || string(args) != "\n" {
		t.Errorf("the pager's arguments %q (%v), want none", args, err)
	}
	// C-r: the search explained in the preview pane.
	x.run("send-keys", "-t", "browse", "C-r")
	x.waitFor("explain", `match "sqlite" OR "telemetri"`, "read as adr by the rule: docs/adr/", "    vector #1")
	x.run("send-keys", "-t", "browse", "Tab")
	x.waitFor("sessions", "ragd browse · sessions · project demo", "Storage questions")
	x.run("send-keys", "-t", "browse", "Down", "Enter")
	x.waitFor("conversation", "demo · Storage questions · 2 messages", "Where does the storage ADR keep telemetry?")
	x.run("send-keys", "-t", "browse", "q")
	x.waitFor("quit", "browse-exited 0")

	screen := x.screen()
	if strings.Contains(screen, "ragd browse") || !strings.Contains(screen, "before-browse") {
		t.Errorf("after quitting, the terminal shows the view, not the shell's screen:\n%s", screen)
	}
	before, err1 := os.ReadFile(filepath.Join(dir, "stty.before"))
	after, err2 := os.ReadFile(filepath.Join(dir, "stty.after"))
	if err1 != nil || err2 != nil || len(before) == 0 || string(before) != string(after) {
		t.Errorf("terminal modes not restored: before %q (%v), after %q (%v)", before, err1, after, err2)
	}
	if errOut, _ := os.ReadFile(filepath.Join(dir, "browse.err")); len(errOut) > 0 {
		t.Errorf("browse wrote to stderr: %s", errOut)
	}
}

// trimLines is s without trailing spaces on its lines, nor trailing lines.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}
