//go:build realmodel

package embedding_test

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragd/ragd/embedding"
)

// builtinFolderFloor is the least cosine between a text's vector from
// ragd's own runtime and the reference runtime's: both run the same
// float32 weights, so only the order of float sums differs.
const builtinFolderFloor = 0.9999

// modelFolder returns the checkpoint folder scripts/models.sh hands Ollama
// for model, kept in its cache (`models.sh folder`).
func modelFolder(tb testing.TB, model string) string {
	tb.Helper()
	script, err := filepath.Abs("../scripts/models.sh")
	if err != nil {
		tb.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(tb.Context(), "bash", script, "folder", model)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("models.sh folder %s: %v\n%s", model, err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// builtinFolderService is ragd's built-in provider running the model's
// folder; raw turns its family's task prefixes off.
func builtinFolderService(tb testing.TB, raw bool) *embedding.Service {
	tb.Helper()
	_, model, dims := realModel(tb)
	cfg := embedding.Config{Provider: embedding.ProviderBuiltin, Model: model, Dims: dims, ModelPath: modelFolder(tb, model)}
	return newRealModelService(tb, cfg, raw)
}

// TestRealModelBuiltinFolder: ragd's own runtime (provider "builtin" with
// a local model folder) runs the very folder models.sh converts for
// Ollama, and its vectors are the reference runtime's (onnxruntime on the
// model's published ONNX export): each text's vector at cosine >=
// builtinFolderFloor, so the provenance pairs agree far within
// provenanceTolerance. The model's pooling (CLS for bge, mean for e5 and
// MiniLM) comes from the folder's sentence-transformers files.
func TestRealModelBuiltinFolder(t *testing.T) {
	_, model, dims := realModel(t)
	texts := provenanceTexts()
	// A passage of 142 tokens, within every model's limit: the built-in
	// model reads it whole.
	texts = append(texts, strings.Repeat("Hybrid search fuses the lexical and vector rankings of a chunk. ", 10))
	svc := builtinFolderService(t, true)
	h := svc.Health(t.Context())
	if !h.Available || !strings.HasPrefix(h.Version, model+"@folder+") || h.Dims != dims {
		t.Fatalf("health of the folder model: available %v (%s), version %q, dims %d; want %s@folder+… with %d dims",
			h.Available, h.Reason, h.Version, h.Dims, model, dims)
	}
	got := svc.EmbedDocuments(t.Context(), texts)
	if !got.Available || got.Embedded != len(texts) {
		t.Fatalf("embedding through the built-in provider: %s", got.Reason)
	}
	ref := referenceVectors(t, model, texts)
	worst := 1.0
	for i, s := range texts {
		if len(got.Vectors[i]) != dims {
			t.Fatalf("%.40q: %d dims, want %d", s, len(got.Vectors[i]), dims)
		}
		c := dot(got.Vectors[i], ref[i])
		worst = min(worst, c)
		if c < builtinFolderFloor {
			t.Errorf("%.40q: cosine %.6f between the built-in vector and the reference's, want >= %v", s, c, builtinFolderFloor)
		}
	}
	t.Logf("%s built in (%s): worst cosine with the reference over %d texts: %.6f", model, h.Version, len(texts), worst)
	for _, p := range provenancePairs {
		a, b := slices.Index(texts, p[0]), slices.Index(texts, p[1])
		if built, want := dot(got.Vectors[a], got.Vectors[b]), dot(ref[a], ref[b]); built-want > provenanceTolerance || want-built > provenanceTolerance {
			t.Errorf("%s / %s: cosine %.4f built in, %.4f in the reference runtime", p[0], p[1], built, want)
		}
	}

	// The family's task prefixes apply, by the configured name, as they
	// do through Ollama: a query is embedded as its prefix plus the text.
	q := "how does ragd fuse the two rankings"
	_, prefix := embedding.PrefixesFor(model)
	withPrefix, ok, reason := builtinFolderService(t, false).EmbedQuery(t.Context(), q)
	if !ok {
		t.Fatalf("query: %s", reason)
	}
	plain := svc.EmbedDocuments(t.Context(), []string{prefix + q})
	if !plain.Available {
		t.Fatalf("prefixed text: %s", plain.Reason)
	}
	if c := dot(withPrefix, plain.Vectors[0]); c < 0.99999 {
		t.Errorf("query %q: cosine %.6f with the raw embedding of %q: the family's prefix is not what the built-in provider applies", q, c, prefix+q)
	}
}
