package index_test

import (
	"context"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/internal/gittest"
	"github.com/ragd/ragd/internal/testdb"
)

// A reindex whose provider is down writes its chunks without vectors; the
// backfill fills them later, newest first, batch by batch, and a new
// Backfill (a restart) resumes from what is left.
func TestBackfill_FillsWhatAReindexLeftWithoutVectors(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	repo := gittest.New(t)
	repo.Commit(t, "docs", map[string]string{"docs/a.md": doc("Alpha", 4), "docs/b.md": doc("Beta", 3)})
	p := testdb.AddProject(t, s, "p", repo.Dir)
	reindex(t, newIndexer(s, downService(t, s)), p, ragd.ScopeDocs)
	total := len(chunks(t, s, p, ragd.ScopeDocs))
	if n, err := s.PendingVectorCount(ctx); err != nil || total < 5 || n != total {
		t.Fatalf("after a reindex with the provider down: %d chunks, %d without vectors (%v); want at least 5, all", total, n, err)
	}

	// Down provider: the step fails, nothing is lost, the reason is kept.
	down := &index.Backfill{Store: s, Embedder: downService(t, s), Batch: 2, Logger: quiet}
	if n, more, err := down.Step(ctx); err == nil || n != 0 || !more {
		t.Fatalf("step with the provider down: %d filled, more %v, err %v", n, more, err)
	}
	if pr, err := down.Progress(ctx); err != nil || pr.Pending != total || pr.LastError == "" || pr.ETASeconds != nil {
		t.Fatalf("progress after a failed step: %+v, %v", pr, err)
	}

	_, svc := fakeOllama(t, s, testDims)
	b := &index.Backfill{Store: s, Embedder: svc, Batch: 2, Logger: quiet}
	pending, err := s.PendingVectors(ctx, total)
	if err != nil {
		t.Fatal(err)
	}
	n, more, err := b.Step(ctx)
	if err != nil || n != 2 || !more {
		t.Fatalf("first step: %d filled, more %v, err %v", n, more, err)
	}
	left, err := s.PendingVectors(ctx, total)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != total-2 || left[0].Seq != pending[2].Seq {
		t.Fatalf("after one step: %d left starting at seq %d, want %d starting at %d (newest first)",
			len(left), left[0].Seq, total-2, pending[2].Seq)
	}
	pr, err := b.Progress(ctx)
	if err != nil || pr.Pending != total-2 || pr.Filled != 2 || pr.PerSecond <= 0 || pr.ETASeconds == nil || pr.LastError != "" {
		t.Fatalf("progress after a step: %+v, %v", pr, err)
	}

	// A restart: a new Backfill on the same store finishes the queue.
	again := &index.Backfill{Store: s, Embedder: svc, Batch: 2, Logger: quiet}
	for more := true; more; {
		if _, more, err = again.Step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range chunks(t, s, p, ragd.ScopeDocs) {
		if c.EmbeddingSpace != s.Space() {
			t.Fatalf("chunk %s has no vector after the backfill", c.ID)
		}
	}
	if n, more, err := again.Step(ctx); n != 0 || more || err != nil {
		t.Fatalf("step on an empty queue: %d, %v, %v", n, more, err)
	}
}

// A scope that needs more new vectors than InlineVectors is written at
// once without them, the report says so, and the Backfill is woken: it
// fills them, and the next reindex finds nothing to embed.
func TestReindex_DefersLargeScopesToTheBackfill(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	repo := gittest.New(t)
	repo.Commit(t, "docs", map[string]string{"docs/a.md": doc("Alpha", 4), "docs/b.md": doc("Beta", 3)})
	p := testdb.AddProject(t, s, "p", repo.Dir)
	srv, svc := fakeOllama(t, s, testDims)
	b := &index.Backfill{Store: s, Embedder: svc, Batch: 3, Logger: quiet}
	stepped := make(chan error, 100)
	b.OnStep(func(_ int, err error) { stepped <- err })
	ix := newIndexer(s, svc)
	ix.InlineVectors, ix.Backfill = 2, b

	sr := scopeReport(t, reindex(t, ix, p, ragd.ScopeDocs), ragd.ScopeDocs)
	total := sr.Chunks.Total
	if er := sr.Embedding; total <= 2 || er.Deferred != total || er.Failed != 0 || er.Embedded != 0 || er.Available || er.Reason == "" ||
		sr.LexicalOnly != total || sr.Complete {
		t.Fatalf("report of a scope of %d chunks over InlineVectors 2: %+v, lexical only %d, complete %v", total, er, sr.LexicalOnly, sr.Complete)
	}
	if calls := srv.Calls(); calls != 0 {
		t.Fatalf("the reindex asked the provider %d times; the scope was to be deferred", calls)
	}

	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); b.Run(ctx) }()
	for pending := total; pending > 0; {
		if err := <-stepped; err != nil {
			t.Fatal(err)
		}
		var err error
		if pending, err = s.PendingVectorCount(ctx); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	<-done

	sr = scopeReport(t, reindex(t, ix, p, ragd.ScopeDocs), ragd.ScopeDocs)
	if er := sr.Embedding; er.Reused != total || er.Deferred != 0 || !sr.Complete {
		t.Fatalf("reindex after the fill: %+v, complete %v; want every vector reused", er, sr.Complete)
	}
}
