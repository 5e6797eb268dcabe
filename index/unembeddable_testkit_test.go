//go:build testkit

package index_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/internal/gittest"
	"github.com/ragd/ragd/internal/testdb"
	"github.com/ragd/ragd/search"
	"github.com/ragd/ragd/store"
)

// TestKitLongTextNoLoop is issue 25's case with the real server: a chunk of
// 1,057 characters of Traditional Chinese that real Ollama 0.17.4 refuses
// with glove-100d even with truncate, when ragd is told a context far past
// the model's (so it cuts nothing). The background fill sends it once and
// marks it: no loop (the requests reaching the server are counted), the
// chunk is found lexically, and coverage says why it has no vector. The
// use-lite shim truncates such a text itself: it then simply gets its
// vector.
func TestKitLongTextNoLoop(t *testing.T) {
	host, model := os.Getenv("OLLAMA_HOST"), os.Getenv("RAGD_TESTKIT_MODEL")
	dims, err := strconv.Atoi(os.Getenv("RAGD_TESTKIT_DIMS"))
	if host == "" || model == "" || err != nil || dims <= 0 {
		t.Fatalf("testkit tier needs OLLAMA_HOST, RAGD_TESTKIT_MODEL and RAGD_TESTKIT_DIMS; got %q, %q, %q",
			host, model, os.Getenv("RAGD_TESTKIT_DIMS"))
	}
	target, err := embedding.ParseHost(host)
	if err != nil {
		t.Fatal(err)
	}
	// A counting proxy in front of the real server.
	var embeds atomic.Int64
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host, Path: target.Path})
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/embed" {
			embeds.Add(1)
		}
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()

	space := embedding.SpaceOf(model, dims).String()
	s, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "ragd.db"), store.Options{Space: space, Dims: dims, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	svc, err := embedding.New(embedding.Config{Host: front.URL, Model: model, Dims: dims, ContextLength: 100000,
		IndexTimeout: 2 * time.Minute, QueryTimeout: 20 * time.Second}, s)
	if err != nil {
		t.Fatal(err)
	}
	h := svc.Health(t.Context())
	if !h.Available {
		t.Fatalf("kit server: %s", h.Reason)
	}
	const sentence = "本系統將專案文件與程式代理的對話記錄建立索引，並以混合檢索回答開發者的問題。資料庫連線字串的設定方式與認證資訊，必須在設定檔中明確指定。"
	zh := []rune(strings.Repeat(sentence, 20))[:1040]
	repo := gittest.New(t)
	repo.Commit(t, "docs", map[string]string{
		"docs/zh.md":    "# ragdzhmarker\n\n" + string(zh) + "\n",
		"docs/short.md": "# Short\n\na dog runs in the park\n",
	})
	p := testdb.AddProject(t, s, "p", repo.Dir)
	ix := newIndexer(s, svc)
	rep := reindex(t, ix, p, ragd.ScopeDocs)
	sr := rep.Scopes[0]
	realOllama := h.Version != "0.0.0-use-lite"
	if !realOllama {
		if !rep.Complete {
			t.Fatalf("use-lite truncates long texts itself; reindex: %s", rep.Summary)
		}
		return
	}
	if sr.Vectors != 1 || sr.LexicalOnly != 1 {
		t.Fatalf("reindex with real Ollama: %d vectors, %d lexical-only; want 1 and 1 (the Chinese chunk refused): %s",
			sr.Vectors, sr.LexicalOnly, sr.Embedding.Reason)
	}
	afterReindex := embeds.Load()
	b := &index.Backfill{Store: s, Embedder: svc, Batch: 8, Logger: quiet}
	for i := range 4 {
		if n, more, err := b.Step(t.Context()); err != nil || n != 0 || more {
			t.Fatalf("fill step %d: %d filled, more %v, err %v", i+1, n, more, err)
		}
	}
	if got := embeds.Load() - afterReindex; got != 1 {
		t.Fatalf("four fill steps sent %d requests to the server, want 1 (then the chunk is marked)", got)
	}
	cov, err := ix.Coverage(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	docs := cov.Scopes[0]
	if len(docs.Unembeddable) != 1 || docs.Unembeddable[0].Chunks != 1 ||
		docs.Unembeddable[0].Reason != "ollama rejected the request: the input length exceeds the context length" {
		t.Fatalf("coverage: %+v", docs)
	}
	t.Logf("coverage: %d chunks never get a vector: %s", docs.Unembeddable[0].Chunks, docs.Unembeddable[0].Reason)
	sch := &search.Searcher{Store: s, Config: search.DefaultConfig(), Logger: quiet}
	res, err := sch.Search(t.Context(), search.Request{ProjectID: p.ID, Query: "ragdzhmarker", Limit: 5})
	if err != nil || len(res.Hits) != 1 || !strings.Contains(res.Hits[0].Content, string(zh[:20])) {
		t.Fatalf("lexical search of the Chinese chunk: %+v, %v", res, err)
	}
}
