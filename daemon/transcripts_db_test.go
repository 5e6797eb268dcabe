package daemon_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/internal/daemontest"
)

// TestTranscripts_Database: a tool's database in a registered repository
// (Crush's .crush/crush.db) is found without naming it, read without
// writing beside it, read again only when it changed (its -wal included),
// and what was read before counts as duplicates.
func TestTranscripts_Database(t *testing.T) {
	daemontest.EngineIndependent(t)
	ctx := context.Background()
	d, repo := startDocs(t, newServer(t).URL)
	c := d.Client
	dir := filepath.Join(repo.Dir, ".crush")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "crush.db")+"?_journal_mode=WAL")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL, updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL);
CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, parts TEXT NOT NULL DEFAULT '[]', created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, finished_at INTEGER);
INSERT INTO sessions VALUES ('cr-1', NULL, 'Herons', 1754315290, 1754315290);
INSERT INTO messages VALUES ('m1', 'cr-1', 'user', '[{"type":"text","data":{"text":"Where do herons nest?"}}]', 1754315290, 1754315290, NULL);
INSERT INTO messages VALUES ('m2', 'cr-1', 'assistant', '[{"type":"text","data":{"text":"In colonies called heronries."}}]', 1754315291, 1754315291, 1754315291);`); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadDir(dir)

	rep := importTranscripts(t, c, api.TranscriptImportRequest{Format: "crush"})
	if rep.Files != 1 || rep.Indexed != 2 || len(rep.Conflicts) != 0 || rep.Malformed != 0 {
		t.Errorf("import: %d files, %d indexed, conflicts %v, %d malformed; want the repository's database, 2 messages", rep.Files, rep.Indexed, rep.Conflicts, rep.Malformed)
	}
	if ev, err := c.Event(ctx, "demo", "crush:cr-1/m2"); err != nil || ev.Text != "In colonies called heronries." {
		t.Errorf("event crush:cr-1/m2: %+v, %v", ev, err)
	}
	after, _ := os.ReadDir(dir)
	if !slices.EqualFunc(before, after, func(a, b os.DirEntry) bool { return a.Name() == b.Name() }) {
		t.Errorf("files beside the database changed: %v, then %v", before, after)
	}
	if again := importTranscripts(t, c, api.TranscriptImportRequest{Format: "crush"}); again.Unchanged != 1 {
		t.Errorf("second import: %d unchanged, want the database left unread", again.Unchanged)
	}
	// The tool writes on, through its -wal.
	if _, err := db.Exec(`INSERT INTO messages VALUES ('m3', 'cr-1', 'user', '[{"type":"text","data":{"text":"And egrets?"}}]', 1754315292, 1754315292, NULL)`); err != nil {
		t.Fatal(err)
	}
	rep = importTranscripts(t, c, api.TranscriptImportRequest{Format: "crush"})
	if rep.Appended != 1 || rep.Duplicates != 2 || len(rep.Conflicts) != 0 {
		t.Errorf("after a write: appended %d, duplicates %d, conflicts %v; want 1, 2, none", rep.Appended, rep.Duplicates, rep.Conflicts)
	}
}
