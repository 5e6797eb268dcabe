package daemon_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/embedding"
)

// tinyBERT is package model's small BERT folder (sentence-transformers
// layout, 8 dimensions).
var tinyBERT, _ = filepath.Abs("../model/testdata/tiny-bert")

// TestLoadConfig_ModelPath: a local model folder (model_path, or
// RAGD_MODEL_PATH) runs on the builtin provider, named after the folder
// and sized by it unless model and dims are set; its space is the name
// and the folder's digest.
func TestLoadConfig_ModelPath(t *testing.T) {
	clearEnv(t)
	path := writeConfig(t, "[embedding]\nprovider = \"builtin\"\nmodel_path = \""+tinyBERT+"\"\n")
	cfg, sources, err := daemon.LoadConfigSources(path)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Embedding.Model != "tiny-bert" || cfg.Embedding.Dims != 8 || sources.Of("embedding.model_path") != daemon.SourceFile {
		t.Errorf("model %q, dims %d, model_path from %q; want tiny-bert, 8, the file", cfg.Embedding.Model, cfg.Embedding.Dims, sources.Of("embedding.model_path"))
	}
	if sp := embedding.SpaceFor(cfg.Embedding.Service(nil)); !strings.HasPrefix(sp.String(), "tiny-bert@folder+") || sp.Dims != 8 {
		t.Errorf("space %v, want tiny-bert@folder+… with 8 dims", sp)
	}

	// The environment, with the model named: its family's prefixes.
	t.Setenv("RAGD_PROVIDER", "builtin")
	t.Setenv("RAGD_MODEL", "bge-small-en-v1.5")
	t.Setenv("RAGD_MODEL_PATH", tinyBERT)
	cfg, sources, err = daemon.LoadConfigSources(filepath.Join(t.TempDir(), "none.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Embedding.ModelPath != tinyBERT || cfg.Embedding.Model != "bge-small-en-v1.5" || cfg.Embedding.Dims != 8 || sources.Of("embedding.model_path") != "env RAGD_MODEL_PATH" {
		t.Errorf("from the environment: path %q, model %q, dims %d, source %q", cfg.Embedding.ModelPath, cfg.Embedding.Model, cfg.Embedding.Dims, sources.Of("embedding.model_path"))
	}
}

func TestLoadConfig_ModelPathErrors(t *testing.T) {
	clearEnv(t)
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "config.json"), []byte(`{"model_type":"t5"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ config, want string }{
		{"[embedding]\nmodel_path = \"" + tinyBERT + "\"\n", "only the builtin provider"},
		{"[embedding]\nprovider = \"builtin\"\nmodel_path = \"" + bad + "\"\n", filepath.Join(bad, "config.json")},
		{"[embedding]\nprovider = \"builtin\"\nmodel_path = \"" + filepath.Join(bad, "nothing") + "\"\n", "no such file"},
		{"[embedding]\nprovider = \"builtin\"\ndims = 384\nmodel_path = \"" + tinyBERT + "\"\n", "embedding.dims 384: the model in " + tinyBERT + " has 8"},
	} {
		_, err := daemon.LoadConfig(writeConfig(t, c.config))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.config, err, c.want)
		}
	}
}
