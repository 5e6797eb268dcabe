package model_test

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragd/ragd/internal/vectest"
	"github.com/ragd/ragd/model"
)

// tinyBERT is a small random BERT in sentence-transformers' layout, CLS
// pooling, 12-token limit (see folder_internal_test.go).
const tinyBERT = "testdata/tiny-bert"

// copyTiny copies the tiny BERT folder into a temporary folder, for a test
// to alter.
func copyTiny(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(tinyBERT, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(tinyBERT, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadFolderTakesSentenceTransformersSettings(t *testing.T) {
	f, err := model.ReadFolder(tinyBERT)
	if err != nil {
		t.Fatal(err)
	}
	if f.Dims != 8 || f.MaxTokens != 12 || f.Pooling != model.PoolCLS {
		t.Errorf("folder: %d dims, %d tokens, %s pooling; want 8, 12 (max_seq_length), cls", f.Dims, f.MaxTokens, f.Pooling)
	}
	want := []string{"config.json", "model.safetensors", "tokenizer.json", "modules.json", "1_Pooling/config.json", "sentence_bert_config.json"}
	if !slices.Equal(f.Files, want) {
		t.Errorf("files %v, want %v", f.Files, want)
	}
	m, err := model.LoadFolder(f)
	if err != nil {
		t.Fatal(err)
	}
	if m.Dims() != 8 || m.MaxTokens() != 12 || m.Pooling() != model.PoolCLS {
		t.Errorf("model: %d dims, %d tokens, %s pooling", m.Dims(), m.MaxTokens(), m.Pooling())
	}
	cls := m.Embed("the dog runs in the park", 1)
	if math.Abs(vectest.Norm(cls)-1) > 1e-5 {
		t.Errorf("norm %v, want a unit vector", vectest.Norm(cls))
	}

	// The same weights mean-pooled (no sentence-transformers files: the
	// default) give the vector Load gives, and another than CLS's.
	dir := copyTiny(t)
	for _, name := range []string{"modules.json", "1_Pooling/config.json", "sentence_bert_config.json"} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	f2, err := model.ReadFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f2.Pooling != model.PoolMean || f2.MaxTokens != 16 || len(f2.Files) != 3 {
		t.Errorf("bare folder: %s pooling, %d tokens, files %v; want mean, the 16 positions, 3 files", f2.Pooling, f2.MaxTokens, f2.Files)
	}
	mean, err := model.LoadFolder(f2)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := model.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, b := mean.Embed("the dog runs in the park", 1), plain.Embed("the dog runs in the park", 1)
	if !slices.Equal(a, b) {
		t.Errorf("mean pooling of LoadFolder %v, of Load %v", a[:3], b[:3])
	}
	var d float64
	for i := range a {
		d += float64(a[i]) * float64(cls[i])
	}
	if d > 0.9999 {
		t.Errorf("mean and CLS pooling give the same vector (cosine %v)", d)
	}
}

func TestFolderIdentity(t *testing.T) {
	id := func(dir, name string) string {
		t.Helper()
		f, err := model.ReadFolder(dir)
		if err != nil {
			t.Fatal(err)
		}
		s, err := f.Identity(name)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := id(tinyBERT, "tiny")
	if !strings.HasPrefix(base, "tiny@folder+") || len(base) != len("tiny@folder+")+12 {
		t.Errorf("identity %q, want tiny@folder+ and 12 hex digits", base)
	}
	dir := copyTiny(t)
	if got := id(dir, "tiny"); got != base {
		t.Errorf("a copy of the folder: %q, want %q (the files, not where they are)", got, base)
	}
	if got := id(dir, "other"); got == base || !strings.HasPrefix(got, "other@folder+") {
		t.Errorf("another name: %q", got)
	}
	// One file changed: another space, even with its old length.
	b, _ := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
	write(t, filepath.Join(dir, "tokenizer.json"), strings.Replace(string(b), `"dog"`, `"dgo"`, 1))
	if got := id(dir, "tiny"); got == base {
		t.Errorf("a changed tokenizer.json kept the identity %q", got)
	}
}

// TestReadFolderErrorsNameTheFile: a folder ragd cannot run is refused,
// naming the file at fault and what is wrong.
func TestReadFolderErrorsNameTheFile(t *testing.T) {
	for _, c := range []struct {
		name   string
		alter  func(dir string)
		want   []string
		atLoad bool
	}{
		{"no folder", func(dir string) { os.RemoveAll(dir) }, []string{"model folder", "no such file"}, false},
		{"not BERT", func(dir string) {
			write(t, filepath.Join(dir, "config.json"), `{"model_type":"roberta","hidden_act":"gelu","hidden_size":8,"num_attention_heads":2,"num_hidden_layers":1,"intermediate_size":16,"max_position_embeddings":16}`)
		}, []string{"config.json", `model_type "roberta"`}, false},
		{"bad JSON", func(dir string) { write(t, filepath.Join(dir, "config.json"), `{"model_type":`) }, []string{"config.json"}, false},
		{"wrong shapes", func(dir string) {
			write(t, filepath.Join(dir, "config.json"), `{"model_type":"bert","hidden_act":"gelu","hidden_size":16,"num_attention_heads":2,"num_hidden_layers":1,"intermediate_size":16,"max_position_embeddings":16}`)
		}, []string{"model.safetensors", "shape [16 8]", "config.json says [16 16]"}, false},
		{"more layers than the weights", func(dir string) {
			write(t, filepath.Join(dir, "config.json"), `{"model_type":"bert","hidden_act":"gelu","hidden_size":8,"num_attention_heads":2,"num_hidden_layers":3,"intermediate_size":16,"max_position_embeddings":16}`)
		}, []string{"model.safetensors", "encoder.layer.2"}, false},
		{"no weights", func(dir string) { os.Remove(filepath.Join(dir, "model.safetensors")) }, []string{"model.safetensors"}, false},
		{"not safetensors", func(dir string) { write(t, filepath.Join(dir, "model.safetensors"), "PK\x03\x04 a zip") }, []string{"model.safetensors", "not a safetensors file"}, false},
		{"no tokenizer", func(dir string) { os.Remove(filepath.Join(dir, "tokenizer.json")) }, []string{"tokenizer.json"}, false},
		{"not WordPiece", func(dir string) {
			write(t, filepath.Join(dir, "tokenizer.json"), `{"normalizer":null,"model":{"type":"BPE","vocab":{}}}`)
		}, []string{"tokenizer.json", `"BPE"`}, true},
		{"unknown pooling", func(dir string) {
			write(t, filepath.Join(dir, "1_Pooling", "config.json"), `{"pooling_mode_cls_token":false,"pooling_mode_mean_tokens":false,"pooling_mode_max_tokens":true}`)
		}, []string{filepath.Join("1_Pooling", "config.json"), "pooling_mode_max_tokens"}, false},
		{"no pooling on", func(dir string) { write(t, filepath.Join(dir, "1_Pooling", "config.json"), `{}`) }, []string{"1_Pooling", "no pooling mode"}, false},
		{"pooling config missing", func(dir string) { os.Remove(filepath.Join(dir, "1_Pooling", "config.json")) }, []string{filepath.Join("1_Pooling", "config.json")}, false},
		{"a Dense module", func(dir string) {
			write(t, filepath.Join(dir, "modules.json"), `[{"path":"","type":"sentence_transformers.models.Transformer"},{"path":"1_Pooling","type":"sentence_transformers.models.Pooling"},{"path":"2_Dense","type":"sentence_transformers.models.Dense"}]`)
		}, []string{"modules.json", "Dense"}, false},
		{"max_seq_length too small", func(dir string) { write(t, filepath.Join(dir, "sentence_bert_config.json"), `{"max_seq_length":1}`) }, []string{"sentence_bert_config.json", "max_seq_length 1"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyTiny(t)
			c.alter(dir)
			f, err := model.ReadFolder(dir)
			if c.atLoad {
				if err != nil {
					t.Fatalf("ReadFolder: %v (the check is LoadFolder's)", err)
				}
				_, err = model.LoadFolder(f)
			}
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// Tokens counts what Encode makes of a text before any cut.
func TestTokenizerTokens(t *testing.T) {
	tok, err := model.LoadTokenizer(model.TokenizerFile("testdata/tiny-bert"))
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"", "the dog runs in the park", strings.Repeat("dog ", 40), strings.Repeat("a", 150), "Le café est très bon — naïve résumé!"} {
		if got, want := tok.Tokens(text), len(tok.Encode(text, 1<<20)); got != want {
			t.Errorf("Tokens(%q) = %d, Encode made %d", text, got, want)
		}
	}
}
