package transcript_test

// Tests over transcripts the tools themselves wrote, read in place from the
// project's shared folder: RAGD_BENCH_DIR (the transcripts folder), else
// RAGD_SHARED_DIR/bench/transcripts, else ../../shared/bench/transcripts
// from this package. A missing file fails the test; it never skips. Every
// number below was counted by reading the files (jq over the JSON lines,
// grep over Aider's markdown).

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/transcript"
)

func benchDir() string {
	if d := os.Getenv("RAGD_BENCH_DIR"); d != "" {
		return d
	}
	if d := os.Getenv("RAGD_SHARED_DIR"); d != "" {
		return filepath.Join(d, "bench", "transcripts")
	}
	return filepath.Join("..", "..", "shared", "bench", "transcripts")
}

type realRead struct {
	st       transcript.Stats
	events   []ragd.Event
	sessions map[string]transcript.Session
	data     []byte
}

func readReal(t *testing.T, f transcript.Format, rel string) realRead {
	t.Helper()
	path, err := filepath.Abs(filepath.Join(benchDir(), rel))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("real transcript: %v (set RAGD_BENCH_DIR to the transcripts folder)", err)
	}
	rr := realRead{sessions: map[string]transcript.Session{}, data: data}
	rr.st, err = transcript.ReadFile(t.Context(), f, path, transcript.Options{Location: time.UTC}, func(s *transcript.Session, e ragd.Event) error {
		if err := e.Validate(); err != nil {
			t.Errorf("invalid event %s: %v", e.ID, err)
		}
		rr.events = append(rr.events, e)
		rr.sessions[s.ID] = *s
		return nil
	})
	if err != nil {
		t.Fatalf("Read %s: %v", rel, err)
	}
	if rr.st.Malformed != 0 || rr.st.Incomplete {
		t.Errorf("%s: %d malformed lines %v, incomplete %v; the tools' own files should read cleanly", rel, rr.st.Malformed, rr.st.Errors, rr.st.Incomplete)
	}
	return rr
}

// texts returns the texts of the events of type typ.
func (rr realRead) texts(typ string) []string {
	var out []string
	for _, e := range rr.events {
		if e.Type == typ {
			out = append(out, e.Text)
		}
	}
	return out
}

func TestRealTranscripts(t *testing.T) {
	cases := []struct {
		f        transcript.Format
		file     string
		sessions int
		// chat and agent are the counts of chat.message and
		// agent.response events; mechanism of all others. -1 is a count
		// not asserted: where Aider's markdown leaves the split between
		// reply and Aider's own output to the reader's judgement, the
		// property below is checked instead.
		chat, agent, mechanism int
		firstPrompt            string
		cwd, branch, title     string
		skipped                map[string]int
	}{
		// 37 user records: 32 tool_result carriers, 1 meta caveat, /clear
		// and its stdout, 2 prompts; 59 assistant records: 7 with text.
		// 15 summaries, none naming a record of this file.
		{transcript.ClaudeCode, "claude-code/daaain-cc1.0.24-fe869ecb.jsonl", 1, 2, 7, 87,
			"Hey Claude, can you please add a Github Action to run tests and linting? You can test it with `act`.",
			"/Users/dain/workspace/claude-code-log", "", "", map[string]int{"summary of another session": 15}},
		// Only a caveat, /model and its output: no conversation.
		{transcript.ClaudeCode, "claude-code/daaain-cc2.0.0-commands-only-3680252d.jsonl", 1, 0, 0, 3,
			"", "/Users/dain/workspace/danieldemmel.me-next", "main", "", map[string]int{"summary of another session": 3}},
		// 2 prompts, 8 assistant texts, 49 attachments (hook output), 6
		// system records.
		{transcript.ClaudeCode, "claude-code/daaain-cc2.1.114-ef958aa1.jsonl", 1, 2, 8, 152,
			"OK, we're going to make a little experiment here.", "-experiments/worktrees", "master", "",
			map[string]int{"claude-code file-history-snapshot record": 3, "claude-code last-prompt record": 7, "claude-code permission-mode record": 8}},
		// A subagent's file: all of it is sidechain, so nothing indexed:
		// 1 prompt, 10 texts, 24 tool calls, 24 results.
		{transcript.ClaudeCode, "claude-code/daaain-cc2.1.17-subagent-a2271d1.jsonl", 1, 0, 0, 59,
			"", "/src/experiments/claude_p", "", "", nil},
		{transcript.ClaudeCode, "claude-code/daaain-snapshots-only-a95fea4a.jsonl", 0, 0, 0, 0,
			"", "", "", "", map[string]int{"claude-code file-history-snapshot record": 4}},
		{transcript.ClaudeCode, "claude-code/daaain-summary-only-4e27c414.jsonl", 0, 0, 0, 0,
			"", "", "", "", map[string]int{"summary of another session": 1}},
		// 4 user messages (1 environment context), 3 assistant messages;
		// event_msg repeats are skipped.
		{transcript.Codex, "codex/aisessions-codex0.47.0-pomodoro.jsonl", 1, 3, 3, 57,
			"Build a simple Pomodoro timer web app using HTML, CSS, and JavaScript.", "/Users/yoavfarhi/dev/pomodoro/codex", "", "", nil},
		{transcript.Codex, "codex/cctranscripts-codex0.77.0-truncated.jsonl", 1, 1, 0, 2,
			"can you analyse the MD files in this directory", "/Users/macmini/Code/homelab-migration", "", "", nil},
		// 5 user and 14 gemini messages.
		{transcript.Gemini, "gemini/aisessions-pomodoro.json", 1, 5, 14, 44,
			"Build a simple Pomodoro timer web app using HTML, CSS, and JavaScript.", "", "", "", nil},
		// /init, 1 prompt, 2 gemini texts, a tool response sent as the
		// person's, 5 messages written again.
		{transcript.Gemini, "gemini/vibetracker-2026-04-23.jsonl", 1, 1, 2, 35,
			"幫我做一個小修改", "", "", "", map[string]int{"gemini message written again (new parts kept)": 5}},
		// 19 "# aider chat started" headers; 25 "####" blocks whose first
		// line is not a command (awk over the file), 2 of which are
		// answers to "Add file to the chat? (Y)es/(N)o…".
		{transcript.Aider, "aider/monochromatic.aider.chat.history.md", 19, 23, -1, -1,
			"What can you say about this package?", "", "", "", nil},
		// Four sessions; its 8 "####" blocks are all slash commands.
		{transcript.Aider, "aider/zen-mcp-server.aider.chat.history.md", 4, 0, -1, -1,
			"", "", "", "", nil},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			rr := readReal(t, c.f, c.file)
			chat, agent := rr.texts(ragd.TypeChatMessage), rr.texts(ragd.TypeAgentResponse)
			if len(chat) != c.chat || c.agent >= 0 && len(agent) != c.agent || c.mechanism >= 0 && rr.st.Mechanism != c.mechanism {
				t.Errorf("%d chat, %d agent, %d mechanism events; want %d, %d, %d", len(chat), len(agent), rr.st.Mechanism, c.chat, c.agent, c.mechanism)
			}
			if rr.st.Messages != len(chat)+len(agent) {
				t.Errorf("Stats.Messages = %d, want %d", rr.st.Messages, len(chat)+len(agent))
			}
			if rr.st.Sessions != c.sessions || len(rr.sessions) != c.sessions && !(c.sessions > 0 && len(rr.events) == 0) {
				t.Errorf("%d sessions (%d with events), want %d", rr.st.Sessions, len(rr.sessions), c.sessions)
			}
			if c.firstPrompt != "" && (len(chat) == 0 || !strings.HasPrefix(chat[0], c.firstPrompt)) {
				t.Errorf("first prompt = %.80q, want it to start %q", first(chat), c.firstPrompt)
			}
			for _, s := range rr.sessions {
				if c.f != transcript.Aider && c.f != transcript.Gemini && (s.Cwd != c.cwd || s.GitBranch != c.branch || s.Title != c.title) {
					t.Errorf("session %s: cwd %q branch %q title %q; want %q %q %q", s.ID, s.Cwd, s.GitBranch, s.Title, c.cwd, c.branch, c.title)
				}
			}
			for reason, n := range c.skipped {
				if rr.st.Skipped[reason] != n {
					t.Errorf("skipped %q: %d, want %d (all: %v)", reason, rr.st.Skipped[reason], n, rr.st.Skipped)
				}
			}
			if c.f == transcript.Aider {
				// Every prompt is the person's "#### " input, and every
				// reply starts with a line that is neither input nor
				// Aider's "> " output, as written.
				lines := map[string]bool{}
				for _, l := range strings.Split(string(rr.data), "\n") {
					lines[strings.TrimRight(l, " ")] = true
				}
				for _, p := range chat {
					line, _, _ := strings.Cut(p, "\n")
					if !lines["#### "+line] {
						t.Errorf("prompt %.60q is not a #### line of the history", p)
					}
				}
				for _, p := range chat {
					if strings.Contains(p, "(Y)es/(N)o") {
						t.Errorf("a confirmation is a prompt: %.80q", p)
					}
				}
				for _, a := range agent {
					// Aider's report of edits that failed is not the reply.
					for _, own := range []string{"## SearchReplaceNoExactMatch", "The SEARCH section must exactly match", "Don't re-send them."} {
						if strings.Contains(a, own) {
							t.Errorf("reply %.60q holds Aider's report %q", a, own)
						}
					}
					line, _, _ := strings.Cut(a, "\n")
					if !lines[line] || strings.HasPrefix(line, "#### ") || strings.HasPrefix(line, "> ") {
						t.Errorf("reply %.60q does not start with a plain line of the history", a)
					}
				}
			}
		})
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// TestRealSubagentJoinsParent checks that a Claude Code subagent file
// joins its parent's session, as its records say.
func TestRealSubagentJoinsParent(t *testing.T) {
	rr := readReal(t, transcript.ClaudeCode, "claude-code/daaain-cc2.1.17-subagent-a2271d1.jsonl")
	if _, ok := rr.sessions["claude-code:29ccd257-68b1-427f-ae5f-6524b7cb6f20"]; !ok {
		t.Errorf("sessions %v, want the parent's 29ccd257-…", rr.sessions)
	}
	types := map[string]int{}
	for _, e := range rr.events {
		types[e.Type]++
	}
	want := map[string]int{transcript.TypeSubagentMessage: 1, transcript.TypeSubagentResponse: 10, transcript.TypeToolCall: 24, transcript.TypeToolResult: 24}
	for k, v := range want {
		if types[k] != v {
			t.Errorf("%s: %d events, want %d (all %v)", k, types[k], v, types)
		}
	}
}

// TestRealGeminiProjectHash matches the Gemini sample to the folder its
// tool calls wrote into: its projectHash is the SHA-256 of that root.
func TestRealGeminiProjectHash(t *testing.T) {
	rr := readReal(t, transcript.Gemini, "gemini/aisessions-pomodoro.json")
	s := rr.sessions["gemini:0b23371a-ce2e-4b1c-81a0-44af5d94d9ce"]
	root, ok := transcript.MatchProject(s, []string{"/Users/yoavfarhi/dev", "/Users/yoavfarhi/dev/pomodoro/gemini", "/elsewhere"})
	if !ok || root != "/Users/yoavfarhi/dev/pomodoro/gemini" {
		t.Errorf("MatchProject = %q, %v; want the pomodoro/gemini root (hash %s)", root, ok, s.ProjectHash)
	}
}
