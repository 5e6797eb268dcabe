package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
)

// TestREADME_BrowseSessions runs the README's "Browse, sessions, every
// project" commands verbatim in a registered repository holding the Codex
// fixture's session (ragd browse itself runs in a real terminal in package
// browse's tmux test), and checks that every key its table shows is one
// the command's help says.
func TestREADME_BrowseSessions(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n### Browse, sessions, every project\n")
	if !ok {
		t.Fatal("README has no section \"Browse, sessions, every project\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, block, ok := strings.Cut(section, "```sh\n")
	if !ok {
		t.Fatal("the section has no sh block")
	}
	block, _, _ = strings.Cut(block, "```")

	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	startDaemon(t, srv.URL)
	repo := daemontest.Repo(t, daemontest.Docs)
	ragd(t, "add", repo.Dir, "--name", "demo", "--json")
	ragd(t, "add", daemontest.Repo(t, garden).Dir, "--name", "garden", "--json")
	ragd(t, "reindex", "--project", "demo", "--json")
	ragd(t, "reindex", "--project", "garden", "--json")
	fixture, err := filepath.Abs(filepath.Join("..", "..", "transcript", "testdata", "rollout-2026-01-03T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ragd(t, "sessions", "import", "--from", "codex", fixture, "--project", "demo")
	t.Chdir(repo.Dir)

	ran := 0
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		cmd, _, _ := strings.Cut(line, "#")
		args := shellWords(cmd)
		if len(args) < 2 || args[0] != "ragd" {
			t.Errorf("README line %q is not a ragd command", line)
			continue
		}
		if args[1] == "browse" {
			continue // full screen: TestBrowse_Tmux runs it
		}
		out := string(ragd(t, args[1:]...))
		ran++
		var want string
		switch {
		case args[1] == "sessions" && args[2] == "show":
			want = "session " + args[3] + " of demo"
		case args[1] == "sessions" && slices.Contains(args, "--json"):
			want = `"project": "demo"`
		case args[1] == "sessions":
			want = "sessions in demo"
		case args[1] == "search":
			want = "2 projects merged by rank"
		}
		if want == "" || !strings.Contains(out, want) {
			t.Errorf("%s does not print %q:\n%s", cmd, want, out)
		}
	}
	if ran < 4 {
		t.Errorf("ran %d README commands, want 4", ran)
	}
	_, table, _ := strings.Cut(section, "| key | does |")
	table, _, _ = strings.Cut(table, "\n\n")
	for _, row := range strings.Split(table, "\n")[2:] {
		keys := strings.Split(row, "|")[1]
		for _, k := range strings.Split(keys, "`")[1:] {
			if k = strings.TrimSpace(k); k == "" || k == "/" {
				continue
			}
			if !strings.Contains(browseCommand.usage, k) {
				t.Errorf("README key %q is not in ragd browse's help", k)
			}
		}
	}
}

// TestREADME_BrowseScreenshot: the README's screenshot of ragd browse is
// package browse's golden preview frame (which its tmux test checks a real
// terminal shows, cell for cell), a run of blank lines written "…".
func TestREADME_BrowseScreenshot(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(b), "\n### Browse, sessions, every project\n")
	section, _, _ = strings.Cut(section, "\n## ")
	_, shot, ok := strings.Cut(section, "```text\n")
	if !ok {
		t.Fatal("the section has no text block: the screenshot")
	}
	shot, _, _ = strings.Cut(shot, "```")
	golden, err := os.ReadFile(filepath.Join("..", "..", "browse", "testdata", "preview.golden"))
	if err != nil {
		t.Fatal(err)
	}
	frame := strings.Split(strings.TrimRight(string(golden), "\n"), "\n")
	for i, l := range frame {
		frame[i] = strings.TrimRight(l, " ")
	}
	at := 0
	for n, line := range strings.Split(strings.TrimRight(shot, "\n"), "\n") {
		if line == "…" {
			blank := at
			for at < len(frame) && frame[at] == "" {
				at++
			}
			if at == blank {
				t.Errorf("README screenshot line %d: … where the frame's line %d is %q", n+1, at+1, frame[at])
			}
			continue
		}
		if at >= len(frame) || strings.TrimRight(line, " ") != frame[at] {
			want := "the frame's end"
			if at < len(frame) {
				want = fmt.Sprintf("%q", frame[at])
			}
			t.Fatalf("README screenshot line %d is %q, browse/testdata/preview.golden line %d %s", n+1, line, at+1, want)
		}
		at++
	}
	if at != len(frame) {
		t.Errorf("the README screenshot ends at the frame's line %d of %d", at, len(frame))
	}
}
