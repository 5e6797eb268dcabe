package index_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/gittest"
	"github.com/ragd/ragd/internal/testdb"
)

// Sizes of the hung-provider project: enough chunks for several of the
// reindex's embedding slices (256 texts each), so that a breaker that
// forgets the first timeout would ask again for every slice.
const (
	faultFiles    = 60
	faultSections = 10 // chunks per file: one per section
	// faultTimeout is the batch timeout against the hung provider: short,
	// because the test counts requests, not seconds.
	faultTimeout = 300 * time.Millisecond
)

// TestReindex_HungProviderBreaker is the provider fault of issue 11 #1: a
// provider that accepts requests and never answers, and an embedding cache
// warm for half of the texts, interleaved so that every slice holds some
// cached text. After the first timeout the reindex must not ask again: at
// most one round of in-flight batches is sent, and every chunk is written,
// lexical only where it has no vector.
func TestReindex_HungProviderBreaker(t *testing.T) {
	s := openStore(t)

	all := map[string]string{}
	warm := map[string]string{}
	for i := range faultFiles {
		path := fmt.Sprintf("docs/f%03d.md", i)
		all[path] = doc(fmt.Sprintf("Topic %d", i), faultSections)
		if i%2 == 0 {
			warm[path] = all[path]
		}
	}
	// Warm the cache: another project holding every other document, indexed
	// while the provider answered.
	warmRepo := gittest.New(t)
	warmRepo.Commit(t, "warm", warm)
	_, healthy := fakeOllama(t, s, testDims)
	if rep := reindex(t, newIndexer(s, healthy), testdb.AddProject(t, s, "warm", warmRepo.Dir), "docs"); !rep.Complete {
		t.Fatalf("warming the cache: %s", rep.Summary)
	}

	repo := gittest.New(t)
	repo.Commit(t, "all", all)
	p := testdb.AddProject(t, s, "p", repo.Dir)
	hung := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{testModel: testDims}})
	hung.SetFault(hung.Hang())
	svc, err := embedding.New(embedding.Config{Host: hung.URL, Model: testModel, Dims: testDims, IndexTimeout: faultTimeout}, s)
	if err != nil {
		t.Fatal(err)
	}

	rep := reindex(t, newIndexer(s, svc), p, "docs", "adr")
	sr := scopeReport(t, rep, "docs")
	total := sr.Chunks.Total
	if total < 2*256+1 {
		t.Fatalf("%d chunks: the project must span at least three embedding slices", total)
	}
	if got := hung.Calls(); got == 0 || got > embedding.DefaultConcurrency {
		t.Errorf("the hung provider was asked %d times; want at most %d (one round of in-flight batches, then the breaker)", got, embedding.DefaultConcurrency)
	}
	e := sr.Embedding
	if e.Calls != hung.Calls() {
		t.Errorf("report counts %d calls, the provider saw %d", e.Calls, hung.Calls())
	}
	if e.Available || e.Cached == 0 || e.Embedded != 0 || e.Cached+e.Failed != total {
		t.Errorf("embedding: %+v (want the first slice's cached texts, the rest failed, of %d)", e, total)
	}
	if sr.Vectors != e.Cached || sr.LexicalOnly != total-e.Cached || rep.Complete {
		t.Errorf("written: %d vectors, %d lexical only, of %d", sr.Vectors, sr.LexicalOnly, total)
	}
	if !strings.Contains(e.Reason, "timeout after") || !strings.Contains(e.Reason, "not asked again") {
		t.Errorf("reason %q: want the timeout and that the provider was not asked again", e.Reason)
	}
	if strings.Count(e.Reason, "texts not embedded") != 1 {
		t.Errorf("reason %q: want one count of texts not embedded", e.Reason)
	}
	if adr := scopeReport(t, rep, "adr"); adr.Embedding.Calls != 0 {
		t.Errorf("adr asked the hung provider again: %+v", adr.Embedding)
	}
}
