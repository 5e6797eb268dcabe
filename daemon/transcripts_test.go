package daemon_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/internal/daemontest"
	"github.com/ragd/ragd/transcript"
)

// benchTranscripts is the folder of real transcripts, read in place:
// RAGD_BENCH_DIR, else RAGD_SHARED_DIR/bench/transcripts, else the shared
// folder beside the repository.
func benchTranscripts() string {
	if d := os.Getenv("RAGD_BENCH_DIR"); d != "" {
		return d
	}
	if d := os.Getenv("RAGD_SHARED_DIR"); d != "" {
		return filepath.Join(d, "bench", "transcripts")
	}
	return filepath.Join("..", "..", "shared", "bench", "transcripts")
}

// fixture is one of the transcript package's fixtures, by format.
var fixtures = []struct {
	format transcript.Format
	file   string
}{
	{transcript.ClaudeCode, "claude-code.jsonl"},
	{transcript.Codex, "rollout-2026-01-03T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee.jsonl"},
	{transcript.Gemini, "gemini-session.json"},
	{transcript.Gemini, "gemini-session.jsonl"},
	{transcript.Aider, "aider.chat.history.md"},
}

func fixturePath(tb testing.TB, name string) string {
	tb.Helper()
	p, err := filepath.Abs(filepath.Join("..", "transcript", "testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// readDirect reads a transcript with the transcript package alone: what an
// import through the daemon must store.
func readDirect(tb testing.TB, f transcript.Format, path string) (transcript.Stats, []ragd.Event) {
	tb.Helper()
	var events []ragd.Event
	st, err := transcript.ReadFile(context.Background(), f, path, transcript.Options{}, func(_ *transcript.Session, e ragd.Event) error {
		events = append(events, e)
		return nil
	})
	if err != nil {
		tb.Fatalf("read %s: %v", path, err)
	}
	return st, events
}

func importTranscripts(tb testing.TB, c *client.Client, req api.TranscriptImportRequest) *api.TranscriptReport {
	tb.Helper()
	var progress []api.TranscriptProgress
	rep, err := c.ImportTranscripts(context.Background(), req, func(p api.TranscriptProgress) { progress = append(progress, p) })
	if err != nil {
		daemontest.Fatal(tb, "import transcripts", err)
	}
	if rep.Files > 0 {
		if len(progress) == 0 {
			tb.Fatalf("no progress for %d files", rep.Files)
		}
		if last := progress[len(progress)-1]; last.Done != rep.Files || last.Total != rep.Files {
			tb.Errorf("progress ends at %+v, want %d of %d files", last, rep.Files, rep.Files)
		}
	}
	return rep
}

// assertReadAsDirect checks that an import's report says what the reader
// says of the same files, and that every event was new.
func assertReadAsDirect(tb testing.TB, rep *api.TranscriptReport, st transcript.Stats) {
	tb.Helper()
	got := [...]int{rep.Lines, rep.Records, rep.Sessions, rep.Messages, rep.Mechanism, rep.Malformed}
	want := [...]int{st.Lines, st.Records, st.Sessions, st.Messages, st.Mechanism, st.Malformed}
	if got != want {
		tb.Errorf("report lines, records, sessions, messages, mechanism, malformed = %v, reader says %v", got, want)
	}
	if rep.Indexed != st.Messages || rep.Kept != st.Mechanism || rep.Appended != st.Messages+st.Mechanism || rep.Duplicates != 0 {
		tb.Errorf("first import stored %d (%d indexed, %d kept, %d duplicates), want %d messages and %d mechanism events, all new",
			rep.Appended, rep.Indexed, rep.Kept, rep.Duplicates, st.Messages, st.Mechanism)
	}
	for k, v := range st.Skipped {
		if rep.Skipped[k] != v {
			tb.Errorf("skipped %q: %d, reader says %d", k, rep.Skipped[k], v)
		}
	}
	for k, v := range st.Redactions {
		if rep.Redactions[k] != v {
			tb.Errorf("redactions %q: %d, reader says %d", k, rep.Redactions[k], v)
		}
	}
	if len(rep.LineErrors) != len(st.Errors) {
		tb.Fatalf("line errors %+v, reader says %+v", rep.LineErrors, st.Errors)
	}
	for i, le := range st.Errors {
		if g := rep.LineErrors[i]; g.File != le.File || g.Line != le.Line || g.Reason != le.Reason {
			tb.Errorf("line error %d: %+v, reader says %+v", i, g, le)
		}
	}
}

// TestTranscripts_Fixtures imports a fixture of each format into a
// project, makes it searchable, and follows a hit on one of its messages
// through the citation route back to the message and its session.
func TestTranscripts_Fixtures(t *testing.T) {
	daemontest.EngineIndependent(t)
	ctx := context.Background()
	d, _ := startDocs(t, newServer(t).URL)
	c := d.Client
	for _, fx := range fixtures {
		t.Run(fx.file, func(t *testing.T) {
			path := fixturePath(t, fx.file)
			st, events := readDirect(t, fx.format, path)
			rep := importTranscripts(t, c, api.TranscriptImportRequest{Format: string(fx.format), Paths: []string{path}, Project: "demo"})
			t.Logf("import report: files %d, sessions %d, messages %d indexed, %d mechanism kept, skipped %v, malformed %d %v, incomplete %d, redactions %v",
				rep.Files, rep.Sessions, rep.Indexed, rep.Kept, rep.Skipped, rep.Malformed, rep.LineErrors, rep.Incomplete, rep.Redactions)
			if rep.Files != 1 || rep.Format != string(fx.format) {
				t.Errorf("files %d format %q, want 1 %s", rep.Files, rep.Format, fx.format)
			}
			assertReadAsDirect(t, rep, st)
			if len(rep.Projects) != 1 || rep.Projects[0].Project != "demo" || rep.Projects[0].Indexed != st.Messages {
				t.Errorf("projects %+v, want demo with %d messages", rep.Projects, st.Messages)
			}

			// The longest message, searched for by its words, is cited.
			var msg ragd.Event
			for _, e := range events {
				if ragd.Indexed(e.Type) && len(e.Text) > len(msg.Text) {
					msg = e
				}
			}
			if msg.ID == "" {
				t.Fatal("fixture has no message")
			}
			daemontest.Reindex(t, c, "demo", "session")
			resp := daemontest.Search(t, c, "demo", api.SearchRequest{Query: msg.Text, Scopes: []string{"session"}})
			i := slices.IndexFunc(resp.Hits, func(h api.Hit) bool { return h.Origin.EventID == msg.ID })
			if i < 0 {
				t.Fatalf("search %q: no hit cites %s: %+v", msg.Text, msg.ID, resp.Hits)
			}
			hit := resp.Hits[i]
			t.Logf("search %q: hit %d cites session %s event %s", msg.Text, hit.Rank, hit.Origin.SessionID, hit.Origin.EventID)
			if hit.Origin.Kind != ragd.OriginSession || hit.Origin.SessionID != msg.SessionID {
				t.Errorf("hit origin %+v, want session %s", hit.Origin, msg.SessionID)
			}
			ev, err := c.Event(ctx, "demo", hit.Origin.EventID)
			if err != nil {
				daemontest.Fatal(t, "resolve the citation", err)
			}
			if ev.ID != msg.ID || ev.SessionID != msg.SessionID || ev.Text != msg.Text || ev.Type != msg.Type {
				t.Errorf("GET event: %+v, want %+v", ev, msg)
			}

			// Again: nothing new, the file is not even read.
			again := importTranscripts(t, c, api.TranscriptImportRequest{Format: string(fx.format), Paths: []string{path}, Project: "demo"})
			if again.Unchanged != 1 || again.Appended != 0 || again.Lines != 0 {
				t.Errorf("second import: unchanged %d, appended %d, lines %d; want 1, 0, 0", again.Unchanged, again.Appended, again.Lines)
			}
		})
	}
}

// realDirs names the bench folder of a format not named as it.
var realDirs = map[transcript.Format]string{transcript.Copilot: "copilot-chat"}

// noRealFiles are the formats the bench folder has no real file of.
var noRealFiles = map[transcript.Format]string{
	transcript.Cline: "no real Cline task in the bench folder: its fixture is built from Cline's sources",
}

// notTranscript tells the bench folder's companions of a transcript from
// transcripts: a database's -wal (read with it), Droid's settings sidecar.
// The Copilot Chat .json there is the session its .jsonl holds, in the
// older shape: the same ids, so its events are duplicates (the manifest
// says not to use both).
func notTranscript(name string) bool {
	return strings.HasSuffix(name, "-wal") || strings.HasSuffix(name, ".settings.json") ||
		name == "git-ai-copilot_session_simple.json"
}

// TestTranscripts_RealFiles imports every real transcript of the shared
// folder; the report must say what the reader says, and a second import
// must find nothing new.
func TestTranscripts_RealFiles(t *testing.T) {
	daemontest.EngineIndependent(t)
	d, _ := startDocs(t, newServer(t).URL)
	c := d.Client
	for _, f := range transcript.Formats {
		t.Run(string(f), func(t *testing.T) {
			dir, err := filepath.Abs(filepath.Join(benchTranscripts(), cmp.Or(realDirs[f], string(f))))
			if err != nil {
				t.Fatal(err)
			}
			entries, err := os.ReadDir(dir)
			if why, none := noRealFiles[f]; none {
				// Read from fixtures built from the tool's sources instead.
				if err == nil {
					t.Errorf("%s now has real files (%s): import them here", f, dir)
				}
				t.Logf("%s: %s", f, why)
				return
			}
			if err != nil {
				t.Fatalf("real transcripts: %v (set RAGD_BENCH_DIR to the transcripts folder)", err)
			}
			var paths []string
			var st transcript.Stats
			for _, e := range entries {
				if notTranscript(e.Name()) {
					continue
				}
				p := filepath.Join(dir, e.Name())
				paths = append(paths, p)
				one, _ := readDirect(t, f, p)
				st.Add(one)
			}
			rep := importTranscripts(t, c, api.TranscriptImportRequest{Format: string(f), Paths: paths, Project: "demo"})
			t.Logf("%s: %d files, %d sessions, %d messages, %d mechanism, %d malformed, skipped %v, redactions %v",
				f, rep.Files, rep.Sessions, rep.Indexed, rep.Kept, rep.Malformed, rep.Skipped, rep.Redactions)
			if rep.Files != len(paths) || st.Messages == 0 {
				t.Errorf("files %d of %d, messages %d", rep.Files, len(paths), st.Messages)
			}
			assertReadAsDirect(t, rep, st)
			again := importTranscripts(t, c, api.TranscriptImportRequest{Format: string(f), Paths: paths, Project: "demo"})
			if again.Appended != 0 || again.Conflicts == nil || len(again.Conflicts) != 0 {
				t.Errorf("re-import appended %d, conflicts %+v", again.Appended, again.Conflicts)
			}
		})
	}
}

// claudeRecord is a Claude Code transcript line of session sid in folder
// cwd.
func claudeRecord(sid, cwd, uuid, typ, text string, minute int) string {
	role := typ
	content := fmt.Sprintf("%q", text)
	if typ == "assistant" {
		content = fmt.Sprintf(`[{"type": "text", "text": %q}]`, text)
	}
	return fmt.Sprintf(`{"sessionId": %q, "cwd": %q, "type": %q, "uuid": %q, "timestamp": "2026-02-01T10:%02d:00Z", "message": {"role": %q, "content": %s}}`+"\n",
		sid, cwd, typ, uuid, minute, role, content)
}

func appendFile(tb testing.TB, path, text string) {
	tb.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := io.WriteString(f, text); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// TestTranscripts_MatchByFolder: without a named project, each session goes
// to the registered project whose repository contains its folder; others
// are listed, not imported, and come in once their folder is registered.
func TestTranscripts_MatchByFolder(t *testing.T) {
	daemontest.EngineIndependent(t)
	ctx := context.Background()
	d, repo := startDocs(t, newServer(t).URL)
	c := d.Client
	dir := t.TempDir()
	inside := filepath.Join(dir, "inside.jsonl")
	appendFile(t, inside, claudeRecord("s-in", filepath.Join(repo.Dir, "cmd"), "i1", "user", "Where does the quokka live?", 1))
	other := daemontest.Repo(t, map[string]string{"docs/x.md": "# X\n"})
	outside := filepath.Join(dir, "outside.jsonl")
	appendFile(t, outside, claudeRecord("s-out", other.Dir, "o1", "user", "Where does the wombat live?", 2))

	rep := importTranscripts(t, c, api.TranscriptImportRequest{Format: "claude-code", Paths: []string{dir}})
	if rep.Files != 2 || rep.Indexed != 1 || len(rep.Projects) != 1 || rep.Projects[0].Project != "demo" || rep.Projects[0].Sessions != 1 {
		t.Errorf("import: files %d indexed %d projects %+v; want 2 files, 1 message into demo", rep.Files, rep.Indexed, rep.Projects)
	}
	if rep.UnregisteredCount != 1 || len(rep.Unregistered) != 1 ||
		rep.Unregistered[0] != (api.UnregisteredSession{Session: "claude-code:s-out", Cwd: other.Dir, File: outside}) {
		t.Errorf("unregistered %d %+v, want claude-code:s-out in %s", rep.UnregisteredCount, rep.Unregistered, other.Dir)
	}
	if _, err := c.Event(ctx, "demo", "claude-code:s-out/o1"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("the unregistered session's event is in demo: %v", err)
	}
	// Listed again next time: it was not imported.
	if again := importTranscripts(t, c, api.TranscriptImportRequest{Format: "claude-code", Paths: []string{dir}}); again.UnregisteredCount != 1 || again.Unchanged != 1 {
		t.Errorf("second import: unregistered %d unchanged %d, want 1 and 1 (the matched file)", again.UnregisteredCount, again.Unchanged)
	}

	// Registered, its folder's session comes in.
	daemontest.AddProject(t, c, other.Dir, "other")
	rep = importTranscripts(t, c, api.TranscriptImportRequest{Format: "claude-code", Paths: []string{dir}})
	if rep.UnregisteredCount != 0 || rep.Indexed != 1 || len(rep.Projects) != 1 || rep.Projects[0].Project != "other" {
		t.Errorf("after registering: unregistered %d, indexed %d, projects %+v", rep.UnregisteredCount, rep.Indexed, rep.Projects)
	}
	if ev, err := c.Event(ctx, "other", "claude-code:s-out/o1"); err != nil || ev.Text != "Where does the wombat live?" {
		t.Errorf("event in other: %+v, %v", ev, err)
	}
}

// TestTranscripts_Incremental: a transcript that grew is read from where
// the last import stopped, its partly written last line included once it
// is whole; a file deleted by its tool leaves its sessions in ragd.
func TestTranscripts_Incremental(t *testing.T) {
	daemontest.EngineIndependent(t)
	ctx := context.Background()
	d, _ := startDocs(t, newServer(t).URL)
	c := d.Client
	path := filepath.Join(t.TempDir(), "claude-code.jsonl")
	b, err := os.ReadFile(fixturePath(t, "claude-code.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	req := api.TranscriptImportRequest{Format: "claude-code", Paths: []string{path}, Project: "demo"}
	first := importTranscripts(t, c, req)
	if first.Incomplete != 1 || first.Appended == 0 {
		t.Fatalf("first import: incomplete %d appended %d; the fixture ends in a partly written line", first.Incomplete, first.Appended)
	}
	if _, err := c.Event(ctx, "demo", "claude-code:11111111-2222-4333-8444-555555555555/u9"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("the partly written record was stored: %v", err)
	}

	// The tool finishes the line and writes one more.
	appendFile(t, path, `ten"}}`+"\n"+claudeRecord("11111111-2222-4333-8444-555555555555", "/home/dev/proj/sub", "a9", "assistant", "The pangolin answer.", 7))
	second := importTranscripts(t, c, req)
	if second.Resumed != 1 || second.Appended != 2 || second.Indexed != 2 || second.Duplicates != 0 || second.Incomplete != 0 || second.Lines != 2 {
		t.Errorf("after growing: resumed %d, appended %d (%d indexed), duplicates %d, incomplete %d, lines %d; want 1, 2 (2), 0, 0, 2",
			second.Resumed, second.Appended, second.Indexed, second.Duplicates, second.Incomplete, second.Lines)
	}
	for id, text := range map[string]string{"claude-code:11111111-2222-4333-8444-555555555555/u9": "half written", "claude-code:11111111-2222-4333-8444-555555555555/a9/0": "The pangolin answer."} {
		if ev, err := c.Event(ctx, "demo", id); err != nil || ev.Text != text || ev.SessionID != "claude-code:11111111-2222-4333-8444-555555555555" {
			t.Errorf("event %s: %+v, %v", id, ev, err)
		}
	}

	// Deleted by the tool: nothing to import, nothing removed.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if rep := importTranscripts(t, c, req); rep.Files != 0 || rep.Appended != 0 {
		t.Errorf("after the file was deleted: files %d appended %d", rep.Files, rep.Appended)
	}
	if _, err := c.Event(ctx, "demo", "claude-code:11111111-2222-4333-8444-555555555555/a9/0"); err != nil {
		t.Errorf("a deleted transcript's event is gone: %v", err)
	}
}

// TestTranscripts_Forget deletes a session on purpose: its events and
// chunks go, search no longer finds it, and an import does not bring it
// back.
func TestTranscripts_Forget(t *testing.T) {
	daemontest.EngineIndependent(t)
	ctx := context.Background()
	d, _ := startDocs(t, newServer(t).URL)
	c := d.Client
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendFile(t, path, claudeRecord("forgetme", "/gone", "f1", "user", "Remember the axolotl password?", 1)+
		claudeRecord("forgetme", "/gone", "f2", "assistant", "The axolotl is secret.", 2))
	req := api.TranscriptImportRequest{Format: "claude-code", Paths: []string{path}, Project: "demo"}
	importTranscripts(t, c, req)
	daemontest.Reindex(t, c, "demo", "session")
	if hits := daemontest.Search(t, c, "demo", api.SearchRequest{Query: "axolotl", Scopes: []string{"session"}}).Hits; len(hits) != 2 {
		t.Fatalf("before forgetting: %d hits, want 2", len(hits))
	}

	fg, err := c.ForgetSession(ctx, "demo", "claude-code:forgetme")
	if err != nil {
		daemontest.Fatal(t, "forget", err)
	}
	if *fg != (api.Forgotten{Project: "demo", Session: "claude-code:forgetme", Events: 2, Chunks: 2}) {
		t.Errorf("forgotten: %+v, want 2 events and 2 chunks", *fg)
	}
	if hits := daemontest.Search(t, c, "demo", api.SearchRequest{Query: "axolotl", Scopes: []string{"session"}}).Hits; len(hits) != 0 {
		t.Errorf("after forgetting: hits %+v", hits)
	}
	if _, err := c.Event(ctx, "demo", "claude-code:forgetme/f1"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("forgotten event still resolves: %v", err)
	}
	// The transcript grows: its session stays forgotten.
	appendFile(t, path, claudeRecord("forgetme", "/gone", "f3", "user", "And the axolotl again?", 3))
	rep := importTranscripts(t, c, req)
	if rep.Appended != 0 || rep.Forgotten != 1 {
		t.Errorf("import after forgetting: appended %d forgotten %d, want 0 and 1", rep.Appended, rep.Forgotten)
	}
	if _, err := c.ForgetSession(ctx, "demo", "claude-code:forgetme"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("forgetting it twice: %v, want not found", err)
	}
}

func TestTranscripts_BadRequests(t *testing.T) {
	daemontest.EngineIndependent(t)
	d, _ := startDocs(t, newServer(t).URL)
	for _, tc := range []struct {
		name, body string
		status     int
		says       string
	}{
		{"unknown format", `{"format": "vim"}`, http.StatusBadRequest, "unknown transcript format"},
		{"no format", `{}`, http.StatusBadRequest, "format"},
		{"relative path", `{"format": "codex", "paths": ["sessions"]}`, http.StatusBadRequest, "must be absolute"},
		{"unknown project", `{"format": "codex", "paths": ["/nowhere"], "project": "nope"}`, http.StatusNotFound, "unknown project"},
		{"unknown field", `{"format": "codex", "keep_raw": true}`, http.StatusBadRequest, "keep_raw"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := daemontest.Do(t, d.Socket(), "POST", api.PathTranscriptsImport, "application/json", []byte(tc.body))
			if a.Status != tc.status || !strings.Contains(a.ErrorBody(t).Message, tc.says) {
				t.Errorf("%d %s, want %d saying %q", a.Status, a.Body, tc.status, tc.says)
			}
		})
	}
	a := daemontest.Do(t, d.Socket(), "DELETE", api.SessionPath("demo", "nope"), "", nil)
	if a.Status != http.StatusNotFound || a.ErrorBody(t).Code != api.CodeNotFound {
		t.Errorf("forget an unknown session: %d %s", a.Status, a.Body)
	}
	// A path that does not exist is no transcript: an empty report.
	rep := importTranscripts(t, d.Client, api.TranscriptImportRequest{Format: "codex", Paths: []string{"/nowhere/at/all"}})
	if rep.Files != 0 || rep.Appended != 0 {
		t.Errorf("import of a missing folder: %+v", rep)
	}
}

// TestTranscripts_CopiedRecords: tools copy records, ids included, into
// the sessions they resume or fork; each copy is stored in its own session
// and none is refused as a conflict.
func TestTranscripts_CopiedRecords(t *testing.T) {
	daemontest.EngineIndependent(t)
	ctx := context.Background()
	d, repo := startDocs(t, newServer(t).URL)
	c := d.Client
	dir := t.TempDir()
	appendFile(t, filepath.Join(dir, "first.jsonl"), claudeRecord("first", repo.Dir, "same-uuid", "user", "Where does the axolotl live?", 1))
	// The resumed session holds the first one's record under its own id.
	appendFile(t, filepath.Join(dir, "resumed.jsonl"), claudeRecord("resumed", repo.Dir, "same-uuid", "user", "Where does the axolotl live?", 1)+
		claudeRecord("resumed", repo.Dir, "new-uuid", "user", "And what does it eat?", 2))
	rep := importTranscripts(t, c, api.TranscriptImportRequest{Format: "claude-code", Paths: []string{dir}})
	if len(rep.Conflicts) != 0 || rep.Indexed != 3 || rep.Duplicates != 0 {
		t.Errorf("import: %d indexed, %d duplicates, conflicts %+v; want all 3 stored", rep.Indexed, rep.Duplicates, rep.Conflicts)
	}
	for _, id := range []string{"claude-code:first/same-uuid", "claude-code:resumed/same-uuid", "claude-code:resumed/new-uuid"} {
		if _, err := c.Event(ctx, "demo", id); err != nil {
			t.Errorf("event %s: %v", id, err)
		}
	}
}

// TestTranscripts_SaysWhatItLookedFor: a folder with no file of the
// format's names is reported with what was looked for.
func TestTranscripts_SaysWhatItLookedFor(t *testing.T) {
	daemontest.EngineIndependent(t)
	d, _ := startDocs(t, newServer(t).URL)
	dir := t.TempDir()
	appendFile(t, filepath.Join(dir, "session.jsonl"), "{}\n")
	for _, f := range []string{"codex", "gemini", "aider"} {
		rep := importTranscripts(t, d.Client, api.TranscriptImportRequest{Format: f, Paths: []string{dir}})
		desc, err := transcript.Lookup(transcript.Format(f))
		if err != nil {
			t.Fatal(err)
		}
		if rep.Files != 0 || rep.LookedFor != desc.Looks || rep.LookedFor == "" {
			t.Errorf("%s: %d files, looked for %q; want none and %q", f, rep.Files, rep.LookedFor, desc.Looks)
		}
	}
}
