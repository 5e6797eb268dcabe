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
