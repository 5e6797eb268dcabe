package main

import (
	"strings"
	"testing"

	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
)

// TestCLI_ReindexSaysWhenFillingWillNotHelp: a provider that answers, but
// never with a usable vector (another model's dims, a refused key, an HTML
// page with 200, zero vectors), ends a reindex saying what is wrong and
// that the background fill will not help until it is fixed, not that the
// fill adds the vectors "once it answers" (issue 35 item 15). A provider
// that is down still gets that promise.
func TestCLI_ReindexSaysWhenFillingWillNotHelp(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault ollamatest.Fault
		says  string
	}{
		{"wrong dims", ollamatest.WithDims(daemontest.Dims + 3), "dims"},
		{"401", ollamatest.Respond(401, `{"error":"unauthorized"}`), "401"},
		{"HTML 200", ollamatest.Respond(200, "<html><body>login</body></html>"), ""},
		{"zero vectors", ollamatest.WithVectors(func(req ollamatest.Request) [][]float32 {
			out := make([][]float32, len(req.Input))
			for i := range out {
				out[i] = make([]float32, daemontest.Dims)
			}
			return out
		}), "zero"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
			startDaemon(t, srv.URL)
			repo := daemontest.Repo(t, daemontest.Docs)
			ragd(t, "add", repo.Dir, "--name", "demo")
			srv.SetFault(tc.fault)
			out, errOut, _ := ragdErr(t, "reindex", "--project", "demo")
			text := string(out) + string(errOut)
			o := strings.TrimRight(string(out), "\n")
			last := o[strings.LastIndex(o, "\n")+1:]
			if strings.Contains(last, "once it does") || strings.Contains(last, "adds them once") {
				t.Errorf("the reindex promises the fill will help:\n%s", text)
			}
			if !strings.Contains(last, "will not help") || !strings.Contains(last, tc.says) {
				t.Errorf("the reindex's last line does not say filling will not help and what is wrong (%q):\n%s", tc.says, text)
			}
		})
	}
}

// TestCLI_ReindexWithoutProviderSaysHowToServeOne: make run's path with no
// Ollama. The reindex's last line says plainly that search is keyword-only
// until a model is served, and how to serve one (issue 35 item 21).
func TestCLI_ReindexWithoutProviderSaysHowToServeOne(t *testing.T) {
	startDaemon(t, ollamatest.ClosedURL(t))
	repo := daemontest.Repo(t, daemontest.Docs)
	ragd(t, "add", repo.Dir, "--name", "demo")
	out, errOut, err := ragdErr(t, "reindex", "--project", "demo")
	if err != nil {
		t.Fatalf("reindex without a provider: %v\n%s", err, errOut)
	}
	o := strings.TrimRight(string(out), "\n")
	last := o[strings.LastIndex(o, "\n")+1:]
	for _, want := range []string{"keyword-only until an embedding model is served", "ollama serve", "ollama pull " + daemontest.Model,
		"the background fill then adds the vectors"} {
		if !strings.Contains(last, want) {
			t.Errorf("the reindex's last line lacks %q:\n%s", want, last)
		}
	}
}
