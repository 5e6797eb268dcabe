package daemon_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/ragd/ragd/api"
)

// fixtureDB makes a SQLite database at path from one of the transcript
// package's SQL fixtures.
func fixtureDB(t *testing.T, fixture, path string) {
	t.Helper()
	script, err := os.ReadFile(filepath.Join("..", "transcript", "testdata", "more", fixture))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(string(script)); err != nil {
		t.Fatal(err)
	}
}

// Issue 35 item 3: the title a Crush, OpenCode or Cursor database or a
// Droid session_start gives a session reaches the store: `ragd sessions
// list` shows it, not "(untitled)".
func TestTranscripts_TitlesReachTheStore(t *testing.T) {
	ctx := context.Background()
	d, _ := startDocs(t, newServer(t).URL)
	c := d.Client
	dir := t.TempDir()
	crush := filepath.Join(dir, "crush", "crush.db")
	fixtureDB(t, "crush.sql", crush)
	opencode := filepath.Join(dir, "opencode", "opencode.db")
	fixtureDB(t, "opencode.sql", opencode)
	cursor := filepath.Join(dir, "cursor", "state.vscdb")
	fixtureDB(t, "cursor-state.sql", cursor)
	droid, err := filepath.Abs(filepath.Join("..", "transcript", "testdata", "more", "droid.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range []struct{ format, path string }{
		{"crush", crush}, {"opencode", opencode}, {"cursor", cursor}, {"droid", droid},
	} {
		rep := importTranscripts(t, c, api.TranscriptImportRequest{Format: imp.format, Paths: []string{imp.path}, Project: "demo"})
		if rep.Appended == 0 || rep.Malformed != 0 || len(rep.Conflicts) != 0 {
			t.Errorf("%s: appended %d, malformed %d, conflicts %v", imp.format, rep.Appended, rep.Malformed, rep.Conflicts)
		}
		// Read again: the title events are the same events.
		if rep := importTranscripts(t, c, api.TranscriptImportRequest{Format: imp.format, Paths: []string{imp.path}, Project: "demo"}); len(rep.Conflicts) != 0 {
			t.Errorf("%s read again: conflicts %v", imp.format, rep.Conflicts)
		}
	}
	list, err := c.Sessions(ctx, "demo", api.SessionsQuery{})
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]string{}
	for _, s := range list.Sessions {
		titles[s.ID] = s.Title
	}
	for id, want := range map[string]string{
		"crush:cs-1":     "Queue retries",
		"crush:call_sub": "Find the loop",
		"opencode:ses_1": "Retry loop",
		"cursor:tab-1":   "Sidebar",
		"cursor:comp-2":  "Queue",
		"droid:ds-1":     "Fix the comment",
	} {
		if titles[id] != want {
			t.Errorf("session %s titled %q, want %q (all: %v)", id, titles[id], want, titles)
		}
	}
}
