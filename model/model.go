package model

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Model is a loaded sentence-embedding model. It is safe for concurrent
// use: its weights are read-only and every call has its own buffers.
type Model struct {
	tok       *Tokenizer
	enc       *bert
	maxTokens int
	pooling   Pooling
}

// LoadSpec verifies s's files in dir against their pins (a tampered or
// partial file is refused) and loads them, with s's input limit.
func LoadSpec(s Spec, dir string) (*Model, error) {
	if err := Verify(s, dir); err != nil {
		return nil, err
	}
	m, err := Load(dir)
	if err != nil {
		return nil, err
	}
	if d := m.Dims(); d != s.Dims {
		return nil, fmt.Errorf("model %s: %d dimensions, its spec says %d", s.Name, d, s.Dims)
	}
	m.maxTokens = min(s.MaxTokens, m.enc.cfg.MaxPositions)
	return m, nil
}

// Load reads the model in dir, unverified: config.json, model.safetensors,
// tokenizer.json, and sentence_bert_config.json for the input limit
// (default the model's positions); it mean-pools (LoadFolder reads the
// folder's pooling).
func Load(dir string) (*Model, error) { return load(dir, bestKernel) }

// load is Load with the kernels kern (at most bestKernel).
func load(dir string, kern kernel) (*Model, error) {
	var cfg bertConfig
	if err := readJSON(filepath.Join(dir, configFile), &cfg); err != nil {
		return nil, err
	}
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("model file %s: %w", filepath.Join(dir, configFile), err)
	}
	ts, err := readSafetensors(filepath.Join(dir, weightsFile))
	if err != nil {
		return nil, err
	}
	enc, err := newBERT(cfg, ts, kern)
	if err != nil {
		return nil, fmt.Errorf("model file %s: %w", filepath.Join(dir, weightsFile), err)
	}
	tok, err := LoadTokenizer(filepath.Join(dir, tokenizerFile))
	if err != nil {
		return nil, err
	}
	m := &Model{tok: tok, enc: enc, maxTokens: cfg.MaxPositions, pooling: PoolMean}
	var st struct {
		MaxSeqLength int `json:"max_seq_length"`
	}
	if err := readJSON(filepath.Join(dir, stConfigFile), &st); err == nil && st.MaxSeqLength > 0 {
		m.maxTokens = min(st.MaxSeqLength, cfg.MaxPositions)
	}
	return m, nil
}

// Kernel names the code the forward pass runs on, the fastest this CPU
// runs: "avx512" or "avx2" (package model's C kernels, with AVX2 and FMA,
// and AVX-512 for the matrix products) or "go" (portable Go and gonum).
func (m *Model) Kernel() string { return m.enc.kern.String() }

// BestKernel names the kernel Load picks on this CPU and build (see
// Model.Kernel).
func BestKernel() string { return bestKernel.String() }

// kernel is a set of forward-pass kernels, by level: each runs where the
// CPU runs the instructions of its level.
type kernel int

// kernelNames are the kernels' names, by level.
var kernelNames = []string{"go", "avx2", "avx512"}

func (k kernel) String() string { return kernelNames[k] }

// Dims returns the length of the model's vectors.
func (m *Model) Dims() int { return m.enc.cfg.Hidden }

// MaxTokens returns the model's input limit in tokens, [CLS] and [SEP]
// included; longer texts are cut to it.
func (m *Model) MaxTokens() int { return m.maxTokens }

// Pooling returns how the model pools its token states.
func (m *Model) Pooling() Pooling { return m.pooling }

// Embed returns text's unit vector, computed with at most threads
// goroutines (at least one).
func (m *Model) Embed(text string, threads int) []float32 {
	return m.enc.embed(m.tok.Encode(text, m.maxTokens), max(threads, 1), m.pooling)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read model file: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("model file %s: %w", path, err)
	}
	return nil
}
