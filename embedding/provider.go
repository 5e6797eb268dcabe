package embedding

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Provider kinds, for Config.Provider.
const (
	// ProviderOllama speaks Ollama's own API (POST /api/embed).
	ProviderOllama = "ollama"
	// ProviderOpenAI speaks the OpenAI embeddings API (POST /v1/embeddings),
	// which llama.cpp's server, LM Studio, vLLM, LocalAI, text-embeddings-
	// inference, Ollama itself (at /v1) and the hosted APIs serve.
	ProviderOpenAI = "openai"
	// ProviderBuiltin runs a small model inside ragd (package model): no
	// server, the weights installed once by `ragd model install`.
	ProviderBuiltin = "builtin"
)

// Providers lists the provider kinds, for configuration errors and docs.
func Providers() []string { return []string{ProviderOllama, ProviderOpenAI, ProviderBuiltin} }

// Provider is one embedding server's API for one model: sending one batch,
// a cheap reachability probe, the model's input limit if the server tells
// it, and the reading of its errors. It knows nothing of what the Service
// decides above it (lexical answers, declared gaps, the breaker, the cache,
// the space check, splitting rejected batches, truncation): a new provider
// is one file implementing this, plus its case in newProvider.
//
// Implementations are safe for concurrent use. Every method takes the
// request's deadline from ctx.
type Provider interface {
	// Name is the provider kind (ProviderOllama, ProviderOpenAI), shown in
	// health.
	Name() string
	// Endpoint is the server's base URL, as shown in reasons.
	Endpoint() string
	// Embed sends texts in one request and returns one vector per text,
	// unchecked: the Service checks their number, length and norm. dims is
	// the vector length expected, to bound the size of the answer. Retries
	// a provider makes (after 429 or 5xx) stay within ctx's deadline.
	Embed(ctx context.Context, texts []string, dims int) ([][]float32, error)
	// Version returns the server's version, "" when its API has none; an
	// error says the server cannot be reached (or is not this API).
	Version(ctx context.Context) (string, error)
	// ContextLength returns the model's input limit in tokens as the
	// server reports it, 0 when it does not say.
	ContextLength(ctx context.Context) (int, error)
	// Classify turns an error of Embed or Version into a Failure. Timeouts
	// and oversized answers are the Service's to classify, before this.
	Classify(err error) Failure
}

// Failure is why a request gave no vectors, as a Provider reads its error.
type Failure struct {
	// Reason is a one-line reason a person can act on.
	Reason string
	// Fatal failures are about the provider, not the texts sent (down,
	// model missing, refused authorization): further batches would fail
	// the same way, so none is sent.
	Fatal bool
	// Rejected failures are the server refusing the request for its
	// content: fewer texts may pass.
	Rejected bool
	// TooLong is a rejection because a text is past the model's input
	// limit: a text refused alone for it can never be embedded, and is
	// not asked again.
	TooLong bool
	// Busy is a server that is up but will not answer now (HTTP 429 or
	// 503, or connected but silent until the deadline): not down.
	Busy bool
	// Unusable is a server that answered, but never will with a vector as
	// configured: a refused key, a body that is not embeddings, no
	// embeddings API at the URL. Asking again (the background fill) gets
	// the same answer until the server or the configuration changes.
	Unusable bool
}

// newProvider returns the provider of cfg (defaults filled in), or the
// reason no request can be sent with it (a model name Ollama cannot
// accept, an unreadable API key), or an error for a malformed value.
func newProvider(cfg Config) (p Provider, reason string, err error) {
	switch cfg.Provider {
	case ProviderOllama:
		base, err := ParseHost(cfg.Host)
		if err != nil {
			return nil, "", err
		}
		return newOllama(base, cfg.Model, cfg.Concurrency), checkModelName(cfg.Model), nil
	case ProviderOpenAI:
		return newOpenAI(cfg)
	case ProviderBuiltin:
		b, err := newBuiltin(cfg)
		return b, "", err
	default:
		return nil, "", fmt.Errorf("embedding config: unknown provider %q (want one of %v)", cfg.Provider, Providers())
	}
}

// classify reads a request error: the request's own deadline and an
// oversized answer first, the same for every provider, then the provider's
// reading. ctx is the request's, whose deadline is timeout; sent says the
// request reached the server (a timeout then is a busy server, not a down
// one).
func classify(p Provider, ctx context.Context, timeout time.Duration, sent bool, err error) Failure {
	var tooLarge *errResponseTooLarge
	switch {
	case errors.As(err, &tooLarge):
		return Failure{Reason: invalidAnswer(p.Name(), tooLarge.Error())}
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		// Fatal either way: the next batch would wait as long. Busy tells
		// a server that took the request and said nothing from one that
		// could not be reached in time.
		return Failure{Reason: "timeout after " + formatTimeout(timeout), Fatal: true, Busy: sent}
	}
	return p.Classify(err)
}
