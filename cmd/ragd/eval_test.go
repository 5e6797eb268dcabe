package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragd/ragd/internal/daemontest"
)

// TestEval_DatabaseFlags: --repo and --database are checked before
// anything is opened, and a database of an unknown scheme is refused
// without creating anything where it would read as a path.
func TestEval_DatabaseFlags(t *testing.T) {
	w := daemontest.NewWorld(t)
	w.Setenv(t)
	t.Chdir(t.TempDir())
	golden := filepath.Join(t.TempDir(), "g.jsonl")
	if err := os.WriteFile(golden, []byte(`{"query": "q", "relevant": [{"sourcePath": "docs/a.md"}]}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
		exit int
	}{
		{[]string{"eval", golden, "--repo", "."}, "--database is required", exitUsage},
		{[]string{"eval", "--beir", ".", "--repo", ".", "--database", "x.db"}, "not with --beir", exitUsage},
		{[]string{"eval", golden, "--telemetry", "--repo", ".", "--database", "x.db"}, "--telemetry", exitUsage},
		{[]string{"eval", golden, "--project", "p", "--repo", ".", "--database", "x.db"}, "--project", exitUsage},
		{[]string{"eval", golden, "--database", "mysql://u:secret@h/db", "--project", "p"}, `unknown scheme "mysql"`, 1},
	} {
		_, _, err := ragdErr(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || exitCode(err) != tc.exit || strings.Contains(err.Error(), "secret") {
			t.Errorf("ragd %s: %v (exit %d), want exit %d saying %q", strings.Join(tc.args, " "), err, exitCode(err), tc.exit, tc.want)
		}
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("the refused flags left %d entries in the working directory", len(entries))
	}
}
