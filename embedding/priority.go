package embedding

import (
	"context"
	"sync"
	"time"
)

// MaxYield bounds how long one batch of documents waits for searches'
// queries to clear: queries go first, but a search that never pauses must
// not stop indexing altogether (the background fill then sends a batch at
// least this often).
const MaxYield = time.Second

// YieldBatch is the most texts a batch of documents holds while queries
// are being embedded: a query that arrives just after a batch was sent
// waits at the provider for that batch (a CPU Ollama embeds one request at
// a time), so the batches sent between queries are kept short.
const YieldBatch = 1

// priority lets queries go before documents, at both levels where they
// could wait behind them: in the service, a batch of documents is sent only
// when no query is waiting for or in an embedding request, or once it has
// waited MaxYield (query, yield, busy); in an in-process provider, which
// has no server queue to jump, a query's request is served without waiting
// for the documents' share of the cores (isQuery). One entry point marks a
// query for both: query.
type priority struct {
	mu      sync.Mutex
	queries int
	// clear is closed when queries falls to 0, and replaced when it rises.
	clear chan struct{}
	// short counts the batches of documents still to be cut short since
	// the last query ended (see busy).
	short int
	// onWait, when set (tests), is called when a batch starts waiting.
	onWait func()
	// single is held by a batch of documents sent while queries are
	// coming: one at a time then, so that a query waits for one short
	// batch at most, not Config.Concurrency of them.
	single sync.Mutex
}

// shortAfterQuery is how many batches of documents after a query go in
// YieldBatch texts, one at a time: while queries keep coming, every batch.
// Counted in batches, not time, so that the same sequence of calls always
// gives the same requests.
const shortAfterQuery = 8

func newPriority() *priority {
	c := make(chan struct{})
	close(c)
	return &priority{clear: c}
}

// query marks a search query as waiting until leave is called, and returns
// ctx marked as the query's (withQuery).
func (p *priority) query(ctx context.Context) (_ context.Context, leave func()) {
	return withQuery(ctx), p.enter()
}

// queryKey marks a context as a query's (or the health probe's).
type queryKey struct{}

// withQuery marks ctx as a query's for the provider only: an in-process
// provider serves it without waiting behind indexing. The health probe
// uses it alone: it goes first, but makes no batch of documents yield.
func withQuery(ctx context.Context) context.Context { return context.WithValue(ctx, queryKey{}, true) }

// isQuery reports whether ctx was marked by withQuery.
func isQuery(ctx context.Context) bool { v, _ := ctx.Value(queryKey{}).(bool); return v }

// enter marks a query waiting; leave, returned, marks it done.
func (p *priority) enter() (leave func()) {
	p.mu.Lock()
	if p.queries == 0 {
		p.clear = make(chan struct{})
	}
	p.queries++
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		p.queries--
		p.short = shortAfterQuery
		if p.queries == 0 {
			close(p.clear)
		}
		p.mu.Unlock()
	}
}

// yield waits until no query is waiting, MaxYield passed, or ctx ended.
func (p *priority) yield(ctx context.Context) {
	p.mu.Lock()
	clear := p.clear
	p.mu.Unlock()
	select {
	case <-clear:
		return
	default:
	}
	if p.onWait != nil {
		p.onWait()
	}
	t := time.NewTimer(MaxYield)
	defer t.Stop()
	select {
	case <-clear:
	case <-t.C:
	case <-ctx.Done():
	}
}

// busy reports whether queries are being embedded or one ended less than
// shortAfterQuery batches ago; a true answer counts as one such batch.
func (p *priority) busy() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.queries > 0 {
		return true
	}
	if p.short > 0 {
		p.short--
		return true
	}
	return false
}
