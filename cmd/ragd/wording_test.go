package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/kardianos/service"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/internal/daemontest"
)

// TestWording: counts agree with their nouns, empty parts are left out,
// and no message runs one sentence into another.
func TestWording(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{followLine("aider", "not followed", nil), "aider        not followed"},
		{followLine("codex", "not followed", []string{"/home/u/.codex"}), "codex        not followed (/home/u/.codex)"},
		{serviceError(platformService{"unix-systemv"}, "install", errors.New("not supported on SystemV.")).Error(),
			"service install: not supported on SystemV: no per-user service manager here (the one found is unix-systemv, " +
				"which installs system-wide init scripts, not a service of yours). Run `ragd serve` in the foreground, or from your session's startup"},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %q\nwant %q", tc.got, tc.want)
		}
	}
}

// platformService is a service manager that only names its platform.
type platformService struct{ platform string }

func (p platformService) Platform() string { return p.platform }

func (platformService) Run() error       { return nil }
func (platformService) Start() error     { return nil }
func (platformService) Stop() error      { return nil }
func (platformService) Restart() error   { return nil }
func (platformService) Install() error   { return nil }
func (platformService) Uninstall() error { return nil }
func (platformService) String() string   { return "ragd" }
func (platformService) Status() (service.Status, error) {
	return service.StatusUnknown, nil
}
func (platformService) Logger(chan<- error) (service.Logger, error)       { return nil, nil }
func (platformService) SystemLogger(chan<- error) (service.Logger, error) { return nil, nil }

// TestCLI_UsageMistakes: a mistyped flag or command is said once, on
// standard error by main, with the nearest name, and exits 2 as every
// usage error does.
func TestCLI_UsageMistakes(t *testing.T) {
	w := daemontest.NewWorld(t)
	w.Setenv(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "x", "--explian"}, "flag provided but not defined: -explian (did you mean --explain?)"},
		{[]string{"serach", "x"}, `unknown command "serach" (did you mean "search"?)`},
		{[]string{"reindx"}, `(did you mean "reindex"?)`},
	} {
		_, errOut, err := ragdErr(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || exitCode(err) != exitUsage {
			t.Errorf("ragd %s: %v (exit %d), want a usage error saying %q", strings.Join(tc.args, " "), err, exitCode(err), tc.want)
		}
		if strings.Contains(string(errOut), "not defined") {
			t.Errorf("ragd %s printed its error before main does:\n%s", strings.Join(tc.args, " "), errOut)
		}
	}
	if _, _, err := ragdErr(t, "bogus"); err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("ragd bogus: %v, want no suggestion", err)
	}
}

// TestCLI_JSONErrors: with --json, a failure is the JSON error shape of
// the socket's answers on standard output, printed once; the exit code
// still tells a usage error from a failure.
func TestCLI_JSONErrors(t *testing.T) {
	w := daemontest.NewWorld(t)
	w.Setenv(t)
	t.Chdir(t.TempDir()) // no repository here
	for _, tc := range []struct {
		args []string
		code string
		exit int
	}{
		{[]string{"search", "x", "--json"}, codeUsage, exitUsage},
		{[]string{"projects", "--json"}, codeFailed, exitFailed},
		{[]string{"search", "--json", "x", "--limit", "many"}, codeUsage, exitUsage},
	} {
		out, _, err := ragdErr(t, tc.args...)
		if !errors.Is(err, errSilent) || exitCode(err) != tc.exit {
			t.Errorf("ragd %s: %v (exit %d), want it printed, exit %d", strings.Join(tc.args, " "), err, exitCode(err), tc.exit)
		}
		body := decode[api.ErrorBody](t, out)
		if body.Error.Code != tc.code || body.Error.Message == "" || body.Error.Message != err.Error() {
			t.Errorf("ragd %s: %+v, want code %s and the message", strings.Join(tc.args, " "), body, tc.code)
		}
	}
}

// TestPrintHits_SnippetAroundQuery: the terminal shows a hit's text where
// the query's words are, as the MCP tools do (one snippet).
func TestPrintHits_SnippetAroundQuery(t *testing.T) {
	content := strings.Repeat("lorem ipsum dolor ", 40) + "the zeppelin hangar logs go to the state directory"
	var b strings.Builder
	printHits(&b, &api.SearchResponse{SearchResult: &api.SearchResult{Hits: []api.Hit{{Rank: 1, Content: content}}}}, "zeppelin")
	if !strings.Contains(b.String(), "zeppelin hangar") {
		t.Errorf("snippet misses the query's word:\n%s", b.String())
	}
}
