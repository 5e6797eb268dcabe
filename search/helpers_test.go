package search

import (
	"context"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math"
	"math/rand"
	"sync"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/vectest"
	"github.com/ragd/ragd/store"
)

// fakeEmbedder returns a fixed answer and remembers what it was asked.
type fakeEmbedder struct {
	vec       []float32
	available bool
	reason    string

	mu    sync.Mutex
	texts []string
}

func (f *fakeEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, bool, string) {
	f.mu.Lock()
	f.texts = append(f.texts, text)
	f.mu.Unlock()
	if !f.available {
		return nil, false, f.reason
	}
	return f.vec, true, ""
}

func upEmbedder(vec []float32) *fakeEmbedder { return &fakeEmbedder{vec: vec, available: true} }

func downEmbedder(reason string) *fakeEmbedder { return &fakeEmbedder{reason: reason} }

// failingRecorder fails every telemetry write.
type failingRecorder struct{ err error }

func (f failingRecorder) RecordSearch(context.Context, ragd.SearchRecord) (int64, error) {
	return 0, f.err
}

var quiet = slog.New(slog.DiscardHandler)

func hashOf(s string) string {
	h := fnv.New64a()
	h.Write([]byte(s))
	return fmt.Sprintf("%x", h.Sum64())
}

func doc(path string, pos int, heading []string, content string, vec []float32) ragd.ChunkInput {
	title := ""
	if len(heading) > 0 {
		title = heading[0]
	}
	return ragd.ChunkInput{
		SourcePath: path, SourceCommit: "c0ffee", HeadingPath: heading, Title: title,
		Position: pos, Content: content, ContentHash: hashOf(content), Vector: vec,
	}
}

func message(session, event string, pos int, content string, vec []float32) ragd.ChunkInput {
	return ragd.ChunkInput{
		SessionID: session, EventID: event, Title: "Session " + session,
		Position: pos, Content: content, ContentHash: hashOf(content), Vector: vec,
	}
}

// chunkIDs maps each chunk's content to its id.
func chunkIDs(tb testing.TB, st *store.Store, project int64) map[string]string {
	tb.Helper()
	out := map[string]string{}
	for _, scope := range ragd.Scopes {
		chunks, err := st.ScopeChunks(context.Background(), project, scope)
		if err != nil {
			tb.Fatal(err)
		}
		for _, c := range chunks {
			out[c.Content] = c.ID
		}
	}
	return out
}

// unit returns a 4-dim unit vector at the given cosine similarity to e1, in
// the e1-e2 plane.
func unit(sim float64) []float32 {
	return []float32{float32(sim), float32(math.Sqrt(1 - sim*sim)), 0, 0}
}

func randomUnit(r *rand.Rand, dims int) []float32 { return vectest.RandomUnit(r, dims) }

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// approx compares scores computed from float32 vectors.
func approx(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

// searcher returns a Searcher over st that logs nowhere.
func searcher(st *store.Store, emb Embedder) *Searcher {
	s := New(st, emb)
	s.Logger = quiet
	return s
}
