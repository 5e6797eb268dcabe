package index_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/internal/gittest"
	"github.com/ragd/ragd/internal/testdb"
	"github.com/ragd/ragd/search"
)

// tooLongForTheFake is a chunk of about 150 words, past the fake's context
// of 100 tokens (a word each): the case of glove-100d and long Traditional
// Chinese text, which real Ollama 0.17.4 refuses even with truncate.
func tooLongForTheFake() string {
	var b strings.Builder
	b.WriteString("# Overlong\n\n")
	for i := range 150 {
		fmt.Fprintf(&b, "zebra%d ", i)
	}
	return b.String() + "\n"
}

// A text the provider refuses as too long, alone, is marked lexical-only
// for good: the background fill asks for it once, never again (the
// requests are counted), it is found lexically, and coverage says why it
// has no vector. A reindex does not ask again either.
func TestBackfill_TooLongTextIsNotRetriedInALoop(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{testModel: testDims}, ContextLength: 100, RefuseOverlong: true})
	// Told a context far past the server's: nothing is cut before sending,
	// so the server's own refusal is what is tested.
	svc, err := embedding.New(embedding.Config{Host: srv.URL, Model: testModel, Dims: testDims, ContextLength: 100000,
		IndexTimeout: 30 * time.Second}, s)
	if err != nil {
		t.Fatal(err)
	}
	repo := gittest.New(t)
	repo.Commit(t, "docs", map[string]string{"docs/short.md": "# Short\n\nalpha beta gamma\n", "docs/long.md": tooLongForTheFake()})
	p := testdb.AddProject(t, s, "p", repo.Dir)
	ix := newIndexer(s, svc)
	rep := reindex(t, ix, p, ragd.ScopeDocs)
	if sr := rep.Scopes[0]; sr.Vectors != 1 || sr.LexicalOnly != 1 {
		t.Fatalf("reindex: %d vectors, %d lexical-only; want 1 and 1", sr.Vectors, sr.LexicalOnly)
	}
	afterReindex := srv.Calls()

	b := &index.Backfill{Store: s, Embedder: svc, Batch: 8, Logger: quiet}
	n, more, err := b.Step(ctx)
	if err != nil || n != 0 || more {
		t.Fatalf("first step: %d filled, more %v, err %v; want the chunk marked, no error", n, more, err)
	}
	if got := srv.Calls() - afterReindex; got != 1 {
		t.Fatalf("first step: %d requests, want 1", got)
	}
	for i := range 3 {
		if n, more, err := b.Step(ctx); err != nil || n != 0 || more {
			t.Fatalf("step %d: %d filled, more %v, err %v", i+2, n, more, err)
		}
	}
	if got := srv.Calls() - afterReindex; got != 1 {
		t.Fatalf("after four steps: %d requests, want still 1: the text is asked again", got)
	}
	if pr, err := b.Progress(ctx); err != nil || pr.Pending != 0 || pr.LastError != "" {
		t.Fatalf("progress: %+v, %v", pr, err)
	}

	const reason = "ollama rejected the request: the input length exceeds the context length"
	cov, err := ix.Coverage(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	docs := cov.Scopes[0]
	if docs.LexicalOnly != 1 || len(docs.Unembeddable) != 1 || docs.Unembeddable[0] != (ragd.NoVectorReason{Reason: reason, Chunks: 1}) {
		t.Fatalf("coverage of docs: lexical-only %d, unembeddable %+v", docs.LexicalOnly, docs.Unembeddable)
	}

	// Found by its words.
	sch := &search.Searcher{Store: s, Config: search.DefaultConfig(), Logger: quiet}
	res, err := sch.Search(ctx, search.Request{ProjectID: p.ID, Query: "zebra77", Limit: 5})
	if err != nil || len(res.Hits) != 1 || !strings.Contains(res.Hits[0].Content, "zebra77") {
		t.Fatalf("lexical search of the long chunk: %+v, %v", res, err)
	}

	// A new commit that leaves the long file as it is: not asked again.
	repo.Commit(t, "more", map[string]string{"docs/other.md": "# Other\n\ndelta epsilon\n"})
	reindex(t, ix, p, ragd.ScopeDocs)
	asked := 0
	for _, in := range srv.Inputs() {
		for _, text := range in {
			if strings.Contains(text, "zebra77") {
				asked++
			}
		}
	}
	// The first reindex sent it in its batch and then alone (isolated), the
	// fill once more: three times, whatever came after.
	if asked != 3 {
		t.Fatalf("the long text was sent %d times, want 3", asked)
	}
}

// With the limit learned from the server (/api/show), the same text is cut
// to it before sending and gets a vector.
func TestReindex_TextPastTheLearnedLimitIsCut(t *testing.T) {
	s := openStore(t)
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{testModel: testDims}, ContextLength: 100, RefuseOverlong: true})
	svc := service(t, srv.URL, s, testDims)
	repo := gittest.New(t)
	repo.Commit(t, "docs", map[string]string{"docs/long.md": tooLongForTheFake()})
	p := testdb.AddProject(t, s, "p", repo.Dir)
	rep := reindex(t, newIndexer(s, svc), p, ragd.ScopeDocs)
	if sr := rep.Scopes[0]; sr.Vectors != 1 || sr.LexicalOnly != 0 || !sr.Embedding.Available {
		t.Fatalf("reindex: %+v", sr)
	}
	if got := svc.ContextLength(context.Background()); got != 100 {
		t.Fatalf("learned context length %d, want the server's 100", got)
	}
}
