package embedding

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/embedding/ollamatest"
)

// openAIOver returns the OpenAI provider for the fake's /v1, its waits
// recorded instead of slept.
func openAIOver(t *testing.T, srv *ollamatest.Server) (*openAI, *[]time.Duration) {
	t.Helper()
	cfg, err := Config{Provider: ProviderOpenAI, BaseURL: srv.URL + "/v1"}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	p, reason, err := newOpenAI(cfg)
	if err != nil || reason != "" {
		t.Fatalf("newOpenAI: %v %q", err, reason)
	}
	o := p.(*openAI)
	var waits []time.Duration
	o.sleep = func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return ctx.Err()
	}
	return o, &waits
}

func TestOpenAI_RetryAfterHonoured(t *testing.T) {
	tests := []struct {
		name    string
		fault   ollamatest.Fault
		timeout time.Duration
		waits   []time.Duration
		calls   int
		status  int // of the error, 0 = success
	}{
		{"429 then ok: waits Retry-After", ollamatest.OnCall(1, ollamatest.OpenAIError(429, "", "rate_limit_exceeded", "slow down", 3*time.Second)),
			time.Minute, []time.Duration{3 * time.Second}, 2, 0},
		{"429 past the deadline: no wait", ollamatest.OpenAIError(429, "", "rate_limit_exceeded", "slow down", 3*time.Second),
			2 * time.Second, nil, 1, 429},
		{"5xx: doubling backoff, bounded attempts", ollamatest.OpenAIError(503, "", "", "overloaded", 0),
			time.Minute, []time.Duration{openAIBackoff, 2 * openAIBackoff, 4 * openAIBackoff}, openAIRetries, 503},
		{"5xx then ok", ollamatest.OnCall(1, ollamatest.Respond(http.StatusBadGateway, "bad gateway")),
			time.Minute, []time.Duration{openAIBackoff}, 2, 0},
		{"400: not retried", ollamatest.OpenAIError(400, "invalid_request_error", "", "bad", 0),
			time.Minute, nil, 1, 400},
		{"quota: not retried", ollamatest.OpenAIError(429, "insufficient_quota", "insufficient_quota", "no money", time.Second),
			time.Minute, nil, 1, 429},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := ollamatest.NewServer(t, ollamatest.Options{})
			srv.SetFault(tt.fault)
			p, waits := openAIOver(t, srv)
			ctx, cancel := context.WithTimeout(t.Context(), tt.timeout)
			defer cancel()
			vecs, err := p.Embed(ctx, []string{"a"}, DefaultDims)
			var se *StatusError
			switch {
			case tt.status == 0 && (err != nil || len(vecs) != 1):
				t.Fatalf("Embed: %v", err)
			case tt.status != 0 && (!errors.As(err, &se) || se.StatusCode != tt.status):
				t.Fatalf("Embed: %v, want HTTP %d", err, tt.status)
			}
			if srv.Calls() != tt.calls || len(*waits) != len(tt.waits) {
				t.Fatalf("%d calls, waits %v; want %d calls, waits %v", srv.Calls(), *waits, tt.calls, tt.waits)
			}
			for i := range tt.waits {
				if (*waits)[i] != tt.waits[i] {
					t.Fatalf("waits %v, want %v", *waits, tt.waits)
				}
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"2", 2 * time.Second},
		{"0.5", 500 * time.Millisecond},
		{"-3", 0},
		{"soon", 0},
		{"3600", maxRetryAfter},
		{now.Add(10 * time.Second).Format(http.TimeFormat), 10 * time.Second},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.in, now); got != tt.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestTooLongMessage(t *testing.T) {
	for msg, want := range map[string]bool{
		"the input length exceeds the context length":                                          true, // Ollama
		"This model's maximum context length is 512 tokens. However, you requested 600 tokens": true, // vLLM, OpenAI
		"input is too large to process. increase the physical batch size":                      true, // llama.cpp
		"Input validation error: `inputs` must have less than 512 tokens. Given: 600":          true, // text-embeddings-inference
		"invalid input type":                 false,
		"model \"x\" not found, try pulling": false,
	} {
		if got := tooLongMessage(msg); got != want {
			t.Errorf("tooLongMessage(%q) = %v, want %v", msg, got, want)
		}
	}
}

func TestTruncateTokens(t *testing.T) {
	tests := []struct {
		in    string
		limit int
		want  string
		cut   bool
	}{
		{"short text", 512, "short text", false},
		{"abc def ghi", 0, "abc def ghi", false},
		{"abc def ghi jkl", 5, "abc def ghi", true}, // 2 special + 1 a word
		{"漢字漢字漢字", 5, "漢字漢", true},                  // a token per CJK character
		{"a,b,c,d", 5, "a,b", true},
	}
	for _, tt := range tests {
		got, cut := truncateTokens(tt.in, tt.limit)
		if got != tt.want || cut != tt.cut {
			t.Errorf("truncateTokens(%q, %d) = %q %v, want %q %v", tt.in, tt.limit, got, cut, tt.want, tt.cut)
		}
		if cut && estimateTokens(got) > tt.limit {
			t.Errorf("truncateTokens(%q, %d) = %q: still %d tokens", tt.in, tt.limit, got, estimateTokens(got))
		}
	}
}

func FuzzTruncateTokens(f *testing.F) {
	f.Add("abc def", 4)
	f.Add("漢字 and words, with punctuation!", 6)
	f.Fuzz(func(t *testing.T, s string, limit int) {
		limit %= 4096
		got, cut := truncateTokens(s, limit)
		if len(got) > len(s) || s[:len(got)] != got {
			t.Fatalf("not a prefix: %q of %q", got, s)
		}
		if cut && estimateTokens(got) > limit {
			t.Fatalf("%q: %d tokens past %d", got, estimateTokens(got), limit)
		}
		if !cut && got != s {
			t.Fatalf("changed without a cut")
		}
	})
}

// FuzzOpenAIAnswer: whatever a server answers, reading it does not panic,
// and an error answer becomes a one-line message and a bounded wait.
func FuzzOpenAIAnswer(f *testing.F) {
	f.Add(200, "", []byte(`{"object":"list","data":[{"object":"embedding","embedding":[0.1,0.2],"index":0}]}`), 1)
	f.Add(429, "2", []byte(`{"error":{"message":"slow","type":"requests","param":null,"code":"rate_limit_exceeded"}}`), 1)
	f.Add(400, "", []byte(`{"error":{"message":"bad","type":"x","code":400}}`), 2)
	f.Add(413, "Inf", []byte(`{"error":"too big","error_type":"Validation"}`), 3)
	f.Add(400, "", []byte(`{"object":"error","message":"too long","type":"BadRequestError"}`), 1)
	f.Add(502, "Wed, 21 Oct 2015 07:28:00 GMT", []byte("<html>bad gateway</html>"), 1)
	f.Fuzz(func(t *testing.T, status int, retry string, body []byte, n int) {
		n = int(uint(n) % 64)
		// One vector per text, or a count the Service reports, or an error.
		vecs, err := decodeEmbeddings(body, n)
		if err != nil && vecs != nil {
			t.Fatalf("vectors and an error: %v", err)
		}
		se := parseError(status, retry, body, time.Unix(0, 0))
		if se.RetryAfter < 0 || se.RetryAfter > maxRetryAfter {
			t.Fatalf("Retry-After %q read as %v", retry, se.RetryAfter)
		}
		if len(se.Message) > maxReasonDetail+len("…") || strings.ContainsAny(se.Message, "\n\t") {
			t.Fatalf("message not clipped to one line: %q", se.Message)
		}
		_ = (&openAI{base: "http://h/v1", model: "m"}).Classify(se)
	})
}
