package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ragd/ragd"
)

// readBytes reads data (as the file name) and returns its events and
// stats.
func readBytes(t *testing.T, f Format, name string, data []byte, opt Options) ([]ragd.Event, Stats) {
	t.Helper()
	var evs []ragd.Event
	st, err := Read(f, bytes.NewReader(data), name, opt, func(_ *Session, e ragd.Event) error {
		evs = append(evs, e)
		return nil
	})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return evs, st
}

// TestResumeMatchesWholeRead cuts each line-based fixture at every byte,
// as a follower finds a transcript being written, reads the part written,
// then resumes from the checkpoint (through JSON, as it is stored) over
// the whole file. The events of both reads, a repeated id counted once,
// must be the events of reading the whole file at once: same ids, same
// content, same order, nothing lost and nothing extra.
func TestResumeMatchesWholeRead(t *testing.T) {
	cases := []struct {
		f    Format
		name string
	}{
		{ClaudeCode, "claude-code.jsonl"},
		{Codex, "rollout-2026-01-03T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee.jsonl"},
		{Gemini, "gemini-session.jsonl"},
		{CopilotCLI, "more/copilot-cli.jsonl"},
		{Qwen, "more/qwen-chats.jsonl"},
		{Droid, "more/droid.jsonl"},
		{Cursor, "more/home-dev-proj/agent-transcripts/cur-1.jsonl"},
	}
	for _, c := range cases {
		t.Run(string(c.f), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", c.name))
			if err != nil {
				t.Fatal(err)
			}
			name := "/x/" + c.name
			whole, _ := readBytes(t, c.f, name, data, Options{})
			for cut := 0; cut <= len(data); cut++ {
				first, st := readBytes(t, c.f, name, data[:cut], Options{})
				b, err := json.Marshal(st.Checkpoint)
				if err != nil {
					t.Fatal(err)
				}
				var cp Checkpoint
				if err := json.Unmarshal(b, &cp); err != nil {
					t.Fatal(err)
				}
				if cp.Offset > int64(cut) {
					t.Fatalf("cut %d: checkpoint %d beyond the data", cut, cp.Offset)
				}
				second, _ := readBytes(t, c.f, name, data[cp.Offset:], Options{Resume: &cp})
				got := union(t, cut, first, second)
				if len(got) != len(whole) {
					t.Fatalf("cut %d: %d events, want %d", cut, len(got), len(whole))
				}
				for i := range whole {
					if !sameEvent(got[i], whole[i]) {
						t.Fatalf("cut %d: event %d = %+v, want %+v", cut, i, got[i], whole[i])
					}
				}
			}
		})
	}
}

// union appends b to a, leaving out events of b whose id a has, which
// must be equal to a's.
func union(t *testing.T, cut int, a, b []ragd.Event) []ragd.Event {
	t.Helper()
	byID := map[string]ragd.Event{}
	for _, e := range a {
		byID[e.ID] = e
	}
	out := append([]ragd.Event(nil), a...)
	for _, e := range b {
		if prev, ok := byID[e.ID]; ok {
			if !sameEvent(prev, e) {
				t.Fatalf("cut %d: id %s read again with other content: %+v then %+v", cut, e.ID, prev, e)
			}
			continue
		}
		byID[e.ID] = e
		out = append(out, e)
	}
	return out
}

func sameEvent(a, b ragd.Event) bool {
	return a.ID == b.ID && a.SessionID == b.SessionID && a.Type == b.Type && a.Actor == b.Actor &&
		a.Text == b.Text && a.Title == b.Title && a.Time.Equal(b.Time) && bytes.Equal(a.Payload, b.Payload)
}

// TestAiderResumeAtSession resumes an Aider history where a session
// starts and where the last block starts, as a follower does after Aider
// finished writing a block: nothing is lost or repeated with other
// content.
func TestAiderResumeAtSession(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "aider.chat.history.md"))
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Location: time.UTC}
	whole, _ := readBytes(t, Aider, "/repo/.aider.chat.history.md", data, opt)
	for _, at := range []string{"# aider chat started at 2026-01-06 10:30:00", "Done."} {
		cut := bytes.Index(data, []byte(at))
		first, st := readBytes(t, Aider, "/repo/.aider.chat.history.md", data[:cut], opt)
		cp := st.Checkpoint
		resumed := opt
		resumed.Resume = &cp
		second, _ := readBytes(t, Aider, "/repo/.aider.chat.history.md", data[cp.Offset:], resumed)
		got := union(t, cut, first, second)
		if len(got) != len(whole) {
			t.Fatalf("cut at %q: %d events, want %d", at, len(got), len(whole))
		}
		for i := range whole {
			if !sameEvent(got[i], whole[i]) {
				t.Errorf("cut at %q: event %d = %+v, want %+v", at, i, got[i], whole[i])
			}
		}
	}
}
