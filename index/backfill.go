package index

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/ragd/ragd"
)

// BackfillStore is what Backfill needs of the database: the queue of chunks
// without a vector, and a short write of the vectors computed for them.
// *store.Store is one.
type BackfillStore interface {
	PendingVectors(ctx context.Context, limit int) ([]ragd.PendingVector, error)
	PendingVectorCount(ctx context.Context) (int, error)
	FillVectors(ctx context.Context, fills []ragd.VectorFill) (int, error)
	MarkUnembeddable(ctx context.Context, marks []ragd.Unembeddable) (int, error)
	Space() string
}

// Backfill fills in the background the vectors of chunks written without
// one (a reindex or import whose provider was slow or down): newest first,
// at the provider's pace, one short write transaction per batch, so the
// index is searchable lexically at once and semantically as it fills. The
// queue is the chunks table itself, so a restart resumes where it stopped
// (docs/adr/0009-scale.md).
type Backfill struct {
	Store    BackfillStore
	Embedder Embedder
	// Batch is the number of chunks embedded and written per step.
	// Optional: DefaultBackfillBatch.
	Batch int
	// Retry is the wait after a step the provider failed. Optional:
	// DefaultBackfillRetry.
	Retry time.Duration
	// Logger. Optional: slog.Default().
	Logger *slog.Logger

	once sync.Once
	wake chan struct{}

	mu       sync.Mutex
	filled   int
	rate     float64 // vectors per second, moving average
	lastErr  string
	lastStep time.Time
	stepped  func(filled int, err error)
}

// Backfill defaults.
const (
	// DefaultBackfillBatch: a provider batch or two, and a write
	// transaction of a few milliseconds.
	DefaultBackfillBatch = 64
	// DefaultBackfillRetry: a down provider is asked again this often.
	DefaultBackfillRetry = 30 * time.Second
	// blankReason marks a chunk of white space only.
	blankReason = "blank text: nothing to embed"
	// rateWeight is the weight of the newest step in the moving average
	// of the fill rate.
	rateWeight = 0.2
)

func (b *Backfill) init() {
	b.once.Do(func() {
		b.wake = make(chan struct{}, 1)
		if b.Batch <= 0 {
			b.Batch = DefaultBackfillBatch
		}
		if b.Retry <= 0 {
			b.Retry = DefaultBackfillRetry
		}
		if b.Logger == nil {
			b.Logger = slog.Default()
		}
	})
}

// Wake tells a waiting Run that chunks without vectors may have been
// written.
// A nil *Backfill ignores it.
func (b *Backfill) Wake() {
	if b == nil {
		return
	}
	b.init()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// Step embeds and stores the vectors of up to Batch of the newest chunks
// without one. It returns how many it stored and whether chunks without a
// vector remain.
func (b *Backfill) Step(ctx context.Context) (filled int, more bool, err error) {
	b.init()
	if b.Embedder == nil {
		return 0, false, nil
	}
	if space := b.Embedder.Space().String(); space != b.Store.Space() {
		return 0, false, fmt.Errorf("backfill: the embedder's space %s is not the index's %s", space, b.Store.Space())
	}
	pending, err := b.Store.PendingVectors(ctx, b.Batch)
	if err != nil || len(pending) == 0 {
		return 0, false, err
	}
	t0 := time.Now()
	texts := make([]string, len(pending))
	for i, p := range pending {
		texts[i] = ragd.EmbeddingText(p.Scope, p.Title, p.HeadingPath, p.Content)
	}
	res := b.Embedder.EmbedDocuments(ctx, texts)
	var fills []ragd.VectorFill
	var marks []ragd.Unembeddable
	for i, p := range pending {
		switch {
		case i < len(res.Vectors) && res.Vectors[i] != nil:
			fills = append(fills, ragd.VectorFill{Seq: p.Seq, ContentHash: p.ContentHash, Vector: res.Vectors[i]})
		case i < len(res.Unembeddable) && res.Unembeddable[i] != "":
			// Refused alone, for good (too long even cut to the model's
			// limit): asked again, it would be refused again, every Retry.
			marks = append(marks, ragd.Unembeddable{Seq: p.Seq, ContentHash: p.ContentHash, Reason: res.Unembeddable[i]})
		case strings.TrimSpace(p.Content) == "":
			// Nothing to embed: not a failure, and no vector ever.
			marks = append(marks, ragd.Unembeddable{Seq: p.Seq, ContentHash: p.ContentHash, Reason: blankReason})
		}
	}
	if len(marks) > 0 {
		n, err := b.Store.MarkUnembeddable(ctx, marks)
		if err != nil {
			b.record(0, 0, err)
			return 0, true, err
		}
		b.Logger.Info("vector backfill: chunks left lexical-only for good", "chunks", n, "reason", marks[0].Reason)
	}
	if len(fills) == 0 && len(marks) == len(pending) {
		// Every chunk left the queue for good: a step done, not a failure.
		b.record(0, time.Since(t0), nil)
		return 0, len(pending) == b.Batch, nil
	}
	if len(fills) == 0 {
		err := fmt.Errorf("backfill: no vector for %d chunks: %s", len(pending), res.Reason)
		b.record(0, 0, err)
		return 0, true, err
	}
	if filled, err = b.Store.FillVectors(ctx, fills); err != nil {
		b.record(0, 0, err)
		return 0, true, err
	}
	b.record(filled, time.Since(t0), nil)
	if left := len(pending) - len(fills) - len(marks); left > 0 {
		// A batch the provider partly failed: what it left stays first in
		// the queue, and the step counts as failed, so that Run asks again
		// after Retry instead of waiting for the next Wake, which may
		// never come.
		err := fmt.Errorf("backfill: no vector for %d of %d chunks: %s", left, len(pending), res.Reason)
		b.mu.Lock()
		b.lastErr = err.Error()
		b.mu.Unlock()
		return filled, true, err
	}
	return filled, len(pending) == b.Batch, nil
}

func (b *Backfill) record(filled int, took time.Duration, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lastStep = time.Now()
	if err != nil {
		b.lastErr = err.Error()
		return
	}
	b.lastErr = ""
	b.filled += filled
	if took > 0 && filled > 0 {
		r := float64(filled) / took.Seconds()
		if b.rate == 0 {
			b.rate = r
		} else {
			b.rate = rateWeight*r + (1-rateWeight)*b.rate
		}
	}
}

// Progress reports the queue and the fill rate.
func (b *Backfill) Progress(ctx context.Context) (ragd.BackfillProgress, error) {
	n, err := b.Store.PendingVectorCount(ctx)
	if err != nil {
		return ragd.BackfillProgress{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	p := ragd.BackfillProgress{Pending: n, Filled: b.filled, PerSecond: b.rate, LastError: b.lastErr}
	if b.rate > 0 {
		eta := float64(n) / b.rate
		p.ETASeconds = &eta
	}
	return p, nil
}

// OnStep makes Run call fn after each step with what it filled and its
// error: tests wait on it rather than on the clock. fn must not block.
func (b *Backfill) OnStep(fn func(filled int, err error)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stepped = fn
}

// Run fills until ctx ends: step after step while chunks wait, then it
// waits for Wake; after a failed step it waits Retry (or a Wake). A
// failure is logged when it starts and when it changes, not at every
// retry: a user without a provider would read the same line twice a
// minute.
func (b *Backfill) Run(ctx context.Context) {
	b.init()
	logged := ""
	for ctx.Err() == nil {
		filled, more, err := b.Step(ctx)
		if ctx.Err() != nil {
			return
		}
		b.mu.Lock()
		stepped := b.stepped
		b.mu.Unlock()
		if stepped != nil {
			stepped(filled, err)
		}
		var wait <-chan time.Time
		switch {
		case err != nil:
			if err.Error() != logged {
				b.Logger.Warn("vector backfill: the provider gave no vectors; retrying", "every", b.Retry, "err", err)
				logged = err.Error()
			}
			wait = time.After(b.Retry)
		case logged != "":
			b.Logger.Info("vector backfill: the provider answers again", "filled", filled)
			logged = ""
		}
		if err == nil && more {
			continue
		}
		select {
		case <-ctx.Done():
		case <-b.wake:
		case <-wait:
		}
	}
}
