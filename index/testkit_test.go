//go:build testkit

// The testkit tier indexes against a real server speaking Ollama's API (the
// test kit's real Ollama with glove-100d, or its use-lite shim):
//
//	eval "$(../shared/testkit/ollama-real up)"
//	go test -tags sqlite_fts5,testkit -run '^TestKit' ./index/
//
// It fails, rather than skips, when the server is not configured.

package index_test

import (
	"github.com/ragd/ragd/internal/testdb"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/internal/gittest"
	"github.com/ragd/ragd/store"
)

func TestKitReindex(t *testing.T) {
	host, model := os.Getenv("OLLAMA_HOST"), os.Getenv("RAGD_TESTKIT_MODEL")
	dims, err := strconv.Atoi(os.Getenv("RAGD_TESTKIT_DIMS"))
	if host == "" || model == "" || err != nil || dims <= 0 {
		t.Fatalf("testkit tier needs OLLAMA_HOST, RAGD_TESTKIT_MODEL and RAGD_TESTKIT_DIMS "+
			"(eval \"$(../shared/testkit/ollama-real up)\"); got %q, %q, %q", host, model, os.Getenv("RAGD_TESTKIT_DIMS"))
	}
	space := embedding.SpaceOf(model, dims).String()
	s, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "ragd.db"), store.Options{Space: space, Dims: dims, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The kit's servers share two cores with other test binaries: be patient.
	svc, err := embedding.New(embedding.Config{Host: host, Model: model, Dims: dims, IndexTimeout: 2 * time.Minute}, s)
	if err != nil {
		t.Fatal(err)
	}
	repo := gittest.New(t)
	repo.Commit(t, "docs", corpus)
	p := testdb.AddProject(t, s, "p", repo.Dir)
	ix := newIndexer(s, svc)

	first := reindex(t, ix, p, "docs", "adr")
	if !first.Complete {
		t.Fatalf("first index with a real provider: %s", first.Summary)
	}
	for _, c := range chunks(t, s, p, "docs") {
		if c.EmbeddingSpace != space {
			t.Fatalf("chunk %s: space %q, want %q", c.ID, c.EmbeddingSpace, space)
		}
	}
	again := reindex(t, ix, p, "docs", "adr")
	for _, sr := range again.Scopes {
		if sr.Embedding.Calls != 0 || !sr.Unchanged || !sr.Complete {
			t.Errorf("unchanged reindex of %s: %+v", sr.Scope, sr)
		}
	}
}
