package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
	"github.com/ragd/ragd/transcript"
)

// TestCLI_SessionsTranscripts imports a Codex fixture with the command,
// in JSON and for people, shows what is followed, and forgets the session.
func TestCLI_SessionsTranscripts(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	startDaemon(t, srv.URL)
	repo := daemontest.Repo(t, daemontest.Docs)
	ragd(t, "add", repo.Dir, "--name", "demo")
	fixture, err := filepath.Abs(filepath.Join("..", "..", "transcript", "testdata", "rollout-2026-01-03T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee.jsonl"))
	if err != nil {
		t.Fatal(err)
	}

	// The fixture ran in /home/dev/proj: not registered, so listed.
	out := string(ragd(t, "sessions", "import", "--from", "codex", fixture))
	for _, want := range []string{"codex: 1 files (0 unchanged, 0 resumed), 1 sessions read: 0 messages indexed",
		"not imported, 1 sessions of folders no registered project contains",
		"codex:0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee in /home/dev/proj"} {
		if !strings.Contains(out, want) {
			t.Errorf("import of an unregistered folder's session does not say %q:\n%s", want, out)
		}
	}

	rep := decode[api.TranscriptReport](t, ragd(t, "sessions", "import", "--from", "codex", fixture, "--project", "demo", "--json"))
	if rep.Files != 1 || rep.Indexed != 3 || rep.Kept != 7 || rep.Malformed != 1 || len(rep.Projects) != 1 || rep.Projects[0].Project != "demo" {
		t.Errorf("import --project demo: %+v", rep)
	}
	out = string(ragd(t, "sessions", "import", "--from", "codex", fixture, "--project", "demo"))
	// Nothing new: the file is not read again, so no line is reported.
	if !strings.Contains(out, "codex: 1 files (1 unchanged, 0 resumed)") || strings.Contains(out, "malformed") {
		t.Errorf("second import:\n%s", out)
	}

	st := decode[api.FollowStatus](t, ragd(t, "sessions", "follow", "--json"))
	if len(st.Formats) != len(transcript.Formats) || st.Formats[0].Followed {
		t.Errorf("follow status: %+v", st)
	}
	if out := string(ragd(t, "sessions", "follow")); !strings.Contains(out, "claude-code  not followed") || !strings.Contains(out, "[sessions]") {
		t.Errorf("follow status for people:\n%s", out)
	}

	fg := decode[api.Forgotten](t, ragd(t, "sessions", "forget", "codex:0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee", "--project", "demo", "--json"))
	if fg.Events != 10 || fg.Session != "codex:0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee" {
		t.Errorf("forget: %+v", fg)
	}
	// A folder whose files are not named as Codex names its rollouts: the
	// report says what was looked for.
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "session.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := string(ragd(t, "sessions", "import", "--from", "codex", other)); !strings.Contains(out, "looked for rollout-*.jsonl files") {
		t.Errorf("import of a folder without rollouts does not say what it looked for:\n%s", out)
	}
	if _, _, err := ragdErr(t, "sessions", "import", "--from", "vim"); err == nil || !strings.Contains(err.Error(), transcript.Names(", ")) {
		t.Errorf("--from vim: %v", err)
	}
}

// Issue 27 item 23: the folders an import could not read are named.
func TestPrintTranscriptReport_Unreadable(t *testing.T) {
	var b strings.Builder
	printTranscriptReport(&b, &api.TranscriptReport{Format: "claude-code", Paths: []string{"/"},
		Unreadable: []string{"open /proc/1/fdinfo: permission denied"}, UnreadableCount: 3})
	for _, want := range []string{"unreadable, skipped: open /proc/1/fdinfo: permission denied", "… 3 unreadable in all"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report %q lacks %q", b.String(), want)
		}
	}
}

// TestCLI_SessionsListShow lists the sessions of a project and reads one
// whole, without knowing an id beforehand; an event id keeps its meaning.
func TestCLI_SessionsListShow(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	startDaemon(t, srv.URL)
	repo := daemontest.Repo(t, daemontest.Docs)
	ragd(t, "add", repo.Dir, "--name", "demo")
	fixture, err := filepath.Abs(filepath.Join("..", "..", "transcript", "testdata", "rollout-2026-01-03T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ragd(t, "sessions", "import", "--from", "codex", fixture, "--project", "demo")
	const id = "codex:0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee"

	list := decode[api.SessionList](t, ragd(t, "sessions", "list", "--project", "demo", "--json"))
	if len(list.Sessions) != 1 || list.Sessions[0].ID != id || list.Sessions[0].Format != "codex" || list.Sessions[0].Messages != 3 || list.Sessions[0].Events != 10 {
		t.Fatalf("sessions list --json: %+v", list)
	}
	out := string(ragd(t, "sessions", "list", "--project", "demo"))
	if !strings.Contains(out, "codex") || !strings.Contains(out, "3 messages") || !strings.Contains(out, id) {
		t.Errorf("sessions list:\n%s", out)
	}
	if out := string(ragd(t, "sessions", "list", "--project", "demo", "--from", "claude-code")); !strings.Contains(out, "no sessions in demo") {
		t.Errorf("sessions list --from claude-code:\n%s", out)
	}
	if out := string(ragd(t, "sessions", "list", "--project", "demo", "--since", "2026-01-04T00:00:00Z")); !strings.Contains(out, "no sessions in demo") {
		t.Errorf("sessions list --since after the session:\n%s", out)
	}

	conv := decode[api.Conversation](t, ragd(t, "sessions", "show", id, "--project", "demo", "--json"))
	if len(conv.Events) != 10 || conv.Session.Messages != 3 {
		t.Fatalf("sessions show SESSION --json: %d events, session %+v", len(conv.Events), conv.Session)
	}
	out = string(ragd(t, "sessions", "show", id, "--project", "demo"))
	var message, mechanism string
	for _, ev := range conv.Events {
		if message == "" && ev.Type == "chat.message" {
			message = ev.Text
		}
		if mechanism == "" && ev.Type != "chat.message" && ev.Type != "agent.response" {
			mechanism = "   · " + ev.Type + " "
		}
	}
	for _, want := range []string{"session " + id + " of demo", "3 messages, 10 events", message, mechanism} {
		if !strings.Contains(out, want) {
			t.Errorf("sessions show SESSION lacks %q:\n%s", want, out)
		}
	}
	// An event id still prints the one event.
	ev := conv.Events[0]
	if out := string(ragd(t, "sessions", "show", ev.ID, "--project", "demo")); !strings.Contains(out, ev.ID+"  "+ev.Type) || strings.Contains(out, "10 events") {
		t.Errorf("sessions show EVENT_ID:\n%s", out)
	}
	for _, args := range [][]string{
		{"sessions", "show", "nope", "--project", "demo"},
		{"sessions", "list", "--from", "vim", "--project", "demo"},
		{"sessions", "list", "--since", "yesterday", "--project", "demo"},
		{"sessions", "show", id, "--since", "7d", "--project", "demo"},
	} {
		if _, _, err := ragdErr(t, args...); err == nil {
			t.Errorf("ragd %s: no error", strings.Join(args, " "))
		}
	}
}

// TestCLI_SessionsSecrets: an event file's secret is redacted on import
// and the report says so by kind; --keep-raw warns on stderr; ragd
// sessions redact reports a pass over every project, and nothing to do the
// second time.
func TestCLI_SessionsSecrets(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	startDaemon(t, srv.URL)
	repo := daemontest.Repo(t, daemontest.Docs)
	ragd(t, "add", repo.Dir, "--name", "demo")
	file := filepath.Join(t.TempDir(), "events.jsonl")
	line := `{"id":"e1","sessionId":"s1","type":"chat.message","actor":"person","text":"deploy with glpat-Zx9Qw7Er5Ty3Ui1Op8As","time":"2026-11-29T12:00:00Z"}` + "\n"
	if err := os.WriteFile(file, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	out := string(ragd(t, "sessions", "import", file, "--project", "demo"))
	if !strings.Contains(out, "redacted 1: gitlab-pat") {
		t.Errorf("event import does not report its redaction:\n%s", out)
	}
	fixture, err := filepath.Abs(filepath.Join("..", "..", "transcript", "testdata", "aider.chat.history.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, stderr, err := ragdErr(t, "sessions", "import", "--from", "aider", fixture, "--project", "demo", "--keep-raw")
	if err != nil || !strings.Contains(string(stderr), "warning: --keep-raw stores each source record verbatim, unredacted") {
		t.Errorf("--keep-raw: %v, stderr:\n%s", err, stderr)
	}
	rep := decode[api.RedactReport](t, ragd(t, "sessions", "redact", "--json"))
	if len(rep.Projects) != 1 || rep.Projects[0].Project != "demo" || len(rep.Redactions) != 0 {
		t.Errorf("sessions redact of redacted text: %+v", rep)
	}
	if out := string(ragd(t, "sessions", "redact", "--project", "demo")); !strings.Contains(out, "redacted 0 secrets in 1 projects") ||
		!strings.Contains(out, "demo: 0 events, 0 session titles, 0 chunks, 0 checkpoints rewritten") {
		t.Errorf("sessions redact for people:\n%s", out)
	}
}
