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
