//go:build testkit

package embedding_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/embedding"
)

// useLiteVersion is what the kit's use-lite shim answers at /api/version:
// it speaks Ollama's own API only, not the OpenAI one at /v1.
const useLiteVersion = "0.0.0-use-lite"

// kitVersion returns the kit server's version, or fails.
func kitVersion(t *testing.T) string {
	t.Helper()
	h := realService(t, nil, nil).Health(t.Context())
	if !h.Available {
		t.Fatalf("the kit server is not available: %s", h.Reason)
	}
	return h.Version
}

// openAIService is realService through the OpenAI API at the kit's /v1.
func openAIService(tb testing.TB, edit func(*embedding.Config)) *embedding.Service {
	tb.Helper()
	host, _, _ := testkit(tb)
	return realService(tb, nil, func(c *embedding.Config) {
		c.Provider, c.BaseURL = embedding.ProviderOpenAI, strings.TrimRight(host, "/")+"/v1"
		if edit != nil {
			edit(c)
		}
	})
}

// chineseText returns n characters of Traditional Chinese prose: the kind
// of chunk glove-100d (context 512 tokens, a token per CJK character) made
// real Ollama 0.17.4 refuse even with truncate, in issue 25.
func chineseText(n int) string {
	const sentence = "本系統將專案文件與程式代理的對話記錄建立索引，並以混合檢索回答開發者的問題。資料庫連線字串的設定方式與認證資訊，必須在設定檔中明確指定。"
	var b strings.Builder
	for i := 0; b.Len() < n*3; i++ {
		b.WriteString(sentence)
	}
	return string([]rune(b.String())[:n])
}

// TestKitProvidersAgree: the same texts through Ollama's API and through
// the OpenAI API of the same real server give the same vectors.
func TestKitProvidersAgree(t *testing.T) {
	version := kitVersion(t)
	in := []string{
		"a dog runs in the park",
		"How do I configure the database connection string?",
		"treatment of breast cancer with chemotherapy",
		benchText(1),
	}
	viaOllama := realService(t, nil, nil).EmbedDocuments(t.Context(), in)
	if !viaOllama.Available {
		t.Fatalf("ollama API: %s", viaOllama.Reason)
	}
	o := openAIService(t, nil)
	viaOpenAI := o.EmbedDocuments(t.Context(), in)
	if version == useLiteVersion {
		// The shim has no /v1: the provider must say so, clearly.
		if viaOpenAI.Available || !strings.Contains(viaOpenAI.Reason, "no embeddings API at ") || !viaOpenAI.ProviderDown {
			t.Fatalf("openai API on a server without it: %+v", viaOpenAI)
		}
		return
	}
	if !viaOpenAI.Available || viaOpenAI.Embedded != len(in) {
		t.Fatalf("openai API: %s", viaOpenAI.Reason)
	}
	for i := range in {
		if c := cosine(viaOllama.Vectors[i], viaOpenAI.Vectors[i]); c < 0.999 {
			t.Errorf("text %d: cosine %.6f between the two APIs, want >= 0.999", i, c)
		} else {
			t.Logf("text %d: cosine %.6f", i, c)
		}
	}
	q1, ok1, _ := realService(t, nil, nil).EmbedQuery(t.Context(), "dog in a park")
	q2, ok2, reason := o.EmbedQuery(t.Context(), "dog in a park")
	if !ok1 || !ok2 || cosine(q1, q2) < 0.999 {
		t.Fatalf("query: %v %v %q cosine %.6f", ok1, ok2, reason, cosine(q1, q2))
	}
	if h := o.Health(t.Context()); !h.Available || h.Provider != "openai" {
		t.Fatalf("Health through /v1: %+v", h)
	}
}

// TestKitOpenAIErrors: the real server's answers through /v1, read.
func TestKitOpenAIErrors(t *testing.T) {
	if kitVersion(t) == useLiteVersion {
		h := openAIService(t, nil).Health(t.Context())
		if h.Available || !strings.Contains(h.Reason, "no embeddings API at ") {
			t.Fatalf("Health through /v1 of a server without it: %+v", h)
		}
		return
	}
	host, _, dims := testkit(t)
	r := openAIService(t, func(c *embedding.Config) { c.Model = "ragd-missing-model" }).EmbedDocuments(t.Context(), []string{"x"})
	want := `model ragd-missing-model not found at ` + strings.TrimRight(host, "/") + `/v1 (HTTP 404: model "ragd-missing-model" not found, try pulling it first)`
	if r.Available || r.Reason != want || !r.ProviderDown {
		t.Fatalf("missing model: %q\n want %q", r.Reason, want)
	}
	r = openAIService(t, func(c *embedding.Config) { c.Dims = dims * 2 }).EmbedDocuments(t.Context(), []string{"x"})
	if r.Available || !strings.HasPrefix(r.Reason, "model returned ") {
		t.Fatalf("wrong dims: %q", r.Reason)
	}
	// dimensions is honoured by Ollama: the first values, re-normalised.
	r = openAIService(t, func(c *embedding.Config) { c.Dims, c.SendDimensions = dims/2, true }).EmbedDocuments(t.Context(), []string{"x y z"})
	if !r.Available || len(r.Vectors[0]) != dims/2 {
		t.Fatalf("dimensions %d: %+v", dims/2, r)
	}
}

// TestKitLongChineseText: the texts of issue 25, through both APIs. Told a
// limit far past the model's, nothing is cut before sending: real Ollama
// refuses the text, and the Service marks it unembeddable (one request, no
// loop); the shim truncates it. Knowing the model's limit (from
// /api/show), the text is cut to it first and gets a vector from both.
func TestKitLongChineseText(t *testing.T) {
	version := kitVersion(t)
	texts := []string{chineseText(1057), chineseText(1226)}
	untold := func(c *embedding.Config) { c.ContextLength = 100000; c.IndexTimeout = 2 * time.Minute }
	for _, api := range []string{"ollama", "openai"} {
		if api == "openai" && version == useLiteVersion {
			continue // no /v1 there: TestKitProvidersAgree checks the reason
		}
		t.Run(api, func(t *testing.T) {
			svc := func(edit func(*embedding.Config)) *embedding.Service {
				if api == "openai" {
					return openAIService(t, edit)
				}
				return realService(t, nil, edit)
			}
			for _, text := range texts {
				r := svc(untold).EmbedDocuments(t.Context(), []string{text})
				switch {
				case r.Available && r.Truncated == 0:
					t.Logf("%d characters: the server truncated it itself", len([]rune(text)))
				case !r.Available && r.Calls == 1 && len(r.Unembeddable) == 1 && r.Unembeddable[0] == r.Cause && r.Cause != "":
					t.Logf("%d characters: refused for good in one request: %s", len([]rune(text)), r.Cause)
				default:
					t.Fatalf("%d characters, nothing cut: %+v", len([]rune(text)), r)
				}
				if version != useLiteVersion && r.Available {
					t.Errorf("real Ollama embedded a text it refused in issue 25: the test no longer shows the case")
				}
				learned := svc(nil)
				r = learned.EmbedDocuments(t.Context(), []string{text})
				if !r.Available || r.Truncated != 1 || r.Unembeddable != nil {
					t.Fatalf("%d characters cut to the model's %d tokens: %+v", len([]rune(text)), learned.ContextLength(t.Context()), r)
				}
			}
		})
	}
}

// BenchmarkKitProviders measures indexing throughput through each provider
// on the same corpus (~1000-character texts, batches of 16, two in flight).
func BenchmarkKitProviders(b *testing.B) {
	for _, api := range []string{"ollama", "openai"} {
		b.Run(api, func(b *testing.B) {
			edit := func(c *embedding.Config) { c.BatchSize, c.Concurrency = 16, 2 }
			s := realService(b, nil, edit)
			if api == "openai" {
				s = openAIService(b, edit)
			}
			next, total := 0, 0
			for b.Loop() {
				in := make([]string, 32)
				for i := range in {
					in[i] = benchText(next)
					next++
				}
				r := s.EmbedDocuments(b.Context(), in)
				if !r.Available {
					b.Fatalf("EmbedDocuments: %s", r.Reason)
				}
				total += len(in)
			}
			b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "texts/s")
		})
	}
}
