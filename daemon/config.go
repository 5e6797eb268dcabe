package daemon

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/chunking"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/model"
	"github.com/ragd/ragd/search"
	"github.com/ragd/ragd/source"
)

// Config is ragd's configuration file, TOML. DefaultConfig has every default;
// `ragd config` prints it, commented, as ConfigTemplate.
type Config struct {
	Daemon    DaemonConfig    `toml:"daemon" json:"daemon"`
	Embedding EmbeddingConfig `toml:"embedding" json:"embedding"`
	Search    SearchConfig    `toml:"search" json:"search"`
	Chunking  ChunkingConfig  `toml:"chunking" json:"chunking"`
	Index     IndexConfig     `toml:"index" json:"index"`
	Sessions  SessionsConfig  `toml:"sessions" json:"sessions"`
}

// DaemonConfig: where the daemon lives and what it accepts.
type DaemonConfig struct {
	Socket       string `toml:"socket" json:"socket"`               // "" = $XDG_RUNTIME_DIR/ragd/ragd.sock
	Database     string `toml:"database" json:"database"`           // "" = $XDG_DATA_HOME/ragd/ragd.db
	MaxBodyBytes int64  `toml:"max_body_bytes" json:"maxBodyBytes"` // request bodies above are refused with 413
	LogLevel     string `toml:"log_level" json:"logLevel"`          // debug, info, warn, error
	// Owner is whose sessions, votes, index runs and searches this daemon
	// writes in a database several people share (a PostgreSQL server),
	// and whose private sessions its searches see; ragd measure counts
	// the owner's own searches and votes only. "" = the OS user name
	// (OwnerName). The SQLite engine, one person's file, ignores it.
	Owner string `toml:"owner" json:"owner"`
}

// EmbeddingConfig: the embedding provider, Ollama's API or an
// OpenAI-compatible one.
type EmbeddingConfig struct {
	Provider string `toml:"provider" json:"provider"` // see embedding.Providers
	Host     string `toml:"host" json:"host"`         // ollama: "" = $OLLAMA_HOST, else http://127.0.0.1:11434
	// BaseURL, APIKeyEnv, APIKeyFile and SendDimensions are the openai
	// provider's: the part of the URL before /embeddings, where the API
	// key is (a variable's name or a private file's path: never the key
	// itself, which would be printed by `ragd config`).
	BaseURL        string   `toml:"base_url" json:"baseURL"`
	APIKeyEnv      string   `toml:"api_key_env" json:"apiKeyEnv"`
	APIKeyFile     string   `toml:"api_key_file" json:"apiKeyFile"`
	Model          string   `toml:"model" json:"model"`
	Dims           int      `toml:"dims" json:"dims"`
	SendDimensions bool     `toml:"send_dimensions" json:"sendDimensions"`
	ContextLength  int      `toml:"context_length" json:"contextLength"` // tokens; 0 = the server's, else 512
	BatchSize      int      `toml:"batch_size" json:"batchSize"`
	Concurrency    int      `toml:"concurrency" json:"concurrency"`
	IndexTimeout   Duration `toml:"index_timeout" json:"indexTimeout"`
	QueryTimeout   Duration `toml:"query_timeout" json:"queryTimeout"`
	DocumentPrefix *string  `toml:"document_prefix" json:"documentPrefix"` // unset = the model's known convention
	QueryPrefix    *string  `toml:"query_prefix" json:"queryPrefix"`
	// Threads, IdleUnload and ModelDir are the builtin provider's.
	Threads    int      `toml:"threads" json:"threads"`
	IdleUnload Duration `toml:"idle_unload" json:"idleUnload"`
	ModelDir   string   `toml:"model_dir" json:"modelDir"` // "" = ~/.cache/ragd/models
	// ModelPath is a local sentence-transformers BERT model folder the
	// builtin provider runs instead of a pinned model (embedding.Config.
	// ModelPath): model names it (its family's prefixes), dims is its
	// hidden size.
	ModelPath string `toml:"model_path" json:"modelPath"`
	// ModelURL is where serve fetches missing built-in weights: "" = the
	// model's pinned URL, a mirror's URL, or "off" to never download.
	ModelURL string `toml:"model_url" json:"modelURL"`
}

// SearchConfig: the fusion. The defaults are the seed's starting points, not
// measurements: `ragd calibrate` finds better ones from data.
type SearchConfig struct {
	// Config holds the fusion keys (fusion, vector_weight, lexical_weight,
	// threshold, rrf_k, candidates, normalization, fill), as the search
	// package defines them.
	search.Config
	Limit   int    `toml:"limit" json:"limit"`
	Vectors string `toml:"vectors" json:"vectors"` // see DefaultVectors
	// PruneFrequentTerms leaves out of the lexical query the words in half a
	// project's chunks or more, which bm25 weighs nothing, when a rarer word
	// remains (the store's pruning): their cost goes, the ranking stays.
	PruneFrequentTerms bool `toml:"prune_frequent_terms" json:"pruneFrequentTerms"`
}

// ChunkingConfig: chunk sizes, in characters (runes).
type ChunkingConfig struct {
	Target  int `toml:"target" json:"target"`
	Overlap int `toml:"overlap" json:"overlap"`
	Window  int `toml:"window" json:"window"`
}

// IndexConfig: reindex behaviour.
type IndexConfig struct {
	MaxFileBytes int64    `toml:"max_file_bytes" json:"maxFileBytes"`
	WorkTree     bool     `toml:"work_tree" json:"workTree"`         // read docs from the working tree instead of HEAD
	AutoDebounce Duration `toml:"auto_debounce" json:"autoDebounce"` // quiet time before an auto-reindex runs
	// InlineVectors is the most new vectors a reindex embeds for a scope
	// before writing it; above, the scope is written lexical only at once
	// and the background fill embeds it (index.Indexer.InlineVectors). 0
	// embeds every scope inline.
	InlineVectors int `toml:"inline_vectors" json:"inlineVectors"`
	// Exclude are globs of paths no project reads, before each project's
	// own settings (ragd.Layout.Exclude): a user's "never my drafts/".
	Exclude []string `toml:"exclude" json:"exclude"`
	// PackageReadmes and RootFiles turn those rules off for every project
	// when false; a project can turn them off for itself too.
	PackageReadmes bool `toml:"package_readmes" json:"packageReadmes"`
	RootFiles      bool `toml:"root_files" json:"rootFiles"`
}

// layout is the index's settings for every project, before each one's own.
func (c IndexConfig) layout() ragd.Layout {
	return ragd.Layout{Exclude: c.Exclude, NoPackageReadmes: !c.PackageReadmes, NoRootFiles: !c.RootFiles}
}

// SessionsConfig: coding agents' transcripts.
type SessionsConfig struct {
	// Follow names the formats whose transcripts the daemon follows as they
	// are written (transcript.Formats, or "all"); empty follows none.
	Follow []string `toml:"follow" json:"follow"`
	// Share makes the sessions this daemon imports visible to everyone's
	// searches on a shared database; false keeps them its owner's. The
	// SQLite engine, one person's file, ignores it.
	Share bool `toml:"share" json:"share"`
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

// Defaults the daemon adds to those of the packages it configures.
const (
	// DefaultMaxBodyBytes bounds a request body: a large event import fits,
	// a runaway upload does not.
	DefaultMaxBodyBytes = 8 << 20
	// DefaultLogLevel: start and stop, warnings and failures, not every request.
	DefaultLogLevel = "info"
	// DefaultAutoDebounce is the quiet time before an auto-reindex runs: a
	// burst of commits or appended messages becomes one reindex.
	DefaultAutoDebounce = 2 * time.Second
	// DefaultInlineVectors: a reindex waits for about this many new
	// vectors, 5-15 s at the 20-54 texts/s a CPU provider manages here;
	// more are left to the background fill rather than block for minutes.
	DefaultInlineVectors = 256
)

// DefaultConfig returns every default. Each value is stated once, next to its
// reason, in the package it configures (search, embedding, chunking, source)
// or in the const block above; this only gathers them.
func DefaultConfig() Config {
	return Config{
		Daemon: DaemonConfig{MaxBodyBytes: DefaultMaxBodyBytes, LogLevel: DefaultLogLevel},
		Embedding: EmbeddingConfig{
			Provider: embedding.ProviderOllama,
			Model:    embedding.DefaultModel, Dims: embedding.DefaultDims,
			BatchSize: embedding.DefaultBatchSize, Concurrency: embedding.DefaultConcurrency,
			IndexTimeout: Duration{embedding.DefaultIndexTimeout}, QueryTimeout: Duration{embedding.DefaultQueryTimeout},
			Threads: embedding.DefaultThreads, IdleUnload: Duration{embedding.DefaultIdleUnload},
		},
		Search: SearchConfig{
			Config: search.DefaultConfig(), Limit: search.DefaultLimit,
			Vectors: DefaultVectors, PruneFrequentTerms: true,
		},
		Chunking: ChunkingConfig{Target: chunking.TargetRunes, Overlap: chunking.OverlapRunes, Window: chunking.WindowRunes},
		Index: IndexConfig{MaxFileBytes: source.DefaultMaxFileBytes, AutoDebounce: Duration{DefaultAutoDebounce},
			InlineVectors: DefaultInlineVectors, Exclude: []string{}, PackageReadmes: true, RootFiles: true},
		Sessions: SessionsConfig{Follow: []string{}},
	}
}

// Service returns the embedding package's configuration for c: the one
// conversion every user of the [embedding] section goes through.
func (c EmbeddingConfig) Service(logger *slog.Logger) embedding.Config {
	return embedding.Config{
		Provider: c.Provider, Host: c.Host, BaseURL: c.BaseURL,
		APIKeyEnv: c.APIKeyEnv, APIKeyFile: expandHome(c.APIKeyFile),
		SendDimensions: c.SendDimensions, ContextLength: c.ContextLength,
		Model: c.Model, Dims: c.Dims,
		BatchSize: c.BatchSize, Concurrency: c.Concurrency,
		IndexTimeout: c.IndexTimeout.Duration, QueryTimeout: c.QueryTimeout.Duration,
		DocumentPrefix: c.DocumentPrefix, QueryPrefix: c.QueryPrefix,
		Threads: c.Threads, IdleUnload: c.IdleUnload.Duration, ModelDir: expandHome(c.ModelDir),
		ModelPath: expandHome(c.ModelPath),
		Logger:    logger,
	}
}

// Options returns the chunking package's options for c.
func (c ChunkingConfig) Options() chunking.Options {
	return chunking.Options{Target: c.Target, Overlap: c.Overlap, Window: c.Window}
}

// LoadConfig reads the configuration file at path over the defaults (a
// missing file is the defaults), then applies the environment overrides.
func LoadConfig(path string) (Config, error) {
	cfg, _, err := LoadConfigSources(path)
	return cfg, err
}

// LoadConfigSources is LoadConfig that also says where each setting came
// from. An error names the file, the line and, for an unknown key, the
// nearest known one.
func LoadConfigSources(path string) (Config, Sources, error) {
	cfg := DefaultConfig()
	sources := Sources{}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return cfg, sources, fmt.Errorf("read config %s: %w", path, err)
	default:
		keys, err := parseConfig(b, &cfg)
		if err != nil {
			return cfg, sources, fmt.Errorf("config %s: %w", path, err)
		}
		for _, k := range keys {
			sources[k] = SourceFile
		}
		// Before the environment: the file's own URL is what others
		// could read, whatever RAGD_DB says.
		if sources.Of("daemon.database") == SourceFile {
			if err := checkDatabaseSecret(path, cfg.Daemon.Database); err != nil {
				return cfg, sources, err
			}
		}
	}
	if err := cfg.applyEnv(os.Getenv, sources); err != nil {
		return cfg, sources, err
	}
	if cfg.Embedding.Provider == embedding.ProviderBuiltin {
		cfg.Embedding.UseBuiltin(sources)
	}
	return cfg, sources, cfg.Validate()
}

// UseBuiltin sets the builtin provider, with its default model (and batch
// size) when neither the model nor the dims were set: the Ollama default is
// not one it runs, and `ragd config` must show what serves. With a local
// model folder (model_path), the model defaults to the folder's name and
// the dims to its size.
func (c *EmbeddingConfig) UseBuiltin(sources Sources) {
	c.Provider = embedding.ProviderBuiltin
	if c.ModelPath != "" {
		// A local folder: named after itself unless named, its own dims
		// unless set (if readable: Validate says what is wrong otherwise).
		if sources.Of("embedding.model") == SourceDefault {
			c.Model = filepath.Base(filepath.Clean(expandHome(c.ModelPath)))
		}
		if f, err := model.ReadFolder(expandHome(c.ModelPath)); err == nil && sources.Of("embedding.dims") == SourceDefault {
			c.Dims = f.Dims
		}
	} else if sources.Of("embedding.model") != SourceDefault || sources.Of("embedding.dims") != SourceDefault {
		return
	} else {
		spec := model.Specs()[0]
		c.Model, c.Dims = spec.Name, spec.Dims
	}
	if c.BatchSize == embedding.DefaultBatchSize && sources.Of("embedding.batch_size") == SourceDefault {
		c.BatchSize = embedding.BuiltinBatchSize
	}
}

// ParseConfig decodes TOML from r over cfg, refusing unknown keys: a typo in
// a weight's name must not silently keep the default.
func ParseConfig(r io.Reader, cfg *Config) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, err = parseConfig(b, cfg)
	return err
}

// parseConfig decodes b over cfg and returns the dotted keys it set.
func parseConfig(b []byte, cfg *Config) ([]string, error) {
	md, err := toml.Decode(string(b), cfg)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("line %d: %s", pe.Position.Line, pe.Message)
		}
		return nil, err
	}
	if undec := md.Undecoded(); len(undec) > 0 {
		key := undec[0].String()
		msg := fmt.Sprintf("unknown key %q", key)
		if line := keyLine(b, undec[0]); line > 0 {
			msg = fmt.Sprintf("line %d: %s", line, msg)
		}
		if near := nearestKey(key); near != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		}
		return nil, errors.New(msg + "; `ragd config --defaults` prints every key")
	}
	var keys []string
	for _, k := range md.Keys() {
		if len(k) == 2 {
			keys = append(keys, k.String())
		}
	}
	return keys, nil
}

// keyLine finds the line of key (section, name) in a TOML text, 0 if not
// found: the decoder reports unknown keys without a position.
func keyLine(b []byte, key toml.Key) int {
	section := ""
	for i, line := range strings.Split(string(b), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			section = strings.Trim(t, "[] ")
			continue
		}
		name, _, ok := strings.Cut(t, "=")
		if !ok {
			continue
		}
		full := strings.Trim(strings.TrimSpace(name), `"`)
		if section != "" {
			full = section + "." + full
		}
		if full == key.String() {
			return i + 1
		}
	}
	return 0
}

// nearestKey returns the known key closest to key by edit distance, if it is
// close enough to be a typo.
func nearestKey(key string) string {
	best, bestD := "", 4 // a typo is a few edits away, not a different word
	for _, k := range configKeys() {
		if d := editDistance(key, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// configKeys lists every dotted key of Config.
func configKeys() []string {
	var keys []string
	t := reflect.TypeOf(Config{})
	for i := range t.NumField() {
		for _, f := range sectionKeys(t.Field(i).Type) {
			keys = append(keys, t.Field(i).Tag.Get("toml")+"."+f.Tag.Get("toml"))
		}
	}
	return keys
}

// sectionKeys lists the fields of a section's struct that are keys: those
// of an embedded struct (SearchConfig's search.Config) in its place.
func sectionKeys(t reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	for _, f := range reflect.VisibleFields(t) {
		if !f.Anonymous && f.IsExported() {
			out = append(out, f)
		}
	}
	return out
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// Environment overrides, for one-off runs and tests, with the key each sets.
var envOverrides = []struct {
	name, key string
	set       func(c *Config, v string) error
}{
	{"RAGD_SOCKET", "daemon.socket", func(c *Config, v string) error { c.Daemon.Socket = v; return nil }},
	{"RAGD_DB", "daemon.database", func(c *Config, v string) error { c.Daemon.Database = v; return nil }},
	{"RAGD_LOG_LEVEL", "daemon.log_level", func(c *Config, v string) error { c.Daemon.LogLevel = v; return nil }},
	{"OLLAMA_HOST", "embedding.host", func(c *Config, v string) error {
		if c.Embedding.Host == "" {
			c.Embedding.Host = v
		}
		return nil
	}},
	{"RAGD_OLLAMA_HOST", "embedding.host", func(c *Config, v string) error { c.Embedding.Host = v; return nil }},
	{"RAGD_PROVIDER", "embedding.provider", func(c *Config, v string) error { c.Embedding.Provider = v; return nil }},
	{"RAGD_MODEL", "embedding.model", func(c *Config, v string) error { c.Embedding.Model = v; return nil }},
	{"RAGD_MODEL_PATH", "embedding.model_path", func(c *Config, v string) error { c.Embedding.ModelPath = v; return nil }},
	{"RAGD_DIMS", "embedding.dims", func(c *Config, v string) (err error) { c.Embedding.Dims, err = strconv.Atoi(v); return }},
	{"RAGD_FUSION", "search.fusion", func(c *Config, v string) error { c.Search.Fusion = search.Fusion(v); return nil }},
}

func (c *Config) applyEnv(getenv func(string) string, sources Sources) error {
	for _, o := range envOverrides {
		v := getenv(o.name)
		if v == "" {
			continue
		}
		// OLLAMA_HOST only fills an empty host.
		if o.name == "OLLAMA_HOST" && c.Embedding.Host != "" {
			continue
		}
		if err := o.set(c, v); err != nil {
			return fmt.Errorf("environment %s=%q: %w", o.name, v, err)
		}
		if sources != nil {
			sources[o.key] = "env " + o.name
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
	if !slices.Contains(embedding.Providers(), c.Embedding.Provider) {
		errs = append(errs, fmt.Errorf("embedding.provider %q: want one of %s", c.Embedding.Provider, strings.Join(embedding.Providers(), ", ")))
	}
	if c.Embedding.Provider == embedding.ProviderOpenAI && strings.TrimSpace(c.Embedding.BaseURL) == "" {
		errs = append(errs, errors.New(`embedding.base_url: the openai provider needs the server's URL up to /embeddings, e.g. "http://127.0.0.1:8080/v1"`))
	}
	if c.Embedding.ModelPath != "" {
		if c.Embedding.Provider != embedding.ProviderBuiltin {
			errs = append(errs, fmt.Errorf("embedding.model_path %q: only the builtin provider runs a local model folder (provider = %q)", c.Embedding.ModelPath, embedding.ProviderBuiltin))
		} else if f, err := model.ReadFolder(expandHome(c.Embedding.ModelPath)); err != nil {
			errs = append(errs, fmt.Errorf("embedding.model_path: %w", err))
		} else if c.Embedding.Dims != f.Dims {
			errs = append(errs, fmt.Errorf("embedding.dims %d: the model in %s has %d", c.Embedding.Dims, c.Embedding.ModelPath, f.Dims))
		}
	}
	if c.Embedding.ContextLength < 0 {
		errs = append(errs, fmt.Errorf("embedding.context_length %d: want >= 0 (0 = what the server says)", c.Embedding.ContextLength))
	}
	if c.Embedding.Dims < 1 || c.Embedding.Dims > 8192 {
		errs = append(errs, fmt.Errorf("embedding.dims %d: want 1..8192", c.Embedding.Dims))
	}
	if c.Index.InlineVectors < 0 {
		errs = append(errs, fmt.Errorf("index.inline_vectors %d: want >= 0 (0 embeds every scope before writing it)", c.Index.InlineVectors))
	}
	if c.Index.MaxFileBytes < 1 {
		errs = append(errs, fmt.Errorf("index.max_file_bytes %d: want > 0", c.Index.MaxFileBytes))
	}
	if err := source.ValidateLayout(ragd.Layout{Exclude: c.Index.Exclude}); err != nil {
		errs = append(errs, fmt.Errorf("index.%v", err))
	}
	if err := validateOwner(c.Daemon.Owner); err != nil {
		errs = append(errs, err)
	}
	if _, err := followFormats(c.Sessions); err != nil {
		errs = append(errs, fmt.Errorf("sessions.follow: %v (or %q)", err, FollowAll))
	}
	return errors.Join(errs...)
}

// ConfigTemplate is the documented configuration file with every default
// written out: Template of DefaultConfig.
var ConfigTemplate = Template(DefaultConfig(), nil)

// expandHome turns a leading "~/" into the home directory, for paths
// written in the configuration file; other paths are returned as they are.
func expandHome(p string) string {
	rest, ok := strings.CutPrefix(p, "~/")
	if !ok {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return p
	}
	return filepath.Join(home, rest)
}
