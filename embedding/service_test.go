package embedding_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/embedding/ollamatest"
)

// newService returns a Service for host with the default configuration,
// changed by edit. The query timeout is raised so that a loaded CI machine
// running the race detector cannot turn an expected reason into a timeout;
// the timeout tests set short ones themselves.
func newService(t *testing.T, host string, cache embedding.Cache, edit func(*embedding.Config)) *embedding.Service {
	t.Helper()
	cfg := embedding.DefaultConfig()
	cfg.Host = host
	cfg.QueryTimeout = 30 * time.Second
	if edit != nil {
		edit(&cfg)
	}
	s, err := embedding.New(cfg, cache)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

// wantVector checks that got is the fake's vector of sent.
func wantVector(t *testing.T, got []float32, sent string, dims int) {
	t.Helper()
	want := ollamatest.Vector(sent, dims)
	if len(got) != len(want) {
		t.Fatalf("vector of %q: %d values, want %d", sent, len(got), len(want))
	}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-6 {
			t.Fatalf("vector of %q differs at %d: %v, want %v", sent, i, got[i], want[i])
		}
	}
}

func texts(n int, format string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(format, i)
	}
	return out
}

// wantFailed checks an all-failed Result.
func wantFailed(t *testing.T, r embedding.Result, reason string) {
	t.Helper()
	if r.Available || r.Reason != reason {
		t.Fatalf("Available=%v Reason=%q, want false %q", r.Available, r.Reason, reason)
	}
	for i, v := range r.Vectors {
		if v != nil {
			t.Fatalf("vector %d returned despite the failure", i)
		}
	}
	if r.Embedded != 0 || r.Cached != 0 || r.Failed != len(r.Vectors)-r.Skipped {
		t.Fatalf("counts: %+v", r)
	}
	if r.Cause != reason {
		t.Fatalf("Cause=%q, want %q: nothing embedded, no count", r.Cause, reason)
	}
}

func TestEmbedDocuments(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{})
	s := newService(t, srv.URL, nil, nil)
	in := []string{"a dog runs in the park", "the stock market fell", "a puppy in the park"}
	r := s.EmbedDocuments(t.Context(), in)
	if !r.Available || r.Reason != "" || r.Embedded != 3 || r.Calls != 1 || r.Failed != 0 {
		t.Fatalf("result %+v", r)
	}
	for i, text := range in {
		wantVector(t, r.Vectors[i], "search_document: "+text, 768)
	}
	if got := srv.Inputs(); len(got) != 1 || got[0][0] != "search_document: a dog runs in the park" {
		t.Fatalf("sent %q", got)
	}
	if got := s.Space(); got != (embedding.Space{Model: "nomic-embed-text", Dims: 768}) || got.String() != "nomic-embed-text/768" {
		t.Fatalf("Space() = %v", got)
	}
}

func TestEmbedQuery(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{})
	s := newService(t, srv.URL, embedding.NewMemoryCache(), nil)
	vec, ok, reason := s.EmbedQuery(t.Context(), "dog park")
	if !ok || reason != "" {
		t.Fatalf("EmbedQuery: %v %q", ok, reason)
	}
	wantVector(t, vec, "search_query: dog park", 768)

	// A blank query is nothing to search by vector: no call, not a failure.
	vec, ok, reason = s.EmbedQuery(t.Context(), " \n")
	if vec != nil || !ok || reason != "" || srv.Calls() != 1 {
		t.Fatalf("blank query: %v %v %q, %d calls", vec, ok, reason, srv.Calls())
	}
	// Queries bypass the cache.
	s.EmbedQuery(t.Context(), "dog park")
	if srv.Calls() != 2 {
		t.Fatalf("repeated query made %d calls in all, want 2", srv.Calls())
	}
}

func TestBatching(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{})
	s := newService(t, srv.URL, nil, nil) // default batch 32
	r := s.EmbedDocuments(t.Context(), texts(70, "text number %d"))
	if !r.Available || r.Embedded != 70 || r.Calls != 3 || srv.Calls() != 3 {
		t.Fatalf("result %+v, server calls %d", r, srv.Calls())
	}
	var sizes []int
	for _, in := range srv.Inputs() {
		sizes = append(sizes, len(in))
	}
	slices.Sort(sizes)
	if !slices.Equal(sizes, []int{6, 32, 32}) {
		t.Fatalf("batch sizes %v, want [6 32 32]", sizes)
	}
	for i := range 70 {
		wantVector(t, r.Vectors[i], fmt.Sprintf("search_document: text number %d", i), 768)
	}
}

func TestConcurrencyBound(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{})
	var (
		mu            sync.Mutex
		inFlight, top int
		twoInFlight   = make(chan struct{})
	)
	// Each request waits until two are in flight at once, then answers:
	// this proves two run concurrently (otherwise the first would wait for
	// its timeout) and records that no third one joins them.
	srv.SetFault(func(w http.ResponseWriter, r *http.Request, req ollamatest.Request) bool {
		mu.Lock()
		inFlight++
		top = max(top, inFlight)
		if inFlight == 2 {
			select {
			case <-twoInFlight:
			default:
				close(twoInFlight)
			}
		}
		mu.Unlock()
		defer func() { mu.Lock(); inFlight--; mu.Unlock() }()
		select {
		case <-twoInFlight:
			return false // answer normally
		case <-r.Context().Done():
			return true
		}
	})
	s := newService(t, srv.URL, nil, func(c *embedding.Config) { c.BatchSize = 4; c.Concurrency = 2 })
	r := s.EmbedDocuments(t.Context(), texts(24, "t%d"))
	if !r.Available || r.Calls != 6 {
		t.Fatalf("result: %v %q, %d calls", r.Available, r.Reason, r.Calls)
	}
	if top != 2 {
		t.Fatalf("at most %d requests in flight, want 2", top)
	}
}

func TestOllamaDown(t *testing.T) {
	host := ollamatest.ClosedURL(t)
	s := newService(t, host, nil, func(c *embedding.Config) { c.BatchSize = 2 })
	r := s.EmbedDocuments(t.Context(), texts(10, "t%d"))
	wantFailed(t, r, "ollama not reachable at "+host)
	if r.Calls > 2 { // one per worker at most: a fatal failure stops the rest
		t.Fatalf("%d calls to a server that is down", r.Calls)
	}
	vec, ok, reason := s.EmbedQuery(t.Context(), "q")
	if vec != nil || ok || reason != "ollama not reachable at "+host {
		t.Fatalf("EmbedQuery: %v %v %q", vec, ok, reason)
	}
}

func TestTimeout(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{})
	srv.SetFault(srv.Hang())
	s := newService(t, srv.URL, nil, func(c *embedding.Config) {
		c.IndexTimeout = 100 * time.Millisecond
		c.QueryTimeout = 50 * time.Millisecond
		c.BatchSize = 1
		c.Concurrency = 1
	})
	r := s.EmbedDocuments(t.Context(), []string{"a", "b", "c"})
	wantFailed(t, r, "timeout after 100ms")
	if r.Calls != 1 {
		t.Fatalf("%d calls: a hung server must not be waited for once per batch", r.Calls)
	}
	if r.Cause != "timeout after 100ms" || !r.ProviderDown {
		t.Fatalf("Cause=%q ProviderDown=%v", r.Cause, r.ProviderDown)
	}
	if _, ok, reason := s.EmbedQuery(t.Context(), "q"); ok || reason != "timeout after 50ms" {
		t.Fatalf("EmbedQuery: %v %q", ok, reason)
	}
}

func TestModelNotPulled(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{})
	s := newService(t, srv.URL, nil, func(c *embedding.Config) { c.Model = "mxbai-embed-large"; c.Dims = 1024 })
	wantFailed(t, s.EmbedDocuments(t.Context(), []string{"x"}), "model mxbai-embed-large not pulled: run `ollama pull mxbai-embed-large`")
}

func TestInvalidModelName(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{})
	s := newService(t, srv.URL, nil, func(c *embedding.Config) { c.Model = "a b"; c.Dims = 768 })
	wantFailed(t, s.EmbedDocuments(t.Context(), []string{"x", "y"}), `invalid model name "a b"`)
	if _, ok, reason := s.EmbedQuery(t.Context(), "q"); ok || reason != `invalid model name "a b"` {
		t.Fatalf("EmbedQuery: %v %q", ok, reason)
	}
	if h := s.Health(t.Context()); h.Available || h.Reason != `invalid model name "a b"` || h.Version != "0.17.4" {
		t.Fatalf("Health: %+v", h)
	}
	if srv.Calls() != 0 {
		t.Fatalf("%d embed calls with a name Ollama cannot accept", srv.Calls())
	}
}

func TestProviderAnswers(t *testing.T) {
	okVec := `[` + strings.TrimSuffix(strings.Repeat("0.5,", 4), ",") + `]`
	tests := []struct {
		name   string
		fault  ollamatest.Fault
		reason string // exact, or a prefix when it ends with "…"
	}{
		{"500", ollamatest.Respond(500, `{"error":"llama runner process has terminated: signal: killed"}`),
			"ollama failed (HTTP 500): llama runner process has terminated: signal: killed"},
		{"502 from a proxy, not JSON", ollamatest.Respond(502, "<html><body>Bad Gateway</body></html>"),
			"ollama failed (HTTP 502): <html><body>Bad Gateway</body></html>"},
		{"400", ollamatest.Respond(400, `{"error":"the input length exceeds the context length"}`),
			"ollama rejected the request: the input length exceeds the context length"},
		{"401", ollamatest.Respond(401, `{"error":"unauthorized"}`),
			"ollama at {host} requires authorization (HTTP 401)"},
		{"404 page", ollamatest.Respond(404, "404 page not found"),
			"no ollama embed API at {host} (HTTP 404: 404 page not found): is it Ollama 0.3 or later?"},
		{"not JSON", ollamatest.Respond(200, "<html>hello</html>"),
			"ollama returned an invalid answer: invalid character '<' looking for beginning of value"},
		{"truncated JSON", ollamatest.Respond(200, `{"model":"nomic-embed-text","embeddings":[[0.1,`),
			"ollama returned an invalid answer: unexpected end of JSON input"},
		{"empty 200", ollamatest.Respond(200, ""),
			"ollama returned an invalid answer: got 0 vectors, want 1"},
		// JSON cannot carry NaN: a server that writes it sends invalid JSON.
		{"NaN", ollamatest.Respond(200, `{"model":"m","embeddings":[[NaN,0.5,0.5,0.5]]}`),
			"ollama returned an invalid answer: invalid character 'N' looking for beginning of value"},
		// 1e39 overflows float32: encoding/json refuses it rather than
		// producing +Inf, so it can never reach the index.
		{"overflow", ollamatest.Respond(200, `{"model":"m","embeddings":[[1e39,0.5,0.5,0.5]]}`),
			"ollama returned an invalid answer: json: cannot unmarshal number 1e39 into Go struct field EmbedResponse.embeddings of type float32"},
		{"count mismatch", ollamatest.Respond(200, `{"model":"m","embeddings":[`+okVec+`,`+okVec+`]}`),
			"ollama returned an invalid answer: got 2 vectors, want 1"},
		{"wrong dims", ollamatest.WithDims(3),
			"model returned 3 dims, index expects 4"},
		{"zero vector", ollamatest.Respond(200, `{"model":"m","embeddings":[[0,0,0,0]]}`),
			"model returned a zero vector (the text has nothing it can represent)"},
		{"oversized", ollamatest.Oversized(64 << 20),
			"ollama returned an invalid answer: response larger than 4194400 bytes, cut"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{"m": 4}})
			srv.SetFault(tt.fault)
			s := newService(t, srv.URL, nil, func(c *embedding.Config) { c.Model = "m"; c.Dims = 4 })
			r := s.EmbedDocuments(t.Context(), []string{"x"})
			wantFailed(t, r, strings.ReplaceAll(tt.reason, "{host}", srv.URL))
			if r.Calls != 1 {
				t.Fatalf("%d calls", r.Calls)
			}
		})
	}
}

func TestLargeFiniteValuesAreNormalised(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{"m": 2}})
	// Squares of these overflow float32; the norm is taken in float64.
	srv.SetFault(ollamatest.Respond(200, `{"model":"m","embeddings":[[3e38,-3e38]]}`))
	s := newService(t, srv.URL, nil, func(c *embedding.Config) { c.Model = "m"; c.Dims = 2 })
	r := s.EmbedDocuments(t.Context(), []string{"x"})
	if !r.Available {
		t.Fatalf("result %+v", r)
	}
	want := float32(1 / math.Sqrt2)
	if v := r.Vectors[0]; math.Abs(float64(v[0]-want)) > 1e-6 || math.Abs(float64(v[1]+want)) > 1e-6 {
		t.Fatalf("vector %v, want [%v %v]", v, want, -want)
	}
}

func TestOneUnusableVectorInABatch(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{"m": 3}})
	srv.SetFault(ollamatest.WithVectors(func(req ollamatest.Request) [][]float32 {
		out := make([][]float32, len(req.Input))
		for i, text := range req.Input {
			out[i] = ollamatest.Vector(text, 3)
			if text == "nothing" {
				out[i] = []float32{0, 0, 0}
			}
		}
		return out
	}))
	s := newService(t, srv.URL, nil, func(c *embedding.Config) { c.Model = "m"; c.Dims = 3 })
	r := s.EmbedDocuments(t.Context(), []string{"one", "nothing", "two"})
	want := "model returned a zero vector (the text has nothing it can represent) (1 of 3 texts not embedded)"
	if r.Available || r.Reason != want || r.Vectors[1] != nil || r.Vectors[0] == nil || r.Vectors[2] == nil || r.Embedded != 2 || r.Failed != 1 {
		t.Fatalf("result %+v", r)
	}
}

func TestEmptyInput(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{})
	s := newService(t, srv.URL, nil, nil)
	for _, in := range [][]string{nil, {}, {"", " ", "\t\n"}} {
		r := s.EmbedDocuments(t.Context(), in)
		if !r.Available || r.Reason != "" || len(r.Vectors) != len(in) || r.Skipped != len(in) || r.Calls != 0 {
			t.Fatalf("EmbedDocuments(%q) = %+v", in, r)
		}
	}
	// Blank texts among others are skipped, not sent.
	r := s.EmbedDocuments(t.Context(), []string{"", "hello", "  "})
	if !r.Available || r.Skipped != 2 || r.Embedded != 1 || r.Vectors[0] != nil || r.Vectors[2] != nil || r.Vectors[1] == nil {
		t.Fatalf("result %+v", r)
	}
	if got := srv.Inputs(); len(got) != 1 || !slices.Equal(got[0], []string{"search_document: hello"}) {
		t.Fatalf("sent %q", got)
	}
}

func TestDuplicatesSentOnce(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{})
	s := newService(t, srv.URL, nil, nil)
	r := s.EmbedDocuments(t.Context(), []string{"same", "other", "same"})
	if !r.Available || r.Embedded != 3 {
		t.Fatalf("result %+v", r)
	}
	if got := srv.Inputs(); len(got) != 1 || len(got[0]) != 2 {
		t.Fatalf("sent %q, want two distinct texts", got)
	}
	if !slices.Equal(r.Vectors[0], r.Vectors[2]) {
		t.Fatal("duplicates got different vectors")
	}
	r.Vectors[0][0] = 42 // the caller owns each vector
	if r.Vectors[2][0] == 42 {
		t.Fatal("duplicates share memory")
	}
}

func TestPartialBatchFailure(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{})
	srv.SetFault(ollamatest.WhenInput("poison", ollamatest.Respond(500, `{"error":"boom"}`)))
	cache := embedding.NewMemoryCache()
	s := newService(t, srv.URL, cache, func(c *embedding.Config) { c.BatchSize = 2 })
	in := []string{"t0", "t1", "poison t2", "t3", "t4", "t5"}
	r := s.EmbedDocuments(t.Context(), in)
	if r.Available || r.Reason != "ollama failed (HTTP 500): boom (2 of 6 texts not embedded)" {
		t.Fatalf("Available=%v Reason=%q", r.Available, r.Reason)
	}
	for i, v := range r.Vectors {
		if failed := i == 2 || i == 3; failed != (v == nil) {
			t.Fatalf("vector %d: nil=%v", i, v == nil)
		}
	}
	if r.Embedded != 4 || r.Failed != 2 || r.Calls != 3 {
		t.Fatalf("counts %+v", r)
	}
	// A 500 may pass on the next request: the provider is not down.
	if r.Cause != "ollama failed (HTTP 500): boom" || r.ProviderDown {
		t.Fatalf("Cause=%q ProviderDown=%v", r.Cause, r.ProviderDown)
	}
	if cache.Len() != 4 {
		t.Fatalf("cache holds %d vectors, want the 4 that succeeded", cache.Len())
	}
}

func TestRejectedTextIsIsolated(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{})
	srv.SetFault(ollamatest.WhenInput("poison", ollamatest.Respond(400, `{"error":"the input length exceeds the context length"}`)))
	s := newService(t, srv.URL, nil, func(c *embedding.Config) { c.BatchSize = 8 })
	in := texts(8, "t%d")
	in[5] = "poison"
	r := s.EmbedDocuments(t.Context(), in)
	if r.Reason != "ollama rejected the request: the input length exceeds the context length (1 of 8 texts not embedded)" {
		t.Fatalf("Reason %q", r.Reason)
	}
	for i, v := range r.Vectors {
		if (i == 5) != (v == nil) {
			t.Fatalf("vector %d: nil=%v", i, v == nil)
		}
		if v != nil {
			wantVector(t, v, "search_document: "+in[i], 768)
		}
	}
	// [0-7] rejected, [0-3] ok, [4-7] rejected, [4 5] rejected, [4] ok,
	// [5] rejected, [6 7] ok.
	if r.Calls != 7 || r.Embedded != 7 || r.Failed != 1 {
		t.Fatalf("counts %+v", r)
	}
}

func TestFatalFailureStopsFurtherBatches(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{})
	srv.SetFault(ollamatest.OnCall(2, ollamatest.WithDims(384)))
	s := newService(t, srv.URL, nil, func(c *embedding.Config) { c.BatchSize = 1; c.Concurrency = 1 })
	r := s.EmbedDocuments(t.Context(), texts(5, "t%d"))
	if r.Reason != "model returned 384 dims, index expects 768 (4 of 5 texts not embedded)" || r.Calls != 2 || srv.Calls() != 2 {
		t.Fatalf("Reason=%q Calls=%d server calls=%d", r.Reason, r.Calls, srv.Calls())
	}
	if r.Cause != "model returned 384 dims, index expects 768" || !r.ProviderDown {
		t.Fatalf("Cause=%q ProviderDown=%v", r.Cause, r.ProviderDown)
	}
	if r.Vectors[0] == nil || slices.ContainsFunc(r.Vectors[1:], func(v []float32) bool { return v != nil }) {
		t.Fatal("vectors: want only the first")
	}
}

func TestCache(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{"nomic-embed-text": 768, "all-minilm": 384}})
	cache := embedding.NewMemoryCache()
	s := newService(t, srv.URL, cache, nil)
	in := []string{"alpha", "beta", "gamma"}
	first := s.EmbedDocuments(t.Context(), in)
	if !first.Available || first.Embedded != 3 || cache.Len() != 3 {
		t.Fatalf("first: %+v, cache %d", first, cache.Len())
	}
	calls := srv.Calls()
	again := s.EmbedDocuments(t.Context(), in)
	if srv.Calls() != calls || again.Calls != 0 || again.Cached != 3 || again.Embedded != 0 || !again.Available {
		t.Fatalf("reindex of unchanged text: %+v, %d new calls", again, srv.Calls()-calls)
	}
	for i := range in {
		if !slices.Equal(first.Vectors[i], again.Vectors[i]) {
			t.Fatalf("cached vector %d differs", i)
		}
	}
	// One new text: only it is sent.
	mixed := s.EmbedDocuments(t.Context(), []string{"alpha", "delta"})
	if mixed.Cached != 1 || mixed.Embedded != 1 || srv.Calls() != calls+1 {
		t.Fatalf("mixed: %+v", mixed)
	}
	if got := srv.Inputs(); !slices.Equal(got[len(got)-1], []string{"search_document: delta"}) {
		t.Fatalf("sent %q", got[len(got)-1])
	}

	// The key includes the prefix, and the space includes the model: a
	// change of either misses.
	noPrefix := ""
	s2 := newService(t, srv.URL, cache, func(c *embedding.Config) { c.DocumentPrefix = &noPrefix })
	if r := s2.EmbedDocuments(t.Context(), []string{"alpha"}); r.Cached != 0 || r.Embedded != 1 {
		t.Fatalf("prefix change hit the cache: %+v", r)
	}
	s3 := newService(t, srv.URL, cache, func(c *embedding.Config) { c.Model = "all-minilm"; c.Dims = 384 })
	if r := s3.EmbedDocuments(t.Context(), []string{"alpha"}); r.Cached != 0 || r.Embedded != 1 || len(r.Vectors[0]) != 384 {
		t.Fatalf("space change hit the cache: %+v", r)
	}
}

// brokenCache fails, or serves unusable vectors.
type brokenCache struct {
	lookupErr, storeErr error
	serve               map[string][]float32
	stored              int
}

func (c *brokenCache) LookupEmbeddings(_ context.Context, _ string, keys []string) (map[string][]float32, error) {
	if c.lookupErr != nil {
		return nil, c.lookupErr
	}
	out := map[string][]float32{}
	for _, k := range keys {
		if v, ok := c.serve[k]; ok {
			out[k] = v
		}
	}
	return out, nil
}

func (c *brokenCache) StoreEmbeddings(_ context.Context, _ string, vecs map[string][]float32) error {
	c.stored += len(vecs)
	return c.storeErr
}

func TestCacheFailuresDoNotFailEmbedding(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{})
	var logs bytes.Buffer
	cache := &brokenCache{lookupErr: errors.New("database is locked"), storeErr: errors.New("disk full")}
	s := newService(t, srv.URL, cache, func(c *embedding.Config) { c.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	r := s.EmbedDocuments(t.Context(), []string{"a", "b"})
	if !r.Available || r.Embedded != 2 || cache.stored != 2 {
		t.Fatalf("result %+v, stored %d", r, cache.stored)
	}
	for _, want := range []string{"database is locked", "disk full"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}

	// Unusable cached vectors (wrong length, zero, NaN) are embedded again.
	bad := &brokenCache{serve: map[string][]float32{
		embedding.CacheKey("search_document: a"): {1, 2},
		embedding.CacheKey("search_document: b"): make([]float32, 768),
		embedding.CacheKey("search_document: c"): append([]float32{float32(math.NaN())}, make([]float32, 767)...),
	}}
	s = newService(t, srv.URL, bad, nil)
	r = s.EmbedDocuments(t.Context(), []string{"a", "b", "c"})
	if !r.Available || r.Cached != 0 || r.Embedded != 3 {
		t.Fatalf("unusable cache entries: %+v", r)
	}
	wantVector(t, r.Vectors[0], "search_document: a", 768)
}

func TestCancelled(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{})
	s := newService(t, srv.URL, embedding.NewMemoryCache(), func(c *embedding.Config) { c.BatchSize = 1; c.Concurrency = 1 })

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	wantFailed(t, s.EmbedDocuments(ctx, []string{"a"}), "cancelled")
	if srv.Calls() != 0 {
		t.Fatal("a cancelled call reached the server")
	}

	// Cancelled during the second batch: the first batch's vector is
	// dropped too, and nothing is cached.
	ctx, cancel = context.WithCancel(t.Context())
	defer cancel()
	srv.SetFault(ollamatest.OnCall(2, func(w http.ResponseWriter, r *http.Request, req ollamatest.Request) bool {
		cancel()
		return srv.Hang()(w, r, req)
	}))
	cache := embedding.NewMemoryCache()
	s = newService(t, srv.URL, cache, func(c *embedding.Config) { c.BatchSize = 1; c.Concurrency = 1 })
	r := s.EmbedDocuments(ctx, []string{"a", "b", "c"})
	wantFailed(t, r, "cancelled")
	if r.Calls != 2 || cache.Len() != 0 {
		t.Fatalf("calls %d, cached %d", r.Calls, cache.Len())
	}

	// The caller's own deadline is the caller giving up too.
	ctx, cancel2 := context.WithDeadline(t.Context(), time.Unix(1, 0))
	defer cancel2()
	if _, ok, reason := s.EmbedQuery(ctx, "q"); ok || reason != "cancelled: the caller's deadline passed" {
		t.Fatalf("EmbedQuery: %v %q", ok, reason)
	}
}

func TestPrefixesPerModel(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{
		"nomic-embed-text": 768, "mxbai-embed-large:335m": 1024, "all-minilm": 384,
	}})
	custom := "q: "
	empty := ""
	tests := []struct {
		model      string
		dims       int
		doc, query *string
		wantDoc    string
		wantQuery  string
	}{
		{model: "NOMIC-EMBED-TEXT:latest", dims: 768, wantDoc: "search_document: d", wantQuery: "search_query: q"},
		{model: "mxbai-embed-large:335m", dims: 1024, wantDoc: "d", wantQuery: "Represent this sentence for searching relevant passages: q"},
		{model: "all-minilm", dims: 384, wantDoc: "d", wantQuery: "q"},
		{model: "nomic-embed-text", dims: 768, doc: &empty, query: &custom, wantDoc: "d", wantQuery: "q: q"},
	}
	for _, tt := range tests {
		calls := srv.Calls()
		s := newService(t, srv.URL, nil, func(c *embedding.Config) {
			c.Model, c.Dims, c.DocumentPrefix, c.QueryPrefix = tt.model, tt.dims, tt.doc, tt.query
		})
		r := s.EmbedDocuments(t.Context(), []string{"d"})
		_, ok, reason := s.EmbedQuery(t.Context(), "q")
		if !r.Available || !ok {
			t.Fatalf("%s: %q %q", tt.model, r.Reason, reason)
		}
		in := srv.Inputs()[calls:]
		if len(in) != 2 || in[0][0] != tt.wantDoc || in[1][0] != tt.wantQuery {
			t.Errorf("%s: sent %q, want %q then %q", tt.model, in, tt.wantDoc, tt.wantQuery)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{})
	s := newService(t, srv.URL, embedding.NewMemoryCache(), func(c *embedding.Config) { c.BatchSize = 3 })
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			r := s.EmbedDocuments(t.Context(), texts(10, fmt.Sprintf("g%d text %%d", g%2)))
			if !r.Available || r.Embedded+r.Cached != 10 {
				t.Errorf("goroutine %d: %+v", g, r)
			}
			if _, ok, reason := s.EmbedQuery(t.Context(), "q"); !ok {
				t.Errorf("goroutine %d: query %q", g, reason)
			}
		})
	}
	wg.Wait()
}

func TestNewRejectsInvalidConfig(t *testing.T) {
	tests := map[string]func(*embedding.Config){
		"dims unset for a model":  func(c *embedding.Config) { c.Model = "all-minilm"; c.Dims = 0 },
		"negative dims":           func(c *embedding.Config) { c.Dims = -1 },
		"dims beyond the store's": func(c *embedding.Config) { c.Dims = embedding.MaxDims + 1 },
		"negative batch":          func(c *embedding.Config) { c.BatchSize = -1 },
		"huge batch":              func(c *embedding.Config) { c.BatchSize = embedding.MaxBatchSize + 1 },
		"negative concurrency":    func(c *embedding.Config) { c.Concurrency = -2 },
		"negative timeout":        func(c *embedding.Config) { c.QueryTimeout = -time.Second },
		"negative index timeout":  func(c *embedding.Config) { c.IndexTimeout = -time.Second },
		"bad host":                func(c *embedding.Config) { c.Host = "ftp://x" },
	}
	for name, edit := range tests {
		cfg := embedding.DefaultConfig()
		edit(&cfg)
		if _, err := embedding.New(cfg, nil); err == nil {
			t.Errorf("%s: New accepted %+v", name, cfg)
		}
	}
	// The zero Config is the default one; no request is made.
	s, err := embedding.New(embedding.Config{}, nil)
	if err != nil || s.Space().String() != "nomic-embed-text/768" {
		t.Fatalf("New(Config{}) = %v, %v", s, err)
	}
}
