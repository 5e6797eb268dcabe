package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
)

// TestCLI_HTML writes measure's page to a file and to standard output,
// against a real daemon.
func TestCLI_HTML(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	startDaemon(t, srv.URL)

	file := filepath.Join(t.TempDir(), "measure.html")
	out := ragd(t, "measure", "--since", "1h", "--html", file)
	if !strings.Contains(string(out), "searches from") || strings.Contains(string(out), "<svg") {
		t.Errorf("with --html FILE the table still goes to standard output, not the page:\n%s", out)
	}
	page, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(page, []byte("<!DOCTYPE html>")) || bytes.Count(page, []byte("<svg")) != 4 || !bytes.Contains(page, []byte("No search in this window")) {
		t.Errorf("page:\n%.400s", page)
	}

	out = ragd(t, "measure", "--since", "1h", "--html", "-")
	if !bytes.HasPrefix(out, []byte("<!DOCTYPE html>")) || strings.Contains(string(out), "searches from 20") {
		t.Errorf("--html - writes the page alone to standard output:\n%.400s", out)
	}

	// --json and the page cannot share standard output; a page that cannot
	// be written is an error.
	_, _, err = ragdErr(t, "measure", "--json", "--html", "-")
	var usage usageError
	if !errors.As(err, &usage) {
		t.Errorf("--json --html -: %v, want a usage error", err)
	}
	if _, _, err := ragdErr(t, "measure", "--html", filepath.Join(t.TempDir(), "no", "such", "dir", "m.html")); err == nil || !strings.Contains(err.Error(), "write the HTML report") {
		t.Errorf("unwritable page: %v", err)
	}
}
