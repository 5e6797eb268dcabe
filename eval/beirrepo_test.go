package eval

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/internal/testdb/sqlitedb"
)

const beirCorpus = `{"_id": "4983", "title": "Microstructural development", "text": "Alterations of the architecture.", "metadata": {}}
{"_id": "a/b c", "title": "", "text": "An id with a slash and a space."}
{"_id": ".hidden", "title": "Dot", "text": "Leading dot."}
`

func TestWriteBEIRRepo(t *testing.T) {
	ctx := context.Background()
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(beirCorpus))
	w.Close()

	for name, corpus := range map[string][]byte{"plain": []byte(beirCorpus), "gzip": gz.Bytes()} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "repo")
			repo, err := WriteBEIRRepo(ctx, bytes.NewReader(corpus), dir)
			if err != nil {
				t.Fatal(err)
			}
			if repo.Docs != 3 || repo.Commit == "" || repo.Bytes == 0 {
				t.Fatalf("repo: %+v", repo)
			}
			body, err := os.ReadFile(filepath.Join(dir, "docs", "4983.md"))
			if err != nil || string(body) != "# Microstructural development\n\nAlterations of the architecture.\n" {
				t.Errorf("4983.md: %q, %v", body, err)
			}
			if body, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(BEIRPath("a/b c")))); string(body) != "An id with a slash and a space.\n" {
				t.Errorf("untitled document: %q", body)
			}

			s := sqlitedb.OpenDims(t, testDims)
			p, err := s.AddProject(ctx, "beir", dir)
			if err != nil {
				t.Fatal(err)
			}
			ix := &index.Indexer{Store: s, Logger: quiet}
			rep, err := ix.Reindex(ctx, p, []string{ragd.ScopeDocs}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if sr := rep.Scopes[0]; sr.Files != 3 || sr.Commit != repo.Commit || sr.Bytes != repo.Bytes {
				t.Errorf("indexed: %+v", sr)
			}
			cs, err := s.ScopeChunks(ctx, p.ID, ragd.ScopeDocs)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cs {
				if id, ok := BEIRDocID(c.SourcePath); !ok || !strings.Contains(beirCorpus, `"_id": "`+id+`"`) {
					t.Errorf("chunk path %s: id %q, %v", c.SourcePath, id, ok)
				}
			}
		})
	}

	// The same corpus gives the same commit.
	a, _ := WriteBEIRRepo(ctx, strings.NewReader(beirCorpus), filepath.Join(t.TempDir(), "a"))
	b, _ := WriteBEIRRepo(ctx, strings.NewReader(beirCorpus), filepath.Join(t.TempDir(), "b"))
	if a.Commit != b.Commit {
		t.Errorf("commits differ: %s, %s", a.Commit, b.Commit)
	}
	for name, bad := range map[string]string{
		"empty":     "",
		"repeat id": `{"_id":"1","text":"a"}` + "\n" + `{"_id":"1","text":"b"}`,
		"no id":     `{"title":"x","text":"y"}`,
		"not json":  "{nope",
	} {
		if _, err := WriteBEIRRepo(ctx, strings.NewReader(bad), filepath.Join(t.TempDir(), "x")); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "keep.txt"), []byte("x"), 0o644)
	if _, err := WriteBEIRRepo(ctx, strings.NewReader(beirCorpus), full); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("a directory with files in it: err = %v", err)
	}
}

func TestBEIRPathRoundTrip(t *testing.T) {
	for _, id := range []string{"4983", "a/b c", ".hidden", "..", "x.y", "ünï", "100%", "MED-10"} {
		p := BEIRPath(id)
		if strings.Count(p, "/") != 1 || path.Clean(p) != p || strings.HasPrefix(path.Base(p), ".") {
			t.Errorf("BEIRPath(%q) = %q: not one safe name", id, p)
		}
		if got, ok := BEIRDocID(p); !ok || got != id {
			t.Errorf("BEIRDocID(%q) = %q, %v; want %q", p, got, ok, id)
		}
	}
	for _, p := range []string{"docs/x.txt", "other/x.md", "docs/a/b.md", "docs/%zz.md", "docs/%2.md", "docs/.md", "docs/%61.md"} {
		if id, ok := BEIRDocID(p); ok {
			t.Errorf("BEIRDocID(%q) = %q, true", p, id)
		}
	}
}
