package main

import (
	"strings"
	"testing"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
)

// Issue 35 item 13: a committed binary docs file is reported as binary
// by add, layout and coverage, never as "not committed".
func TestLayout_CommittedBinaryIsBinary(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	startDaemon(t, srv.URL)
	repo := daemontest.Repo(t, map[string]string{
		"docs/guide.md": "# Guide\n\nHow to use it.\n",
		"docs/bin.md":   "\x00\x01\x02binary\x00 content\x00",
	})
	add := string(ragd(t, "add", repo.Dir, "--name", "bin"))
	layout := string(ragd(t, "layout", "--project", "bin"))
	l := decode[api.ProjectInfo](t, ragd(t, "layout", "--project", "bin", "--json")).Layout
	ragd(t, "reindex", "--project", "bin")
	coverage := string(ragd(t, "coverage", "--project", "bin"))
	for name, out := range map[string]string{"add": add, "layout": layout, "coverage": coverage} {
		if strings.Contains(out, "not committed") {
			t.Errorf("%s calls a committed file not committed:\n%s", name, out)
		}
	}
	for name, out := range map[string]string{"add": add, "layout": layout} {
		if !strings.Contains(out, "binary") || !strings.Contains(out, "docs/bin.md") {
			t.Errorf("%s does not say docs/bin.md is binary:\n%s", name, out)
		}
	}
	if l == nil || l.UncommittedCount != 0 {
		t.Errorf("layout --json: %d uncommitted (%v), want none", l.UncommittedCount, l.Uncommitted)
	}
}

// Issue 35 item 19: an include that leaves the repository is refused as
// --adr-dir ../.. is, each saying why; one that matches nothing is added
// with a note saying so.
func TestAdd_PatternsOutsideTheRepository(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	startDaemon(t, srv.URL)
	repo := daemontest.Repo(t, map[string]string{"docs/guide.md": "# Guide\n\nHow to use it.\n"})
	for _, args := range [][]string{{"--include", "../**"}, {"--adr-dir", "../.."}} {
		_, _, err := ragdErr(t, append([]string{"add", repo.Dir, "--name", "out"}, args...)...)
		if err == nil || !strings.Contains(err.Error(), "outside the repository") && !strings.Contains(err.Error(), "inside the repository") {
			t.Errorf("add %v: %v, want refused: outside the repository", args, err)
		}
	}
	out := string(ragd(t, "add", repo.Dir, "--name", "etc", "--include", "/etc/**"))
	if !strings.Contains(out, `include "/etc/**" matches no prose file in the repository`) {
		t.Errorf("add --include /etc/**:\n%s\nwant a note that it matches nothing", out)
	}
}
