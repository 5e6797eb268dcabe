package index_test

// Appends at scale (issue 16, "incremental growth"): one session's new
// messages appended to a project whose session scope already holds n
// chunks. The cost must follow the messages, not n.
//
//	go test -tags sqlite_fts5 -run '^$' -bench 'Append' -benchtime 200x ./index/
//
// BenchmarkAppendThenReindex is the way before: the messages stored, then
// the session scope reindexed to make them searchable (run it with
// -benchtime 3x). RAGD_APPEND_DB adds a run against an existing database,
// such as a copy of the 1M corpus cmd/ragd-bench caches (copy it first:
// the benchmark writes to it), in the corpus's space bench/768, project
// "bench".

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/store"
)

// appendMessages is how many messages one append brings: a turn or a few
// of one session, as a follower writes them.
const appendMessages = 10

// messageChars is about one chunk of text (chunking.TargetRunes is 1200),
// so that a message is one chunk.
const messageChars = 1000

// sessionStores caches one store per size: building 100k chunks takes
// longer than the measurement.
var sessionStores sync.Map // int -> *sessionStore

type sessionStore struct {
	once sync.Once
	s    *store.Store
	p    ragd.Project
	err  error
}

// benchMessage makes about messageChars of Zipf-distributed words, as
// store's benchmarks do: "w1" as common as "the", "w5000" as rare as a
// technical term.
func benchMessage(z *rand.Zipf) string {
	b := make([]byte, 0, messageChars+16)
	for len(b) < messageChars {
		b = append(b, 'w')
		b = strconv.AppendUint(b, z.Uint64()+1, 10)
		b = append(b, ' ')
	}
	return string(b)
}

// sessionEvents makes the events of one session: count messages, starting
// at message from (ids are unique across calls with distinct from).
func sessionEvents(z *rand.Zipf, session string, from, count int) []ragd.Event {
	out := make([]ragd.Event, count)
	for i := range out {
		typ, actor := ragd.TypeChatMessage, "person"
		if i%2 == 1 {
			typ, actor = ragd.TypeAgentResponse, "agent"
		}
		out[i] = ragd.Event{ID: fmt.Sprintf("%s-m%07d", session, from+i), SessionID: session, Type: typ, Actor: actor,
			Text: benchMessage(z), Time: at.Add(time.Duration(from+i) * time.Second)}
	}
	return out
}

// populatedSessions returns a store whose project holds n session chunks
// (n messages of one chunk, in sessions of 100), written by appends.
func populatedSessions(b *testing.B, n int) (*store.Store, ragd.Project) {
	b.Helper()
	v, _ := sessionStores.LoadOrStore(n, &sessionStore{})
	ss := v.(*sessionStore)
	ss.once.Do(func() {
		dir, err := os.MkdirTemp("", "ragd-append-bench-")
		if err != nil {
			ss.err = err
			return
		}
		s, err := store.Open(context.Background(), filepath.Join(dir, "ragd.db"), store.Options{Space: testSpace, Dims: testDims, Logger: quiet})
		if err != nil {
			ss.err = err
			return
		}
		p, err := s.AddProject(context.Background(), "bench", dir)
		if err != nil {
			ss.err = err
			return
		}
		ix := newIndexer(s, nil)
		z := rand.NewZipf(rand.New(rand.NewSource(42)), 1.07, 2, 50_000)
		const perSession = 100
		for from := 0; from < n; from += perSession {
			evs := sessionEvents(z, fmt.Sprintf("s%06d", from/perSession), from, min(perSession, n-from))
			if _, err := ix.AppendEvents(context.Background(), p, evs); err != nil {
				ss.err = err
				return
			}
		}
		st, err := s.ScopeStats(context.Background(), p.ID, ragd.ScopeSession)
		if err != nil || st.Chunks != n {
			ss.err = fmt.Errorf("populated %d session chunks, want %d (%v)", st.Chunks, n, err)
			return
		}
		ss.s, ss.p = s, p
	})
	if ss.err != nil {
		b.Fatalf("populate %d: %v", n, ss.err)
	}
	return ss.s, ss.p
}

// benchAppends appends one new session's appendMessages messages per
// round, and reports appends and messages per second.
func benchAppends(b *testing.B, ix *index.Indexer, p ragd.Project, tag string) {
	ctx := context.Background()
	z := rand.NewZipf(rand.New(rand.NewSource(7)), 1.07, 2, 50_000)
	round := 0
	chunks := 0
	for b.Loop() {
		b.StopTimer()
		evs := sessionEvents(z, fmt.Sprintf("bench-%s-%d-%d", tag, b.N, round), 0, appendMessages)
		round++
		b.StartTimer()
		res, err := ix.AppendEvents(ctx, p, evs)
		if err != nil {
			b.Fatal(err)
		}
		chunks += res.Chunks
	}
	if chunks < appendMessages*round {
		b.Fatalf("%d chunks written for %d messages", chunks, appendMessages*round)
	}
	b.ReportMetric(float64(round)/b.Elapsed().Seconds(), "appends/s")
	b.ReportMetric(float64(round*appendMessages)/b.Elapsed().Seconds(), "msgs/s")
}

func BenchmarkAppendSession(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			s, p := populatedSessions(b, n)
			benchAppends(b, newIndexer(s, nil), p, strconv.Itoa(n))
		})
	}
	if path := os.Getenv("RAGD_APPEND_DB"); path != "" {
		b.Run("db="+filepath.Base(filepath.Dir(path)), func(b *testing.B) {
			s, err := store.Open(context.Background(), path, store.Options{Space: "bench/768", Dims: 768,
				Vectors: store.VectorsExact, Logger: quiet})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			p, err := s.Project(context.Background(), "bench")
			if err != nil {
				b.Fatal(err)
			}
			st, err := s.ScopeStats(context.Background(), p.ID, ragd.ScopeSession)
			if err != nil {
				b.Fatal(err)
			}
			b.Logf("%s: %d session chunks", path, st.Chunks)
			benchAppends(b, newIndexer(s, nil), p, "db")
		})
	}
}

// BenchmarkAppendThenReindex is the cost per append before appends were
// indexed: the messages stored alone, then a reindex of the session scope
// (read every message, cut, compare, rewrite the scope).
func BenchmarkAppendThenReindex(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			s, p := populatedSessions(b, n)
			ix := newIndexer(s, nil)
			ctx := context.Background()
			z := rand.NewZipf(rand.New(rand.NewSource(9)), 1.07, 2, 50_000)
			round := 0
			for b.Loop() {
				b.StopTimer()
				evs := sessionEvents(z, fmt.Sprintf("before-%d-%d", b.N, round), 0, appendMessages)
				round++
				b.StartTimer()
				if _, err := s.AppendEvents(ctx, p.ID, evs); err != nil {
					b.Fatal(err)
				}
				rep, err := ix.Reindex(ctx, p, []string{ragd.ScopeSession}, nil)
				if err != nil {
					b.Fatal(err)
				}
				if got := rep.Scopes[0].Chunks.Inserted; got != appendMessages {
					b.Fatalf("reindex inserted %d chunks, want %d", got, appendMessages)
				}
			}
			b.ReportMetric(float64(round)/b.Elapsed().Seconds(), "appends/s")
		})
	}
}
