package daemon_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/internal/daemontest"
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
