package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd"
)

// Issue 27 item 16: the per-message question of SessionStats (has this
// message a chunk?) is one seek of an index on the chunk's event, not a
// read of every chunk of its session, which made a long session's
// coverage quadratic (220 s for 20k messages).
func TestSessionStats_MessageLookupSeeksByEvent(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	rows, err := s.rdb.QueryContext(ctx, "EXPLAIN QUERY PLAN "+indexedMessagesQuery("(?2, ?3)", "?4"),
		int64(1), "chat.message", "agent.response", formatTime(time.Time{}))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var chunkStep string
	for _, step := range plan {
		if strings.Contains(step, " c ") {
			chunkStep = step
		}
	}
	if !strings.Contains(chunkStep, "event_id=?") {
		t.Errorf("the chunk lookup of each message: %q, want a seek by event_id (plan %q)", chunkStep, plan)
	}
}

// BenchmarkSessionStats is the session coverage of one session of 100k
// messages, each with a chunk: the case the probe found quadratic.
//
//	/work/bin/rgo test ./store/ -run '^$' -bench SessionStats -benchtime 5x
func BenchmarkSessionStats(b *testing.B) {
	const messages = 100_000
	ctx := context.Background()
	s, projectID := longSession(b, messages)
	types := []string{"chat.message", "agent.response"}
	b.ResetTimer()
	for range b.N {
		st, err := s.SessionStats(ctx, projectID, types, time.Time{})
		if err != nil {
			b.Fatal(err)
		}
		if st.Messages != messages || st.MessagesIndexed != messages || st.Sessions != 1 || st.SessionsIndexed != 1 {
			b.Fatalf("stats %+v, want %d messages, all indexed, in one session", st, messages)
		}
	}
}

// longSessionStore is built once per test binary: 100k messages take
// longer to write than to measure.
var longSessionStore struct {
	once      sync.Once
	s         *Store
	projectID int64
	err       error
}

// longSession returns a store holding one session of n messages, each
// with one chunk.
func longSession(b *testing.B, n int) (*Store, int64) {
	b.Helper()
	ls := &longSessionStore
	ls.once.Do(func() {
		ctx := context.Background()
		dir, err := mkdirTemp()
		if err != nil {
			ls.err = err
			return
		}
		s, err := Open(ctx, filepath.Join(dir, "bench.db"), Options{Space: "bench/4", Dims: 4})
		if err != nil {
			ls.err = err
			return
		}
		p, err := s.AddProject(ctx, "bench", "/bench")
		if err != nil {
			ls.err = err
			return
		}
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		const batch = 2000
		for start := 0; start < n; start += batch {
			var events []ragd.Event
			var chunks [][]ragd.ChunkInput
			for i := start; i < min(start+batch, n); i++ {
				id := fmt.Sprintf("e%06d", i)
				text := fmt.Sprintf("message %d of the long session", i)
				events = append(events, ragd.Event{ID: id, SessionID: "long", Type: "chat.message", Actor: "person",
					Text: text, Time: t0.Add(time.Duration(i) * time.Second)})
				chunks = append(chunks, []ragd.ChunkInput{{SessionID: "long", EventID: id, Content: text, ContentHash: id}})
			}
			if _, err := s.AppendSession(ctx, p.ID, events, chunks); err != nil {
				ls.err = err
				return
			}
		}
		ls.s, ls.projectID = s, p.ID
	})
	if ls.err != nil {
		b.Fatalf("long session of %d messages: %v", n, ls.err)
	}
	return ls.s, ls.projectID
}
