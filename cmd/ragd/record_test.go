package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
	"github.com/ragd/ragd/source"
)

// The README's recorded session (scripts/record-session.sh writes it).
const (
	recordReadme = "../../README.md"
	recordBegin  = "<!-- record-session: begin -->"
	recordEnd    = "<!-- record-session: end -->"
)

// recordedCommand is one command of the record: its prompt line and what it
// printed.
type recordedCommand struct {
	prompt string
	output []string
}

// readRecord returns the commands of the README's recorded session.
func readRecord(t *testing.T) []recordedCommand {
	t.Helper()
	b, err := os.ReadFile(recordReadme)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), recordBegin)
	body, _, ok2 := strings.Cut(rest, recordEnd)
	if !ok || !ok2 {
		t.Fatalf("%s: no %s … %s", recordReadme, recordBegin, recordEnd)
	}
	body = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(body), "```text")), "```"))
	var out []recordedCommand
	for _, line := range strings.Split(body, "\n") {
		if p, ok := strings.CutPrefix(line, "$ "); ok {
			out = append(out, recordedCommand{prompt: p})
			continue
		}
		if len(out) == 0 {
			t.Fatalf("recorded session starts with %q, not a command", line)
		}
		out[len(out)-1].output = append(out[len(out)-1].output, line)
	}
	for i := range out {
		o := out[i].output
		for len(o) > 0 && o[len(o)-1] == "" {
			o = o[:len(o)-1]
		}
		out[i].output = o
	}
	return out
}

// What differs between two runs of the same commands on the same commit:
// timings, the project's name and folder, the provider's address, and what
// the real model embedded (the test's provider is a fake): what a reindex
// says of vectors, after its counts.
var recordNoise = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\d+(\.\d+)? ms\b`), "N ms"},
	{regexp.MustCompile(`project \S+ \(\S+\); index it with: ragd reindex --project \S+`), "project P (DIR); index it with: ragd reindex --project P"},
	{regexp.MustCompile(`^reindex of \S+: .*$`), "reindex of P: …"},
	{regexp.MustCompile(`^(\w+: .*\(\d+ new, \d+ kept, \d+ deleted\)).*$`), "$1…"},
	{regexp.MustCompile(`http://127\.0\.0\.1:\d+`), "http://127.0.0.1:PORT"},
}

// embedFailures is a reindex's line of the texts the model failed to embed.
var embedFailures = regexp.MustCompile(`^\w+: embed: \d+ of \d+ failed$`)

func denoise(lines []string) string {
	var out []string
	for _, l := range lines {
		if embedFailures.MatchString(l) {
			continue
		}
		for _, n := range recordNoise {
			l = n.re.ReplaceAllString(l, n.with)
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// TestRecordedSession: the README's recorded session is what the code
// prints. Its commands run against a daemon on this repository at HEAD,
// as scripts/record-session.sh runs them; registering, reindexing (what is
// indexed, its counts) and the keyword-only search must print the record's
// lines, timings, names and ports aside. The searches with vectors, the
// vote and measure depend on the real model and the clock, so only their
// commands are checked; so are the last part's reindex and search, on the
// built-in model, whose registering must print what the first did. When
// this fails, re-record: make record-session.
func TestRecordedSession(t *testing.T) {
	root, err := source.Root(".")
	if err != nil {
		t.Fatalf("the repository holding this test: %v", err)
	}
	rec := readRecord(t)
	var prompts []string
	for _, c := range rec {
		prompts = append(prompts, c.prompt)
	}
	query := "why is telemetry in its own database file"
	wantPrompts := []string{"ragd add . --exclude README.md", "ragd reindex", `ragd search "` + query + `" --limit 2`,
		"", "# Ollama stopped", `ragd search "` + query + `" --limit 1`, "ragd measure",
		"# no Ollama, no provider configured: the built-in model", "ragd add . --exclude README.md", "ragd reindex",
		`ragd search "` + query + `" --limit 2`}
	if len(prompts) != len(wantPrompts) || !strings.HasPrefix(prompts[3], "ragd feedback 1 ") {
		t.Fatalf("recorded commands %q, want those of scripts/record-session.sh", prompts)
	}
	for i, p := range wantPrompts {
		if p != "" && prompts[i] != p {
			t.Fatalf("recorded command %d is %q, want %q (scripts/record-session.sh)", i, prompts[i], p)
		}
	}

	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	w := daemontest.NewWorld(t)
	w.Setenv(t)
	d := daemontest.Start(t, w, daemontest.Config(srv.URL))
	t.Chdir(root)
	run := func(args ...string) []string {
		t.Helper()
		var b bytes.Buffer
		if err := run(context.Background(), args, strings.NewReader(""), &b, &b); err != nil {
			t.Fatalf("ragd %s: %v\n%s", strings.Join(args, " "), err, b.String())
		}
		return strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	}
	check := func(c recordedCommand, got []string) {
		t.Helper()
		if want, got := denoise(c.output), denoise(got); want != got {
			t.Errorf("$ %s\nrecorded:\n%s\n\nthe code prints:\n%s\n\nre-record the README's session: make record-session", c.prompt, want, got)
		}
	}
	added := run("add", ".", "--exclude", "README.md")
	check(rec[0], added)
	// The newcomer's daemon (the record's last part, on the built-in
	// model) registers the same repository and finds the same documents.
	check(rec[8], added)
	check(rec[1], run("reindex"))
	run("search", query, "--limit", "2") // search 1, as recorded

	// The provider stopped: the next search is keyword-only, as recorded.
	d.Stop(t)
	daemontest.Start(t, w, daemontest.Config(ollamatest.ClosedURL(t)))
	check(rec[5], run("search", query, "--limit", "1"))
}
