package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
