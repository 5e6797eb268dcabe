package daemon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragd/ragd/search"
)

func calibrated() search.Config {
	c := search.DefaultConfig()
	c.VectorWeight, c.LexicalWeight, c.Threshold = 0.3, 0.7, 0
	c.Normalization, c.Fill, c.Candidates = search.NormMinMax, true, 100
	return c
}

func TestWriteSearchConfigCreatesFromTemplate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ragd", "config.toml")
	if err := WriteSearchConfig(path, calibrated()); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := cfg.Search.SearchConfig()
	if err != nil || got != calibrated() {
		t.Fatalf("read back %+v (%v), want %+v", got, err, calibrated())
	}
	b, _ := os.ReadFile(path)
	text := string(b)
	for _, want := range []string{"# ragd configuration", `normalization = "minmax"  # lexical scale`, "vector_weight = 0.3       # weighted", "threshold = 0.0", "[chunking]"} {
		if !strings.Contains(text, want) {
			t.Errorf("file lacks %q:\n%s", want, text)
		}
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
}

func TestWriteSearchConfigKeepsTheRest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	orig := "# mine\n[embedding]\nmodel = \"glove-100d\"\ndims = 100\n\n[search]\nlimit = 9 # keep\nfusion = 'rrf'\n\n[chunking]\ntarget = 900\n"
	if err := os.WriteFile(path, []byte(orig), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteSearchConfig(path, calibrated()); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := cfg.Search.SearchConfig(); got != calibrated() {
		t.Errorf("search %+v", got)
	}
	if cfg.Search.Limit != 9 || cfg.Embedding.Model != "glove-100d" || cfg.Embedding.Dims != 100 || cfg.Chunking.Target != 900 {
		t.Errorf("other settings changed: %+v", cfg)
	}
	b, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(b), "# mine\n") || !strings.Contains(string(b), "limit = 9 # keep\nfusion = \"weighted\"") {
		t.Errorf("file:\n%s", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the file's 0640 kept", fi.Mode().Perm())
	}

	// No [search] table: appended.
	if err := os.WriteFile(path, []byte("[index]\nwork_tree = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteSearchConfig(path, calibrated()); err != nil {
		t.Fatal(err)
	}
	cfg, err = LoadConfig(path)
	if err != nil || !cfg.Index.WorkTree {
		t.Fatalf("%v, %+v", err, cfg.Index)
	}
	if got, _ := cfg.Search.SearchConfig(); got != calibrated() {
		t.Errorf("search %+v", got)
	}

	// A file that does not parse is left alone.
	if err := os.WriteFile(path, []byte("[search]\nfusion = \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteSearchConfig(path, calibrated()); err == nil || !strings.Contains(err.Error(), "does not parse") {
		t.Errorf("broken file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "[search]\nfusion = \n" {
		t.Errorf("broken file rewritten: %q", b)
	}
}
