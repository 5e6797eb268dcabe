package embedding

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ragd/ragd"
)

// OpenAI-compatible API retries. A 429 or a 5xx is asked again within the
// batch's deadline; a wait that would pass the deadline is not started.
const (
	// openAIRetries bounds the attempts of one request (the first and
	// retries), however long its deadline.
	openAIRetries = 4
	// openAIBackoff is the first wait after a 5xx or a 429 without
	// Retry-After; it doubles each retry.
	openAIBackoff = 250 * time.Millisecond
	// maxRetryAfter bounds a server's Retry-After: a minute is longer than
	// any batch deadline, and a wait past the deadline is not made anyway.
	maxRetryAfter = time.Minute
)

// openAI speaks the OpenAI embeddings API (POST {base}/embeddings) to one
// server for one model: llama.cpp's llama-server --embeddings, LM Studio,
// vLLM, LocalAI, text-embeddings-inference, Ollama at /v1, hosted APIs.
type openAI struct {
	base     string // without a trailing slash, as shown in reasons
	client   *http.Client
	model    string
	key      Secret
	sendDims bool
	// sleep waits d or until ctx ends; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
}

var _ Provider = (*openAI)(nil)

func newOpenAI(cfg Config) (Provider, string, error) {
	base, err := parseBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, "", err
	}
	key, reason := resolveAPIKey(cfg, os.Getenv)
	p := &openAI{base: base, client: newHTTPClient(cfg.Concurrency), model: cfg.Model, key: key,
		sendDims: cfg.SendDimensions, sleep: sleepCtx}
	if reason == "" && strings.TrimSpace(cfg.Model) == "" {
		reason = "no model name configured"
	}
	return p, reason, nil
}

// parseBaseURL checks an OpenAI-compatible base URL: http or https, a host,
// no query, fragment or credentials (a key goes in APIKeyEnv or APIKeyFile,
// never in a URL that is shown in reasons and logs).
func parseBaseURL(s string) (string, error) {
	raw := ragd.DisplayURL(strings.TrimSpace(s))
	s = strings.TrimRight(strings.TrimSpace(s), "/")
	if s == "" {
		return "", errors.New(`embedding config: provider "openai" needs base_url, e.g. "http://127.0.0.1:8080/v1"`)
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "", fmt.Errorf("embedding config: base_url %q: %w", raw, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("embedding config: base_url %q: want an http:// or https:// URL", raw)
	case u.Host == "":
		return "", fmt.Errorf("embedding config: base_url %q: no host", raw)
	case u.User != nil || u.RawQuery != "" || u.Fragment != "":
		return "", fmt.Errorf("embedding config: base_url %q: want scheme://host[:port][/path], without credentials, query or fragment", raw)
	}
	return s, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Name implements Provider.
func (p *openAI) Name() string { return ProviderOpenAI }

// Endpoint implements Provider.
func (p *openAI) Endpoint() string { return p.base }

type openAIRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     int      `json:"dimensions,omitempty"`
}

type openAIResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// openAIErrorBody is the documented error shape,
// {"error":{"message","type","code"}}; code is a string or a number
// depending on the server, param is ignored.
type openAIErrorBody struct {
	Error *struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	} `json:"error"`
}

// StatusError is an OpenAI-compatible server's error answer.
type StatusError struct {
	StatusCode int
	// Message, Type and Code are the documented error object's fields;
	// Message is the body's text when it is not that shape.
	Message, Type, Code string
	// RetryAfter is the server's Retry-After, 0 when absent.
	RetryAfter time.Duration
}

func (e *StatusError) Error() string {
	s := fmt.Sprintf("HTTP %d", e.StatusCode)
	if e.Type != "" || e.Code != "" {
		s += " (" + strings.Trim(e.Type+" "+e.Code, " ") + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Embed implements Provider, retrying a 429 (after its Retry-After) or a 5xx
// while the next attempt can start before ctx's deadline.
func (p *openAI) Embed(ctx context.Context, texts []string, dims int) ([][]float32, error) {
	req := openAIRequest{Model: p.model, Input: texts, EncodingFormat: "float"}
	if p.sendDims {
		req.Dimensions = dims
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode embeddings request: %w", err)
	}
	ctx = withResponseLimit(ctx, responseLimit(len(texts), dims))
	wait := openAIBackoff
	for attempt := 1; ; attempt++ {
		b, err := p.do(ctx, http.MethodPost, "/embeddings", body)
		var se *StatusError
		if err == nil || !errors.As(err, &se) || !retryable(se) || attempt == openAIRetries {
			if err != nil {
				return nil, err
			}
			return decodeEmbeddings(b, len(texts))
		}
		d := wait
		if se.RetryAfter > 0 {
			d = se.RetryAfter
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < d {
			return nil, err // the wait would pass the deadline: say why now
		}
		if p.sleep(ctx, d) != nil {
			return nil, err
		}
		wait *= 2
	}
}

// retryable says whether an error answer may pass when asked again: a rate
// limit or a server failure, not an exhausted quota.
func retryable(e *StatusError) bool {
	if e.Code == "insufficient_quota" || e.Type == "insufficient_quota" {
		return false
	}
	return e.StatusCode == http.StatusTooManyRequests || e.StatusCode >= 500
}

// decodeEmbeddings reads the data list into one vector per text, by index.
func decodeEmbeddings(b []byte, n int) ([][]float32, error) {
	var resp openAIResponse
	if err := json.Unmarshal(b, &resp); err != nil {
		return nil, err
	}
	if len(resp.Data) != n {
		// The Service reports the count mismatch.
		out := make([][]float32, len(resp.Data))
		for i, d := range resp.Data {
			out[i] = d.Embedding
		}
		return out, nil
	}
	out := make([][]float32, n)
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= n || out[d.Index] != nil {
			return nil, &answerError{fmt.Sprintf("embedding index %d out of order", d.Index)}
		}
		out[d.Index] = d.Embedding
	}
	return out, nil
}

// answerError is a well-formed answer that makes no sense.
type answerError struct{ detail string }

func (e *answerError) Error() string { return e.detail }

// Version implements Provider: the API has no version; GET {base}/models
// (answered by most servers) proves that one listens. Only a transport
// error is an error: a server without /models may still embed.
func (p *openAI) Version(ctx context.Context) (string, error) {
	_, err := p.do(ctx, http.MethodGet, "/models", nil)
	var se *StatusError
	if errors.As(err, &se) && se.StatusCode != http.StatusUnauthorized && se.StatusCode != http.StatusForbidden {
		return "", nil
	}
	return "", err
}

// ContextLength implements Provider: the API does not say; the
// configuration must.
func (p *openAI) ContextLength(context.Context) (int, error) { return 0, nil }

// do sends one request and returns the body of a 2xx answer, or a
// *StatusError.
func (p *openAI) do(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, p.base+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if p.key != "" {
		req.Header.Set("Authorization", "Bearer "+string(p.key))
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 == 2 {
		return b, nil
	}
	se := parseError(resp.StatusCode, resp.Header.Get("Retry-After"), b, time.Now())
	// The message may quote what was sent; never the key, as it is or
	// JSON-escaped (a body of another shape is kept as its text).
	if p.key != "" {
		se.Message = hideKey(se.Message, string(p.key))
	}
	return nil, se
}

// parseError reads an error answer: the documented shape, or the other
// shapes servers of the API answer with.
func parseError(status int, retry string, b []byte, now time.Time) *StatusError {
	se := &StatusError{StatusCode: status, RetryAfter: retryAfter(retry, now)}
	var eb openAIErrorBody
	if json.Unmarshal(b, &eb) == nil && eb.Error != nil {
		se.Message, se.Type = eb.Error.Message, eb.Error.Type
		if c := eb.Error.Code; len(c) > 0 && string(c) != "null" {
			var s string
			if json.Unmarshal(c, &s) != nil {
				s = string(c)
			}
			se.Code = s
		}
	} else {
		// A proxy's page, a plain-text error, {"error":"text"} (Ollama's own
		// shape), text-embeddings-inference's {"error":"…","error_type":…}
		// or older vLLM's unwrapped {"object":"error","message":…,"type":…}.
		var plain struct {
			Error     string `json:"error"`
			ErrorType string `json:"error_type"`
			Message   string `json:"message"`
			Type      string `json:"type"`
		}
		switch {
		case json.Unmarshal(b, &plain) != nil:
			se.Message = string(b)
		case plain.Error != "":
			se.Message, se.Type = plain.Error, plain.ErrorType
		case plain.Message != "":
			se.Message, se.Type = plain.Message, plain.Type
		default:
			se.Message = string(b)
		}
	}
	se.Message, se.Type, se.Code = clip(se.Message), clip(se.Type), clip(se.Code)
	return se
}

// retryAfter reads a Retry-After header: seconds or an HTTP date; 0 when
// absent or unreadable.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 {
		d = time.Duration(min(n, maxRetryAfter.Seconds()) * float64(time.Second))
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), maxRetryAfter)
}

// Classify implements Provider.
func (p *openAI) Classify(err error) Failure {
	var (
		se        *StatusError
		ae        *answerError
		syntax    *json.SyntaxError
		typeError *json.UnmarshalTypeError
		urlError  *url.Error
	)
	switch {
	case errors.As(err, &se):
		return p.classifyStatus(se)
	case errors.As(err, &ae), errors.As(err, &syntax), errors.As(err, &typeError):
		return Failure{Reason: invalidAnswer(ProviderOpenAI, err.Error()), Unusable: true}
	case errors.As(err, &urlError):
		return Failure{Reason: unreachable("embedding server", p.base), Fatal: true}
	default:
		return Failure{Reason: fmt.Sprintf("lost connection to the embedding server at %s: %s", p.base, clip(err.Error()))}
	}
}

func (p *openAI) classifyStatus(e *StatusError) Failure {
	detail := e.Message
	if detail == "" {
		detail = http.StatusText(e.StatusCode)
	}
	at := fmt.Sprintf("the embedding server at %s", p.base)
	switch {
	case e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden:
		fix := "set the key's variable (api_key_env) or file (api_key_file)"
		if p.key != "" {
			fix = "check the key"
		}
		return Failure{Reason: fmt.Sprintf("%s refused the API key (HTTP %d: %s): %s", at, e.StatusCode, detail, fix), Fatal: true, Unusable: true}
	case e.StatusCode == http.StatusTooManyRequests && (e.Code == "insufficient_quota" || e.Type == "insufficient_quota"):
		return Failure{Reason: fmt.Sprintf("%s: quota exhausted (HTTP 429: %s)", at, detail), Fatal: true}
	case e.StatusCode == http.StatusTooManyRequests || e.StatusCode == http.StatusServiceUnavailable:
		return Failure{Reason: fmt.Sprintf("%s is busy or rate-limited (HTTP %d: %s)", at, e.StatusCode, detail), Busy: true, Fatal: true}
	case e.StatusCode == http.StatusNotFound && (e.Code == "model_not_found" || strings.Contains(strings.ToLower(detail), "model")):
		return Failure{Reason: fmt.Sprintf("model %s not found at %s (HTTP 404: %s)", p.model, p.base, detail), Fatal: true}
	case e.StatusCode == http.StatusNotFound || e.StatusCode == http.StatusMethodNotAllowed:
		return Failure{Reason: fmt.Sprintf("no embeddings API at %s/embeddings (HTTP %d: %s): is base_url the part before /embeddings, e.g. http://host:port/v1?", p.base, e.StatusCode, detail), Fatal: true, Unusable: true}
	case tooLongMessage(detail) || e.Code == "context_length_exceeded":
		return Failure{Reason: fmt.Sprintf("%s rejected a text as too long (HTTP %d: %s)", at, e.StatusCode, detail), Rejected: true, TooLong: true}
	case e.StatusCode == http.StatusRequestEntityTooLarge || e.StatusCode == http.StatusBadRequest || e.StatusCode == http.StatusUnprocessableEntity:
		return Failure{Reason: fmt.Sprintf("%s rejected the request (HTTP %d: %s)", at, e.StatusCode, detail), Rejected: true}
	default:
		return Failure{Reason: fmt.Sprintf("%s failed (HTTP %d: %s)", at, e.StatusCode, detail)}
	}
}

// hideKey replaces key in s, each of its characters written as it is or
// as a JSON escape (\u002d; \/ for a slash), by the redacted mark.
func hideKey(s, key string) string {
	s = strings.ReplaceAll(s, key, redacted)
	if !strings.Contains(s, `\`) {
		return s
	}
	var pat strings.Builder
	for _, r := range key {
		alt := regexp.QuoteMeta(string(r))
		if r == '/' {
			alt += `|\\/`
		}
		fmt.Fprintf(&pat, `(?:%s|\\u(?i:%04x))`, alt, r)
	}
	re, err := regexp.Compile(pat.String())
	if err != nil {
		return s // a key is text: its pattern always compiles
	}
	return re.ReplaceAllLiteralString(s, redacted)
}
