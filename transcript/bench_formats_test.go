package transcript_test

// The import throughput of every format, without a database or
// embeddings:
//
//	go test -tags sqlite_fts5 -run '^$' -bench ReadFormats -benchtime 2s ./transcript/
//
// Each format reads its fixture (testdata): a JSON-lines fixture repeated
// to about benchInputBytes, a document as it is, again and again.

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/transcript"
)

// benchInputBytes is the size a JSON-lines input is repeated to: large
// enough that opening a file does not dominate.
const benchInputBytes = 8 << 20

// formatFixtures names, for every format, a fixture of its awkward
// records and the name it is read under.
var formatFixtures = map[transcript.Format][2]string{
	transcript.ClaudeCode: {"claude-code.jsonl", "/p/s.jsonl"},
	transcript.Codex:      {"rollout-2026-01-03T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee.jsonl", "/p/rollout-x.jsonl"},
	transcript.Gemini:     {"gemini-session.json", "/p/chats/session-x.json"},
	transcript.Aider:      {"aider.chat.history.md", "/repo/.aider.chat.history.md"},
	transcript.CopilotCLI: {"more/copilot-cli.jsonl", "/p/session-state/s/events.jsonl"},
	transcript.Qwen:       {"more/qwen-chats.jsonl", "/p/chats/q.jsonl"},
	transcript.Droid:      {"more/droid.jsonl", "/p/sessions/-p/d.jsonl"},
	transcript.Cursor:     {"more/home-dev-proj/agent-transcripts/cur-1.jsonl", "/p/projects/p/agent-transcripts/c.jsonl"},
	transcript.Amp:        {"more/T-amp-1.json", "/p/threads/T-1.json"},
	transcript.Continue:   {"more/sessions/k-1.json", "/p/sessions/k.json"},
	transcript.Cline:      {"more/tasks/1733000000000/ui_messages.json", "/p/tasks/1/ui_messages.json"},
	transcript.Copilot:    {"more/ws1/chatSessions/cs-1.jsonl", "/p/chatSessions/c.jsonl"},
	// A database fixture is SQL, built into the database at test time.
	transcript.Crush:    {"more/crush.sql", ".crush/crush.db"},
	transcript.OpenCode: {"more/opencode.sql", "opencode/opencode.db"},
}

// TestEveryFormatHasAFixture: a format is registered with its fixture.
func TestEveryFormatHasAFixture(t *testing.T) {
	for _, f := range transcript.Formats {
		fx, ok := formatFixtures[f]
		if !ok {
			t.Errorf("format %s has no fixture in formatFixtures", f)
			continue
		}
		if _, err := os.Stat(filepath.Join("testdata", fx[0])); err != nil {
			t.Errorf("format %s: %v", f, err)
		}
	}
}

func BenchmarkReadFormats(b *testing.B) {
	for _, d := range transcript.Descriptors() {
		fx, ok := formatFixtures[d.Name]
		if !ok {
			b.Fatalf("format %s has no fixture", d.Name)
		}
		if d.IsDatabase(fx[1]) {
			path := buildDB(b, fx[0], b.TempDir(), fx[1])
			b.Run(string(d.Name), func(b *testing.B) {
				messages := 0
				for b.Loop() {
					st, err := transcript.ReadFile(b.Context(), d.Name, path, transcript.Options{}, nil)
					if err != nil {
						b.Fatal(err)
					}
					messages += st.Messages
				}
				b.ReportMetric(float64(messages)/b.Elapsed().Seconds(), "messages/s")
			})
			continue
		}
		data, err := os.ReadFile(filepath.Join("testdata", fx[0]))
		if err != nil {
			b.Fatal(err)
		}
		if !d.IsRewritten(fx[1]) {
			// A last line without its ending is a record being written:
			// the copies are whole lines.
			if !bytes.HasSuffix(data, []byte("\n")) {
				data = append(data, '\n')
			}
			data = bytes.Repeat(data, max(1, benchInputBytes/len(data)))
		}
		b.Run(string(d.Name), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			var ms runtime.MemStats
			var maxHeap uint64
			messages := 0
			for b.Loop() {
				st, err := transcript.Read(d.Name, bytes.NewReader(data), fx[1], transcript.Options{}, func(*transcript.Session, ragd.Event) error {
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				messages += st.Messages
				runtime.ReadMemStats(&ms)
				maxHeap = max(maxHeap, ms.HeapAlloc)
			}
			if messages == 0 {
				b.Fatalf("%s: no message read", d.Name)
			}
			b.ReportMetric(float64(messages)/b.Elapsed().Seconds(), "messages/s")
			b.ReportMetric(float64(maxHeap)/(1<<20), "max-heap-MB")
		})
	}
}

// BenchmarkReadCrushReal reads the real Crush database of the bench
// folder (286 messages, with its 4 MB -wal): the copy and open of each read
// are part of the figure.
func BenchmarkReadCrushReal(b *testing.B) {
	path := filepath.Join(benchDir(), "crush", "dbr-crush.db")
	messages := 0
	for b.Loop() {
		st, err := transcript.ReadFile(b.Context(), transcript.Crush, path, transcript.Options{}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if st.Messages == 0 {
			b.Fatalf("no message read from %s", path)
		}
		messages += st.Messages
	}
	b.ReportMetric(float64(messages)/b.Elapsed().Seconds(), "messages/s")
}
