package model

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Pooling is how a text's vector is taken from its token states, as
// sentence-transformers' Pooling module takes it.
type Pooling string

// The poolings the forward pass runs.
const (
	// PoolMean averages the token states (all-MiniLM-L6-v2, e5).
	PoolMean Pooling = "mean"
	// PoolCLS takes the [CLS] token's state (bge).
	PoolCLS Pooling = "cls"
)

// The files of a sentence-transformers model folder.
const (
	configFile    = "config.json"
	weightsFile   = "model.safetensors"
	tokenizerFile = "tokenizer.json"
	modulesFile   = "modules.json"
	stConfigFile  = "sentence_bert_config.json"
	// poolingConfig is the Pooling module's config under its folder
	// (1_Pooling in every sentence-transformers export).
	poolingConfig = "config.json"
	// defaultPoolingDir is where the Pooling module sits when the folder
	// has no modules.json to say so.
	defaultPoolingDir = "1_Pooling"
)

// Folder is a local sentence-transformers BERT model folder, its settings
// read and checked (the weights are read by LoadFolder): config.json
// (a BertModel), model.safetensors, tokenizer.json (BERT WordPiece), and
// optionally modules.json, the Pooling module's config (mean or CLS),
// sentence_bert_config.json (max_seq_length) and a Normalize module. It is
// not pinned: its identity is a digest of its files (Folder.Identity).
type Folder struct {
	// Dir is the folder.
	Dir string
	// Dims is the vector length (the encoder's hidden size).
	Dims int
	// MaxTokens is the input limit: max_seq_length, else the model's
	// positions.
	MaxTokens int
	// Pooling is the Pooling module's mode (PoolMean without one).
	Pooling Pooling
	// Files are the folder's files this model is made of, relative to
	// Dir: those its identity digests.
	Files []string
}

// ReadFolder reads and checks the settings of the model folder dir, and
// the header of its weights against them (their shapes: a checkpoint of
// another model refused before it is loaded). Every error names the file
// at fault.
func ReadFolder(dir string) (Folder, error) {
	f := Folder{Dir: dir, Pooling: PoolMean}
	st, err := os.Stat(dir)
	if err != nil {
		return f, fmt.Errorf("model folder: %w", err)
	}
	if !st.IsDir() {
		return f, fmt.Errorf("model folder %s: not a folder", dir)
	}
	var cfg bertConfig
	if err := readJSON(filepath.Join(dir, configFile), &cfg); err != nil {
		return f, err
	}
	if err := cfg.check(); err != nil {
		return f, fmt.Errorf("model file %s: %w", filepath.Join(dir, configFile), err)
	}
	f.Dims, f.MaxTokens = cfg.Hidden, cfg.MaxPositions
	f.Files = []string{configFile, weightsFile, tokenizerFile}
	if err := checkWeightsHeader(filepath.Join(dir, weightsFile), cfg); err != nil {
		return f, err
	}
	if _, err := os.Stat(filepath.Join(dir, tokenizerFile)); err != nil {
		return f, fmt.Errorf("model folder %s: tokenizer: %w", dir, err)
	}
	poolDir := defaultPoolingDir
	var mods []struct {
		Path string `json:"path"`
		Type string `json:"type"`
	}
	switch err := readJSON(filepath.Join(dir, modulesFile), &mods); {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return f, err
	default:
		f.Files = append(f.Files, modulesFile)
		poolDir = ""
		for i, m := range mods {
			kind := m.Type[strings.LastIndex(m.Type, ".")+1:]
			switch {
			case kind == "Transformer" && i == 0:
			case kind == "Pooling" && i == 1:
				poolDir = m.Path
			case kind == "Normalize" && i == 2:
				// ragd's vectors are unit vectors whether or not the
				// model normalizes: cosine is the same either way.
			default:
				return f, fmt.Errorf("model file %s: module %d is %q: ragd runs a Transformer, then a Pooling and optionally a Normalize module", filepath.Join(dir, modulesFile), i, m.Type)
			}
		}
	}
	if poolDir != "" {
		p := filepath.Join(poolDir, poolingConfig)
		var pc map[string]any
		switch err := readJSON(filepath.Join(dir, p), &pc); {
		case errors.Is(err, os.ErrNotExist) && len(mods) == 0:
			// No sentence-transformers files: mean pooling, its default.
		case err != nil:
			return f, err
		default:
			if f.Pooling, err = poolingOf(pc); err != nil {
				return f, fmt.Errorf("model file %s: %w", filepath.Join(dir, p), err)
			}
			f.Files = append(f.Files, p)
		}
	} else if len(mods) > 0 {
		return f, fmt.Errorf("model file %s: no Pooling module", filepath.Join(dir, modulesFile))
	}
	var stc struct {
		MaxSeqLength *int `json:"max_seq_length"`
	}
	switch err := readJSON(filepath.Join(dir, stConfigFile), &stc); {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return f, err
	default:
		f.Files = append(f.Files, stConfigFile)
		if stc.MaxSeqLength != nil {
			if *stc.MaxSeqLength < minTokens {
				return f, fmt.Errorf("model file %s: max_seq_length %d: want at least %d", filepath.Join(dir, stConfigFile), *stc.MaxSeqLength, minTokens)
			}
			f.MaxTokens = min(*stc.MaxSeqLength, cfg.MaxPositions)
		}
	}
	return f, nil
}

// minTokens is the least input limit that holds a word: [CLS], one token
// and [SEP].
const minTokens = 3

// poolingOf returns the one pooling mode a sentence-transformers Pooling
// config turns on: mean or CLS; any other is refused (ragd does not run
// it, and its vectors would not be the model's).
func poolingOf(pc map[string]any) (Pooling, error) {
	if mode, ok := pc["pooling_mode"].(string); ok {
		switch Pooling(mode) {
		case PoolMean, PoolCLS:
			return Pooling(mode), nil
		}
		return "", fmt.Errorf("pooling_mode %q: ragd runs mean or cls pooling", mode)
	}
	var on []string
	for k, v := range pc {
		if b, ok := v.(bool); ok && b && strings.HasPrefix(k, "pooling_mode_") {
			on = append(on, k)
		}
	}
	switch {
	case len(on) == 1 && on[0] == "pooling_mode_mean_tokens":
		return PoolMean, nil
	case len(on) == 1 && on[0] == "pooling_mode_cls_token":
		return PoolCLS, nil
	case len(on) == 0:
		return "", errors.New("no pooling mode on: want pooling_mode_mean_tokens or pooling_mode_cls_token")
	}
	return "", fmt.Errorf("pooling %v: ragd runs one of pooling_mode_mean_tokens, pooling_mode_cls_token", on)
}

// check refuses a config the forward pass does not run.
func (c bertConfig) check() error {
	if c.Type != "bert" || c.Act != "gelu" || c.Hidden <= 0 || c.Heads <= 0 || c.Hidden%c.Heads != 0 ||
		c.Layers <= 0 || c.Intermediate <= 0 || c.MaxPositions < minTokens {
		return fmt.Errorf("model_type %q, hidden_act %q, %d hidden in %d heads, %d layers, %d intermediate, %d positions: want a BERT encoder (model_type \"bert\") with gelu",
			c.Type, c.Act, c.Hidden, c.Heads, c.Layers, c.Intermediate, c.MaxPositions)
	}
	return nil
}

// checkWeightsHeader reads the header of the safetensors file at path and
// checks the embedding tensors' shapes against cfg.
func checkWeightsHeader(path string, cfg bertConfig) error {
	r, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("model weights: %w", err)
	}
	defer r.Close()
	var n uint64
	if err := binary.Read(r, binary.LittleEndian, &n); err != nil || n > maxHeader {
		return fmt.Errorf("model weights %s: not a safetensors file", path)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return fmt.Errorf("model weights %s: header: %w", path, err)
	}
	var header map[string]struct {
		Dtype string `json:"dtype"`
		Shape []int  `json:"shape"`
	}
	if err := json.Unmarshal(b, &header); err != nil {
		return fmt.Errorf("model weights %s: header: %w", path, err)
	}
	for _, want := range []struct {
		name  string
		shape []int
	}{
		{"embeddings.position_embeddings.weight", []int{cfg.MaxPositions, cfg.Hidden}},
		{"embeddings.word_embeddings.weight", []int{-1, cfg.Hidden}},
		{fmt.Sprintf("encoder.layer.%d.output.dense.weight", cfg.Layers-1), []int{cfg.Hidden, cfg.Intermediate}},
	} {
		t, ok := header[want.name]
		if !ok {
			t, ok = header["bert."+want.name]
		}
		if !ok {
			return fmt.Errorf("model weights %s: no tensor %s: not the BERT encoder config.json describes", path, want.name)
		}
		if t.Dtype != "F32" {
			return fmt.Errorf("model weights %s: tensor %s is %s: ragd runs float32 weights", path, want.name, t.Dtype)
		}
		if len(t.Shape) != len(want.shape) || t.Shape[1] != want.shape[1] || (want.shape[0] >= 0 && t.Shape[0] != want.shape[0]) {
			return fmt.Errorf("model weights %s: tensor %s has shape %v, config.json says %v", path, want.name, t.Shape, want.shape)
		}
	}
	return nil
}

// FolderRevision stands for the revision in a folder model's identity:
// its files are not pinned.
const FolderRevision = "folder"

// Identity returns the identity of the model named name in f, e.g.
// "bge-small-en-v1.5@folder+1a2b3c4d5e6f": the name, then a digest of the
// files' names, lengths and SHA-256 (see Spec.Identity). Another folder's
// files, or the same files under another name (whose task prefixes may
// differ), are another embedding space. The digest is computed once per
// state of the files (their lengths and modification times).
func (f Folder) Identity(name string) (string, error) {
	digest, err := folderDigest(f)
	if err != nil {
		return "", err
	}
	return name + "@" + FolderRevision + "+" + digest, nil
}

// digests caches folderDigest by the files' paths, lengths and times.
var digests sync.Map

func folderDigest(f Folder) (string, error) {
	var key strings.Builder
	for _, rel := range f.Files {
		st, err := os.Stat(filepath.Join(f.Dir, rel))
		if err != nil {
			return "", fmt.Errorf("model folder %s: %w", f.Dir, err)
		}
		fmt.Fprintf(&key, "%s\x00%d\x00%d\n", filepath.Join(f.Dir, rel), st.Size(), st.ModTime().UnixNano())
	}
	if d, ok := digests.Load(key.String()); ok {
		return d.(string), nil
	}
	h := sha256.New()
	for _, rel := range f.Files {
		sum, n, err := fileSHA256(filepath.Join(f.Dir, rel))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d %s\n", filepath.ToSlash(rel), n, sum)
	}
	d := hex.EncodeToString(h.Sum(nil))[:identityHex]
	digests.Store(key.String(), d)
	return d, nil
}

func fileSHA256(p string) (string, int64, error) {
	r, err := os.Open(p)
	if err != nil {
		return "", 0, fmt.Errorf("model file: %w", err)
	}
	defer r.Close()
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return "", 0, fmt.Errorf("model file %s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// LoadFolder loads the model of f (see ReadFolder), with its pooling and
// input limit.
func LoadFolder(f Folder) (*Model, error) {
	return loadFolder(f, bestKernel)
}

func loadFolder(f Folder, kern kernel) (*Model, error) {
	m, err := load(f.Dir, kern)
	if err != nil {
		return nil, err
	}
	if m.Dims() != f.Dims {
		return nil, fmt.Errorf("model folder %s: %d dimensions, config.json said %d when read", f.Dir, m.Dims(), f.Dims)
	}
	m.maxTokens, m.pooling = f.MaxTokens, f.Pooling
	return m, nil
}
