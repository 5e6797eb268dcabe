package main

import (
	"os"
	"strings"
	"testing"

	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
)

// TestHints: where a command cannot do what was asked, it says what would
// work: a folder outside any repository is not registered, and a project
// whose folder is gone is removed, not reindexed.
func TestHints(t *testing.T) {
	w := daemontest.NewWorld(t)
	w.Setenv(t)
	daemontest.Start(t, w, daemontest.Config(ollamatest.ClosedURL(t)))

	plain := t.TempDir()
	_, _, err := ragdErr(t, "add", plain)
	if err == nil || !strings.Contains(err.Error(), "not inside a git repository") || !strings.Contains(err.Error(), "git init") {
		t.Errorf("add outside a repository: %v", err)
	}

	repo := daemontest.Repo(t, daemontest.Docs)
	ragd(t, "add", repo.Dir, "--name", "demo", "--json")
	ragd(t, "reindex", "--project", "demo")
	if out := ragd(t, "projects"); strings.Contains(string(out), "ragd remove") {
		t.Errorf("projects suggests removing a project that is there:\n%s", out)
	}
	if err := os.RemoveAll(repo.Dir); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"projects"}, {"coverage", "--project", "demo"}} {
		out := ragd(t, args...)
		if !strings.Contains(string(out), "`ragd remove demo`") {
			t.Errorf("ragd %s with the folder gone does not suggest ragd remove:\n%s", strings.Join(args, " "), out)
		}
	}
	if _, _, err := ragdErr(t, "reindex", "--project", "demo"); err == nil || !strings.Contains(err.Error(), "`ragd remove demo`") {
		t.Errorf("reindex with the folder gone: %v, want it to suggest ragd remove", err)
	}
}
