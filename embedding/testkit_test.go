//go:build testkit

// The testkit tier runs against a real server speaking Ollama's API (the
// test kit's real Ollama with glove-100d, or its use-lite shim):
//
//	eval "$(../shared/testkit/ollama-real up)"
//	go test -tags testkit ./embedding/...
//	go test -tags testkit -run '^$' -bench Kit -benchtime 3s ./embedding/
//
// It fails, rather than skips, when the server is not configured: a tier
// that silently skips proves nothing.

package embedding_test

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/embedding"
)

// testkit returns the configured server, model and dims, or fails.
func testkit(tb testing.TB) (host, model string, dims int) {
	tb.Helper()
	host, model = os.Getenv("OLLAMA_HOST"), os.Getenv("RAGD_TESTKIT_MODEL")
	dims, err := strconv.Atoi(os.Getenv("RAGD_TESTKIT_DIMS"))
	if host == "" || model == "" || err != nil || dims <= 0 {
		tb.Fatalf("testkit tier needs OLLAMA_HOST, RAGD_TESTKIT_MODEL and RAGD_TESTKIT_DIMS "+
			"(eval \"$(../shared/testkit/ollama-real up)\"); got %q, %q, %q",
			host, model, os.Getenv("RAGD_TESTKIT_DIMS"))
	}
	return host, model, dims
}

func realService(tb testing.TB, cache embedding.Cache, edit func(*embedding.Config)) *embedding.Service {
	tb.Helper()
	host, model, dims := testkit(tb)
	cfg := embedding.DefaultConfig()
	cfg.Host, cfg.Model, cfg.Dims = host, model, dims
	// The kit's servers share two cores with the test binaries of every
	// package: a probe may exceed the default 2s without being wrong.
	cfg.QueryTimeout = 20 * time.Second
	if edit != nil {
		edit(&cfg)
	}
	s, err := embedding.New(cfg, cache)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	return s
}

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestKitBatchOfUnitVectors(t *testing.T) {
	_, _, dims := testkit(t)
	s := realService(t, nil, func(c *embedding.Config) { c.BatchSize = 2 })
	in := []string{
		"a dog runs in the park",
		"the stock market fell",
		"How do I configure the database connection string?",
		"treatment of breast cancer with chemotherapy",
		"",
	}
	r := s.EmbedDocuments(t.Context(), in)
	if !r.Available || r.Reason != "" || r.Embedded != 4 || r.Skipped != 1 || r.Calls != 2 || r.Vectors[4] != nil {
		t.Fatalf("result: %+v", r)
	}
	for i, v := range r.Vectors[:4] {
		if len(v) != dims {
			t.Fatalf("vector %d: %d dims, want %d", i, len(v), dims)
		}
		if n := math.Sqrt(cosine(v, v)); math.Abs(n-1) > 1e-5 {
			t.Fatalf("vector %d: norm %v", i, n)
		}
	}
	if h := s.Health(t.Context()); !h.Available || h.Version == "" || h.Reason != "" {
		t.Fatalf("Health: %+v", h)
	}
}

// TestKitOverlongText: a text far past the model's context. Ollama is
// asked to truncate; real Ollama 0.17.4 still answers 400 for some texts
// with glove-100d's tokenizer (it truncates by re-tokenising detokenised
// text, which can come out longer), while use-lite truncates. Either way the
// other texts of the batch keep their vectors.
func TestKitOverlongText(t *testing.T) {
	_, _, dims := testkit(t)
	s := realService(t, nil, nil)
	long := strings.Repeat("a very long text that exceeds the context of the model ", 400)
	r := s.EmbedDocuments(t.Context(), []string{"short text one", long, "short text two"})
	if len(r.Vectors[0]) != dims || len(r.Vectors[2]) != dims {
		t.Fatalf("the short texts lost their vectors: %+v", r)
	}
	switch {
	case r.Available && len(r.Vectors[1]) == dims:
		t.Logf("the server truncated the long text (%d calls)", r.Calls)
	case r.Reason == "ollama rejected the request: the input length exceeds the context length (1 of 3 texts not embedded)" && r.Vectors[1] == nil:
		t.Logf("the server rejected the long text; isolated in %d calls", r.Calls)
	default:
		t.Fatalf("long text: Available=%v Reason=%q", r.Available, r.Reason)
	}
}

func TestKitSemanticCloseness(t *testing.T) {
	s := realService(t, nil, nil)
	r := s.EmbedDocuments(t.Context(), []string{
		"a dog runs in the park",
		"a puppy is running outdoors",
		"the stock market fell",
	})
	if !r.Available {
		t.Fatalf("EmbedDocuments: %s", r.Reason)
	}
	dog, puppy, market := r.Vectors[0], r.Vectors[1], r.Vectors[2]
	near, far := cosine(dog, puppy), cosine(dog, market)
	t.Logf("cos(dog, puppy) = %.3f, cos(dog, market) = %.3f", near, far)
	if near <= far {
		t.Fatalf("close texts are not closer: %.3f <= %.3f", near, far)
	}
	q, ok, reason := s.EmbedQuery(t.Context(), "dog playing in a park")
	if !ok {
		t.Fatalf("EmbedQuery: %s", reason)
	}
	if cosine(q, dog) <= cosine(q, market) {
		t.Fatalf("query closer to the unrelated text: %.3f <= %.3f", cosine(q, dog), cosine(q, market))
	}
}

func TestKitMissingModel(t *testing.T) {
	s := realService(t, nil, func(c *embedding.Config) { c.Model = "ragd-missing-model" })
	want := "model ragd-missing-model not pulled: run `ollama pull ragd-missing-model`"
	r := s.EmbedDocuments(t.Context(), []string{"x", "y"})
	if r.Available || r.Reason != want || r.Vectors[0] != nil {
		t.Fatalf("EmbedDocuments: Available=%v Reason=%q", r.Available, r.Reason)
	}
	if h := s.Health(t.Context()); h.Available || h.Reason != want || h.Version == "" {
		t.Fatalf("Health: %+v", h)
	}
}

func TestKitWrongDims(t *testing.T) {
	_, model, dims := testkit(t)
	s := realService(t, nil, func(c *embedding.Config) { c.Dims = dims * 2 })
	want := fmt.Sprintf("model returned %d dims, index expects %d", dims, dims*2)
	if r := s.EmbedDocuments(t.Context(), []string{"x"}); r.Available || r.Reason != want {
		t.Fatalf("EmbedDocuments: Available=%v Reason=%q, want %q", r.Available, r.Reason, want)
	}
	if h := s.Health(t.Context()); h.Available || h.Reason != want {
		t.Fatalf("Health %s: %+v", model, h)
	}
}

func TestKitCacheAndCase(t *testing.T) {
	cache := embedding.NewMemoryCache()
	// Ollama matches names case-insensitively; the space does too.
	s := realService(t, cache, func(c *embedding.Config) { c.Model = strings.ToUpper(c.Model) })
	in := []string{"first text about cats", "second text about dogs"}
	first := s.EmbedDocuments(t.Context(), in)
	again := s.EmbedDocuments(t.Context(), in)
	if !first.Available || first.Calls != 1 || again.Calls != 0 || again.Cached != 2 {
		t.Fatalf("first %+v / again %+v", first.Reason, again)
	}
}

// benchText returns a distinct text of about 1000 characters of English
// words, so that no cache (ragd's or the server's) can serve it.
func benchText(i int) string {
	words := strings.Fields(`the of and to in is that for it as was with be by on not he this are or his
		from at which but have an they you were her she there been one all we their has would when if so no
		will can more about time year people way day man thing woman life child world school state family
		student group country problem hand part place case week company system program question work government
		number night point home water room mother area money story fact month lot right study book eye job word
		business issue side kind head house service friend father power hour game line end member law car city
		community name president team minute idea kid body information back parent face others level office door
		health person art war history party result change morning reason research girl guy moment air teacher
		force education search index document query vector database server model embedding chunk cache park dog`)
	var b strings.Builder
	fmt.Fprintf(&b, "text %d:", i)
	x := uint64(i)*0x9e3779b97f4a7c15 + 1
	for b.Len() < 1000 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b.WriteByte(' ')
		b.WriteString(words[x%uint64(len(words))])
	}
	return b.String()
}

// BenchmarkKitEmbed measures indexing throughput on ~1000-character
// texts by batch size, one request at a time and with the default two in
// flight.
func BenchmarkKitEmbed(b *testing.B) {
	for _, bc := range []struct{ batch, concurrency int }{{1, 1}, {16, 1}, {64, 1}, {16, 2}} {
		b.Run(fmt.Sprintf("batch=%d/concurrency=%d", bc.batch, bc.concurrency), func(b *testing.B) {
			s := realService(b, nil, func(c *embedding.Config) {
				c.BatchSize, c.Concurrency = bc.batch, bc.concurrency
			})
			// One call embeds enough texts to keep every request slot busy.
			perCall := bc.batch * bc.concurrency
			next, total := 0, 0
			for b.Loop() {
				in := make([]string, perCall)
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
