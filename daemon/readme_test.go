package daemon_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ragd/ragd/internal/daemontest"
)

// readmePath is the README whose socket examples TestREADME_SocketExamples
// runs.
const readmePath = "../README.md"

// readmeSocketSetting is the README's sentence that sets $S, the socket its
// examples talk to: "With `S=...`:".
var readmeSocketSetting = regexp.MustCompile("With `(S=[^`]+)`")

// readmeBlock returns the lines of the first fenced block of lang after
// the heading of README section.
func readmeBlock(t *testing.T, readme, section, lang string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(readme, "\n## "+section+"\n")
	if !ok {
		t.Fatalf("%s has no section %q", readmePath, section)
	}
	_, rest, ok = strings.Cut(rest, "```"+lang+"\n")
	if !ok {
		t.Fatalf("%s section %q has no ```%s block", readmePath, section, lang)
	}
	block, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatalf("%s section %q: unclosed ```%s block", readmePath, section, lang)
	}
	return strings.Split(strings.TrimSuffix(block, "\n"), "\n")
}

// readmeCommands joins the block's lines into shell commands (a line ending
// in \ or | goes on) and keeps those that use the socket.
func readmeCommands(lines []string) []string {
	var cmds []string
	var cur strings.Builder
	for _, l := range lines {
		if cur.Len() == 0 && (strings.HasPrefix(l, "#") || strings.TrimSpace(l) == "") {
			continue
		}
		cur.WriteString(l)
		if t := strings.TrimSpace(l); strings.HasSuffix(t, `\`) || strings.HasSuffix(t, "|") {
			cur.WriteString("\n")
			continue
		}
		if c := cur.String(); strings.Contains(c, "curl") && strings.Contains(c, "--unix-socket") {
			cmds = append(cmds, c)
		}
		cur.Reset()
	}
	return cmds
}

// TestREADME_SocketExamples runs every curl --unix-socket example of the
// README's socket API section, verbatim, in order, with bash and the real
// curl, against a daemon whose socket is where the README's $S says: each
// exits 0 and answers JSON that is not an error. The examples run in the
// registered repository (the README registers $PWD), beside the README's
// own example event file.
func TestREADME_SocketExamples(t *testing.T) {
	daemontest.EngineIndependent(t)
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the README's examples need %s (scripts/setup.sh installs it): %v", tool, err)
		}
	}
	b, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	setting := readmeSocketSetting.FindStringSubmatch(readme)
	if setting == nil {
		t.Fatalf("%s does not say where $S points (%s)", readmePath, readmeSocketSetting)
	}
	cmds := readmeCommands(readmeBlock(t, readme, "The socket API", "sh"))
	if len(cmds) < 15 {
		t.Fatalf("found %d socket examples in %s, want every route's", len(cmds), readmePath)
	}

	w := daemontest.NewWorld(t)
	d := daemontest.Start(t, w, daemontest.Config(newServer(t).URL))
	repo := daemontest.Repo(t, daemontest.Docs)
	events := strings.Join(readmeBlock(t, readme, "Session event files", "json"), "\n") + "\n"
	if err := os.WriteFile(filepath.Join(repo.Dir, "events.jsonl"), []byte(events), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "XDG_RUNTIME_DIR="+filepath.Dir(w.Paths.RuntimeDir))
	for i, c := range cmds {
		cmd := exec.Command("bash", "-c", "set -o pipefail\n"+setting[1]+"\n"+c)
		cmd.Dir, cmd.Env = repo.Dir, env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("example %d: %v\n%s\n%s%s", i+1, err, c, out, stderr.Bytes())
			continue
		}
		lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
		for _, line := range lines {
			var v map[string]json.RawMessage
			if err := json.Unmarshal(line, &v); err != nil || v["error"] != nil {
				t.Errorf("example %d answers %s (%v), want JSON that is not an error\n%s", i+1, line, err, c)
			}
		}
	}
	if _, err := d.Client.Health(t.Context()); err != nil {
		daemontest.Fatal(t, "health after the README", err)
	}
}
