package daemon_test

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/daemon"
)

// clearEnv empties every environment override for the test.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, k := range []string{"RAGD_SOCKET", "RAGD_DB", "RAGD_LOG_LEVEL", "OLLAMA_HOST", "RAGD_OLLAMA_HOST", "RAGD_PROVIDER", "RAGD_MODEL", "RAGD_MODEL_PATH", "RAGD_DIMS", "RAGD_FUSION"} {
		t.Setenv(k, "")
	}
}

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadConfig_FileThenEnvironment(t *testing.T) {
	clearEnv(t)
	path := writeConfig(t, `
[daemon]
max_body_bytes = 65536

[embedding]
model = "mxbai-embed-large"
dims = 1024
query_timeout = "750ms"
document_prefix = ""

[search]
fusion = "rrf"
vector_weight = 0.3
lexical_weight = 0.7
normalization = "minmax"
fill = true

[index]
auto_debounce = "1m30s"
work_tree = true
`)
	cfg, err := daemon.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	want := daemon.DefaultConfig()
	want.Daemon.MaxBodyBytes = 65536
	want.Embedding.Model, want.Embedding.Dims = "mxbai-embed-large", 1024
	want.Embedding.QueryTimeout = daemon.Duration{Duration: 750 * time.Millisecond}
	want.Embedding.DocumentPrefix = new(string)
	want.Search.Fusion, want.Search.VectorWeight, want.Search.LexicalWeight = "rrf", 0.3, 0.7
	want.Search.Normalization, want.Search.Fill = "minmax", true
	want.Index.AutoDebounce = daemon.Duration{Duration: 90 * time.Second}
	want.Index.WorkTree = true
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("from the file:\n got %+v\nwant %+v", cfg, want)
	}

	// The environment overrides the file; OLLAMA_HOST only fills an empty host.
	t.Setenv("RAGD_SOCKET", "/tmp/r.sock")
	t.Setenv("RAGD_DB", "/tmp/r.db")
	t.Setenv("RAGD_LOG_LEVEL", "debug")
	t.Setenv("OLLAMA_HOST", "http://ollama.example:11434")
	t.Setenv("RAGD_MODEL", "nomic-embed-text")
	t.Setenv("RAGD_DIMS", "768")
	t.Setenv("RAGD_FUSION", "weighted")
	cfg, err = daemon.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	want.Daemon.Socket, want.Daemon.Database, want.Daemon.LogLevel = "/tmp/r.sock", "/tmp/r.db", "debug"
	want.Embedding.Host = "http://ollama.example:11434"
	want.Embedding.Model, want.Embedding.Dims = "nomic-embed-text", 768
	want.Search.Fusion = "weighted"
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("with the environment:\n got %+v\nwant %+v", cfg, want)
	}

	withHost := writeConfig(t, "[embedding]\nhost = \"http://gpu:11434\"\n")
	if cfg, err := daemon.LoadConfig(withHost); err != nil || cfg.Embedding.Host != "http://gpu:11434" {
		t.Errorf("OLLAMA_HOST over a configured host: %q, %v; want the file's", cfg.Embedding.Host, err)
	}
	t.Setenv("RAGD_OLLAMA_HOST", "http://other:11434")
	if cfg, err := daemon.LoadConfig(withHost); err != nil || cfg.Embedding.Host != "http://other:11434" {
		t.Errorf("RAGD_OLLAMA_HOST over a configured host: %q, %v; want it", cfg.Embedding.Host, err)
	}
}

func TestLoadConfig_MissingFileIsDefaults(t *testing.T) {
	clearEnv(t)
	cfg, err := daemon.LoadConfig(filepath.Join(t.TempDir(), "none.toml"))
	if err != nil || !reflect.DeepEqual(cfg, daemon.DefaultConfig()) {
		t.Errorf("missing file: %+v, %v; want the defaults", cfg, err)
	}
}

func TestLoadConfig_Errors(t *testing.T) {
	tests := []struct {
		name, file string
		env        map[string]string
		want       []string // parts of the error
	}{
		{"unknown key", "[search]\nvector_wieght = 0.5\n", nil, []string{`"search.vector_wieght"`, "unknown key", "line 2", `did you mean "search.vector_weight"`}},
		{"typo of limit", "[search]\nfusion = \"rrf\"\n\nlimt = 5\n", nil, []string{"line 4", `"search.limt"`, `did you mean "search.limit"`, "ragd config --defaults"}},
		{"syntax error has its line", "[search]\nfusion = \"rrf\"\nthreshold = = 1\n", nil, []string{"line 3"}},
		{"unknown section", "[serach]\nfusion = \"rrf\"\n", nil, []string{`"serach`, "unknown key"}},
		{"unknown top-level key", "socket = \"/tmp/x\"\n", nil, []string{`"socket"`}},
		{"wrong type", "[embedding]\ndims = \"768\"\n", nil, []string{"dims"}},
		{"bad duration", "[embedding]\nquery_timeout = \"soon\"\n", nil, []string{`"soon"`}},
		{"not TOML", "[daemon\n", nil, []string{"config"}},
		{"dims out of range", "[embedding]\ndims = 0\n", nil, []string{"embedding.dims 0"}},
		{"tiny body limit", "[daemon]\nmax_body_bytes = 10\n", nil, []string{"daemon.max_body_bytes 10"}},
		{"bad RAGD_DIMS", "", map[string]string{"RAGD_DIMS": "many"}, []string{"RAGD_DIMS", `"many"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			path := writeConfig(t, tt.file)
			_, err := daemon.LoadConfig(path)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestConfigTemplate_IsDefaultConfig keeps the documented file in step with
// DefaultConfig: decoded, it is exactly the defaults; with its commented-out
// keys uncommented, every key is still one ragd knows.
func TestConfigTemplate_IsDefaultConfig(t *testing.T) {
	var cfg daemon.Config
	if err := daemon.ParseConfig(strings.NewReader(daemon.ConfigTemplate), &cfg); err != nil {
		t.Fatal(err)
	}
	if want := daemon.DefaultConfig(); !reflect.DeepEqual(cfg, want) {
		t.Errorf("ConfigTemplate decodes to\n%+v\nDefaultConfig is\n%+v", cfg, want)
	}

	commented := regexp.MustCompile(`(?m)^# ([a-z_]+ = .*)$`)
	if n := len(commented.FindAllString(daemon.ConfigTemplate, -1)); n != 2 {
		t.Errorf("%d commented-out keys, want 2 (document_prefix, query_prefix)", n)
	}
	uncommented := commented.ReplaceAllString(daemon.ConfigTemplate, "$1")
	cfg = daemon.Config{}
	if err := daemon.ParseConfig(strings.NewReader(uncommented), &cfg); err != nil {
		t.Fatalf("uncommented template: %v", err)
	}
	if cfg.Embedding.DocumentPrefix == nil || *cfg.Embedding.DocumentPrefix != "search_document: " ||
		cfg.Embedding.QueryPrefix == nil || *cfg.Embedding.QueryPrefix != "search_query: " {
		t.Errorf("uncommented prefixes: %v %v", cfg.Embedding.DocumentPrefix, cfg.Embedding.QueryPrefix)
	}

	// Every field of Config is in the template.
	var keys []string
	collectKeys(reflect.TypeOf(daemon.Config{}), "", &keys)
	for _, k := range keys {
		name := k[strings.LastIndex(k, ".")+1:]
		if !regexp.MustCompile(`(?m)^(# )?` + name + ` = `).MatchString(daemon.ConfigTemplate) {
			t.Errorf("ConfigTemplate does not show %s", k)
		}
	}
}

func collectKeys(t reflect.Type, prefix string, keys *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		name := prefix + f.Tag.Get("toml")
		if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeOf(daemon.Duration{}) {
			collectKeys(f.Type, name+".", keys)
			continue
		}
		*keys = append(*keys, name)
	}
}

func TestLoadConfigSources(t *testing.T) {
	clearEnv(t)
	path := writeConfig(t, "[search]\nfusion = \"rrf\"\nrrf_k = 30\n")
	t.Setenv("RAGD_MODEL", "all-minilm")
	cfg, src, err := daemon.LoadConfigSources(path)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Search.Fusion != "rrf" || cfg.Search.RRFK != 30 || cfg.Embedding.Model != "all-minilm" {
		t.Fatalf("config %+v", cfg)
	}
	for key, want := range map[string]string{
		"search.fusion": "file", "search.rrf_k": "file", "embedding.model": "env RAGD_MODEL",
		"search.threshold": "default", "daemon.socket": "default",
	} {
		if got := src.Of(key); got != want {
			t.Errorf("source of %s = %q, want %q", key, got, want)
		}
	}
	// The effective template shows the values in force and their sources,
	// and parses back to the same configuration.
	text := daemon.Template(cfg, src)
	for _, want := range []string{`fusion = "rrf"`, "[file]", `model = "all-minilm"`, "[env RAGD_MODEL]", "[default]"} {
		if !strings.Contains(text, want) {
			t.Errorf("effective template lacks %q:\n%s", want, text)
		}
	}
	back := daemon.DefaultConfig()
	if err := daemon.ParseConfig(strings.NewReader(text), &back); err != nil || !reflect.DeepEqual(back, cfg) {
		t.Errorf("effective template parses to %+v (%v), want %+v", back, err, cfg)
	}
}
