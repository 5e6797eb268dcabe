package main

import (
	"os"
	"strings"
	"testing"

	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
	"github.com/ragd/ragd/transcript"
)

// TestREADME_AgentSessions: the README's section on coding agents' sessions
// shows an import command for every format ragd reads, and a row of its
// table; each command runs, verbatim, against a daemon on a machine where
// no tool has written anything yet, and says what it looked for.
func TestREADME_AgentSessions(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Your coding agents' sessions\n")
	if !ok {
		t.Fatal("README has no section \"Your coding agents' sessions\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, block, ok := strings.Cut(section, "```sh\n")
	if !ok {
		t.Fatal("the section has no sh block")
	}
	block, _, _ = strings.Cut(block, "```")

	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, v := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "AIDER_CHAT_HISTORY_FILE", "COPILOT_HOME", "CONTINUE_GLOBAL_DIR"} {
		t.Setenv(v, "")
	}
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	startDaemon(t, srv.URL)

	shown := map[transcript.Format]bool{}
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		cmd, _, _ := strings.Cut(line, "#")
		args := strings.Fields(cmd)
		if len(args) < 5 || args[0] != "ragd" {
			t.Errorf("README line %q is not a ragd command", line)
			continue
		}
		f, err := transcript.ParseFormat(args[4])
		if err != nil {
			t.Errorf("README line %q: %v", line, err)
			continue
		}
		shown[f] = true
		out := string(ragd(t, args[1:]...))
		if !strings.Contains(out, "no transcripts in") || !strings.Contains(out, "looked for ") {
			t.Errorf("%s on an empty machine:\n%s", cmd, out)
		}
	}
	for _, f := range transcript.Formats {
		if !shown[f] {
			t.Errorf("the README shows no import of %s", f)
		}
		if !strings.Contains(section, "| `"+string(f)+"` |") {
			t.Errorf("the README's table has no row for %s", f)
		}
	}
}
