package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
)

// A broken configuration file must not block the commands that repair it or
// that only talk to the daemon.
func TestConfig_BrokenFileDoesNotBlock(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte("[search]\nfusion = \"rrf\"\nlimt = 5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("RAGD_CONFIG", cfg)
	t.Setenv("RAGD_SOCKET", filepath.Join(dir, "none.sock"))

	// ragd config names the file, the line and the nearest key.
	_, _, err := ragdErr(t, "config")
	for _, want := range []string{cfg, "line 3", `"search.limt"`, `did you mean "search.limit"`, "ragd config --defaults"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ragd config with a typo: %v, want it to say %q", err, want)
		}
	}
	// ragd config --defaults always works, and is the documented file.
	if out := ragd(t, "config", "--defaults"); string(out) != daemon.ConfigTemplate {
		t.Errorf("config --defaults:\n%s\nwant the template", out)
	}
	// A client command warns and talks to the daemon (none runs here).
	_, errOut, err := ragdErr(t, "projects")
	if !errors.Is(err, client.ErrNotRunning) || !strings.Contains(string(errOut), "warning") || !strings.Contains(string(errOut), "limt") {
		t.Errorf("projects with a broken config: %v, stderr %q; want the daemon asked, the file warned about", err, errOut)
	}
}

// ragd config prints the settings in force and where each came from.
func TestConfig_Effective(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte("[search]\nthreshold = 0.3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("RAGD_CONFIG", cfg)
	t.Setenv("RAGD_FUSION", "rrf")
	out := string(ragd(t, "config"))
	for _, want := range []string{`fusion = "rrf"`, "[env RAGD_FUSION]", "threshold = 0.3", "[file]", "limit = 6", "[default]"} {
		if !strings.Contains(out, want) {
			t.Errorf("ragd config does not show %q:\n%s", want, out)
		}
	}
	type configOut struct {
		File    string            `json:"file"`
		Socket  string            `json:"socket"`
		DB      string            `json:"database"`
		Config  daemon.Config     `json:"config"`
		Sources map[string]string `json:"sources"`
	}
	got := decode[configOut](t, ragd(t, "config", "--json"))
	if got.Config.Search.Fusion != "rrf" || got.Config.Search.Threshold != 0.3 || got.Sources["search.fusion"] != "env RAGD_FUSION" || got.File != cfg {
		t.Errorf("config --json: %+v", got)
	}
	if raw := string(ragd(t, "config", "--json")); !strings.Contains(raw, `"vectorWeight"`) || strings.Contains(raw, `"Search"`) {
		t.Errorf("config --json is not camelCase:\n%s", raw)
	}
}

// A configuration file changed after the daemon started has no effect until
// it restarts: every client command says so.
func TestConfig_ChangedAfterDaemonStarted(t *testing.T) {
	w := daemontest.NewWorld(t)
	w.Setenv(t)
	if err := os.MkdirAll(filepath.Dir(w.Paths.Config), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.Paths.Config, []byte("[search]\nlimit = 6\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(w.Paths.Config, old, old); err != nil {
		t.Fatal(err)
	}
	daemontest.Start(t, w, daemontest.Config(ollamatest.ClosedURL(t)))

	if _, errOut, err := ragdErr(t, "projects"); err != nil || strings.Contains(string(errOut), "changed after") {
		t.Fatalf("unchanged file: %v, stderr %q", err, errOut)
	}
	if err := os.WriteFile(w.Paths.Config, []byte("[search]\nlimit = 8\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, err := ragdErr(t, "projects")
	if err != nil || !strings.Contains(string(errOut), w.Paths.Config+" changed after the daemon started") || !strings.Contains(string(errOut), "restart") {
		t.Errorf("changed file: %v, stderr %q; want the warning", err, errOut)
	}
}

// A failing service action says which service manager answered and what to
// do next, never only "exit status 1".
func TestService_FailureSaysWhatToDo(t *testing.T) {
	s, err := newService(&env{})
	if err != nil {
		t.Fatal(err)
	}
	err = serviceError(s, "start", errors.New("exit status 1"))
	for _, want := range []string{"service start", "ragd serve"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v: does not say %q", err, want)
		}
	}
	if msg := err.Error(); !strings.Contains(msg, s.Platform()) && !strings.Contains(msg, "service manager said") && !strings.Contains(msg, "kardianos") {
		t.Errorf("%v: says nothing of the service manager (%s)", err, s.Platform())
	}
}
