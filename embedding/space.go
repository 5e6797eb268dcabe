package embedding

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/ragd/ragd/model"
)

// Space is an embedding space: vectors are comparable only within one.
// Callers record Space.String() with every stored vector.
type Space struct {
	// Model is the model name, lower-cased and without a ":latest" tag, which
	// Ollama treats as the same model (see SpaceOf).
	Model string
	// Dims is the vector length.
	Dims int
}

// SpaceOf returns the space of vectors from model with dims values. Ollama
// matches model names case-insensitively and adds ":latest" to a name
// without a tag, so "Nomic-Embed-Text:latest" and "nomic-embed-text" are one
// space; other tags ("nomic-embed-text:v1.5") stay distinct, as they may be
// other weights.
func SpaceOf(model string, dims int) Space {
	m := strings.ToLower(strings.TrimSpace(model))
	for {
		base, tag, ok := cutTag(m)
		if !ok || tag != "latest" {
			break
		}
		// "m :latest" is "m ": trim what the tag's removal bared, or the
		// space would not survive its own String and ParseSpace.
		m = strings.TrimSpace(base)
	}
	return Space{Model: m, Dims: dims}
}

// SpaceFor returns the space of the vectors a Service configured with cfg
// makes. A document prefix is part of what a stored vector means, so one
// other than the model's known convention (see PrefixesFor) is part of the
// space: "nomic-embed-text#1a2b3c4d/768", the hex the start of the prefix's
// SHA-256. Changing it then changes the space, which the store refuses to
// mix with the vectors it holds. The query prefix is not: no stored vector
// depends on it. The provider is not either: the same model through two
// APIs gives the same vectors (the test kit measures cosine >= 0.999).
//
// The built-in provider's space is its model's identity (name, revision and
// a digest of its files' SHA-256), so other weights re-embed; a local
// model folder's (Config.ModelPath) is its name and a digest of its files.
func SpaceFor(cfg Config) Space {
	if cfg.Provider == ProviderBuiltin {
		cfg = cfg.builtinDefaults()
		id, dims, err := builtinIdentity(cfg)
		if err == nil {
			sp := SpaceOf(id, dims)
			known, _ := PrefixesFor(cfg.Model)
			if cfg.DocumentPrefix != nil && *cfg.DocumentPrefix != known {
				sum := sha256.Sum256([]byte(*cfg.DocumentPrefix))
				sp.Model += "#" + hex.EncodeToString(sum[:4])
			}
			return sp
		}
	}
	name, dims := cfg.Model, cfg.Dims
	if name == "" {
		name = DefaultModel
		if dims == 0 {
			dims = DefaultDims
		}
	}
	sp := SpaceOf(name, dims)
	known, _ := PrefixesFor(name)
	if cfg.DocumentPrefix != nil && *cfg.DocumentPrefix != known {
		sum := sha256.Sum256([]byte(*cfg.DocumentPrefix))
		sp.Model += "#" + hex.EncodeToString(sum[:4])
	}
	return sp
}

// String returns "model/dims", e.g. "nomic-embed-text/768".
func (s Space) String() string {
	return s.Model + "/" + strconv.Itoa(s.Dims)
}

// ParseSpace parses the form written by Space.String. The model part may
// itself contain slashes ("hf.co/org/model:q8/1024").
func ParseSpace(s string) (Space, error) {
	i := strings.LastIndexByte(s, '/')
	if i <= 0 {
		return Space{}, fmt.Errorf("embedding space %q: want model/dims", s)
	}
	dims, err := strconv.Atoi(s[i+1:])
	if err != nil || dims < 1 {
		return Space{}, fmt.Errorf("embedding space %q: invalid dims %q", s, s[i+1:])
	}
	sp := SpaceOf(s[:i], dims)
	if sp.Model == "" {
		return Space{}, fmt.Errorf("embedding space %q: no model name", s)
	}
	return sp, nil
}

// cutTag splits "name:tag" at the tag's colon. A colon before the last slash
// belongs to a registry host's port ("localhost:5000/m"), not to a tag,
// which is how Ollama parses names too.
func cutTag(name string) (base, tag string, ok bool) {
	i := strings.LastIndexByte(name, ':')
	if i < 0 || i < strings.LastIndexByte(name, '/') {
		return name, "", false
	}
	return name[:i], name[i+1:], true
}

// modelFamily returns the part of a model name that selects its prompt
// conventions: lower-cased, without registry, namespace or tag
// ("registry.ollama.ai/library/Nomic-Embed-Text:v1.5" → "nomic-embed-text").
func modelFamily(name string) string {
	base, _, _ := cutTag(strings.ToLower(strings.TrimSpace(name)))
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	return base
}

// builtinIdentity returns the identity and dims of the built-in model cfg
// configures: a pinned model's, or the local folder's (see
// model.Folder.Identity).
func builtinIdentity(cfg Config) (string, int, error) {
	if cfg.ModelPath != "" {
		f, err := model.ReadFolder(cfg.ModelPath)
		if err != nil {
			return "", 0, err
		}
		id, err := f.Identity(cfg.Model)
		return id, f.Dims, err
	}
	spec, err := model.Lookup(cfg.Model)
	if err != nil {
		return "", 0, err
	}
	return spec.Identity(), spec.Dims, nil
}
