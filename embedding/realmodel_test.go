//go:build realmodel

// The real-model tier: a real retrieval embedding model served by the real
// Ollama (scripts/models.sh), reached through this package as ragd reaches
// it:
//
//	export $(bash scripts/models.sh up all-minilm)
//	go test -tags sqlite_fts5,realmodel -run '^TestRealModel' ./embedding/
//
// It fails, rather than skips, when no model is configured.

package embedding_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ragd/ragd/embedding"
)

// provenanceTolerance is how far the cosine ragd gets through the server
// may be from the reference runtime's on the same weights: Ollama keeps
// the weight matrices in float16.
const provenanceTolerance = 0.01

// sameTextFloor is the least cosine between a text's served vector and its
// reference vector: the same text through the same weights.
const sameTextFloor = 0.99

// provenancePairs are the fixed sentence pairs of the provenance check
// (scripts/models/reference.py checks the same ones against /api/embed).
var provenancePairs = [][2]string{
	{"a dog runs in the park", "a puppy is running outdoors"},
	{"a dog runs in the park", "the stock market fell"},
	{"treatment of breast cancer with chemotherapy", "tumor therapy outcomes in oncology patients"},
	{"treatment of breast cancer with chemotherapy", "the football team won the championship"},
	{"How do I configure the database connection string?", "Setting up DB credentials and host in the config file"},
	{"The new movie is awesome", "The new movie is so great"},
}

// provenanceTexts returns the texts of provenancePairs, each once.
func provenanceTexts() []string {
	var texts []string
	for _, p := range provenancePairs {
		for _, s := range p {
			if !slices.Contains(texts, s) {
				texts = append(texts, s)
			}
		}
	}
	return texts
}

// realModel returns the served model from the environment models.sh up
// prints, or fails.
func realModel(tb testing.TB) (host, model string, dims int) {
	tb.Helper()
	host, model = os.Getenv("OLLAMA_HOST"), os.Getenv("RAGD_MODEL")
	dims, err := strconv.Atoi(os.Getenv("RAGD_DIMS"))
	if host == "" || model == "" || err != nil || dims <= 0 {
		tb.Fatalf("real-model tier needs OLLAMA_HOST, RAGD_MODEL and RAGD_DIMS "+
			"(export $(bash scripts/models.sh up all-minilm)); got %q, %q, %q", host, model, os.Getenv("RAGD_DIMS"))
	}
	return host, model, dims
}

// realModelService is ragd's embedding service for the served model; raw
// turns the model family's task prefixes off, so that the texts reach the
// model exactly as the reference runtime gets them.
func realModelService(tb testing.TB, raw bool) *embedding.Service {
	tb.Helper()
	host, model, dims := realModel(tb)
	cfg := embedding.DefaultConfig()
	cfg.Host, cfg.Model, cfg.Dims = host, model, dims
	return newRealModelService(tb, cfg, raw)
}

// newRealModelService starts the service cfg configures, with the real
// models' timeouts; raw turns the family's task prefixes off.
func newRealModelService(tb testing.TB, cfg embedding.Config, raw bool) *embedding.Service {
	tb.Helper()
	// Two shared cores: a 12-layer model's batch may take seconds.
	cfg.QueryTimeout = time.Minute
	cfg.IndexTimeout = 5 * time.Minute
	if raw {
		none := ""
		cfg.DocumentPrefix, cfg.QueryPrefix = &none, &none
	}
	s, err := embedding.New(cfg, nil)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	return s
}

// referenceVectors runs the reference runtime (onnxruntime on the model's
// ONNX export, installed pinned by scripts/models.sh) on texts.
func referenceVectors(tb testing.TB, model string, texts []string) [][]float32 {
	tb.Helper()
	in, _ := json.Marshal(texts)
	script, err := filepath.Abs("../scripts/models.sh")
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.CommandContext(tb.Context(), "bash", script, "reference", model)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("models.sh reference %s: %v\n%s", model, err, stderr.String())
	}
	var vecs [][]float32
	if err := json.Unmarshal(out, &vecs); err != nil || len(vecs) != len(texts) {
		tb.Fatalf("models.sh reference %s: %d vectors for %d texts (%v)", model, len(vecs), len(texts), err)
	}
	return vecs
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// TestRealModelProvenance: the vectors ragd gets through the server are
// the model's. For fixed sentence pairs, the cosine through ragd's
// embedding service equals (within provenanceTolerance) the one the
// reference runtime computes from the model's published ONNX export.
func TestRealModelProvenance(t *testing.T) {
	_, model, dims := realModel(t)
	texts := provenanceTexts()
	got := realModelService(t, true).EmbedDocuments(t.Context(), texts)
	if !got.Available || got.Embedded != len(texts) {
		t.Fatalf("embedding through ragd: %s", got.Reason)
	}
	ref := referenceVectors(t, model, texts)
	at := func(s string) int { return slices.Index(texts, s) }
	for i, s := range texts {
		if len(got.Vectors[i]) != dims {
			t.Fatalf("%q: %d dims, want %d", s, len(got.Vectors[i]), dims)
		}
		if c := dot(got.Vectors[i], ref[i]); c < sameTextFloor {
			t.Errorf("%q: cosine %.4f between ragd's vector and the reference's, want >= %.2f", s, c, sameTextFloor)
		}
	}
	for _, p := range provenancePairs {
		a, b := at(p[0]), at(p[1])
		served, want := dot(got.Vectors[a], got.Vectors[b]), dot(ref[a], ref[b])
		t.Logf("%-6.4f (reference %.4f)  %s / %s", served, want, p[0], p[1])
		if math.Abs(served-want) > provenanceTolerance {
			t.Errorf("%s / %s: cosine %.4f through ragd, %.4f in the reference runtime (tolerance %.2f)",
				p[0], p[1], served, want, provenanceTolerance)
		}
	}
}

// knownExample is sentence-transformers' semantic search example (its
// documentation, computed with all-MiniLM-L6-v2): each query's best
// passage is the one given.
var knownExample = struct {
	corpus []string
	best   map[string]string
}{
	corpus: []string{
		"A man is eating food.",
		"A man is eating a piece of bread.",
		"The girl is carrying a baby.",
		"A man is riding a horse.",
		"A woman is playing violin.",
		"Two men pushed carts through the woods.",
		"A man is riding a white horse on an enclosed ground.",
		"A monkey is playing drums.",
		"A cheetah is running behind its prey.",
	},
	best: map[string]string{
		"A man is eating pasta.":                                  "A man is eating food.",
		"Someone in a gorilla costume is playing a set of drums.": "A monkey is playing drums.",
		"A cheetah chases prey on across a field.":                "A cheetah is running behind its prey.",
	},
}

// TestRealModelKnownRanking: the documented example ranks as documented,
// with queries and passages embedded as ragd embeds them (the model
// family's prefixes included), and the unrelated pairs' cosine is logged:
// the level a real retrieval model's random pairs sit at.
func TestRealModelKnownRanking(t *testing.T) {
	s := realModelService(t, false)
	docs := s.EmbedDocuments(t.Context(), knownExample.corpus)
	if !docs.Available {
		t.Fatalf("embedding the corpus: %s", docs.Reason)
	}
	for q, want := range knownExample.best {
		qv, ok, reason := s.EmbedQuery(t.Context(), q)
		if !ok {
			t.Fatalf("embedding %q: %s", q, reason)
		}
		best, bestScore := -1, -2.0
		for i, d := range docs.Vectors {
			if c := dot(qv, d); c > bestScore {
				best, bestScore = i, c
			}
		}
		if knownExample.corpus[best] != want {
			t.Errorf("%q: best passage %q (%.3f), the documented ranking has %q", q, knownExample.corpus[best], bestScore, want)
		}
	}
	var sum float64
	n := 0
	for i := range docs.Vectors {
		for j := i + 1; j < len(docs.Vectors); j++ {
			sum += dot(docs.Vectors[i], docs.Vectors[j])
			n++
		}
	}
	t.Logf("mean cosine between the %d passages' pairs (mostly unrelated): %.3f", n, sum/float64(n))
}
