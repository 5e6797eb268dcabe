package daemon_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/internal/daemontest"

	_ "github.com/mattn/go-sqlite3"
)

// followPasses returns a channel that receives the report of each pass of
// the daemon's transcript follower. The hook never blocks the follower.
func followPasses(d *daemontest.Daemon) <-chan api.TranscriptReport {
	ch := make(chan api.TranscriptReport, 64)
	d.SetFollowHook(func(rep api.TranscriptReport) {
		select {
		case ch <- rep:
		default:
		}
	})
	return ch
}

// awaitPass waits until cond holds, checking it again after each pass the
// follower announces on ch.
func awaitPass(tb testing.TB, ch <-chan api.TranscriptReport, what string, cond func() bool) {
	tb.Helper()
	timeout := time.After(daemontest.Timeout)
	for !cond() {
		select {
		case <-ch:
		case <-timeout:
			tb.Fatalf("no follower pass brought %s within %s", what, daemontest.Timeout)
		}
	}
}

func hasEvent(c *client.Client, project, id string) bool {
	_, err := c.Event(context.Background(), project, id)
	return err == nil
}

// TestTranscripts_Follow: with [sessions] follow, a record a coding agent
// appends is stored after the write's notification, a partly written line
// once it is whole, and a restarted daemon catches up from its checkpoint
// without storing anything twice.
func TestTranscripts_Follow(t *testing.T) {
	daemontest.EngineIndependent(t)
	ctx := context.Background()
	home := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", home)
	projects := filepath.Join(home, "projects")
	if err := os.MkdirAll(projects, 0o700); err != nil {
		t.Fatal(err)
	}
	w := daemontest.NewWorld(t)
	cfg := daemontest.Config(newServer(t).URL)
	cfg.Sessions.Follow = []string{"claude-code"}
	d := daemontest.Start(t, w, cfg)
	c := d.Client
	ch := followPasses(d)
	repo := daemontest.Repo(t, daemontest.Docs)
	daemontest.AddProject(t, c, repo.Dir, "demo")

	st, err := c.FollowStatus(ctx)
	if err != nil {
		daemontest.Fatal(t, "follow status", err)
	}
	if i := slices.IndexFunc(st.Formats, func(f api.FollowedFormat) bool { return f.Followed }); i != 0 ||
		st.Formats[0].Format != "claude-code" || !slices.Equal(st.Formats[0].Paths, []string{projects}) || st.Formats[0].Watching != 1 {
		t.Errorf("follow status %+v: want claude-code followed in %s, one folder watched", st, projects)
	}

	// A new session: the tool makes its folder, then writes.
	dir := filepath.Join(home, "projects", "-encoded-cwd")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "live.jsonl")
	rec := func(uuid, typ, text string, minute int) string {
		return claudeRecord("live", repo.Dir, uuid, typ, text, minute)
	}
	appendFile(t, file, rec("m1", "user", "Is the capybara indexed?", 1))
	awaitPass(t, ch, "the first record", func() bool { return hasEvent(c, "demo", "claude-code:live/m1") })

	// A whole record and a partly written one, in one write.
	partial := rec("m3", "user", "And the narwhal?", 3)
	appendFile(t, file, rec("m2", "assistant", "The capybara is indexed now.", 2)+partial[:20])
	awaitPass(t, ch, "the second record", func() bool { return hasEvent(c, "demo", "claude-code:live/m2/0") })
	if hasEvent(c, "demo", "claude-code:live/m3") {
		t.Error("a partly written record was stored")
	}
	appendFile(t, file, partial[20:])
	awaitPass(t, ch, "the completed record", func() bool { return hasEvent(c, "demo", "claude-code:live/m3") })

	daemontest.Reindex(t, c, "demo", "session")
	resp := daemontest.Search(t, c, "demo", api.SearchRequest{Query: "capybara indexed now", Scopes: []string{"session"}})
	if len(resp.Hits) == 0 || resp.Hits[0].Origin.EventID != "claude-code:live/m2/0" || resp.Hits[0].Origin.SessionID != "claude-code:live" {
		t.Errorf("search for the followed message: %+v", resp.Hits)
	}

	// Written while the daemon is down: caught up at start, from the
	// checkpoint.
	d.Stop(t)
	appendFile(t, file, rec("m4", "assistant", "The narwhal too.", 4))
	d = daemontest.Start(t, w, cfg)
	c = d.Client
	ch = followPasses(d)
	last := func() *api.TranscriptReport {
		st, err := c.FollowStatus(ctx)
		if err != nil {
			daemontest.Fatal(t, "follow status", err)
		}
		return st.Formats[0].Last
	}
	awaitPass(t, ch, "the catch-up", func() bool { return last() != nil })
	if rep := last(); rep.Appended != 1 || rep.Duplicates != 0 || rep.Resumed != 1 || rep.Lines != 1 {
		t.Errorf("catch-up after a restart: appended %d, duplicates %d, resumed %d, lines %d; want 1, 0, 1, 1",
			rep.Appended, rep.Duplicates, rep.Resumed, rep.Lines)
	}
	if !hasEvent(c, "demo", "claude-code:live/m4/0") {
		t.Error("the record written while the daemon was down is missing")
	}

	// The tool deletes its transcript: the session stays. (Notifications
	// come in order: once a later write is read, the removal was seen.)
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	appendFile(t, filepath.Join(dir, "next.jsonl"), claudeRecord("next", repo.Dir, "n1", "user", "Next session.", 5))
	awaitPass(t, ch, "the next session", func() bool { return hasEvent(c, "demo", "claude-code:next/n1") })
	if _, err := c.Event(ctx, "demo", "claude-code:live/m1"); errors.Is(err, ragd.ErrNotFound) {
		t.Error("a deleted transcript's session is gone")
	}
}

// continueDoc is a Continue session document of the given turns.
func continueDoc(cwd string, prompts ...string) []byte {
	var hist []map[string]any
	for i, p := range prompts {
		hist = append(hist,
			map[string]any{"message": map[string]any{"role": "user", "content": p}, "contextItems": []any{}},
			map[string]any{"message": map[string]any{"role": "assistant", "content": fmt.Sprintf("Answer %d about %s.", i+1, p)}, "contextItems": []any{}})
	}
	b, _ := json.Marshal(map[string]any{"sessionId": "doc-1", "title": "Followed", "workspaceDirectory": cwd, "history": hist})
	return b
}

// TestTranscripts_FollowRewrites: a source its tool rewrites in place (a
// JSON document) is read again whole when it changes, written over or
// replaced by a rename, and what was stored already counts as duplicates:
// nothing is stored twice, nothing conflicts.
func TestTranscripts_FollowRewrites(t *testing.T) {
	daemontest.EngineIndependent(t)
	ctx := context.Background()
	home := t.TempDir()
	t.Setenv("CONTINUE_GLOBAL_DIR", home)
	sessions := filepath.Join(home, "sessions")
	if err := os.MkdirAll(sessions, 0o700); err != nil {
		t.Fatal(err)
	}
	w := daemontest.NewWorld(t)
	cfg := daemontest.Config(newServer(t).URL)
	cfg.Sessions.Follow = []string{"continue"}
	d := daemontest.Start(t, w, cfg)
	c := d.Client
	ch := followPasses(d)
	repo := daemontest.Repo(t, daemontest.Docs)
	daemontest.AddProject(t, c, repo.Dir, "demo")
	const id = "continue:doc-1/"

	path := filepath.Join(sessions, "doc-1.json")
	if err := os.WriteFile(path, continueDoc(repo.Dir, "the okapi"), 0o600); err != nil {
		t.Fatal(err)
	}
	awaitPass(t, ch, "the first turn", func() bool { return hasEvent(c, "demo", id+"1") })

	// Written over in place.
	if err := os.WriteFile(path, continueDoc(repo.Dir, "the okapi", "the tapir"), 0o600); err != nil {
		t.Fatal(err)
	}
	awaitPass(t, ch, "the second turn", func() bool { return hasEvent(c, "demo", id+"3") })

	// Replaced by a rename, as editors save.
	tmp := filepath.Join(home, "doc-1.json.tmp")
	if err := os.WriteFile(tmp, continueDoc(repo.Dir, "the okapi", "the tapir", "the quagga"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	var rep api.TranscriptReport
	awaitPass(t, ch, "the third turn", func() bool {
		st, err := c.FollowStatus(ctx)
		if err != nil {
			daemontest.Fatal(t, "follow status", err)
		}
		if l := st.Formats[slices.IndexFunc(st.Formats, func(f api.FollowedFormat) bool { return f.Format == "continue" })].Last; l != nil {
			rep = *l
		}
		// The pass that read the document of three turns (six events).
		return rep.Appended+rep.Duplicates+len(rep.Conflicts) >= 6
	})
	if len(rep.Conflicts) != 0 || rep.Appended != 2 || rep.Duplicates < 4 {
		t.Errorf("pass after the rename: appended %d, duplicates %d, conflicts %+v; want the 2 new events, the 4 read before as duplicates",
			rep.Appended, rep.Duplicates, rep.Conflicts)
	}
	for i := range 6 {
		if ev, err := c.Event(ctx, "demo", id+strconv.Itoa(i)); err != nil || ev.SessionID != "continue:doc-1" {
			t.Errorf("event %s%d: %+v, %v", id, i, ev, err)
		}
	}
}

// TestTranscripts_FollowDatabase: a tool's database (Crush's, in a
// registered repository) is followed through its -wal, where a database in
// WAL mode writes: each write is read from a copy, stored once.
func TestTranscripts_FollowDatabase(t *testing.T) {
	daemontest.EngineIndependent(t)
	w := daemontest.NewWorld(t)
	cfg := daemontest.Config(newServer(t).URL)
	cfg.Sessions.Follow = []string{"crush"}
	repo := daemontest.Repo(t, daemontest.Docs)
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
INSERT INTO sessions VALUES ('live', NULL, 'Live', 1754315290, 1754315290);`); err != nil {
		t.Fatal(err)
	}
	// Registered before the daemon starts, so that its .crush folder is
	// watched from the start.
	first := daemontest.Start(t, w, daemontest.Config(newServer(t).URL))
	daemontest.AddProject(t, first.Client, repo.Dir, "demo")
	first.Stop(t)
	d := daemontest.Start(t, w, cfg)
	c := d.Client
	ch := followPasses(d)
	insert := func(id, role, text string, at int) {
		t.Helper()
		if _, err := db.Exec(`INSERT INTO messages VALUES (?, 'live', ?, ?, ?, ?, ?)`, id, role,
			`[{"type":"text","data":{"text":"`+text+`"}}]`, 1754315290+at, 1754315290+at, 1754315290+at); err != nil {
			t.Fatal(err)
		}
	}
	insert("m1", "user", "Where do puffins nest?", 1)
	awaitPass(t, ch, "the first message", func() bool { return hasEvent(c, "demo", "crush:live/m1") })
	insert("m2", "assistant", "In burrows on cliffs.", 2)
	awaitPass(t, ch, "the second message", func() bool { return hasEvent(c, "demo", "crush:live/m2") })
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		// The tool's own -wal and -shm are there; nothing of ragd's.
		if n := e.Name(); n != "crush.db" && n != "crush.db-wal" && n != "crush.db-shm" {
			t.Errorf("%s left beside the database", n)
		}
	}
}
