package eval

import (
	"context"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
	"github.com/ragd/ragd/internal/vectest"
	"github.com/ragd/ragd/search"
	"github.com/ragd/ragd/store"
)

var quiet = slog.New(slog.DiscardHandler)

const testDims = 8

func hashOf(s string) string {
	h := fnv.New64a()
	h.Write([]byte(s))
	return fmt.Sprintf("%x", h.Sum64())
}

func fileChunk(path string, pos int, title string, heading []string, content string, vec []float32) ragd.ChunkInput {
	return ragd.ChunkInput{SourcePath: path, SourceCommit: "c0ffee", Title: title, HeadingPath: heading,
		Position: pos, Content: content, ContentHash: hashOf(content), Vector: vec}
}

func randomUnit(r *rand.Rand) []float32 { return vectest.RandomUnit(r, testDims) }

// vocabulary for random documents and queries.
var vocabulary = strings.Fields(`alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi
	rho sigma tau upsilon phi chi psi omega apple banana cherry grape lemon mango melon olive peach pear plum`)

func randomText(r *rand.Rand, words int) string {
	out := make([]string, words)
	for i := range out {
		// Skewed: early words are frequent, late ones rare, as in text.
		out[i] = vocabulary[int(math.Min(float64(len(vocabulary)-1), r.ExpFloat64()*8))]
	}
	return strings.Join(out, " ")
}

// vecEmbedder embeds queries with fixed vectors by text.
type vecEmbedder struct {
	mu   sync.Mutex
	vecs map[string][]float32
	rng  *rand.Rand
}

func (v *vecEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, bool, string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if vec, ok := v.vecs[text]; ok {
		return vec, true, ""
	}
	vec := randomUnit(v.rng)
	v.vecs[text] = vec
	return vec, true, ""
}

// randomCorpus fills a project with files of a few sections, random words
// and random vectors, some without a vector; it returns the project.
func randomCorpus(tb testing.TB, st *store.Store, seed int64, files int) ragd.Project {
	tb.Helper()
	p, err := st.AddProject(context.Background(), "p", "/repos/p")
	if err != nil {
		tb.Fatal(err)
	}
	r := rand.New(rand.NewSource(seed))
	var docs, adrs []ragd.ChunkInput
	for f := range files {
		path := fmt.Sprintf("docs/f%03d.md", f)
		scope := &docs
		if f%5 == 0 {
			path = fmt.Sprintf("docs/adr/%04d-x.md", f)
			scope = &adrs
		}
		for pos := range 1 + r.Intn(3) {
			var vec []float32
			if r.Intn(10) > 0 {
				vec = randomUnit(r)
			}
			heading := []string{[]string{"Context", "Decision", "Consequences"}[pos%3]}
			*scope = append(*scope, fileChunk(path, pos, fmt.Sprintf("File %d", f), heading, randomText(r, 5+r.Intn(30)), vec))
		}
	}
	testdb.Replace(tb, st, p.ID, ragd.ScopeDocs, docs)
	testdb.Replace(tb, st, p.ID, ragd.ScopeADR, adrs)
	return p
}

func newSearcher(st *store.Store, emb search.Embedder) *search.Searcher {
	s := search.New(st, emb)
	s.Logger = quiet
	return s
}
