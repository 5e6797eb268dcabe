package embedding

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/ragd/ragd/model"
)

// Defaults for Config. A zero Config field takes its default (see Config).
const (
	// DefaultModel is the embedding model ragd assumes: small (274 MB), 8k
	// context, good retrieval quality, and in Ollama's library.
	DefaultModel = "nomic-embed-text"
	// DefaultDims is DefaultModel's vector length.
	DefaultDims = 768
	// DefaultBatchSize is how many texts go in one /api/embed request: Ollama
	// re-reads model metadata on every request, so batching pays, while 32
	// chunks of ~1 kB keep one request well under a minute on a CPU.
	DefaultBatchSize = 32
	// DefaultConcurrency is how many batches are in flight at once: Ollama
	// already embeds the texts of one request in parallel, so a second
	// request only hides the HTTP and JSON round trip; more just queues in
	// Ollama and makes each request more likely to hit its timeout.
	DefaultConcurrency = 2
	// DefaultIndexTimeout bounds one batch while indexing: generous, because
	// a cold model load plus 32 long texts on a CPU takes tens of seconds,
	// yet finite, so a hung Ollama cannot stall a reindex forever.
	DefaultIndexTimeout = 60 * time.Second
	// DefaultQueryTimeout bounds embedding a search query: a search must not
	// hang because Ollama does; after 2s it answers from lexical search alone.
	DefaultQueryTimeout = 2 * time.Second
	// MaxDims is the longest vector accepted, the limit of the store's
	// sqlite-vec table (store.Open accepts 1..8192).
	MaxDims = 8192
	// MaxBatchSize bounds BatchSize so that one request, its response limit
	// (see responseLimit) and its decoded vectors stay a few hundred MB at
	// most even at MaxDims.
	MaxBatchSize = 1024
	// DefaultContextLength is the input limit assumed when neither the
	// configuration nor the server gives one: 512 tokens, the smallest
	// context of common embedding models (BERT-sized: all-MiniLM, bge,
	// e5), so that nothing is cut that a model would have read, nor sent
	// that it must refuse.
	DefaultContextLength = 512
	// MaxContextLength bounds ContextLength: no embedding model reads more.
	MaxContextLength = 1 << 20
	// MaxConcurrency bounds Concurrency: Ollama serves a model with a few
	// parallel slots (OLLAMA_NUM_PARALLEL), more requests only queue.
	MaxConcurrency = 64
)

// Config configures a Service. The zero value of every field means its
// default, except that Dims must be set whenever Model is: a model's vector
// length is a property of the model, and guessing it would silently create a
// wrong embedding space.
type Config struct {
	// Provider is the server's API: ProviderOllama (the default) or
	// ProviderOpenAI.
	Provider string
	// Host is the Ollama server, in OLLAMA_HOST's syntax: "", "host",
	// "host:port", "http://host:port" or "https://host[:port][/path]".
	// Empty means http://127.0.0.1:11434. See ParseHost and HostFromEnv.
	Host string
	// BaseURL is the OpenAI-compatible server's base URL, the part before
	// "/embeddings", e.g. "http://127.0.0.1:8080/v1" or
	// "https://api.openai.com/v1". Required with ProviderOpenAI, unused
	// otherwise.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer" by ProviderOpenAI. When
	// empty it is read from the environment variable APIKeyEnv, else from
	// APIKeyFile, which must be readable by its owner only. Optional: local
	// servers need none.
	APIKey Secret
	// APIKeyEnv names the environment variable holding the API key.
	APIKeyEnv string
	// APIKeyFile is a file holding the API key (surrounding white space
	// ignored); one readable by group or others is refused.
	APIKeyFile string
	// SendDimensions makes ProviderOpenAI send Dims as the request's
	// "dimensions", for models that can shorten their vectors
	// (text-embedding-3-*). Off by default: most servers refuse the field
	// or ignore it, and a model/dims mismatch must show, not be cut.
	SendDimensions bool
	// ContextLength is the model's input limit in tokens. 0 means what the
	// provider reports (Ollama's /api/show), else DefaultContextLength.
	// Texts estimated past it are cut before sending (see truncateTokens).
	ContextLength int
	// Model is the model name, e.g. "nomic-embed-text" or
	// "mxbai-embed-large:335m". Default DefaultModel.
	Model string
	// Dims is the vector length the index expects from Model. Default
	// DefaultDims when Model is empty too; required otherwise.
	Dims int
	// BatchSize is the number of texts per request. Default DefaultBatchSize.
	BatchSize int
	// Concurrency is the number of requests in flight at once while
	// indexing. Default DefaultConcurrency.
	Concurrency int
	// IndexTimeout bounds each batch of EmbedDocuments. Default
	// DefaultIndexTimeout.
	IndexTimeout time.Duration
	// QueryTimeout bounds EmbedQuery and the probes of Health. Default
	// DefaultQueryTimeout.
	QueryTimeout time.Duration
	// DocumentPrefix, when non-nil, replaces the model's known prefix for
	// indexed text (see PrefixesFor); a pointer to "" disables it.
	DocumentPrefix *string
	// QueryPrefix, when non-nil, replaces the model's known prefix for
	// queries; a pointer to "" disables it.
	QueryPrefix *string
	// ModelDir is the folder of the built-in models (ProviderBuiltin).
	// Default model.DefaultDir(), in the user's cache.
	ModelDir string
	// ModelPath, when set, is a local sentence-transformers BERT model
	// folder the built-in provider runs instead of a pinned model (see
	// model.ReadFolder): Model is then its name (for the family's task
	// prefixes and the space's name; default the folder's base name) and
	// Dims its hidden size. Its space is the name and a digest of its
	// files, so another folder is another space.
	ModelPath string
	// Threads is the built-in model's CPU share while indexing, in cores
	// (queries run beside it). Default DefaultThreads.
	Threads int
	// IdleUnload is how long the built-in model stays in memory after its
	// last use. Default DefaultIdleUnload.
	IdleUnload time.Duration
	// Logger receives cache failures (Warn) and the underlying error of
	// each provider failure (Debug: the Reason already tells the caller,
	// once per call rather than once per batch). Default: discard.
	Logger *slog.Logger
}

// DefaultConfig returns the configuration for nomic-embed-text on the local
// Ollama with every default filled in. It does not read the environment: set
// Host from HostFromEnv where that is wanted.
func DefaultConfig() Config {
	return Config{
		Provider:     ProviderOllama,
		Host:         "",
		Model:        DefaultModel,
		Dims:         DefaultDims,
		BatchSize:    DefaultBatchSize,
		Concurrency:  DefaultConcurrency,
		IndexTimeout: DefaultIndexTimeout,
		QueryTimeout: DefaultQueryTimeout,
	}
}

// builtinDefaults returns c for ProviderBuiltin: the default built-in
// model when the model is unset or the Ollama default (which the built-in
// provider does not run), its dims, and BuiltinBatchSize for the Ollama
// batch size.
func (c Config) builtinDefaults() Config {
	if c.ModelPath != "" {
		if c.Model == "" || c.Model == DefaultModel {
			c.Model = filepath.Base(filepath.Clean(c.ModelPath))
			if f, err := model.ReadFolder(c.ModelPath); err == nil && (c.Dims == 0 || c.Dims == DefaultDims) {
				c.Dims = f.Dims
			}
		}
	} else if c.Model == "" || c.Model == DefaultModel {
		spec := model.Specs()[0]
		c.Model = spec.Name
		if c.Dims == 0 || c.Dims == DefaultDims {
			c.Dims = spec.Dims
		}
	}
	if c.BatchSize == 0 || c.BatchSize == DefaultBatchSize {
		c.BatchSize = BuiltinBatchSize
	}
	return c
}

// withDefaults returns c with zero fields defaulted, or an error naming the
// first invalid value. The model name is not checked here: an unusable name
// is reported as a Reason by every call (see Service), so that the daemon
// still starts and serves lexical search.
func (c Config) withDefaults() (Config, error) {
	if c.Provider == "" {
		c.Provider = ProviderOllama
	}
	if c.Provider == ProviderBuiltin {
		c = c.builtinDefaults()
	}
	if c.Threads == 0 {
		c.Threads = DefaultThreads
	}
	if c.IdleUnload == 0 {
		c.IdleUnload = DefaultIdleUnload
	}
	if c.Model == "" {
		if c.Dims == 0 {
			c.Dims = DefaultDims
		}
		c.Model = DefaultModel
	}
	if c.BatchSize == 0 {
		c.BatchSize = DefaultBatchSize
	}
	if c.Concurrency == 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.IndexTimeout == 0 {
		c.IndexTimeout = DefaultIndexTimeout
	}
	if c.QueryTimeout == 0 {
		c.QueryTimeout = DefaultQueryTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}

	var errs []error
	switch {
	case c.Dims == 0:
		errs = append(errs, fmt.Errorf("embedding config: Dims must be set for model %q (its vector length)", c.Model))
	case c.Dims < 0 || c.Dims > MaxDims:
		errs = append(errs, fmt.Errorf("embedding config: Dims %d out of range 1..%d", c.Dims, MaxDims))
	}
	if c.BatchSize < 0 || c.BatchSize > MaxBatchSize {
		errs = append(errs, fmt.Errorf("embedding config: BatchSize %d out of range 1..%d", c.BatchSize, MaxBatchSize))
	}
	if c.Concurrency < 0 || c.Concurrency > MaxConcurrency {
		errs = append(errs, fmt.Errorf("embedding config: Concurrency %d out of range 1..%d", c.Concurrency, MaxConcurrency))
	}
	if c.Threads < 0 || c.Threads > MaxConcurrency {
		errs = append(errs, fmt.Errorf("embedding config: Threads %d out of range 1..%d", c.Threads, MaxConcurrency))
	}
	switch {
	case c.Provider == ProviderBuiltin && c.ModelPath != "":
		if f, err := model.ReadFolder(c.ModelPath); err != nil {
			errs = append(errs, fmt.Errorf("embedding config: %w", err))
		} else if c.Dims != f.Dims {
			errs = append(errs, fmt.Errorf("embedding config: Dims %d for the model in %s, which has %d (config.json's hidden_size)", c.Dims, c.ModelPath, f.Dims))
		}
	case c.Provider == ProviderBuiltin:
		if spec, err := model.Lookup(c.Model); err != nil {
			errs = append(errs, fmt.Errorf("embedding config: %w", err))
		} else if c.Dims != spec.Dims {
			errs = append(errs, fmt.Errorf("embedding config: Dims %d for the built-in model %s, which has %d", c.Dims, spec.Name, spec.Dims))
		}
	}
	if c.ContextLength < 0 || c.ContextLength > MaxContextLength {
		errs = append(errs, fmt.Errorf("embedding config: ContextLength %d out of range 0..%d", c.ContextLength, MaxContextLength))
	}
	if c.IndexTimeout < 0 {
		errs = append(errs, fmt.Errorf("embedding config: IndexTimeout %v is negative", c.IndexTimeout))
	}
	if c.QueryTimeout < 0 {
		errs = append(errs, fmt.Errorf("embedding config: QueryTimeout %v is negative", c.QueryTimeout))
	}
	return c, errors.Join(errs...)
}
