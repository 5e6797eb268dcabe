package embedding

import (
	"context"
	"github.com/ragd/ragd/embedding/ollamatest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/model"
)

// installedBuiltin returns a model folder root with the real
// all-MiniLM-L6-v2 installed from RAGD_BUILTIN_MODEL (the built-in tier of
// scripts/test.sh); the test is skipped outside that tier.
func installedBuiltin(t *testing.T) string {
	t.Helper()
	if os.Getenv("RAGD_BUILTIN_TESTS") == "" {
		t.Skip("the built-in model tier runs with RAGD_BUILTIN_TESTS=1 (scripts/test.sh)")
	}
	from := os.Getenv("RAGD_BUILTIN_MODEL")
	if from == "" {
		t.Fatal("RAGD_BUILTIN_TESTS=1 needs RAGD_BUILTIN_MODEL, the model's folder")
	}
	root := t.TempDir()
	if err := model.Install(context.Background(), model.MiniLM, model.MiniLM.Dir(root), from, nil); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestBuiltinNotInstalled(t *testing.T) {
	svc, err := New(Config{Provider: ProviderBuiltin, ModelDir: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := svc.Space().String(); !strings.HasPrefix(got, model.MiniLM.Identity()) || !strings.HasSuffix(got, "/384") {
		t.Errorf("space %q, want the model's identity and 384 dims", got)
	}
	h := svc.Health(context.Background())
	if h.Available || !strings.Contains(h.Reason, "ragd model install") {
		t.Errorf("health of a missing model: available %v, reason %q; want a reason naming `ragd model install`", h.Available, h.Reason)
	}
	vec, ok, reason := svc.EmbedQuery(context.Background(), "a query")
	if ok || vec != nil || !strings.Contains(reason, "not installed") {
		t.Errorf("query with a missing model: %v %v %q", vec != nil, ok, reason)
	}
}

func TestBuiltinConfig(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Provider: ProviderBuiltin, Model: "no-such-model", Dims: 384}, "unknown"},
		{Config{Provider: ProviderBuiltin, Dims: 100}, "Dims 100"},
		{Config{Provider: ProviderBuiltin, Threads: -1}, "Threads"},
	} {
		if _, err := New(c.cfg, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v): %v, want an error with %q", c.cfg, err, c.want)
		}
	}
	// The Ollama default model and dims (as the daemon's defaults fill
	// them) mean the built-in default.
	cfg, err := Config{Provider: ProviderBuiltin, Model: DefaultModel, Dims: DefaultDims, BatchSize: DefaultBatchSize}.withDefaults()
	if err != nil || cfg.Model != model.MiniLM.Name || cfg.Dims != 384 || cfg.BatchSize != BuiltinBatchSize || cfg.Threads != DefaultThreads {
		t.Errorf("builtin defaults: %+v, %v", cfg, err)
	}
	if a, b := SpaceFor(Config{Provider: ProviderBuiltin}), SpaceFor(Config{Model: "all-minilm", Dims: 384}); a == b {
		t.Errorf("the built-in model's space %v is an Ollama model's", a)
	}
}

func TestBuiltinEmbedsAndServesQueriesBesideIndexing(t *testing.T) {
	root := installedBuiltin(t)
	svc, err := New(Config{Provider: ProviderBuiltin, ModelDir: root, QueryTimeout: time.Minute}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h := svc.Health(context.Background()); !h.Available || h.Dims != 384 || h.Version != model.MiniLM.Identity() {
		t.Fatalf("health: %+v", h)
	}
	res := svc.EmbedDocuments(context.Background(), []string{
		"The cat sits on the mat.",
		"A feline rests on a rug.",
		"Quarterly revenue grew by eight percent.",
	})
	if !res.Available || res.Embedded != 3 {
		t.Fatalf("documents: %+v", res)
	}
	near, far := cosine(res.Vectors[0], res.Vectors[1]), cosine(res.Vectors[0], res.Vectors[2])
	if near <= far {
		t.Errorf("cat/feline %.3f <= cat/revenue %.3f: the vectors do not carry meaning", near, far)
	}

	// The indexing share is taken (a reindex in flight): a query still
	// gets its vector, and a document batch waits.
	b := svc.Provider().(*builtin)
	for range cap(b.indexer) {
		b.indexer <- struct{}{}
	}
	vec, ok, reason := svc.EmbedQuery(context.Background(), "where does the cat sit")
	if !ok || vec == nil {
		t.Fatalf("query while indexing holds the CPU share: %q", reason)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Embed(ctx, []string{"waits"}, 384); err == nil {
		t.Errorf("a document batch did not wait for the indexing share")
	}
	for range cap(b.indexer) {
		<-b.indexer
	}

	// Idle: the model unloads, and loads again on the next use.
	if !b.Loaded() {
		t.Fatal("model not loaded after use")
	}
	b.mu.Lock()
	b.used = time.Now().Add(-2 * b.idle)
	b.mu.Unlock()
	b.unloadIfIdle()
	if b.Loaded() {
		t.Fatal("model still loaded after the idle period")
	}
	if _, ok, reason := svc.EmbedQuery(context.Background(), "again"); !ok {
		t.Fatalf("query after unloading: %q", reason)
	}
}

func cosine(a, b []float32) float64 {
	var d float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
	}
	return d
}

// A deadline while the model loads is a busy provider, not a down one.
func TestBuiltinLoadingIsBusy(t *testing.T) {
	root := installedBuiltin(t)
	svc, err := New(Config{Provider: ProviderBuiltin, ModelDir: root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := svc.batch(withQuery(context.Background()), []*job{{sent: "a query"}}, time.Nanosecond)
	if o.reason == "" || !o.busy {
		t.Errorf("a deadline before the model answered: reason %q busy %v, want busy", o.reason, o.busy)
	}
}

// tinyBERT is package model's small BERT folder (sentence-transformers
// layout, CLS pooling, 8 dimensions).
const tinyBERT = "../model/testdata/tiny-bert"

// TestBuiltinFolder: the built-in provider runs a local model folder,
// named after it by default, in a space of the name and its files'
// digest; the family's task prefixes follow the configured name.
func TestBuiltinFolder(t *testing.T) {
	svc, err := New(Config{Provider: ProviderBuiltin, ModelPath: tinyBERT, QueryTimeout: time.Minute}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sp := svc.Space()
	if !strings.HasPrefix(sp.String(), "tiny-bert@folder+") || sp.Dims != 8 {
		t.Errorf("space %v, want tiny-bert@folder+… with 8 dims", sp)
	}
	h := svc.Health(context.Background())
	if !h.Available || h.Version != sp.Model || h.ContextLength != 12 {
		t.Errorf("health: available %v (%s), version %q, context %d; want the space's identity and max_seq_length 12", h.Available, h.Reason, h.Version, h.ContextLength)
	}
	res := svc.EmbedDocuments(context.Background(), []string{"the dog runs in the park", "a cat sleeps"})
	if !res.Available || res.Embedded != 2 || len(res.Vectors[0]) != 8 {
		t.Fatalf("embedding: %+v", res)
	}

	// Named e5-small-v2: E5's query prefix is prepended (the tiny
	// model's 12 tokens hold it; BGE's instruction would fill them).
	none := ""
	named, err := New(Config{Provider: ProviderBuiltin, ModelPath: tinyBERT, Model: "e5-small-v2", Dims: 8, QueryTimeout: time.Minute}, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := New(Config{Provider: ProviderBuiltin, ModelPath: tinyBERT, Model: "e5-small-v2", Dims: 8, QueryPrefix: &none, DocumentPrefix: &none}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := named.Space(), sp; a == b || !strings.HasPrefix(a.Model, "e5-small-v2@folder+") {
		t.Errorf("the folder named e5-small-v2: space %v (unnamed: %v)", a, b)
	}
	q, ok, reason := named.EmbedQuery(context.Background(), "dog park")
	if !ok {
		t.Fatal(reason)
	}
	want := raw.EmbedDocuments(context.Background(), []string{e5QueryPrefix + "dog park"})
	got := raw.EmbedDocuments(context.Background(), []string{"dog park"})
	if !slices.Equal(q, want.Vectors[0]) || slices.Equal(q, got.Vectors[0]) {
		t.Errorf("the query's vector is not the prefixed text's")
	}

	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Provider: ProviderBuiltin, ModelPath: "../model/testdata/nothing-here"}, "model folder"},
		{Config{Provider: ProviderBuiltin, ModelPath: tinyBERT, Model: "x", Dims: 384}, "Dims 384 for the model in " + tinyBERT + ", which has 8"},
	} {
		if _, err := New(c.cfg, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v): %v, want an error with %q", c.cfg, err, c.want)
		}
	}
}

// TestBuiltinTextsCutByTheModel: the built-in model cuts a text to its
// limit with its own tokenizer, so the Service sends it whole rather than
// cut to the estimate (4 characters a token), and counts it cut only when
// the model will cut it.
func TestBuiltinTextsCutByTheModel(t *testing.T) {
	svc, err := New(Config{Provider: ProviderBuiltin, ModelPath: tinyBERT, QueryTimeout: time.Minute}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const limit = 12 // tiny-bert's max_seq_length
	// One word past the tokenizer's longest is one [UNK]: 3 tokens in all,
	// which the estimate takes for 40.
	long := strings.Repeat("a", 150)
	if _, cut := truncateTokens(long, budget(limit)); !cut {
		t.Fatal("the estimate keeps the word whole: this test shows nothing")
	}
	if sent, cut := svc.cut(long, limit); sent != long || cut {
		t.Errorf("a text of 3 tokens: sent %d bytes, cut %v; want it whole, not cut", len(sent), cut)
	}
	many := strings.Repeat("dog ", 40)
	if sent, cut := svc.cut(many, limit); sent != many || !cut {
		t.Errorf("a text of 42 tokens: sent %q, cut %v; want it whole, counted cut (the model cuts it)", sent, cut)
	}
	res := svc.EmbedDocuments(context.Background(), []string{long, many})
	if !res.Available || res.Embedded != 2 || res.Truncated != 1 {
		t.Errorf("embedding both: %d embedded, %d truncated (%s); want 2, 1", res.Embedded, res.Truncated, res.Reason)
	}

	// A provider that does not count tokens gets the text cut to the
	// estimate.
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{"m": 4}})
	est, err := New(Config{Host: srv.URL, Model: "m", Dims: 4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sent, cut := est.cut(long, limit); sent == long || !cut {
		t.Errorf("through Ollama: sent %d bytes, cut %v; want the estimate's cut", len(sent), cut)
	}
}
