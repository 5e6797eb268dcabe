package embedding

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// gatedProvider is an in-process provider whose requests wait until the
// test releases them, and which records what each request held and
// whether a query was in flight when a batch of documents arrived.
type gatedProvider struct {
	dims    int
	arrived chan string // "query" or "docs", as each request arrives
	// releaseDocs and releaseQuery answer a waiting request of each kind.
	releaseDocs, releaseQuery chan struct{}

	mu            sync.Mutex
	queryInFlight bool
	docsDuringQ   int   // document batches that arrived while a query was in flight
	docBatches    []int // texts per document batch, in arrival order
}

func (p *gatedProvider) Name() string                               { return "gated" }
func (p *gatedProvider) Endpoint() string                           { return "gated://" }
func (p *gatedProvider) Version(context.Context) (string, error)    { return "1", nil }
func (p *gatedProvider) ContextLength(context.Context) (int, error) { return 512, nil }
func (p *gatedProvider) Classify(err error) Failure                 { return Failure{Reason: err.Error()} }
func (p *gatedProvider) Embed(ctx context.Context, texts []string, dims int) ([][]float32, error) {
	kind := "docs"
	if strings.HasPrefix(texts[0], "query:") {
		kind = "query"
	}
	p.mu.Lock()
	if kind == "query" {
		p.queryInFlight = true
	} else {
		p.docBatches = append(p.docBatches, len(texts))
		if p.queryInFlight {
			p.docsDuringQ++
		}
	}
	p.mu.Unlock()
	p.arrived <- kind
	if kind == "query" {
		<-p.releaseQuery
	} else {
		<-p.releaseDocs
	}
	if kind == "query" {
		p.mu.Lock()
		p.queryInFlight = false
		p.mu.Unlock()
	}
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = make([]float32, dims)
		out[i][i%dims] = 1
	}
	return out, nil
}

// TestQueriesGoFirst: a query that arrives while a batch of documents is
// at the provider is the next request the provider gets: no batch of
// documents is sent while it waits, and the batches sent after it are
// short for a while.
func TestQueriesGoFirst(t *testing.T) {
	p := &gatedProvider{dims: 8, arrived: make(chan string), releaseDocs: make(chan struct{}), releaseQuery: make(chan struct{})}
	qp := "query: "
	s, err := NewWithProvider(Config{Model: "gated", Dims: 8, BatchSize: 32, Concurrency: 1, QueryPrefix: &qp}, p, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	texts := make([]string, 100)
	for i := range texts {
		texts[i] = "document " + string(rune('a'+i%26)) + strings.Repeat("x", i)
	}
	yielding := make(chan struct{})
	s.prio.onWait = func() { yielding <- struct{}{} }
	done := make(chan Result)
	go func() { done <- s.EmbedDocuments(context.Background(), texts) }()
	if k := <-p.arrived; k != "docs" {
		t.Fatalf("first request %s, want docs", k)
	}
	qdone := make(chan bool)
	go func() {
		_, ok, _ := s.EmbedQuery(context.Background(), "what is it")
		qdone <- ok
	}()
	if k := <-p.arrived; k != "query" {
		t.Fatalf("second request %s, want the query", k)
	}
	// Both at the provider: the documents' batch is answered first (the
	// provider takes requests in turn), and the query is held. The next
	// batch must wait for it rather than be sent.
	p.releaseDocs <- struct{}{}
	select {
	case <-yielding:
	case k := <-p.arrived:
		t.Fatalf("a %s request was sent while the query waited", k)
	}
	s.prio.onWait = nil
	p.releaseQuery <- struct{}{}
	if !<-qdone {
		t.Fatal("query not embedded")
	}
	for {
		select {
		case k := <-p.arrived:
			if k != "docs" {
				t.Fatalf("request %s, want docs", k)
			}
			p.releaseDocs <- struct{}{}
			continue
		case res := <-done:
			if !res.Available || res.Embedded != len(texts) {
				t.Fatalf("documents: %+v", res)
			}
		}
		break
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.docsDuringQ != 0 {
		t.Errorf("%d batches of documents sent while the query waited", p.docsDuringQ)
	}
	if p.docBatches[0] != 32 {
		t.Errorf("first batch %d texts, want 32 (no query yet)", p.docBatches[0])
	}
	// The shortAfterQuery batches after the query are short; then, no
	// query coming, they are full again.
	for i, n := range p.docBatches[1:] {
		if i < shortAfterQuery && n > YieldBatch {
			t.Errorf("batch %d after the query: %d texts, want at most %d", i+1, n, YieldBatch)
		}
		if i == shortAfterQuery && n != 32 {
			t.Errorf("batch %d after the query: %d texts, want 32 again", i+1, n)
		}
	}
	if len(p.docBatches) <= shortAfterQuery+1 {
		t.Errorf("%d batches: the test wants texts enough for full batches after the short ones", len(p.docBatches))
	}
}
