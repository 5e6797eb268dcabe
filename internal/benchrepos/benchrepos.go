// Package benchrepos lays out, for tests, the documentation of the real
// repositories in the shared bench folder (shared/bench/repos): each pack
// holds a repository's prose and doc-site configuration files byte for
// byte, and the names of every other file in its tree, which are laid out
// as stub files so that a reader sees the whole tree as upstream has it.
// MANIFEST.json says which files a person would call its prose and which
// of them are decision records.
package benchrepos

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// otherPaths is the pack member listing the tree's other files.
const otherPaths = ".ragd-bench-other-paths"

// stub is the content of a file the pack names without its bytes: not
// text a prose reader would take for documentation.
var stub = []byte("(stub)\n")

// Repo is one manifest entry.
type Repo struct {
	Name  string   `json:"repo"`  // owner+repo
	Group string   `json:"group"` // adr, rfc or none
	Prose []string `json:"prose"`
	ADR   []string `json:"adr"`
	Bytes int64    `json:"bytes"`
}

// Dir is the shared bench repos folder: RAGD_SHARED_DIR/bench/repos, else
// shared/bench/repos beside the project's checkout.
func Dir() string {
	if d := os.Getenv("RAGD_SHARED_DIR"); d != "" {
		return filepath.Join(d, "bench", "repos")
	}
	_, file, _, _ := runtime.Caller(0)
	// internal/benchrepos/benchrepos.go → the checkout's parent.
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "bench", "repos")
}

// Manifest reads MANIFEST.json from dir.
func Manifest(dir string) ([]Repo, error) {
	b, err := os.ReadFile(filepath.Join(dir, "MANIFEST.json"))
	if err != nil {
		return nil, fmt.Errorf("benchrepos: %w (set RAGD_SHARED_DIR to the shared folder)", err)
	}
	var repos []Repo
	if err := json.Unmarshal(b, &repos); err != nil {
		return nil, fmt.Errorf("benchrepos: MANIFEST.json: %w", err)
	}
	return repos, nil
}

// Files reads the pack of repository name from dir: every file of its tree,
// path → content, the ones the pack only names as stubs.
func Files(dir, name string) (map[string][]byte, error) {
	f, err := os.Open(filepath.Join(dir, name+".tar.gz"))
	if err != nil {
		return nil, fmt.Errorf("benchrepos: %w", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("benchrepos: %s: %w", name, err)
	}
	files := map[string][]byte{}
	var others []byte
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("benchrepos: %s: %w", name, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		p := strings.TrimPrefix(h.Name, "./")
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("benchrepos: %s: %s: %w", name, p, err)
		}
		if p == otherPaths {
			others = b
			continue
		}
		files[p] = b
	}
	for _, p := range strings.Split(string(others), "\n") {
		if p = strings.TrimSpace(p); p != "" {
			if _, ok := files[p]; !ok {
				files[p] = stub
			}
		}
	}
	return files, nil
}
