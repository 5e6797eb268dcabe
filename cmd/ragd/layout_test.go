package main

import (
	"os"
	"strings"
	"testing"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
)

// adrToolsRepo is a repository as adr-tools leaves it, with what the rules
// leave out beside it: the README's example of what `ragd add` answers.
var adrToolsRepo = map[string]string{
	".adr-dir":                 "doc/adr\n",
	"doc/adr/0001-record.md":   "# 1. Record architecture decisions\n\n## Status\n\nAccepted\n",
	"doc/adr/0002-shell.md":    "# 2. Implement as shell scripts\n\n## Status\n\nAccepted\n",
	"doc/adr/0003-one-tool.md": "# 3. Single command with subcommands\n\n## Status\n\nAccepted\n",
	"docs/guide.md":            "# Guide\n\nHow to use it.\n",
	"README.md":                "# adr-tools\n\nA command-line tool for decision records.\n",
	"INSTALL.md":               "# Install\n\nCopy the scripts.\n",
	"tools/README.md":          "# Tools\n\nHelpers for maintainers.\n",
	"LICENSE.md":               "# Licence\n",
	"testdata/sample.md":       "# A test input\n",
}

// readmeSection returns the text of the README section after its heading.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("README has no section %q", heading)
	}
	section, _, _ := strings.Cut(rest, "\n## ")
	return section
}

// fenced returns the first fenced block of lang in text.
func fenced(t *testing.T, text, lang string) string {
	t.Helper()
	_, rest, ok := strings.Cut(text, "```"+lang+"\n")
	if !ok {
		t.Fatalf("no ```%s block", lang)
	}
	block, _, _ := strings.Cut(rest, "```")
	return block
}

// shellWords splits a README command line as the shell does, for the
// quoting the README uses ('…'), and drops a trailing # comment.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for _, r := range line {
		switch {
		case quoted && r == '\'':
			quoted = false
		case quoted:
			cur.WriteRune(r)
		case r == '\'':
			quoted, inWord = true, true
		case r == '#' && !inWord:
			return words
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// TestREADME_WhatRagdReads: the README's section on what ragd reads shows
// what `ragd add` answers for an adr-tools repository, exactly, and its
// commands run as written in a registered repository.
func TestREADME_WhatRagdReads(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	startDaemon(t, srv.URL)
	repo := daemontest.Repo(t, adrToolsRepo)
	section := readmeSection(t, "What ragd reads")

	out := string(ragd(t, "add", repo.Dir, "--name", "demo"))
	_, got, _ := strings.Cut(out, "\n")
	if want := fenced(t, section, "text"); got != want {
		t.Errorf("ragd add answers\n%s\nthe README shows\n%s", got, want)
	}

	t.Chdir(repo.Dir)
	for _, line := range strings.Split(strings.TrimSpace(fenced(t, section, "sh")), "\n") {
		args := shellWords(line)
		if len(args) == 0 || args[0] != "ragd" {
			t.Fatalf("README line %q: not a ragd command", line)
		}
		if _, stderr, err := ragdErr(t, args[1:]...); err != nil {
			t.Errorf("%s: %v\n%s", line, err, stderr)
		}
	}
}

// TestLayout_SettingsAndWhatTheyFind: ragd layout changes the settings,
// shows their effect at once, and refuses bad ones with the field at fault.
func TestLayout_SettingsAndWhatTheyFind(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	startDaemon(t, srv.URL)
	repo := daemontest.Repo(t, adrToolsRepo)
	ragd(t, "add", repo.Dir, "--name", "demo", "--package-readmes=false")

	p := decode[api.ProjectInfo](t, ragd(t, "layout", "--project", "demo", "--json"))
	if !p.Settings.NoPackageReadmes || p.Layout == nil {
		t.Fatalf("layout after add --package-readmes=false: %+v", p)
	}
	for _, f := range p.Layout.Found {
		if f.Kind == "package README" {
			t.Errorf("package READMEs found with them off: %+v", f)
		}
	}

	out := string(ragd(t, "layout", "--project", "demo", "--adr-dir", "docs"))
	for _, want := range []string{"settings: ADRs in docs; no package READMEs", "1 ADR in docs/ (configured)", "3 docs in doc/ (docs folder)",
		"settings of demo changed; read by them with: ragd reindex --project demo"} {
		if !strings.Contains(out, want) {
			t.Errorf("ragd layout --adr-dir docs: no %q in\n%s", want, out)
		}
	}
	rep := decode[api.Report](t, ragd(t, "reindex", "--project", "demo", "--scope", "adr", "--json"))
	if sr := rep.Scopes[0]; sr.Files != 1 || len(sr.Found) != 1 || sr.Found[0].Rule != "docs/ (configured)" {
		t.Errorf("reindex of adr by the settings: %+v", sr)
	}

	_, stderr, err := ragdErr(t, "layout", "--project", "demo", "--exclude", "[")
	if err == nil || !strings.Contains(err.Error()+string(stderr), `settings: exclude "[": malformed pattern`) {
		t.Errorf("a malformed glob: %v, %s", err, stderr)
	}
	p = decode[api.ProjectInfo](t, ragd(t, "layout", "--project", "demo", "--reset", "--json"))
	if p.Settings.NoPackageReadmes || len(p.Settings.ADRDirs) != 0 {
		t.Errorf("after --reset: %+v", p.Settings)
	}
}
