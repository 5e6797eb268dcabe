package daemon

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/BurntSushi/toml"
)

// Config is ragd's configuration file, TOML. DefaultConfig has every default;
// `ragd config` prints it, commented, as ConfigTemplate.
type Config struct {
	Daemon    DaemonConfig    `toml:"daemon"`
	Embedding EmbeddingConfig `toml:"embedding"`
	Search    SearchConfig    `toml:"search"`
	Chunking  ChunkingConfig  `toml:"chunking"`
	Index     IndexConfig     `toml:"index"`
}

// DaemonConfig: where the daemon lives and what it accepts.
type DaemonConfig struct {
	Socket       string `toml:"socket"`         // "" = $XDG_RUNTIME_DIR/ragd/ragd.sock
	Database     string `toml:"database"`       // "" = $XDG_DATA_HOME/ragd/ragd.db
	MaxBodyBytes int64  `toml:"max_body_bytes"` // request bodies above are refused with 413
	LogLevel     string `toml:"log_level"`      // debug, info, warn, error
}

// EmbeddingConfig: the Ollama embedding provider.
type EmbeddingConfig struct {
	Host           string   `toml:"host"` // "" = $OLLAMA_HOST, else http://127.0.0.1:11434
	Model          string   `toml:"model"`
	Dims           int      `toml:"dims"`
	BatchSize      int      `toml:"batch_size"`
	Concurrency    int      `toml:"concurrency"`
	IndexTimeout   Duration `toml:"index_timeout"`
	QueryTimeout   Duration `toml:"query_timeout"`
	DocumentPrefix *string  `toml:"document_prefix"` // unset = the model's known convention
	QueryPrefix    *string  `toml:"query_prefix"`
}

// SearchConfig: the fusion. The defaults are the seed's starting points, not
// measurements: `ragd calibrate` finds better ones from data.
type SearchConfig struct {
	Fusion        string  `toml:"fusion"` // weighted | rrf
	VectorWeight  float64 `toml:"vector_weight"`
	LexicalWeight float64 `toml:"lexical_weight"`
	Threshold     float64 `toml:"threshold"`
	RRFK          int     `toml:"rrf_k"`
	Candidates    int     `toml:"candidates"`
	Normalization string  `toml:"normalization"` // saturate | max | minmax
	Fill          bool    `toml:"fill"`
	Limit         int     `toml:"limit"`
}

// ChunkingConfig: chunk sizes, in characters (runes).
type ChunkingConfig struct {
	Target  int `toml:"target"`
	Overlap int `toml:"overlap"`
	Window  int `toml:"window"`
}

// IndexConfig: reindex behaviour.
type IndexConfig struct {
	MaxFileBytes int64    `toml:"max_file_bytes"`
	WorkTree     bool     `toml:"work_tree"`     // read docs from the working tree instead of HEAD
	AutoDebounce Duration `toml:"auto_debounce"` // quiet time before an auto-reindex runs
}

// Duration is a time.Duration written as "2s" in TOML.
type Duration struct{ time.Duration }

// UnmarshalText parses "2s", "1m30s".
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("duration %q: %w", b, err)
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration as "2s".
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// DefaultConfig returns every default.
func DefaultConfig() Config {
	return Config{
		Daemon: DaemonConfig{MaxBodyBytes: 8 << 20, LogLevel: "info"},
		Embedding: EmbeddingConfig{
			Model: "nomic-embed-text", Dims: 768, BatchSize: 32, Concurrency: 2,
			IndexTimeout: Duration{60 * time.Second}, QueryTimeout: Duration{2 * time.Second},
		},
		Search: SearchConfig{
			Fusion: "weighted", VectorWeight: 0.6, LexicalWeight: 0.4, Threshold: 0.2,
			RRFK: 60, Candidates: 12, Normalization: "saturate", Fill: false, Limit: 6,
		},
		Chunking: ChunkingConfig{Target: 1200, Overlap: 150, Window: 200},
		Index:    IndexConfig{MaxFileBytes: 1 << 20, AutoDebounce: Duration{2 * time.Second}},
	}
}

// LoadConfig reads the configuration file at path over the defaults (a
// missing file is the defaults), then applies the environment overrides.
func LoadConfig(path string) (Config, error) {
	cfg := DefaultConfig()
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return cfg, fmt.Errorf("read config %s: %w", path, err)
	default:
		if err := ParseConfig(bytes.NewReader(b), &cfg); err != nil {
			return cfg, fmt.Errorf("config %s: %w", path, err)
		}
	}
	if err := cfg.applyEnv(os.Getenv); err != nil {
		return cfg, err
	}
	return cfg, cfg.Validate()
}

// ParseConfig decodes TOML from r over cfg, refusing unknown keys: a typo in
// a weight's name must not silently keep the default.
func ParseConfig(r io.Reader, cfg *Config) error {
	md, err := toml.NewDecoder(r).Decode(cfg)
	if err != nil {
		return err
	}
	if undec := md.Undecoded(); len(undec) > 0 {
		return fmt.Errorf("unknown key %q", undec[0].String())
	}
	return nil
}

// Environment overrides, for one-off runs and tests.
var envOverrides = []struct {
	name string
	set  func(c *Config, v string) error
}{
	{"RAGD_SOCKET", func(c *Config, v string) error { c.Daemon.Socket = v; return nil }},
	{"RAGD_DB", func(c *Config, v string) error { c.Daemon.Database = v; return nil }},
	{"RAGD_LOG_LEVEL", func(c *Config, v string) error { c.Daemon.LogLevel = v; return nil }},
	{"OLLAMA_HOST", func(c *Config, v string) error {
		if c.Embedding.Host == "" {
			c.Embedding.Host = v
		}
		return nil
	}},
	{"RAGD_OLLAMA_HOST", func(c *Config, v string) error { c.Embedding.Host = v; return nil }},
	{"RAGD_MODEL", func(c *Config, v string) error { c.Embedding.Model = v; return nil }},
	{"RAGD_DIMS", func(c *Config, v string) (err error) { c.Embedding.Dims, err = strconv.Atoi(v); return }},
	{"RAGD_FUSION", func(c *Config, v string) error { c.Search.Fusion = v; return nil }},
}

func (c *Config) applyEnv(getenv func(string) string) error {
	for _, o := range envOverrides {
		if v := getenv(o.name); v != "" {
			if err := o.set(c, v); err != nil {
				return fmt.Errorf("environment %s=%q: %w", o.name, v, err)
			}
		}
	}
	return nil
}

// Validate checks the values the daemon cannot start with. The embedding and
// search packages check their own in detail.
func (c *Config) Validate() error {
	var errs []error
	if c.Daemon.MaxBodyBytes < 1024 {
		errs = append(errs, fmt.Errorf("daemon.max_body_bytes %d: want at least 1024", c.Daemon.MaxBodyBytes))
	}
	if c.Embedding.Dims < 1 || c.Embedding.Dims > 8192 {
		errs = append(errs, fmt.Errorf("embedding.dims %d: want 1..8192", c.Embedding.Dims))
	}
	if c.Index.MaxFileBytes < 1 {
		errs = append(errs, fmt.Errorf("index.max_file_bytes %d: want > 0", c.Index.MaxFileBytes))
	}
	return errors.Join(errs...)
}

// ConfigTemplate is the documented configuration file with every default
// written out. Keep it in step with DefaultConfig (a test checks).
const ConfigTemplate = `# ragd configuration ($XDG_CONFIG_HOME/ragd/config.toml).
# Every key is shown with its default; delete what you do not change.
# Environment overrides: RAGD_SOCKET, RAGD_DB, RAGD_LOG_LEVEL, OLLAMA_HOST
# (used when embedding.host is empty), RAGD_OLLAMA_HOST, RAGD_MODEL, RAGD_DIMS,
# RAGD_FUSION.

[daemon]
socket = ""               # "" = $XDG_RUNTIME_DIR/ragd/ragd.sock (else $XDG_STATE_HOME/ragd/run/)
database = ""             # "" = $XDG_DATA_HOME/ragd/ragd.db
max_body_bytes = 8388608  # larger request bodies get 413
log_level = "info"        # debug, info, warn, error

[embedding]
host = ""                 # "" = $OLLAMA_HOST, else http://127.0.0.1:11434
model = "nomic-embed-text"
dims = 768                # the model's vector length; model + dims = the embedding space
batch_size = 32           # texts per /api/embed request
concurrency = 2           # requests in flight while indexing
index_timeout = "1m0s"    # per batch while indexing
query_timeout = "2s"      # a search answers lexical-only after this
# document_prefix = "search_document: "   # unset = the model's known convention
# query_prefix = "search_query: "

[search]
fusion = "weighted"       # weighted | rrf
vector_weight = 0.6       # weighted: score = vector_weight*vector + lexical_weight*lexical
lexical_weight = 0.4
threshold = 0.2           # weighted: hits below are dropped
rrf_k = 60                # rrf: score = sum of 1/(rrf_k + rank)
candidates = 12           # candidates per signal
normalization = "saturate" # lexical scale: saturate s/(s+1) | max | minmax
fill = false              # score every candidate on both signals
limit = 6                 # hits per answer when the request gives none (1..20)

[chunking]
target = 1200             # characters per chunk
overlap = 150             # characters repeated from the previous chunk
window = 200              # look-around for a paragraph or word break

[index]
max_file_bytes = 1048576  # larger docs are skipped and reported
work_tree = false         # read docs from the working tree instead of HEAD
auto_debounce = "2s"      # quiet time before an opt-in auto-reindex runs
`
