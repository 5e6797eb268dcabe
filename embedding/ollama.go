package embedding

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// ollama speaks Ollama's own API (POST /api/embed) to one server for one
// model.
type ollama struct {
	host   string // base URL, as shown in reasons
	client *api.Client
	model  string // as configured: sent to Ollama and shown in reasons
}

var _ Provider = (*ollama)(nil)

func newOllama(base *url.URL, model string, concurrency int) *ollama {
	return &ollama{
		host:   base.String(),
		client: api.NewClient(base, newHTTPClient(concurrency)),
		model:  model,
	}
}

// Name implements Provider.
func (p *ollama) Name() string { return ProviderOllama }

// Endpoint implements Provider.
func (p *ollama) Endpoint() string { return p.host }

// Embed implements Provider with one /api/embed request. The body is
// limited in proportion to the texts and dims.
func (p *ollama) Embed(ctx context.Context, texts []string, dims int) ([][]float32, error) {
	truncate := true
	req := &api.EmbedRequest{
		Model: p.model,
		Input: texts,
		// Truncate explicitly (it is also Ollama's default): a chunk longer
		// than the model's context is embedded from its beginning rather than
		// failing its whole batch with HTTP 400.
		Truncate: &truncate,
		// Dimensions is left out on purpose: Ollama would cut a longer vector
		// to the configured length, hiding a model/dims mismatch that
		// must be reported instead ("model returned 1024 dims, index
		// expects 768").
	}
	resp, err := p.client.Embed(withResponseLimit(ctx, responseLimit(len(texts), dims)), req)
	if err != nil {
		return nil, err
	}
	return resp.Embeddings, nil
}

// Version implements Provider (GET /api/version).
func (p *ollama) Version(ctx context.Context) (string, error) {
	v, err := p.client.Version(ctx)
	var status api.StatusError
	if errors.As(err, &status) && status.StatusCode == http.StatusNotFound {
		// Every Ollama has /api/version: something else listens there.
		return "", errNotOllama
	}
	return v, err
}

// errNotOllama is a server without /api/version.
var errNotOllama = errors.New("GET /api/version: HTTP 404")

// ContextLength implements Provider: the "<architecture>.context_length" of
// the model's metadata (POST /api/show), 0 when absent.
func (p *ollama) ContextLength(ctx context.Context) (int, error) {
	resp, err := p.client.Show(ctx, &api.ShowRequest{Model: p.model})
	if err != nil {
		return 0, err
	}
	arch, _ := resp.ModelInfo["general.architecture"].(string)
	if n, ok := resp.ModelInfo[arch+".context_length"].(float64); ok && n > 0 {
		return int(n), nil
	}
	return 0, nil
}

// Classify implements Provider.
func (p *ollama) Classify(err error) Failure {
	var (
		status    api.StatusError
		auth      api.AuthorizationError
		syntax    *json.SyntaxError
		typeError *json.UnmarshalTypeError
		urlError  *url.Error
	)
	switch {
	case errors.Is(err, errNotOllama):
		return Failure{Reason: fmt.Sprintf("no ollama API at %s (GET /api/version: HTTP 404)", p.host), Fatal: true}
	case errors.As(err, &status):
		return p.classifyStatus(status)
	case errors.As(err, &auth):
		return Failure{Reason: fmt.Sprintf("ollama at %s requires authorization (HTTP %d)", p.host, auth.StatusCode), Fatal: true, Unusable: true}
	case errors.As(err, &syntax), errors.As(err, &typeError):
		return Failure{Reason: invalidAnswer(ProviderOllama, err.Error()), Unusable: true}
	case errors.As(err, &urlError):
		// Connection refused, unknown host, reset before an answer: the
		// details go to the log, the reason says what to check.
		return Failure{Reason: unreachable(ProviderOllama, p.host), Fatal: true}
	default:
		// A failure while reading the body, after the answer had begun.
		return Failure{Reason: fmt.Sprintf("lost connection to ollama at %s: %s", p.host, clip(err.Error()))}
	}
}

func (p *ollama) classifyStatus(e api.StatusError) Failure {
	msg := clip(e.ErrorMessage)
	switch {
	case e.StatusCode == http.StatusNotFound && strings.Contains(msg, "model") && strings.Contains(msg, "not found"):
		// {"error":"model \"nope\" not found, try pulling it first"}; also
		// /api/show's "model 'nope' not found".
		return Failure{Reason: fmt.Sprintf("model %s not pulled: run `ollama pull %s`", p.model, p.model), Fatal: true}
	case e.StatusCode == http.StatusNotFound:
		// "404 page not found": not Ollama, or one older than /api/embed (0.3).
		return Failure{Reason: fmt.Sprintf("no ollama embed API at %s (HTTP 404: %s): is it Ollama 0.3 or later?", p.host, msg), Fatal: true}
	case e.StatusCode == http.StatusBadRequest:
		// Real Ollama 0.17.4 answers "the input length exceeds the context
		// length" for some texts despite truncate (glove-100d's tokenizer).
		return Failure{Reason: "ollama rejected the request: " + msg, Rejected: true, TooLong: tooLongMessage(msg)}
	case e.StatusCode == http.StatusServiceUnavailable || e.StatusCode == http.StatusTooManyRequests:
		// OLLAMA_MAX_QUEUE full ("server busy, please try again").
		return Failure{Reason: fmt.Sprintf("ollama is busy (HTTP %d): %s", e.StatusCode, msg), Busy: true}
	default:
		return Failure{Reason: fmt.Sprintf("ollama failed (HTTP %d): %s", e.StatusCode, msg)}
	}
}

// tooLongMessage reports whether a server's error text says an input is
// past the model's context, in the words of the servers ragd knows:
// Ollama's "the input length exceeds the context length", OpenAI's and
// vLLM's "maximum context length is N tokens", llama.cpp's "input is too
// large to process", text-embeddings-inference's "must have less than N
// tokens".
func tooLongMessage(msg string) bool {
	m := strings.ToLower(msg)
	for _, s := range []string{"exceeds the context length", "maximum context length", "context_length_exceeded",
		"too large to process", "input is too long", "too many tokens"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return strings.Contains(m, "must have less than") && strings.Contains(m, "tokens")
}

func unreachable(name, host string) string {
	return name + " not reachable at " + host
}

// formatTimeout writes whole seconds as "60s" where Duration.String would
// write "1m0s".
func formatTimeout(d time.Duration) string {
	if d > 0 && d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}

// clip makes server text fit in a one-line Reason.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= maxReasonDetail {
		return s
	}
	cut := maxReasonDetail
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// checkModelName returns the Reason for a model name Ollama cannot accept, or
// "". It uses Ollama's own parser, so the rules are exactly the server's:
// parts of letters, digits, '_', '-' and '.', a tag of at most 80 characters.
// Checking before calling turns "a b" into a clear reason instead of a
// confusing 404 or 500 from the server.
func checkModelName(name string) string {
	if !model.ParseName(name).IsValid() {
		return fmt.Sprintf("invalid model name %q", name)
	}
	return ""
}
