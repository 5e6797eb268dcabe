package index_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/internal/gittest"
	"github.com/ragd/ragd/internal/testdb"
)

// partlyFailing embeds every text but the first of its first call: the
// provider's "mixed" fault, one text of a batch lost.
type partlyFailing struct {
	space embedding.Space
	mu    sync.Mutex
	calls int
}

func (e *partlyFailing) Space() embedding.Space { return e.space }

func (e *partlyFailing) EmbedDocuments(_ context.Context, texts []string) embedding.Result {
	e.mu.Lock()
	e.calls++
	first := e.calls == 1
	e.mu.Unlock()
	res := embedding.Result{Vectors: make([][]float32, len(texts)), Available: true}
	for i := range texts {
		if first && i == 0 {
			res.Failed++
			continue
		}
		v := make([]float32, e.space.Dims)
		v[i%e.space.Dims] = 1
		res.Vectors[i] = v
		res.Embedded++
	}
	if res.Failed > 0 {
		res.Available, res.Reason = false, "provider error 500 (1 of the texts not embedded)"
	}
	return res
}

// Issue 27 item 20: the chunks a partly failed batch left without a vector
// are asked for again after Retry, with no Wake: the queue empties.
func TestBackfill_RetriesWhatAPartlyFailedBatchLeft(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	repo := gittest.New(t)
	repo.Commit(t, "docs", map[string]string{"docs/a.md": doc("Alpha", 3)})
	p := testdb.AddProject(t, s, "p", repo.Dir)
	reindex(t, newIndexer(s, downService(t, s)), p, ragd.ScopeDocs)
	total, err := s.PendingVectorCount(ctx)
	if err != nil || total < 2 {
		t.Fatalf("%d chunks without vectors (%v), want at least 2", total, err)
	}

	emb := &partlyFailing{space: embedding.SpaceOf(testModel, testDims)}
	// A batch larger than the queue: the first step is the last one the
	// queue's length asks for.
	b := &index.Backfill{Store: s, Embedder: emb, Batch: total + 10, Retry: time.Millisecond, Logger: quiet}
	stepped := make(chan error, 100)
	b.OnStep(func(_ int, err error) { stepped <- err })
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); b.Run(ctx) }()
	defer func() { cancel(); <-done }()

	for step := 1; ; step++ {
		select {
		case err := <-stepped:
			if step == 1 && err == nil {
				t.Error("a partly failed step reported no error: the chunk it left waits for a Wake")
			}
		case <-time.After(30 * time.Second):
			n, _ := s.PendingVectorCount(ctx)
			t.Fatalf("no step after step %d, %d chunks still without a vector", step-1, n)
		}
		n, err := s.PendingVectorCount(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	if pr, err := b.Progress(ctx); err != nil || pr.Pending != 0 || pr.LastError != "" || pr.Filled != total {
		t.Errorf("progress after the retry: %+v, %v; want all %d filled, no error", pr, err, total)
	}
}
