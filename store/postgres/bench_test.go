package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
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
// chunks (about 1,200 characters of text each, 4-dim vectors: the HNSW
// graph's cost, which grows with the dimensions, is left out) per op, a
// first index's write; chunks/s is what ragd-bench's "written" counts.
//
//	RAGD_PG_TESTS=1 go test ./store/postgres/ -run '^$' -bench ReplaceScopeNew -benchtime 5x
func BenchmarkReplaceScopeNew(b *testing.B) {
	ctx := context.Background()
	s, _ := openTest(b, Options{})
	const chunks = 1000
	in := make([]ragd.ChunkInput, chunks)
	for i := range in {
		text := ""
		for w := 0; len(text) < 1200; w++ {
			text += fmt.Sprintf("w%d ", (i*7+w*13)%5000)
		}
		in[i] = doc(fmt.Sprintf("f%03d.md", i/10), i%10, text, []float32{float32(i%5 + 1), 1, float32(i % 3), 2})
	}
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
}
