package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	domain "github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
)

type projectList struct {
	Projects []api.ProjectInfo `json:"projects"`
}

type doctorReport struct {
	OK     bool    `json:"ok"`
	Checks []check `json:"checks"`
}

// startDaemon starts a daemon in this process, embedding at host, and
// points the ragd command at it through the XDG variables.
func startDaemon(t *testing.T, host string) *daemontest.Daemon {
	t.Helper()
	w := daemontest.NewWorld(t)
	w.Setenv(t)
	return daemontest.Start(t, w, daemontest.Config(host))
}

// TestCLI_JSON runs every client command with --json against a real daemon
// and checks what its output says.
func TestCLI_JSON(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	d := startDaemon(t, srv.URL)
	repo := daemontest.Repo(t, daemontest.Docs)
	head := repo.Head(t)

	p := decode[api.ProjectInfo](t, ragd(t, "add", repo.Dir, "--name", "demo", "--json"))
	if p.ID != "demo" || !slices.Equal(p.Stale, []string{"docs", "adr"}) {
		t.Errorf("add: %+v", p)
	}
	if l := decode[projectList](t, ragd(t, "projects", "--json")); len(l.Projects) != 1 || l.Projects[0].ID != "demo" {
		t.Errorf("projects: %+v", l)
	}

	rep := decode[api.Report](t, ragd(t, "reindex", "--project", "demo", "--json"))
	if !rep.Complete || len(rep.Scopes) != 3 || rep.Scopes[0].Commit != head {
		t.Fatalf("reindex: %+v", rep)
	}

	// The query may come in several words, flags after it.
	resp := decode[api.SearchResponse](t, ragd(t, "search", "sqlite-vec", "telemetry", "--project", "demo", "--limit", "3", "--explain", "--json"))
	if resp.SearchID == nil || resp.Degraded || !resp.VectorAvailable || len(resp.Hits) == 0 || len(resp.Hits) > 3 ||
		resp.Hits[0].Origin.SourcePath != "docs/adr/0001-storage.md" || resp.Hits[0].Explain == nil || resp.Project != "demo" {
		t.Fatalf("search: %+v", resp)
	}
	searchID := strconv.FormatInt(*resp.SearchID, 10)
	chunk := resp.Hits[0].ChunkID

	vote := decode[api.Vote](t, ragd(t, "feedback", searchID, chunk, "useful", "--json"))
	if vote.SearchID != *resp.SearchID || vote.ChunkID != chunk || vote.Rank != 1 || vote.Verdict != "useful" {
		t.Errorf("feedback: %+v", vote)
	}

	cov := decode[api.Coverage](t, ragd(t, "coverage", "--project", "demo", "--json"))
	if cov.Project != "demo" || cov.Head == nil || cov.Head.Commit != head || len(cov.Scopes) != 3 {
		t.Errorf("coverage: %+v", cov)
	}
	if cov.Language != "english" || cov.LanguageSetting != "" {
		t.Errorf("coverage language %q, setting %q; want english detected", cov.Language, cov.LanguageSetting)
	}
	if l := decode[api.ProjectInfo](t, ragd(t, "language", "simple", "--project", "demo", "--json")); l.Language != "simple" || l.LanguageSetting != "simple" {
		t.Errorf("language simple: %+v", l)
	}
	if l := decode[api.ProjectInfo](t, ragd(t, "language", "auto", "--project", "demo", "--json")); l.Language != "english" || l.LanguageSetting != "" {
		t.Errorf("language auto: %+v", l)
	}
	if out := string(ragd(t, "language", "--project", "demo")); !strings.Contains(out, "english (detected)") {
		t.Errorf("language: %q", out)
	}
	for _, sc := range cov.Scopes {
		if sc.Stale {
			t.Errorf("coverage of %s after reindex: stale (%s)", sc.Scope, sc.StaleReason)
		}
	}

	// Sessions: an event file with a malformed line.
	file := filepath.Join(t.TempDir(), "session.jsonl")
	events := `{"id":"c1","sessionId":"cli","type":"chat.message","actor":"person","text":"Where does the walrus index live?","time":"2026-11-29T12:00:00Z","title":"Walrus"}
not json at all
{"id":"c2","sessionId":"cli","type":"agent.response","actor":"agent","text":"The walrus index lives in one SQLite file.","time":"2026-11-29T12:00:05Z"}
`
	if err := os.WriteFile(file, []byte(events), 0o600); err != nil {
		t.Fatal(err)
	}
	imp := decode[api.ImportReport](t, ragd(t, "sessions", "import", file, "--project", "demo", "--json"))
	if imp.Lines != 3 || imp.Appended != 2 || imp.Messages != 2 || imp.Bad != 1 || len(imp.LineErrors) != 1 || imp.LineErrors[0].Line != 2 {
		t.Errorf("sessions import: %+v", imp)
	}
	srep := decode[api.Report](t, ragd(t, "reindex", "--project", "demo", "--scope", "session", "--json"))
	if len(srep.Scopes) != 1 || srep.Scopes[0].Scope != "session" || srep.Scopes[0].Chunks.Total != 2 {
		t.Errorf("session reindex: %+v", srep.Scopes)
	}
	sresp := decode[api.SearchResponse](t, ragd(t, "search", "walrus index", "--scope", "session", "--project", "demo", "--json"))
	if len(sresp.Hits) == 0 || sresp.Hits[0].Origin.Kind != domain.OriginSession || sresp.Hits[0].Origin.SessionID != "cli" {
		t.Fatalf("session search: %+v", sresp.Hits)
	}
	ev := decode[domain.Event](t, ragd(t, "sessions", "show", sresp.Hits[0].Origin.EventID, "--project", "demo", "--json"))
	if ev.ID != sresp.Hits[0].Origin.EventID || ev.SessionID != "cli" || !strings.Contains(ev.Text, "walrus") || ev.Title != "Walrus" {
		t.Errorf("sessions show: %+v", ev)
	}

	m := decode[api.MeasureReport](t, ragd(t, "measure", "--project", "demo", "--since", "1h", "--json"))
	if m.Failed || m.Total.Searches != 2 || m.Total.Votes != 1 || m.Total.PrecisionAtK == nil || *m.Total.PrecisionAtK != 1 {
		t.Errorf("measure: %+v", m.Total)
	}

	doc := decode[doctorReport](t, ragd(t, "doctor", "--json"))
	if !doc.OK {
		t.Errorf("doctor: %+v", doc)
	}
	for _, name := range []string{"config", "socket", "database", "sqlite-vec", "provider"} {
		if i := slices.IndexFunc(doc.Checks, func(c check) bool { return c.Name == name }); i < 0 || !doc.Checks[i].OK || doc.Checks[i].Detail == "" {
			t.Errorf("doctor check %s: %+v", name, doc.Checks)
		}
	}

	cfg := decode[struct {
		File, Socket, Database string
		Config                 daemon.Config
		Sources                map[string]string
	}](t, ragd(t, "config", "--json"))
	if cfg.Socket != d.Socket() || cfg.Database != d.World.Paths.Database || cfg.File != d.World.Paths.Config ||
		cfg.Config.Search.Fusion != "weighted" {
		t.Errorf("config: %+v", cfg)
	}
	if v := decode[map[string]string](t, ragd(t, "version", "--json")); v["version"] != daemon.Version {
		t.Errorf("version: %v", v)
	}

	// RAGD_SOCKET, and --socket, find a daemon the XDG directories do not.
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	if _, _, err := ragdErr(t, "projects", "--json"); !errors.Is(err, client.ErrNotRunning) {
		t.Errorf("projects with the runtime directory elsewhere: %v, want not running", err)
	}
	if l := decode[projectList](t, ragd(t, "projects", "--json", "--socket", d.Socket())); len(l.Projects) != 1 {
		t.Errorf("projects --socket: %+v", l)
	}
	t.Setenv("RAGD_SOCKET", d.Socket())
	if l := decode[projectList](t, ragd(t, "projects", "--json")); len(l.Projects) != 1 {
		t.Errorf("projects with RAGD_SOCKET: %+v", l)
	}

	if out := decode[map[string]any](t, ragd(t, "remove", "demo", "--json")); out["removed"] != "demo" {
		t.Errorf("remove: %v", out)
	}
	if l := decode[projectList](t, ragd(t, "projects", "--json")); len(l.Projects) != 0 {
		t.Errorf("projects after remove: %+v", l)
	}
}

// TestCLI_Degraded: with Ollama down, search answers lexical-only and says
// so, measure fails (its one failure), and doctor says what to fix.
func TestCLI_Degraded(t *testing.T) {
	startDaemon(t, ollamatest.ClosedURL(t))
	repo := daemontest.Repo(t, daemontest.Docs)
	ragd(t, "add", repo.Dir, "--name", "demo", "--json")

	rep := decode[api.Report](t, ragd(t, "reindex", "--project", "demo", "--json"))
	if rep.Complete || rep.Scopes[0].Embedding.Available || rep.Scopes[0].Embedding.Reason == "" {
		t.Errorf("reindex with Ollama down: %+v", rep)
	}
	resp := decode[api.SearchResponse](t, ragd(t, "search", "Unix socket owner", "--project", "demo", "--json"))
	if !resp.Degraded || resp.VectorAvailable || len(resp.Hits) == 0 || resp.Hits[0].VectorScore != nil || resp.Hits[0].LexicalScore == nil {
		t.Errorf("degraded search: %+v", resp)
	}

	out, _, err := ragdErr(t, "measure", "--project", "demo", "--json")
	if !errors.Is(err, errSilent) {
		t.Errorf("measure of a lexical-only window: %v, want a failure", err)
	}
	if m := decode[api.MeasureReport](t, out); !m.Failed || m.FailReason == "" || m.Total.Degraded != 1 || m.Project != "demo" {
		t.Errorf("measure: %+v", m)
	}
	// For people: the project by name, the failure said once.
	out, errOut, err := ragdErr(t, "measure", "--project", "demo")
	text := string(out) + string(errOut)
	if !errors.Is(err, errSilent) || strings.Count(strings.ToLower(text), "failed") != 1 || !strings.Contains(text, "project demo") {
		t.Errorf("measure: %v\n%s", err, text)
	}

	out, _, err = ragdErr(t, "doctor", "--json")
	if !errors.Is(err, errSilent) {
		t.Errorf("doctor with Ollama down: %v, want a failure", err)
	}
	doc := decode[doctorReport](t, out)
	i := slices.IndexFunc(doc.Checks, func(c check) bool { return c.Name == "provider" })
	if doc.OK || i < 0 || doc.Checks[i].OK || doc.Checks[i].Fix == "" {
		t.Errorf("doctor: %+v", doc)
	}
}

// TestCLI_Errors: mistakes in the command line and a daemon that is not
// there get an error that says what to do.
func TestCLI_Errors(t *testing.T) {
	w := daemontest.NewWorld(t)
	w.Setenv(t)
	tests := []struct {
		args  []string
		usage bool
		want  string
	}{
		{[]string{"bogus"}, true, `unknown command "bogus"`},
		{[]string{"search"}, true, "search needs a query"},
		{[]string{"feedback", "1", "x"}, true, "SEARCH_ID CHUNK_ID"},
		{[]string{"feedback", "first", "x", "useful"}, true, `search id "first"`},
		{[]string{"sessions", "list", "all"}, true, "sessions import FILE"},
		{[]string{"reindex", "now"}, true, "no arguments"},
		{[]string{"projects", "--json"}, false, "ragd serve"},
		{[]string{"search", "x", "--project", "demo"}, false, w.Paths.Socket},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, _, err := ragdErr(t, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
			var ue usageError
			if errors.As(err, &ue) != tt.usage {
				t.Errorf("usage error %v, want %v", errors.As(err, &ue), tt.usage)
			}
		})
	}

	// An unregistered project, with the daemon up.
	daemontest.Start(t, w, daemontest.Config(ollamatest.ClosedURL(t)))
	if _, _, err := ragdErr(t, "search", "x", "--project", "nope", "--json"); err == nil || !strings.Contains(err.Error(), "ragd add") {
		t.Errorf("search in an unknown project: %v", err)
	}
	// A bad request comes back with the daemon's message.
	var ce *client.Error
	if _, _, err := ragdErr(t, "feedback", "999", "abc", "useful", "--json"); !errors.As(err, &ce) || ce.Status != 404 || !strings.Contains(ce.Message, "999") {
		t.Errorf("feedback on an unknown search: %v", err)
	}
}

// TestCLI_DoctorBusyIsNotDown: a provider that takes the probe and says
// nothing within the query timeout (busy with a reindex) is reported busy
// and does not fail doctor; one that cannot be reached does.
func TestCLI_DoctorBusyIsNotDown(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	srv.SetFault(srv.Hang())
	w := daemontest.NewWorld(t)
	w.Setenv(t)
	cfg := daemontest.Config(srv.URL)
	cfg.Embedding.QueryTimeout = daemon.Duration{Duration: 300 * time.Millisecond}
	daemontest.Start(t, w, cfg)

	out, _, err := ragdErr(t, "doctor", "--json")
	doc := decode[doctorReport](t, out)
	i := slices.IndexFunc(doc.Checks, func(c check) bool { return c.Name == "provider" })
	if err != nil || !doc.OK || i < 0 || !doc.Checks[i].OK || !strings.Contains(doc.Checks[i].Detail, "busy, not down: timeout after 300ms") {
		t.Errorf("doctor with a busy provider: %v %+v", err, doc)
	}
	h, err := client.New(w.Paths.Socket).Health(t.Context())
	if err != nil || h.Embedding.Available || !h.Embedding.Busy {
		t.Errorf("health of a busy provider: %v %+v", err, h.Embedding)
	}
}
