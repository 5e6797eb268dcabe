package embedding_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/embedding/ollamatest"
)

// newOpenAI returns a Service speaking the OpenAI API to the fake's /v1.
func newOpenAI(t *testing.T, base string, edit func(*embedding.Config)) *embedding.Service {
	t.Helper()
	return newService(t, "", nil, func(c *embedding.Config) {
		c.Provider, c.BaseURL = embedding.ProviderOpenAI, base
		if edit != nil {
			edit(c)
		}
	})
}

// Both providers, asked the same texts of the same server, give the same
// vectors: the OpenAI route is a second door to the same model.
func TestOpenAI_SameVectorsAsOllama(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{})
	in := []string{"alpha beta", "gamma delta", "", "alpha beta"}
	viaOllama := newService(t, srv.URL, nil, nil).EmbedDocuments(t.Context(), in)
	viaOpenAI := newOpenAI(t, srv.URL+"/v1", func(c *embedding.Config) { c.BatchSize = 1 }).EmbedDocuments(t.Context(), in)
	if !viaOpenAI.Available || viaOpenAI.Embedded != 3 || viaOpenAI.Skipped != 1 || viaOpenAI.Calls != 2 {
		t.Fatalf("openai: %+v", viaOpenAI)
	}
	for i := range in {
		if in[i] == "" {
			continue
		}
		wantVector(t, viaOpenAI.Vectors[i], "search_document: "+in[i], embedding.DefaultDims)
		wantVector(t, viaOllama.Vectors[i], "search_document: "+in[i], embedding.DefaultDims)
	}
	v, ok, reason := newOpenAI(t, srv.URL+"/v1", nil).EmbedQuery(t.Context(), "alpha")
	if !ok || reason != "" {
		t.Fatalf("query: %v %q", ok, reason)
	}
	wantVector(t, v, "search_query: alpha", embedding.DefaultDims)
}

func TestOpenAI_Health(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{})
	h := newOpenAI(t, srv.URL+"/v1/", nil).Health(t.Context())
	if !h.Available || h.Provider != "openai" || h.Host != srv.URL+"/v1" || h.Version != "" || h.Reason != "" ||
		h.ContextLength != embedding.DefaultContextLength {
		t.Fatalf("Health: %+v", h)
	}
	h = newOpenAI(t, ollamatest.ClosedURL(t)+"/v1", nil).Health(t.Context())
	if h.Available || h.Busy || !strings.HasPrefix(h.Reason, "embedding server not reachable at http://127.0.0.1:") {
		t.Fatalf("Health of a closed port: %+v", h)
	}
}

// The error answers of the OpenAI API, mapped to reasons a person can act
// on, and whether the rest of a reindex is asked at all.
func TestOpenAI_ErrorShapes(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{"m": 4}})
	base := srv.URL + "/v1"
	tests := []struct {
		name  string
		fault ollamatest.Fault
		model string
		want  string
		down  bool
	}{
		{"unknown model (Ollama's answer)", nil, "nope",
			`model nope not found at ` + base + ` (HTTP 404: model "nope" not found, try pulling it first)`, true},
		{"bad key", ollamatest.RequireKey("k"), "m",
			"the embedding server at " + base + " refused the API key (HTTP 401: Incorrect API key provided. You can find your API key at your provider's dashboard.): set the key's variable (api_key_env) or file (api_key_file)", true},
		{"quota", ollamatest.OpenAIError(429, "insufficient_quota", "insufficient_quota", "You exceeded your current quota", 0), "m",
			"the embedding server at " + base + ": quota exhausted (HTTP 429: You exceeded your current quota)", true},
		{"too long", ollamatest.OpenAIError(400, "invalid_request_error", "context_length_exceeded", "This model's maximum context length is 8192 tokens, however you requested 9000 tokens", 0), "m",
			"the embedding server at " + base + " rejected a text as too long (HTTP 400: This model's maximum context length is 8192 tokens, however you requested 9000 tokens)", false},
		{"bad request", ollamatest.OpenAIError(400, "invalid_request_error", "", "'input' is invalid", 0), "m",
			"the embedding server at " + base + " rejected the request (HTTP 400: 'input' is invalid)", false},
		{"proxy page", ollamatest.Respond(http.StatusBadGateway, "<html>Bad   Gateway</html>"), "m",
			"the embedding server at " + base + " failed (HTTP 502: <html>Bad Gateway</html>)", false},
		{"Ollama's own error shape", ollamatest.Respond(http.StatusBadRequest, `{"error":"invalid input type"}`), "m",
			"the embedding server at " + base + " rejected the request (HTTP 400: invalid input type)", false},
		{"older vLLM's unwrapped shape", ollamatest.Respond(http.StatusBadRequest, `{"object":"error","message":"This model's maximum context length is 512 tokens. However, you requested 600 tokens in the input for embedding generation.","type":"BadRequestError","param":null,"code":400}`), "m",
			"the embedding server at " + base + " rejected a text as too long (HTTP 400: This model's maximum context length is 512 tokens. However, you requested 600 tokens in the input for embedding generation.)", false},
		{"text-embeddings-inference", ollamatest.Respond(http.StatusRequestEntityTooLarge, `{"error":"batch size 64 > maximum allowed batch size 32","error_type":"Validation"}`), "m",
			"the embedding server at " + base + " rejected the request (HTTP 413: batch size 64 > maximum allowed batch size 32)", false},
		{"not JSON", ollamatest.Respond(http.StatusOK, `{"data":[{"embedding":[1,2,`), "m",
			"openai returned an invalid answer: unexpected end of JSON input", false},
		{"indexes out of order", ollamatest.Respond(http.StatusOK, `{"data":[{"index":3,"embedding":[1,0,0,0]}]}`), "m",
			"openai returned an invalid answer: embedding index 3 out of order", false},
		{"wrong dims", ollamatest.WithDims(5), "m",
			"model returned 5 dims, index expects 4", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.SetFault(tt.fault)
			defer srv.SetFault(nil)
			s := newOpenAI(t, base, func(c *embedding.Config) {
				c.Model, c.Dims = tt.model, 4
				c.IndexTimeout = 30 * time.Second
			})
			r := s.EmbedDocuments(t.Context(), []string{"x"})
			if r.Available || r.Reason != tt.want || r.ProviderDown != tt.down {
				t.Fatalf("Reason %q down=%v\n want %q down=%v", r.Reason, r.ProviderDown, tt.want, tt.down)
			}
		})
	}
}

// The retries of 5xx and 429 stay within the batch timeout: a Retry-After
// longer than what is left is not waited for.
func TestOpenAI_RetryAfterPastTheDeadline(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{})
	srv.SetFault(ollamatest.OpenAIError(429, "rate_limit_exceeded", "rate_limit_exceeded", "Rate limit reached", time.Hour))
	s := newOpenAI(t, srv.URL+"/v1", func(c *embedding.Config) { c.IndexTimeout = 5 * time.Second })
	start := time.Now()
	r := s.EmbedDocuments(t.Context(), []string{"x", "y"})
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("waited %v for a Retry-After past the deadline", took)
	}
	want := "the embedding server at " + srv.URL + "/v1 is busy or rate-limited (HTTP 429: Rate limit reached)"
	if r.Available || r.Reason != want || !r.ProviderDown || srv.Calls() != 1 {
		t.Fatalf("%+v (%d calls)", r, srv.Calls())
	}
}

// A 5xx is retried: the second answer counts.
func TestOpenAI_RetriesA5xx(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{})
	srv.SetFault(ollamatest.OnCall(1, ollamatest.OpenAIError(500, "", "", "boom", 0)))
	r := newOpenAI(t, srv.URL+"/v1", nil).EmbedDocuments(t.Context(), []string{"x"})
	if !r.Available || r.Embedded != 1 || srv.Calls() != 2 || r.Calls != 1 {
		t.Fatalf("%+v (%d server calls)", r, srv.Calls())
	}
}

// SendDimensions asks the model for the index's length; without it, a
// model answering longer vectors is a mismatch, reported.
func TestOpenAI_Dimensions(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{"big": 16}})
	cfg := func(send bool) func(*embedding.Config) {
		return func(c *embedding.Config) { c.Model, c.Dims, c.SendDimensions = "big", 8, send }
	}
	r := newOpenAI(t, srv.URL+"/v1", cfg(false)).EmbedDocuments(t.Context(), []string{"x"})
	if r.Available || r.Reason != "model returned 16 dims, index expects 8" || !r.ProviderDown {
		t.Fatalf("without dimensions: %+v", r)
	}
	r = newOpenAI(t, srv.URL+"/v1", cfg(true)).EmbedDocuments(t.Context(), []string{"x"})
	if !r.Available || len(r.Vectors[0]) != 8 {
		t.Fatalf("with dimensions: %+v", r)
	}
}

// The key comes from a variable or a file only its owner can read; it is
// sent, and never shown: not in reasons, logs, nor a printed Config.
func TestOpenAI_APIKey(t *testing.T) {
	const key = "sk-test-very-secret-0123456789"
	srv := ollamatest.NewServer(t, ollamatest.Options{})
	base := srv.URL + "/v1"
	dir := t.TempDir()
	writeKey := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(key+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	private, shared := writeKey("private", 0o600), writeKey("shared", 0o644)
	t.Setenv("RAGD_TEST_KEY", key)

	tests := []struct {
		name string
		edit func(*embedding.Config)
		want string // "" = embedded
	}{
		{"variable", func(c *embedding.Config) { c.APIKeyEnv = "RAGD_TEST_KEY" }, ""},
		{"private file", func(c *embedding.Config) { c.APIKeyFile = private }, ""},
		{"shared file", func(c *embedding.Config) { c.APIKeyFile = shared },
			"API key file " + shared + " is readable by others (mode 0644): run `chmod 600 " + shared + "`"},
		{"missing file", func(c *embedding.Config) { c.APIKeyFile = filepath.Join(dir, "nope") },
			"API key file " + filepath.Join(dir, "nope") + ": no such file or directory"},
		{"unset variable", func(c *embedding.Config) { c.APIKeyEnv = "RAGD_TEST_UNSET_KEY" }, "API key variable RAGD_TEST_UNSET_KEY is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			srv.SetFault(ollamatest.RequireKey(key))
			calls := srv.Calls()
			s := newOpenAI(t, base, func(c *embedding.Config) {
				tt.edit(c)
				c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			})
			r := s.EmbedDocuments(t.Context(), []string{"x"})
			switch {
			case tt.want == "" && !r.Available:
				t.Fatalf("not embedded: %s", r.Reason)
			case tt.want != "" && (r.Reason != tt.want || !r.ProviderDown || srv.Calls() != calls):
				t.Fatalf("Reason %q down=%v after %d calls, want %q and no call", r.Reason, r.ProviderDown, srv.Calls()-calls, tt.want)
			}
			// A server that quotes the key back in its error, as it is or
			// JSON-escaped in a body of another shape (issue 35 item 8).
			for _, fault := range []ollamatest.Fault{
				ollamatest.OpenAIError(400, "invalid_request_error", "", "bad request from key "+key, 0),
				ollamatest.Respond(400, `{"detail":"bad key `+jsonEscaped(key)+`"}`),
			} {
				srv.SetFault(fault)
				r = s.EmbedDocuments(t.Context(), []string{"y"})
				h := s.Health(t.Context())
				for what, text := range map[string]string{"reason": r.Reason, "health": fmt.Sprintf("%+v", h), "logs": logs.String()} {
					if strings.Contains(text, key) || strings.Contains(text, jsonEscaped(key)) || strings.Contains(text, key[3:]) {
						t.Errorf("the key is in the %s: %s", what, text)
					}
				}
			}
		})
	}
	cfg := embedding.Config{APIKey: key}
	for _, f := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
		if s := fmt.Sprintf(f, cfg); strings.Contains(s, key) {
			t.Errorf("Config printed with %s shows the key: %s", f, s)
		}
	}
}

// jsonEscaped is s with every '-' written as JSON's \u002d, as a server
// may quote a key back.
func jsonEscaped(s string) string { return strings.ReplaceAll(s, "-", `\u002d`) }

func TestOpenAI_BadBaseURL(t *testing.T) {
	for _, base := range []string{"", "ftp://h/v1", "http://user:pw@h/v1", "http:///v1", "http://h/v1?x=1",
		"http://user:sk-secret-in-url@h/v1", "http://sk-secret-in-url@h/v1", "http://h/v1?key=sk-secret-in-url"} {
		cfg := embedding.DefaultConfig()
		cfg.Provider, cfg.BaseURL = embedding.ProviderOpenAI, base
		_, err := embedding.New(cfg, nil)
		if err == nil {
			t.Errorf("base_url %q accepted", base)
		} else if strings.Contains(err.Error(), "sk-secret-in-url") {
			t.Errorf("base_url refused with its credentials shown: %v", err)
		}
	}
	cfg := embedding.DefaultConfig()
	cfg.Provider = "cohere"
	if _, err := embedding.New(cfg, nil); err == nil || !strings.Contains(err.Error(), `unknown provider "cohere"`) {
		t.Errorf("unknown provider: %v", err)
	}
}

// BenchmarkProviders measures what each provider's client costs on the
// same corpus against the in-process fake (encoding, HTTP, decoding,
// checks): batches of 32 texts of ~1000 characters, two in flight. The
// real servers' figures are BenchmarkKitProviders'.
func BenchmarkProviders(b *testing.B) {
	srv := ollamatest.NewServer(b, ollamatest.Options{})
	corpus := make([]string, 64)
	for i := range corpus {
		corpus[i] = strings.Repeat(fmt.Sprintf("word%d text about embedding servers ", i), 28)
	}
	for _, api := range []string{"ollama", "openai"} {
		b.Run(api, func(b *testing.B) {
			cfg := embedding.DefaultConfig()
			cfg.Host = srv.URL
			if api == "openai" {
				cfg.Provider, cfg.BaseURL = embedding.ProviderOpenAI, srv.URL+"/v1"
			}
			s, err := embedding.New(cfg, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			total := 0
			for b.Loop() {
				if r := s.EmbedDocuments(b.Context(), corpus); !r.Available {
					b.Fatal(r.Reason)
				}
				total += len(corpus)
			}
			b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "texts/s")
		})
	}
}

// TestOpenAI_NoKeyOnRedirectElsewhere: a server that redirects to another
// host or port does not get the key there (issue 35 item 8); a redirect
// on the same server keeps it.
func TestOpenAI_NoKeyOnRedirectElsewhere(t *testing.T) {
	const key = "sk-redirect-secret-0123456789"
	t.Setenv("RAGD_TEST_KEY", key)
	other := ollamatest.NewServer(t, ollamatest.Options{})
	var sent []string
	elsewhere := http.NewServeMux()
	elsewhere.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		sent = append(sent, r.Header.Get("Authorization"))
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	})
	front := httptest.NewServer(elsewhere)
	defer front.Close()
	other.SetFault(ollamatest.RequireKey(key))
	s := newOpenAI(t, front.URL+"/v1", func(c *embedding.Config) { c.APIKeyEnv = "RAGD_TEST_KEY" })
	r := s.EmbedDocuments(t.Context(), []string{"x"})
	if len(sent) == 0 || sent[0] != "Bearer "+key {
		t.Fatalf("the configured server got Authorization %q, want the key", sent)
	}
	if r.Available {
		t.Errorf("embedded through a redirect to another port: the key went there")
	}
	if strings.Contains(r.Reason, key) {
		t.Errorf("reason shows the key: %s", r.Reason)
	}
}
