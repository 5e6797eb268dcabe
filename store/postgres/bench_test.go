package postgres

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
	"github.com/ragd/ragd/internal/vectest"
)

// BenchmarkAppendSession appends one new session of 200 messages with
// their chunks (one per word, 8 words) per op: a transcript import's
// write. On PGlite (one WebAssembly backend, local socket), not a server:
//
//	/work/bin/rgo test ./store/postgres/ -run '^$' -bench AppendSession -benchtime 10x
func BenchmarkAppendSession(b *testing.B) {
	ctx := context.Background()
	s, _ := openTest(b, Options{})
	p, err := s.AddProject(ctx, "bench", "/src/bench")
	if err != nil {
		b.Fatal(err)
	}
	const messages = 200
	n := 0
	for b.Loop() {
		n++
		evs := make([]ragd.Event, messages)
		for i := range evs {
			evs[i] = ragd.Event{ID: fmt.Sprintf("s%d-e%d", n, i), SessionID: fmt.Sprintf("s%d", n), Type: ragd.TypeChatMessage,
				Actor: ragd.ActorPerson, Text: fmt.Sprintf("message %d of session %d about the importer and word%d", i, n, i),
				Time: t0.Add(time.Duration(i) * time.Second)}
		}
		res, err := s.AppendSession(ctx, p.ID, evs, testdb.ChunksOf(evs...))
		if err != nil || res.Appended != messages {
			b.Fatalf("%+v, %v", res, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*messages), "µs/message")
}

// BenchmarkReplaceScopeNew writes a new project's docs scope of 1,000
// chunks (about 1,200 characters of text each) per op, a first index's
// write; chunks/s is what ragd-bench's "written" counts. dims=4 leaves
// the HNSW graph's cost, which grows with the dimensions, out; dims=768
// is ragd-bench's corpus (random unit vectors, the graph's worst case).
//
//	RAGD_PG_TESTS=1 go test ./store/postgres/ -run '^$' -bench ReplaceScopeNew -benchtime 5x
func BenchmarkReplaceScopeNew(b *testing.B) {
	for _, dims := range []int{4, 768} {
		b.Run(fmt.Sprintf("dims=%d", dims), func(b *testing.B) {
			ctx := context.Background()
			s, _ := openTest(b, Options{Space: fmt.Sprintf("test/%d", dims), Dims: dims})
			const chunks = 1000
			in := benchChunks(chunks, dims, "c1")
			n := 0
			for b.Loop() {
				n++
				p, err := s.AddProject(ctx, fmt.Sprintf("bench%d", n), fmt.Sprintf("/src/bench%d", n))
				if err != nil {
					b.Fatal(err)
				}
				if res, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, in); err != nil || res.Inserted != chunks {
					b.Fatalf("%+v, %v", res, err)
				}
			}
			b.ReportMetric(float64(b.N*chunks)/b.Elapsed().Seconds(), "chunks/s")
		})
	}
}

// BenchmarkReplaceScopeKept rewrites a docs scope of 10,000 chunks of 768
// dims whose every chunk is kept, per op: a reindex after a commit that
// changed no indexed file, where each chunk's source_commit (and
// indexed_at) changes and nothing else; the vectors are kept (nil, as the
// indexer sends them). The scope is written once before the loop.
//
//	RAGD_PG_TESTS=1 go test ./store/postgres/ -run '^$' -bench ReplaceScopeKept -benchtime 3x
func BenchmarkReplaceScopeKept(b *testing.B) {
	ctx := context.Background()
	const chunks, dims = 10_000, 768
	s, _ := openTest(b, Options{Space: fmt.Sprintf("test/%d", dims), Dims: dims})
	p, err := s.AddProject(ctx, "bench", "/src/bench")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, benchChunks(chunks, dims, "c0")); err != nil {
		b.Fatal(err)
	}
	n := 0
	for b.Loop() {
		n++
		in := benchChunks(chunks, 0, fmt.Sprintf("c%d", n))
		if res, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, in); err != nil || res.Kept != chunks || res.Vectors != chunks {
			b.Fatalf("%+v, %v", res, err)
		}
	}
	b.ReportMetric(float64(b.N*chunks)/b.Elapsed().Seconds(), "chunks/s")
}

// benchChunks are n docs chunks of about 1,200 characters of text each,
// at commit, with random unit vectors of dims (none when 0); the same n
// give the same texts, so the same ids.
func benchChunks(n, dims int, commit string) []ragd.ChunkInput {
	r := rand.New(rand.NewSource(1))
	in := make([]ragd.ChunkInput, n)
	for i := range in {
		text := ""
		for w := 0; len(text) < 1200; w++ {
			text += fmt.Sprintf("w%d ", (i*7+w*13)%5000)
		}
		var vec []float32
		if dims > 0 {
			vec = vectest.RandomUnit(r, dims)
		}
		in[i] = doc(fmt.Sprintf("f%04d.md", i/10), i%10, text, vec)
		in[i].SourceCommit = commit
	}
	return in
}
