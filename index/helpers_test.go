package index_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/internal/testdb/sqlitedb"
	"github.com/ragd/ragd/store"
)

// testDims keeps vectors small: the tests are about what is written, not
// about retrieval quality.
const testDims = 32

const testModel = "nomic-embed-text"

var testSpace = embedding.SpaceOf(testModel, testDims).String()

// openStore opens a fresh store in the embedding space of the fake provider.
func openStore(tb testing.TB) *store.Store {
	tb.Helper()
	return openStoreAt(tb, filepath.Join(tb.TempDir(), "ragd.db"), testDims)
}

func openStoreAt(tb testing.TB, path string, dims int) *store.Store {
	return sqlitedb.OpenAt(tb, path, embedding.SpaceOf(testModel, dims).String(), dims)
}

// fakeOllama starts the fake provider and a Service on it that caches in s.
func fakeOllama(tb testing.TB, s *store.Store, dims int) (*ollamatest.Server, *embedding.Service) {
	tb.Helper()
	srv := ollamatest.NewServer(tb, ollamatest.Options{Models: map[string]int{testModel: dims}})
	return srv, service(tb, srv.URL, s, dims)
}

func service(tb testing.TB, host string, cache embedding.Cache, dims int) *embedding.Service {
	tb.Helper()
	svc, err := embedding.New(embedding.Config{Host: host, Model: testModel, Dims: dims, IndexTimeout: 30 * time.Second}, cache)
	if err != nil {
		tb.Fatalf("embedding service: %v", err)
	}
	return svc
}

// downService is a Service whose provider does not listen.
func downService(tb testing.TB, s *store.Store) *embedding.Service {
	tb.Helper()
	return service(tb, ollamatest.ClosedURL(tb), s, testDims)
}

// newIndexer returns an Indexer on s; pass a nil e (untyped) for none.
func newIndexer(s *store.Store, e index.Embedder) *index.Indexer {
	return &index.Indexer{Store: s, Embedder: e, Logger: quiet}
}

// quiet keeps the tests' output for failures.
var quiet = slog.New(slog.DiscardHandler)

// chunks lists a scope's chunks, ordered by source and position.
func chunks(tb testing.TB, s *store.Store, p ragd.Project, scope string) []ragd.Chunk {
	tb.Helper()
	cs, err := s.ScopeChunks(context.Background(), p.ID, scope)
	if err != nil {
		tb.Fatalf("chunks of %s: %v", scope, err)
	}
	return cs
}

func ids(cs []ragd.Chunk) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

// sources lists the distinct source paths of chunks, sorted.
func sources(cs []ragd.Chunk) []string {
	var out []string
	for _, c := range cs {
		if !slices.Contains(out, c.SourcePath) {
			out = append(out, c.SourcePath)
		}
	}
	slices.Sort(out)
	return out
}

// doc returns a markdown document with a title and n sections of about
// 500 runes each, so that its chunks are predictable: one per section.
func doc(title string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", title)
	for i := range n {
		fmt.Fprintf(&b, "## %s part %d\n\n", title, i)
		for j := range 8 {
			fmt.Fprintf(&b, "Sentence %d of part %d of %s explains one more idea. ", j, i, title)
		}
		b.WriteString("\n\n")
	}
	return b.String()
}

func reindex(tb testing.TB, ix *index.Indexer, p ragd.Project, scopes ...string) *ragd.IndexReport {
	tb.Helper()
	rep, err := ix.Reindex(context.Background(), p, scopes, nil)
	if err != nil {
		tb.Fatalf("reindex %v: %v", scopes, err)
	}
	return rep
}

func scopeReport(tb testing.TB, rep *ragd.IndexReport, scope string) *ragd.ScopeReport {
	tb.Helper()
	for _, sr := range rep.Scopes {
		if sr.Scope == scope {
			return sr
		}
	}
	tb.Fatalf("report has no scope %s: %+v", scope, rep)
	return nil
}

// progressLog records progress reports; safe for use from any goroutine.
type progressLog struct {
	mu  sync.Mutex
	all []ragd.Progress
}

func (l *progressLog) add(p ragd.Progress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, p)
}

func (l *progressLog) list() []ragd.Progress {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.all)
}
