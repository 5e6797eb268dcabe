package model

import (
	"encoding/binary"
	"encoding/json"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/tiny-bert, the small BERT folder the folder tests load")

// tinyDir is a sentence-transformers folder of a small random BERT (8
// hidden, 2 heads, 1 layer, 16 positions, a 20-word vocabulary), CLS
// pooling, written by TestTinyBERTFixture -update: the folder tests of
// this package, embedding and daemon load it.
const tinyDir = "testdata/tiny-bert"

// tinyConfig is its config.json.
var tinyConfig = bertConfig{Hidden: 8, Layers: 1, Heads: 2, Intermediate: 16, MaxPositions: 16, Eps: 1e-12, Act: "gelu", Type: "bert"}

// tinyVocab is its vocabulary, ids by position.
var tinyVocab = []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "a", "dog", "cat", "runs", "sleeps", "in", "park",
	"house", "search", "hybrid", "##s", "fuse", ".", ",", "vector"}

func writeTinyBERT(dir string) error {
	cfg := tinyConfig
	h := cfg.Hidden
	ts := randomBERT(rand.New(rand.NewPCG(7, 8)), cfg, len(tinyVocab), 0.5)
	if err := os.MkdirAll(filepath.Join(dir, "1_Pooling"), 0o755); err != nil {
		return err
	}
	if err := writeSafetensors(filepath.Join(dir, weightsFile), ts); err != nil {
		return err
	}
	vocab := map[string]int{}
	for i, w := range tinyVocab {
		vocab[w] = i
	}
	files := map[string]any{
		configFile: map[string]any{"architectures": []string{"BertModel"}, "model_type": "bert", "hidden_act": "gelu",
			"hidden_size": h, "intermediate_size": cfg.Intermediate, "num_attention_heads": cfg.Heads, "num_hidden_layers": cfg.Layers,
			"max_position_embeddings": cfg.MaxPositions, "vocab_size": len(tinyVocab), "type_vocab_size": 2, "layer_norm_eps": cfg.Eps},
		tokenizerFile: map[string]any{"normalizer": map[string]any{"type": "BertNormalizer", "lowercase": true},
			"model": map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "vocab": vocab}},
		modulesFile: []map[string]any{
			{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
			{"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
			{"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
		},
		"1_Pooling/config.json": map[string]any{"word_embedding_dimension": h, "pooling_mode_cls_token": true,
			"pooling_mode_mean_tokens": false, "pooling_mode_max_tokens": false, "pooling_mode_mean_sqrt_len_tokens": false},
		stConfigFile: map[string]any{"max_seq_length": 12, "do_lower_case": false},
	}
	for name, v := range files {
		b, err := json.MarshalIndent(v, "", " ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeSafetensors writes ts as a safetensors file, names sorted.
func writeSafetensors(path string, ts map[string]tensor) error {
	var names []string
	for n := range ts {
		names = append(names, n)
	}
	slices.Sort(names)
	header := map[string]any{"__metadata__": map[string]string{"format": "pt"}}
	off := 0
	for _, n := range names {
		size := 4 * len(ts[n].data)
		header[n] = map[string]any{"dtype": "F32", "shape": ts[n].shape, "data_offsets": []int{off, off + size}}
		off += size
	}
	hb, err := json.Marshal(header)
	if err != nil {
		return err
	}
	buf := binary.LittleEndian.AppendUint64(nil, uint64(len(hb)))
	buf = append(buf, hb...)
	for _, n := range names {
		for _, v := range ts[n].data {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
		}
	}
	return os.WriteFile(path, buf, 0o644)
}

// TestTinyBERTFixture rewrites testdata/tiny-bert with -update, and
// checks that the committed one is what writeTinyBERT writes.
func TestTinyBERTFixture(t *testing.T) {
	if *update {
		if err := os.RemoveAll(tinyDir); err != nil {
			t.Fatal(err)
		}
		if err := writeTinyBERT(tinyDir); err != nil {
			t.Fatal(err)
		}
	}
	fresh := t.TempDir()
	if err := writeTinyBERT(fresh); err != nil {
		t.Fatal(err)
	}
	a, err := ReadFolder(tinyDir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadFolder(fresh)
	if err != nil {
		t.Fatal(err)
	}
	ia, _ := a.Identity("tiny")
	ib, _ := b.Identity("tiny")
	if ia != ib {
		t.Errorf("testdata/tiny-bert is %s, writeTinyBERT writes %s: run go test -run TestTinyBERTFixture -update", ia, ib)
	}
}
