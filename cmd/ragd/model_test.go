package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/model"
)

// modelEnv points the configuration at a fresh model folder.
func modelEnv(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	models := filepath.Join(dir, "models")
	if err := os.WriteFile(cfg, []byte("[embedding]\nprovider = \"builtin\"\nmodel_dir = \""+models+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("RAGD_CONFIG", cfg)
	t.Setenv("RAGD_SOCKET", filepath.Join(dir, "none.sock"))
	return models
}

func TestModel_BadInput(t *testing.T) {
	modelEnv(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"model"}, "ragd model install"},
		{[]string{"model", "remove"}, "ragd model install"},
		{[]string{"model", "install", "no-such-model"}, "all-minilm-l6-v2"},
		{[]string{"model", "install", "--from", "/no/such/folder"}, "/no/such/folder"},
	} {
		if _, _, err := ragdErr(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ragd %s: %v, want an error naming %q", strings.Join(c.args, " "), err, c.want)
		}
	}
	if out := string(ragd(t, "model", "list")); !strings.Contains(out, "all-minilm-l6-v2\t") || !strings.Contains(out, "not installed") {
		t.Errorf("model list before install:\n%s", out)
	}
	// It names the kernel the forward pass would run on: this CPU's.
	if k := model.BestKernel(); !slices.Contains([]string{"go", "avx2", "avx512"}, k) {
		t.Errorf("model.BestKernel() = %q", k)
	} else if out := string(ragd(t, "model", "list")); !strings.Contains(out, "\tkernel "+k+"\n") {
		t.Errorf("model list does not name the kernel %s:\n%s", k, out)
	}
	// ragd config shows the model that serves, not Ollama's default.
	if out := string(ragd(t, "config")); !strings.Contains(out, `model = "all-minilm-l6-v2"`) || !strings.Contains(out, "dims = 384 ") {
		t.Errorf("config with provider builtin:\n%s", out)
	}
	// Doctor names the built-in model and the command that installs it.
	out, _, err := ragdErr(t, "doctor")
	if err == nil || !strings.Contains(string(out), "built-in model") || !strings.Contains(string(out), "ragd model install") {
		t.Errorf("doctor without the weights: %v\n%s", err, out)
	}
}

func TestModel_InstallFromFolder(t *testing.T) {
	if os.Getenv("RAGD_BUILTIN_TESTS") == "" {
		t.Skip("the built-in model tier runs with RAGD_BUILTIN_TESTS=1 (scripts/test.sh)")
	}
	from := os.Getenv("RAGD_BUILTIN_MODEL")
	if from == "" {
		t.Fatal("RAGD_BUILTIN_TESTS=1 needs RAGD_BUILTIN_MODEL, the model's folder")
	}
	models := modelEnv(t)
	out, errOut, err := ragdErr(t, "model", "install", "--from", from)
	if err != nil || !strings.Contains(string(out), "installed in "+models) || !strings.Contains(string(errOut), "model.safetensors: 86.7 MB verified") {
		t.Fatalf("model install: %v\nstdout: %s\nstderr: %s", err, out, errOut)
	}
	if out := string(ragd(t, "model", "list")); !strings.Contains(out, "installed in "+models) {
		t.Errorf("model list after install:\n%s", out)
	}
	out, _, _ = ragdErr(t, "doctor")
	if !strings.Contains(string(out), "ok   provider   built-in model") || !strings.Contains(string(out), "verified") {
		t.Errorf("doctor with the weights installed:\n%s", out)
	}
}

// chooseFrom loads the configuration as serve does and chooses.
func chooseFrom(t *testing.T) providerChoice {
	t.Helper()
	e := &env{}
	cfg, sources, _, err := e.loadSources()
	if err != nil {
		t.Fatal(err)
	}
	return chooseProvider(context.Background(), cfg, sources)
}

func TestProviderChoice(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.toml")
	t.Setenv("RAGD_CONFIG", cfgPath)
	t.Setenv("RAGD_PROVIDER", "")
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))

	// Nothing configured, Ollama answers: Ollama.
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{embedding.DefaultModel: embedding.DefaultDims}})
	t.Setenv("RAGD_OLLAMA_HOST", srv.URL)
	if c := chooseFrom(t); c.cfg.Embedding.Provider != embedding.ProviderOllama || !strings.Contains(c.why, "ollama answers") {
		t.Errorf("with ollama up: %s (%s)", c.cfg.Embedding.Provider, c.why)
	}

	// Nothing configured, no Ollama, no built-in weights: Ollama, degraded,
	// and the reason says how to get the built-in model.
	t.Setenv("RAGD_OLLAMA_HOST", ollamatest.ClosedURL(t))
	if c := chooseFrom(t); c.cfg.Embedding.Provider != embedding.ProviderOllama || !strings.Contains(c.why, "ragd model install") {
		t.Errorf("with neither: %s (%s)", c.cfg.Embedding.Provider, c.why)
	}

	// A configured provider wins, whatever answers.
	t.Setenv("RAGD_PROVIDER", "openai")
	if err := os.WriteFile(cfgPath, []byte("[embedding]\nbase_url = \"http://127.0.0.1:11701/v1\"\nmodel = \"m\"\ndims = 8\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if c := chooseFrom(t); c.cfg.Embedding.Provider != embedding.ProviderOpenAI || !strings.Contains(c.why, "configured (env RAGD_PROVIDER)") || c.other != nil {
		t.Errorf("configured: %s (%s)", c.cfg.Embedding.Provider, c.why)
	}
}

func TestProviderChoice_BuiltinWhenInstalled(t *testing.T) {
	if os.Getenv("RAGD_BUILTIN_TESTS") == "" {
		t.Skip("the built-in model tier runs with RAGD_BUILTIN_TESTS=1 (scripts/test.sh)")
	}
	dir := t.TempDir()
	t.Setenv("RAGD_CONFIG", filepath.Join(dir, "config.toml"))
	t.Setenv("RAGD_SOCKET", filepath.Join(dir, "none.sock"))
	t.Setenv("RAGD_PROVIDER", "")
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	t.Setenv("RAGD_OLLAMA_HOST", ollamatest.ClosedURL(t))
	ragd(t, "model", "install", "--from", os.Getenv("RAGD_BUILTIN_MODEL"))
	c := chooseFrom(t)
	if c.cfg.Embedding.Provider != embedding.ProviderBuiltin || c.cfg.Embedding.Model != "all-minilm-l6-v2" || c.cfg.Embedding.Dims != 384 || c.other == nil {
		t.Fatalf("no ollama, weights installed: %+v (%s)", c.cfg.Embedding, c.why)
	}
	out, _, _ := ragdErr(t, "doctor")
	if !strings.Contains(string(out), "the built-in model, installed") || !strings.Contains(string(out), "ok   provider   built-in model") {
		t.Errorf("doctor without a daemon, no ollama, weights installed:\n%s", out)
	}
}

func TestServeFetchesMissingModel(t *testing.T) {
	models := modelEnv(t) // provider builtin, an empty model folder
	load := func(url string) daemon.Config {
		t.Helper()
		cfg, sources, _, err := (&env{}).loadSources()
		if err != nil {
			t.Fatal(err)
		}
		cfg.Embedding.ModelURL = url
		if sources.Of("embedding.provider") == daemon.SourceDefault {
			t.Fatal("modelEnv configures provider builtin")
		}
		return cfg
	}
	var log strings.Builder
	// "off": nothing fetched.
	if err := <-fetchMissingModel(context.Background(), load("off"), &log); err != nil || builtinInstalled(load("off")) {
		t.Fatalf("model_url off: %v, installed %v", err, builtinInstalled(load("off")))
	}
	// A mirror that is down: the error says so, nothing is installed.
	if err := <-fetchMissingModel(context.Background(), load(ollamatest.ClosedURL(t)), &log); err == nil || builtinInstalled(load("")) {
		t.Fatalf("a mirror that is down: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(models, "*", "*.partial")); len(left) > 0 {
		t.Errorf("partial files left: %v", left)
	}
	if os.Getenv("RAGD_BUILTIN_TESTS") == "" {
		return
	}
	// The real files from a mirror: installed, then nothing more to do.
	srv := httptest.NewServer(http.FileServer(http.Dir(os.Getenv("RAGD_BUILTIN_MODEL"))))
	defer srv.Close()
	if err := <-fetchMissingModel(context.Background(), load(srv.URL), &log); err != nil {
		t.Fatalf("from a mirror: %v\n%s", err, log.String())
	}
	if !builtinInstalled(load("")) {
		t.Fatal("not installed after serve's fetch")
	}
	srv.Close()
	if err := <-fetchMissingModel(context.Background(), load(srv.URL), &log); err != nil {
		t.Errorf("installed already, yet fetched again: %v", err)
	}
}
