package transcript_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/transcript"
)

// manifestEntry is a row of MANIFEST-more-agents.json: a real file of one
// of the newer tools, with the counts a reading of it gave by hand.
type manifestEntry struct {
	File           string `json:"file"`
	Tool           string `json:"tool"`
	Provenance     string `json:"provenance"`
	Sessions       *int   `json:"sessions"`
	TypedPrompts   *int   `json:"typed_prompts"`
	VisibleAnswers *int   `json:"visible_answers"`
	ToolCalls      *int   `json:"tool_calls"`
	ToolResults    *int   `json:"tool_results"`
}

// manifestFormats maps the manifest's tool names to ragd's formats.
var manifestFormats = map[string]transcript.Format{
	"cursor": "cursor", "copilot-chat": "copilot", "copilot-cli": "copilot-cli", "opencode": "opencode",
	"continue": "continue", "amp": "amp", "qwen": "qwen", "factory-droid": "droid", "crush": "crush", "cline": "cline",
}

// knownDifferences are the files whose hand count differs from what a
// faithful read stores, and why (see the manifest's notes).
var knownDifferences = map[string]string{
	// The second user text block is the "Contents of <file>" attachment
	// Droid injects: the manifest's naive count of 2 says so itself.
	"droid/git-ai-droid-session.jsonl": "prompts",
}

func within(got, want int) bool {
	if want == 0 {
		return got == 0
	}
	tol := max(1, want/5)
	return got >= 1 && got >= want-tol && got <= want+tol
}

// TestRealMoreAgents imports each real file of the newer tools whose
// format ragd reads and compares the prompts, answers, tool calls and
// results stored with the manifest's hand counts: within 20% (at least 1
// apart allowed), and never none where the file has some.
func TestRealMoreAgents(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(benchDir(), "MANIFEST-more-agents.json"))
	if err != nil {
		t.Fatalf("manifest: %v (set RAGD_BENCH_DIR to the transcripts folder)", err)
	}
	var man struct {
		Files []manifestEntry `json:"files"`
	}
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	tested := 0
	for _, m := range man.Files {
		f, ok := manifestFormats[m.Tool]
		if !ok || m.TypedPrompts == nil {
			continue
		}
		if _, err := transcript.Lookup(f); err != nil {
			continue // not yet read by ragd: see the README's list
		}
		tested++
		t.Run(m.File, func(t *testing.T) {
			rr := readReal(t, f, m.File)
			count := map[string]int{}
			for _, e := range rr.events {
				count[e.Type]++
			}
			t.Logf("stored %d prompts, %d answers, %d tool calls, %d results, %d sessions; manifest %v/%v/%v/%v/%v",
				count[ragd.TypeChatMessage], count[ragd.TypeAgentResponse], count[transcript.TypeToolCall], count[transcript.TypeToolResult], len(rr.sessions),
				deref(m.TypedPrompts), deref(m.VisibleAnswers), deref(m.ToolCalls), deref(m.ToolResults), deref(m.Sessions))
			for _, c := range []struct {
				what string
				got  int
				want *int
			}{
				{"prompts", count[ragd.TypeChatMessage], m.TypedPrompts},
				{"answers", count[ragd.TypeAgentResponse], m.VisibleAnswers},
				{"tool calls", count[transcript.TypeToolCall], m.ToolCalls},
				{"tool results", count[transcript.TypeToolResult], m.ToolResults},
				{"sessions", len(rr.sessions), m.Sessions},
			} {
				if c.want == nil {
					continue
				}
				if !within(c.got, *c.want) {
					t.Errorf("%s: %d stored, the manifest counts %d (all: %v)", c.what, c.got, *c.want, count)
				} else if c.got != *c.want && knownDifferences[m.File] != c.what {
					t.Logf("%s: %d stored, the manifest counts %d", c.what, c.got, *c.want)
				}
			}
		})
	}
	if tested == 0 {
		t.Fatal("no file of the manifest is of a format ragd reads")
	}
}

func deref(p *int) any {
	if p == nil {
		return "-"
	}
	return *p
}
