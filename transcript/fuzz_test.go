package transcript_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/transcript"
)

// fuzzRead checks the invariants of reading any bytes as format f: no
// error from a healthy reader, only valid events, counts that add up, and
// a checkpoint inside the data.
func fuzzRead(f *testing.F, format transcript.Format, name, fixture string) {
	data, err := os.ReadFile(filepath.Join("testdata", fixture))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	for _, line := range bytes.Split(data, []byte("\n")) {
		f.Add(line)
	}
	f.Add([]byte{})
	f.Add([]byte("\ufeff{\"type\":\"user\"}\r\n\x00\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		events := 0
		st, err := transcript.Read(format, bytes.NewReader(b), name, transcript.Options{Location: time.UTC}, func(s *transcript.Session, e ragd.Event) error {
			events++
			if err := e.Validate(); err != nil {
				t.Fatalf("invalid event %+v: %v", e, err)
			}
			if s == nil || s.ID != e.SessionID {
				t.Fatalf("event %s handed with session %+v", e.ID, s)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		if st.Messages+st.Mechanism != events {
			t.Fatalf("stats count %d+%d events, fn saw %d", st.Messages, st.Mechanism, events)
		}
		if st.Checkpoint.Offset < 0 || st.Checkpoint.Offset > int64(len(b)) {
			t.Fatalf("checkpoint %d outside %d bytes", st.Checkpoint.Offset, len(b))
		}
		if len(st.Errors) > st.Malformed || len(st.Errors) > transcript.MaxLineErrors {
			t.Fatalf("%d errors kept for %d malformed", len(st.Errors), st.Malformed)
		}
	})
}

func FuzzReadClaudeCode(f *testing.F) {
	fuzzRead(f, transcript.ClaudeCode, "/p/s.jsonl", "claude-code.jsonl")
}

func FuzzReadCodex(f *testing.F) {
	fuzzRead(f, transcript.Codex, "/p/rollout-x.jsonl", "rollout-2026-01-03T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee.jsonl")
}

func FuzzReadGeminiLines(f *testing.F) {
	fuzzRead(f, transcript.Gemini, "/p/chats/session-x.jsonl", "gemini-session.jsonl")
}

func FuzzReadGeminiDocument(f *testing.F) {
	fuzzRead(f, transcript.Gemini, "/p/chats/session-x.json", "gemini-session.json")
}

func FuzzReadAider(f *testing.F) {
	fuzzRead(f, transcript.Aider, "/repo/.aider.chat.history.md", "aider.chat.history.md")
}

func FuzzReadCopilotCLI(f *testing.F) {
	fuzzRead(f, transcript.CopilotCLI, "/p/session-state/s/events.jsonl", "more/copilot-cli.jsonl")
}

func FuzzReadQwen(f *testing.F) {
	fuzzRead(f, transcript.Qwen, "/p/chats/q.jsonl", "more/qwen-chats.jsonl")
}

func FuzzReadDroid(f *testing.F) {
	fuzzRead(f, transcript.Droid, "/p/sessions/-p/d.jsonl", "more/droid.jsonl")
}

func FuzzReadCursorTranscript(f *testing.F) {
	fuzzRead(f, transcript.Cursor, "/p/projects/p/agent-transcripts/c.jsonl", "more/home-dev-proj/agent-transcripts/cur-1.jsonl")
}

func FuzzReadAmp(f *testing.F) {
	fuzzRead(f, transcript.Amp, "/p/threads/T-1.json", "more/T-amp-1.json")
}

func FuzzReadContinue(f *testing.F) {
	fuzzRead(f, transcript.Continue, "/p/sessions/k.json", "more/sessions/k-1.json")
}

func FuzzReadCline(f *testing.F) {
	fuzzRead(f, transcript.Cline, "/p/tasks/1/ui_messages.json", "more/tasks/1733000000000/ui_messages.json")
}

func FuzzReadCopilotLog(f *testing.F) {
	fuzzRead(f, transcript.Copilot, "/p/chatSessions/c.jsonl", "more/ws1/chatSessions/cs-1.jsonl")
}

func FuzzReadCopilotDocument(f *testing.F) {
	fuzzRead(f, transcript.Copilot, "/p/chatSessions/c.json", "more/ws1/chatSessions/cs-1.jsonl")
}

func FuzzReadOpenCodeStorage(f *testing.F) {
	fuzzRead(f, transcript.OpenCode, "/p/storage/message/ses_1/msg_2.json", "more/opencode-storage/storage/message/ses_1/msg_2.json")
}

// FuzzReadClineAPI: Cline's api_conversation_history.json, read where no
// ui_messages.json is beside it (issue 35 item 4).
func FuzzReadClineAPI(f *testing.F) {
	fuzzRead(f, transcript.Cline, "/p/tasks/1/api_conversation_history.json", "more/apitasks/1733000000000/api_conversation_history.json")
}
