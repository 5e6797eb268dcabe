package embedding

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptrace"
	"runtime"
	"sync"
	"time"

	"github.com/ragd/ragd/model"
)

// Defaults of the built-in provider.
const (
	// DefaultThreads is the built-in model's share of the CPU while
	// indexing, in cores: one, so that a reindex leaves the rest of the
	// machine (and ragd's searches) a core on a laptop.
	DefaultThreads = 1
	// DefaultIdleUnload is how long the built-in model stays loaded
	// (about 200 MB) after its last use.
	DefaultIdleUnload = 5 * time.Minute
	// BuiltinBatchSize replaces DefaultBatchSize for the built-in model: a
	// 256-token text takes 80–110 CPU-ms on package model's AVX2/AVX-512
	// kernel but about a CPU second on its portable Go path (a CPU
	// without AVX2, or a build without cgo), where 32 texts on one core
	// would take half of DefaultIndexTimeout; 4 keep a batch a few seconds
	// and cancellation prompt on either.
	BuiltinBatchSize = 4
)

// errNotInstalled is a built-in model whose files are not in the cache.
var errNotInstalled = errors.New("not installed")

// builtin runs a model of package model inside the process. Documents are
// embedded by at most Config.Threads goroutines at once; queries (and the
// health probe) never wait for them, and run on one goroutine of their
// own. The model loads on first use and unloads after Config.IdleUnload.
type builtin struct {
	name    string
	spec    model.Spec // the pinned model, unless folder is set
	folder  bool       // dir is a local model folder (Config.ModelPath)
	dir     string
	idle    time.Duration
	indexer chan struct{} // a token per core of the indexing share

	tokOnce sync.Once
	tok     *model.Tokenizer // nil when its file cannot be read

	mu      sync.Mutex
	loaded  *model.Model
	loading chan struct{} // closed when the load in flight ends
	loadErr error
	used    time.Time
	timer   *time.Timer
}

func newBuiltin(cfg Config) (*builtin, error) {
	if cfg.ModelPath != "" {
		return &builtin{name: cfg.Model, folder: true, dir: cfg.ModelPath, idle: cfg.IdleUnload, indexer: make(chan struct{}, cfg.Threads)}, nil
	}
	spec, err := model.Lookup(cfg.Model)
	if err != nil {
		return nil, fmt.Errorf("embedding config: %w", err)
	}
	root := cfg.ModelDir
	if root == "" {
		if root, err = model.DefaultDir(); err != nil {
			return nil, err
		}
	}
	return &builtin{name: spec.Name, spec: spec, dir: spec.Dir(root), idle: cfg.IdleUnload, indexer: make(chan struct{}, cfg.Threads)}, nil
}

// Name implements Provider.
func (b *builtin) Name() string { return ProviderBuiltin }

// Endpoint implements Provider: the model's folder.
func (b *builtin) Endpoint() string { return b.dir }

// Version implements Provider: the model's identity, or errNotInstalled
// (a pinned model), or what is wrong with the folder (a local one).
func (b *builtin) Version(ctx context.Context) (string, error) {
	if b.folder {
		f, err := model.ReadFolder(b.dir)
		if err != nil {
			return "", err
		}
		return f.Identity(b.name)
	}
	if !b.spec.Installed(b.dir) {
		return "", errNotInstalled
	}
	return b.spec.Identity(), nil
}

// ContextLength implements Provider.
func (b *builtin) ContextLength(ctx context.Context) (int, error) {
	if b.folder {
		f, err := model.ReadFolder(b.dir)
		if err != nil {
			return 0, err
		}
		return f.MaxTokens, nil
	}
	return b.spec.MaxTokens, nil
}

// Tokens implements tokenCounter: the model cuts a text to its limit
// itself, by its own tokenizer, as sentence-transformers does, so the
// Service need not cut it to an estimate first (which, at 4 characters a
// token and 90% of the limit, cut texts that fit). ok is false while the
// tokenizer cannot be read (not installed): the Service estimates then.
func (b *builtin) Tokens(text string) (n int, ok bool) {
	b.tokOnce.Do(func() {
		if !b.installed() {
			return
		}
		if t, err := model.LoadTokenizer(model.TokenizerFile(b.dir)); err == nil {
			b.tok = t
		}
	})
	if b.tok == nil {
		return 0, false
	}
	return b.tok.Tokens(text), true
}

// Classify implements Provider.
func (b *builtin) Classify(err error) Failure {
	if errors.Is(err, errNotInstalled) {
		return Failure{Reason: fmt.Sprintf("built-in model %s is not installed (run `ragd model install`)", b.name), Fatal: true}
	}
	return Failure{Reason: fmt.Sprintf("built-in model %s: %s", b.name, clip(err.Error())), Fatal: true}
}

// installed reports whether the model's files are there (a local folder's
// are checked when it loads).
func (b *builtin) installed() bool { return b.folder || b.spec.Installed(b.dir) }

// Embed implements Provider. It returns when ctx ends even if the forward
// pass of the text in hand goes on: its result is then dropped.
//
// A request for an installed model counts as taken, as a request written
// to a server does: a deadline while the model loads or works is a busy
// provider, not a down one.
func (b *builtin) Embed(ctx context.Context, texts []string, dims int) ([][]float32, error) {
	if !b.Loaded() && !b.installed() {
		return nil, errNotInstalled
	}
	if tr := httptrace.ContextClientTrace(ctx); tr != nil && tr.WroteRequest != nil {
		tr.WroteRequest(httptrace.WroteRequestInfo{})
	}
	m, err := b.model(ctx)
	if err != nil {
		return nil, err
	}
	if !isQuery(ctx) {
		select {
		case b.indexer <- struct{}{}:
			defer func() { <-b.indexer }()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	out := make([][]float32, len(texts))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i, t := range texts {
			if ctx.Err() != nil {
				return
			}
			out[i] = m.Embed(t, 1)
		}
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.touch()
	return out, nil
}

// model returns the loaded model, loading it (once, verified) if needed.
func (b *builtin) model(ctx context.Context) (*model.Model, error) {
	b.mu.Lock()
	if b.loaded != nil {
		b.used = time.Now()
		m := b.loaded
		b.mu.Unlock()
		return m, nil
	}
	if b.loading == nil {
		if !b.installed() {
			b.mu.Unlock()
			return nil, errNotInstalled
		}
		b.loading = make(chan struct{})
		go b.load()
	}
	wait := b.loading
	b.mu.Unlock()
	select {
	case <-wait:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.loaded == nil {
		return nil, b.loadErr
	}
	return b.loaded, nil
}

func (b *builtin) load() {
	var m *model.Model
	var err error
	if b.folder {
		var f model.Folder
		if f, err = model.ReadFolder(b.dir); err == nil {
			m, err = model.LoadFolder(f)
		}
	} else {
		m, err = model.LoadSpec(b.spec, b.dir)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.loaded, b.loadErr, b.used = m, err, time.Now()
	close(b.loading)
	b.loading = nil
	if err == nil && b.idle > 0 {
		b.timer = time.AfterFunc(b.idle, b.unloadIfIdle)
	}
}

// touch records a use, for the idle unload.
func (b *builtin) touch() {
	b.mu.Lock()
	b.used = time.Now()
	b.mu.Unlock()
}

// unloadIfIdle drops the model when it was not used for the idle period,
// and looks again later otherwise.
func (b *builtin) unloadIfIdle() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.loaded == nil {
		return
	}
	if left := b.idle - time.Since(b.used); left > 0 {
		b.timer.Reset(left)
		return
	}
	b.loaded, b.timer = nil, nil
	runtime.GC() // give the weights back now, not at the next cycle
}

// Loaded reports whether the model is in memory, for tests and doctor.
func (b *builtin) Loaded() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.loaded != nil
}
