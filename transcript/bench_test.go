package transcript_test

// The import throughput, without a database or embeddings:
//
//	go test -tags sqlite_fts5 -run '^$' -bench ReadClaudeCode -benchtime 1x ./transcript/
//
// The stream is generated as it is read, so the benchmark's own memory
// does not hide the reader's: max-heap-MB is the largest live heap seen
// while reading (sampled every 10,000 events), and stays flat whatever the
// length of the stream.

import (
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/transcript"
)

// benchMessages is the size of a heavy year: the 500,000 messages.
const benchMessages = 500_000

// claudeStream generates a Claude Code transcript of turns: a prompt, an
// assistant record with thinking and text, a tool call and its result
// (four lines, two messages per turn).
type claudeStream struct {
	turns, turn int
	rng         *rand.Rand
	buf         strings.Builder
	pending     string
}

var benchWords = strings.Fields("the store keeps sessions in sqlite and the index uses fts5 with bm25 while vectors " +
	"come from the embedder; a token budget of 512 and the api key rotation were discussed with the search route")

func (s *claudeStream) sentence(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(benchWords[s.rng.IntN(len(benchWords))])
	}
	return b.String()
}

func (s *claudeStream) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		if s.turn == s.turns {
			return 0, io.EOF
		}
		s.buf.Reset()
		t := s.turn
		ts := fmt.Sprintf("2026-01-%02dT%02d:%02d:%02d.000Z", 1+t/86400%28, t/3600%24, t/60%60, t%60)
		head := `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/proj","sessionId":"s-` + fmt.Sprint(t/200) + `","version":"2.1.0","gitBranch":"main",`
		fmt.Fprintf(&s.buf, `%s"type":"user","message":{"role":"user","content":%q},"uuid":"u%d","timestamp":"%s"}`+"\n", head, s.sentence(25), t, ts)
		fmt.Fprintf(&s.buf, `%s"type":"assistant","message":{"id":"m%d","role":"assistant","model":"claude-x","content":[{"type":"thinking","thinking":%q,"signature":"x"},{"type":"text","text":%q}]},"uuid":"a%d","timestamp":"%s"}`+"\n", head, t, s.sentence(30), s.sentence(80), t, ts)
		fmt.Fprintf(&s.buf, `%s"type":"assistant","message":{"id":"m%d","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"go test ./..."}}]},"uuid":"c%d","timestamp":"%s"}`+"\n", head, t, t, t, ts)
		fmt.Fprintf(&s.buf, `%s"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":%q}]},"uuid":"r%d","timestamp":"%s"}`+"\n", head, t, s.sentence(60), t, ts)
		s.pending = s.buf.String()
		s.turn++
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

func BenchmarkReadClaudeCode(b *testing.B) {
	b.ReportAllocs()
	var maxHeap uint64
	var ms runtime.MemStats
	var messages int
	for b.Loop() {
		stream := &claudeStream{turns: benchMessages / 2, rng: rand.New(rand.NewPCG(1, 2))}
		events := 0
		st, err := transcript.Read(transcript.ClaudeCode, stream, "/bench/s.jsonl", transcript.Options{}, func(_ *transcript.Session, _ ragd.Event) error {
			events++
			if events%10_000 == 0 {
				runtime.ReadMemStats(&ms)
				maxHeap = max(maxHeap, ms.HeapAlloc)
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		if st.Messages != benchMessages || st.Malformed != 0 {
			b.Fatalf("read %d messages (%d malformed), want %d", st.Messages, st.Malformed, benchMessages)
		}
		messages += st.Messages
	}
	b.ReportMetric(float64(messages)/b.Elapsed().Seconds(), "messages/s")
	b.ReportMetric(float64(maxHeap)/(1<<20), "max-heap-MB")
}

func BenchmarkRedact(b *testing.B) {
	s := &claudeStream{rng: rand.New(rand.NewPCG(3, 4))}
	texts := make([]string, 1000)
	for i := range texts {
		texts[i] = s.sentence(80)
	}
	texts[0] += " token=a1B2c3D4e5F6g7H8i9J0 and AKIAIOSFODNN7EXAMPLE"
	b.ReportAllocs()
	b.SetBytes(int64(len(texts[1])))
	i := 0
	for b.Loop() {
		transcript.Redact(texts[i%len(texts)], nil)
		i++
	}
}
