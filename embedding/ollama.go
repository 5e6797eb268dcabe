package embedding

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
)

// Response size limits. The api client reads whole bodies with io.ReadAll, so
// without a bound a broken or hostile server could make ragd allocate without
// limit; the transport below cuts the body instead.
const (
	// bytesPerValue is the JSON size allowed per vector value: Go writes a
	// float32 in at most 15 bytes ("-1.2345678e-05,"), 24 leaves room for
	// other encoders and whitespace.
	bytesPerValue = 24
	// responseSlack is allowed on top of the vectors: the envelope, an error
	// message, and room for a model with several times the configured dims,
	// so that a mismatch is reported as such rather than as an oversize.
	// Memory use stays bounded by Concurrency × (slack + batch × dims × 24):
	// about 9 MiB with the defaults.
	responseSlack = 4 << 20
	// defaultResponseLimit bounds answers that carry no vectors
	// (/api/version).
	defaultResponseLimit = 1 << 20
	// maxReasonDetail bounds the server text quoted in a Reason: an error
	// page from a proxy can be a whole HTML document.
	maxReasonDetail = 200
)

// responseLimit returns the body limit for an answer to n texts of dims.
func responseLimit(n, dims int) int64 {
	return responseSlack + int64(n)*int64(dims)*bytesPerValue
}

// errResponseTooLarge reports a response body cut at its limit.
type errResponseTooLarge struct{ limit int64 }

func (e *errResponseTooLarge) Error() string {
	return fmt.Sprintf("response larger than %d bytes, cut", e.limit)
}

type responseLimitKey struct{}

// withResponseLimit makes requests made with ctx accept at most n bytes of
// response body.
func withResponseLimit(ctx context.Context, n int64) context.Context {
	return context.WithValue(ctx, responseLimitKey{}, n)
}

// limitTransport enforces the response limit carried by the request context
// (default defaultResponseLimit). It wraps the body after the underlying
// transport has removed any gzip encoding, so the limit applies to the
// decoded bytes that the client will hold.
type limitTransport struct {
	base http.RoundTripper
}

var _ http.RoundTripper = (*limitTransport)(nil)

// RoundTrip implements http.RoundTripper.
func (t *limitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	limit, ok := req.Context().Value(responseLimitKey{}).(int64)
	if !ok || limit <= 0 {
		limit = defaultResponseLimit
	}
	if req.Method == http.MethodPost && req.GetBody != nil {
		// An embedding is idempotent: say so, and the transport resends a
		// request that a reused connection lost before any answer. A
		// single-threaded server (the Node shim of the test kit) busy past
		// its keep-alive timeout closes an idle connection just as the
		// next batch is written on it; read as "provider down", that cost
		// the rest of a reindex its vectors. An empty value is not sent.
		req = req.Clone(req.Context())
		req.Header["Idempotency-Key"] = nil
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > limit {
		// Known too large up front: do not read a byte of it.
		resp.Body.Close()
		return nil, &errResponseTooLarge{limit: limit}
	}
	resp.Body = &limitedBody{rc: resp.Body, left: limit, limit: limit}
	return resp, nil
}

// limitedBody fails a read past its limit, instead of silently truncating as
// io.LimitReader would (a truncated JSON body would be reported as a syntax
// error, hiding the cause).
type limitedBody struct {
	rc          io.ReadCloser
	left, limit int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// The limit is reached: one more byte means the body is too large.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, &errResponseTooLarge{limit: b.limit}
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

var _ io.ReadCloser = (*limitedBody)(nil)

// newHTTPClient returns the client for one Service.
//
// It sets no http.Client.Timeout, on purpose: that would be one fixed
// deadline for every request, while a query needs 2s and an indexing batch a
// minute, and it would also fire on the caller's behalf when the caller has
// its own, shorter deadline. Every request carries a context with the right
// deadline instead, which also lets the caller cancel.
func newHTTPClient(concurrency int) *http.Client {
	var base *http.Transport
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		base = t.Clone()
	} else {
		base = &http.Transport{Proxy: http.ProxyFromEnvironment}
	}
	// Keep a connection per batch in flight, plus one for queries and health.
	base.MaxIdleConnsPerHost = concurrency + 1
	return &http.Client{Transport: &limitTransport{base: base}}
}

// provider speaks to one Ollama server for one model.
type provider struct {
	host   string // base URL, as shown in reasons
	client *api.Client
	model  string // as configured: sent to Ollama and shown in reasons
}

func newProvider(base *url.URL, model string, concurrency int) *provider {
	return &provider{
		host:   base.String(),
		client: api.NewClient(base, newHTTPClient(concurrency)),
		model:  model,
	}
}

// embed sends texts in one /api/embed request and returns Ollama's vectors,
// unchecked. The body is limited in proportion to the texts and dims.
func (p *provider) embed(ctx context.Context, texts []string, dims int) ([][]float32, error) {
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

// version returns Ollama's version (GET /api/version).
func (p *provider) version(ctx context.Context) (string, error) {
	return p.client.Version(ctx)
}

// failure is why a request gave no vectors.
type failure struct {
	reason string
	// fatal failures are about the provider, not the texts sent (down, model
	// missing, hung, wrong dims): further batches would fail the same way,
	// so none is sent.
	fatal bool
	// rejected failures are Ollama refusing the request for its content
	// (HTTP 400): fewer texts may pass.
	rejected bool
}

// classify turns a request error into a Reason. The caller has already
// checked its own context: here ctx is the request's, whose deadline is
// timeout.
func (p *provider) classify(ctx context.Context, timeout time.Duration, err error) failure {
	var (
		tooLarge  *errResponseTooLarge
		status    api.StatusError
		auth      api.AuthorizationError
		syntax    *json.SyntaxError
		typeError *json.UnmarshalTypeError
		urlError  *url.Error
	)
	switch {
	case errors.As(err, &tooLarge):
		return failure{reason: invalidAnswer(tooLarge.Error())}
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		return failure{reason: "timeout after " + formatTimeout(timeout), fatal: true}
	case errors.As(err, &status):
		return p.classifyStatus(status)
	case errors.As(err, &auth):
		return failure{reason: fmt.Sprintf("ollama at %s requires authorization (HTTP %d)", p.host, auth.StatusCode), fatal: true}
	case errors.As(err, &syntax), errors.As(err, &typeError):
		return failure{reason: invalidAnswer(err.Error())}
	case errors.As(err, &urlError):
		// Connection refused, unknown host, reset before an answer: the
		// details go to the log, the reason says what to check.
		return failure{reason: unreachable(p.host), fatal: true}
	default:
		// A failure while reading the body, after the answer had begun.
		return failure{reason: fmt.Sprintf("lost connection to ollama at %s: %s", p.host, clip(err.Error()))}
	}
}

func (p *provider) classifyStatus(e api.StatusError) failure {
	msg := clip(e.ErrorMessage)
	switch {
	case e.StatusCode == http.StatusNotFound && strings.Contains(msg, "model") && strings.Contains(msg, "not found"):
		// {"error":"model \"nope\" not found, try pulling it first"}
		return failure{reason: fmt.Sprintf("model %s not pulled: run `ollama pull %s`", p.model, p.model), fatal: true}
	case e.StatusCode == http.StatusNotFound:
		// "404 page not found": not Ollama, or one older than /api/embed (0.3).
		return failure{reason: fmt.Sprintf("no ollama embed API at %s (HTTP 404: %s): is it Ollama 0.3 or later?", p.host, msg), fatal: true}
	case e.StatusCode == http.StatusBadRequest:
		return failure{reason: "ollama rejected the request: " + msg, rejected: true}
	default:
		return failure{reason: fmt.Sprintf("ollama failed (HTTP %d): %s", e.StatusCode, msg)}
	}
}

func unreachable(host string) string {
	return "ollama not reachable at " + host
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
