package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// BEIRRepo describes a repository made by WriteBEIRRepo.
type BEIRRepo struct {
	Dir    string
	Commit string
	// Docs counts the documents written; Bytes their markdown bytes.
	Docs  int
	Bytes int64
}

// beirSignature is the fixed author of WriteBEIRRepo's commit, so that the
// same corpus always gives the same commit hash.
var beirSignature = object.Signature{Name: "ragd eval", Email: "eval@ragd.invalid", When: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}

// WriteBEIRRepo turns a BEIR corpus into a git repository ragd can index,
// for evaluations and benchmarks. corpus holds JSON lines
// {"_id", "title", "text"} (other fields ignored), gzip-compressed or not.
// Each document becomes BEIRPath(id), holding "# title\n\ntext\n" ("text\n"
// when the title is blank), in a new repository at dir (created; it must
// not exist or be empty), committed on branch main in one commit with a
// fixed author and time. A later search hit cites the path, and
// BEIRDocID gives back the document id that relevance judgments name.
func WriteBEIRRepo(ctx context.Context, corpus io.Reader, dir string) (BEIRRepo, error) {
	out := BEIRRepo{Dir: dir}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return out, fmt.Errorf("write BEIR repository: %s is not empty", dir)
	}
	r, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")},
	})
	if err != nil {
		return out, fmt.Errorf("write BEIR repository: init %s: %w", dir, err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
		return out, fmt.Errorf("write BEIR repository: %w", err)
	}

	in, closeIn, err := gunzipped(corpus)
	if err != nil {
		return out, fmt.Errorf("write BEIR repository: corpus: %w", err)
	}
	defer closeIn()
	dec := json.NewDecoder(in)
	seen := map[string]bool{}
	for {
		var d struct {
			ID    string `json:"_id"`
			Title string `json:"title"`
			Text  string `json:"text"`
		}
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return out, fmt.Errorf("write BEIR repository: corpus document %d: %w", out.Docs+1, err)
		}
		if out.Docs%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return out, fmt.Errorf("write BEIR repository: %w", err)
			}
		}
		if d.ID == "" || seen[d.ID] {
			return out, fmt.Errorf("write BEIR repository: corpus document %d: empty or repeated _id %q", out.Docs+1, d.ID)
		}
		seen[d.ID] = true
		body := d.Text + "\n"
		if strings.TrimSpace(d.Title) != "" {
			body = "# " + d.Title + "\n\n" + body
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(BEIRPath(d.ID))), []byte(body), 0o644); err != nil {
			return out, fmt.Errorf("write BEIR repository: %w", err)
		}
		out.Docs++
		out.Bytes += int64(len(body))
	}
	if out.Docs == 0 {
		return out, errors.New("write BEIR repository: the corpus has no document")
	}

	wt, err := r.Worktree()
	if err != nil {
		return out, fmt.Errorf("write BEIR repository: %w", err)
	}
	// One add of the directory: go-git computes the status once, where a
	// per-file add would rewrite the index for every file.
	if err := wt.AddWithOptions(&git.AddOptions{Path: "docs"}); err != nil {
		return out, fmt.Errorf("write BEIR repository: add docs: %w", err)
	}
	sig := beirSignature
	h, err := wt.Commit(fmt.Sprintf("BEIR corpus: %d documents", out.Docs), &git.CommitOptions{Author: &sig, Committer: &sig})
	if err != nil {
		return out, fmt.Errorf("write BEIR repository: commit: %w", err)
	}
	out.Commit = h.String()
	return out, nil
}

// BEIRPath returns the repository path of BEIR document id: docs/<id>.md,
// with every byte of id other than ASCII letters, digits, '-', '_' and a
// '.' that does not start it written %XX, so that any id is one safe file
// name.
func BEIRPath(id string) string {
	var b strings.Builder
	b.WriteString("docs/")
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' && i > 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	b.WriteString(".md")
	return b.String()
}

// BEIRDocID returns the document id of a path made by BEIRPath, and false
// for any other path.
func BEIRDocID(path string) (string, bool) {
	name, ok := strings.CutPrefix(path, "docs/")
	if !ok {
		return "", false
	}
	if name, ok = strings.CutSuffix(name, ".md"); !ok || name == "" || strings.Contains(name, "/") {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		if name[i] != '%' {
			b.WriteByte(name[i])
			continue
		}
		var c byte
		if i+2 >= len(name) || !unhex(name[i+1], &c, 16) || !unhex(name[i+2], &c, 1) {
			return "", false
		}
		b.WriteByte(c)
		i += 2
	}
	id := b.String()
	return id, BEIRPath(id) == path
}

// unhex adds the value of hex digit h, times scale, to c.
func unhex(h byte, c *byte, scale byte) bool {
	switch {
	case h >= '0' && h <= '9':
		*c += (h - '0') * scale
	case h >= 'A' && h <= 'F':
		*c += (h - 'A' + 10) * scale
	default:
		return false
	}
	return true
}
