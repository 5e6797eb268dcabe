package transcript

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/ragd/ragd"
)

// The fixtures in testdata/more hold, for each newer format, the awkward
// records its tool writes: injected context beside typed text, partial
// streaming records, thinking, tool calls and results, slash commands,
// bookkeeping records, a malformed line.

func person(text string) ev {
	return ev{Type: ragd.TypeChatMessage, Actor: ragd.ActorPerson, Text: text}
}
func agent(text string) ev {
	return ev{Type: ragd.TypeAgentResponse, Actor: ragd.ActorAgent, Text: text}
}
func thinking(text string) ev { return ev{Type: TypeThinking, Actor: ragd.ActorAgent, Text: text} }
func call(text string) ev     { return ev{Type: TypeToolCall, Actor: ragd.ActorAgent, Text: text} }
func result(text string) ev   { return ev{Type: TypeToolResult, Actor: ActorTool, Text: text} }
func note(text string) ev     { return ev{Type: TypeSystemNote, Actor: ActorSystem, Text: text} }

func TestMoreFixtures(t *testing.T) {
	fileTime := time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		f       Format
		file    string
		want    []ev
		session Session
		// firstID is the first event's id.
		firstID   string
		malformed int
	}{
		{CopilotCLI, "copilot-cli.jsonl", []ev{
			{Type: TypeAttachment, Actor: ragd.ActorPerson, Text: "file"},
			// What the person typed, not the transformed content sent.
			person("Why is the queue slow?"),
			// The delta is a partial record; the whole message follows.
			thinking("Look at the loop."),
			agent("Because it polls."),
			call(`view {"path":"q.go"}`),
			result("package q"),
			{Type: TypeCommand, Actor: ragd.ActorPerson, Text: "/model gpt-5"},
			note("rate limited"),
			person("Thanks, token [REDACTED:github-token] works"),
		}, Session{ID: "copilot-cli:cc-1", Format: CopilotCLI, ToolID: "cc-1", Cwd: "/home/dev/proj", GitBranch: "main"},
			"copilot-cli:cc-1/e2/attachment/0", 1},
		{Qwen, "qwen-chats.jsonl", []ev{
			person("List the files here."),
			thinking("I should list them."),
			call(`list_directory {"path":"/home/dev/proj"}`),
			result("a.go\nb.go"),
			agent("Two files: a.go and b.go."),
			{Type: TypeCommand, Actor: ragd.ActorPerson, Text: "/compress"},
			{Type: TypeCompacted, Actor: ActorSystem, Text: "conversation compacted"},
			// A goal's control prompt is the tool's, not the person's.
			note("Continue toward the goal."),
			// A custom command's arguments are the request.
			person("look at the retries"),
		}, Session{ID: "qwen:qs-1", Format: Qwen, ToolID: "qs-1", Cwd: "/home/dev/proj"}, "qwen:qs-1/q1", 0},
		{Droid, "droid.jsonl", []ev{
			// session_start's title, handed on with the first message
			// (issue 35 item 3).
			{Type: TypeTitle, Actor: ActorSystem, Text: "Fix the comment"},
			person("Fix the first comment in @index.ts"),
			// The file the person named, attached by Droid.
			note("Contents of /home/dev/proj/index.ts (lines 1-2 of 2):\n// old\n"),
			thinking("Edit line 1."),
			call(`Edit {"file_path":"/home/dev/proj/index.ts"}`),
			result("ok"),
			agent("Done: the comment is fixed."),
		}, Session{ID: "droid:ds-1", Format: Droid, ToolID: "ds-1", Cwd: "/home/dev/proj", Title: "Fix the comment"}, "droid:ds-1/title/" + shortHash("Fix the comment"), 0},
		{Cursor, "home-dev-proj/agent-transcripts/cur-1.jsonl", []ev{
			note("<attached_files>\n<file path=\"a.go\">package a</file>\n</attached_files>"),
			person("List the HBO shows"),
			// Cursor writes "[REDACTED]" where its thinking was.
			thinking("[REDACTED]"),
			call(`WebSearch {"search_term":"HBO 1990s"}`),
			agent("Here is the list."),
			person("Thanks"),
		}, Session{ID: "cursor:cur-1", Format: Cursor, ToolID: "cur-1", Slug: "home-dev-proj"}, "", 0},
		{Amp, "T-amp-1.json", []ev{
			person("Plan a jokes CLI"),
			thinking("Check the files."),
			agent("Let me look."),
			call(`Read {"path":"/home/dev/proj/jokes.csv"}`),
			result("id,setup"),
			agent("Here is the plan."),
			// The message still streaming is read once complete.
			{Type: TypeTitle, Actor: ActorSystem, Text: "Jokes CLI"},
		}, Session{ID: "amp:T-amp-1", Format: Amp, ToolID: "T-amp-1", Cwd: "/home/dev/proj", Title: "Jokes CLI"}, "amp:T-amp-1/0/0", 0},
		{Continue, "sessions/k-1.json", []ev{
			// The attached file (a context item) is not kept.
			person("Add a hello line to @index.ts"),
			agent("I'll read it first."),
			call(`Read {"filepath":"index.ts"}`),
			result("// code"),
			thinking("It is short."),
			agent("Done."),
			{Type: TypeTitle, Actor: ActorSystem, Text: "Hello lines"},
		}, Session{ID: "continue:k-1", Format: Continue, ToolID: "k-1", Cwd: "/home/dev/proj", Title: "Hello lines"}, "continue:k-1/0", 0},
		// Built from Cline's sources (ClineMessage): no real file.
		{Cline, "tasks/1733000000000/ui_messages.json", []ev{
			{Type: TypeAttachment, Actor: ragd.ActorPerson, Text: "image"},
			person("Make the retry loop back off"),
			// The request and its environment details are not kept; the
			// cwd is read from them.
			thinking("Read q.go first."),
			agent("I'll read the loop."),
			call(`tool {"tool":"readFile","path":"q.go"}`),
			call("command go test ./..."),
			result("ok"),
			agent("Exponential or linear?"),
			person("exponential"),
			note("diff failed"),
			agent("The loop backs off exponentially."),
		}, Session{ID: "cline:1733000000000", Format: Cline, ToolID: "1733000000000", Cwd: "/home/dev/proj"}, "cline:1733000000000/1733000000000/image/0", 0},
		{Copilot, "ws1/chatSessions/cs-1.jsonl", []ev{
			// The attached selection is context; the draft in inputState
			// was never sent.
			person("Why does the retry loop spin?"),
			call("copilot_readFile Reading q.go"),
			result("Read q.go"),
			agent("It never sleeps between attempts in `q.go`."),
			// The second request arrives by an append to requests.
			person("Add a backoff"),
			thinking("Exponential."),
			agent("Added exponential backoff."),
			// The third is still being answered: read once complete.
			{Type: TypeTitle, Actor: ActorSystem, Text: "Retry loop"},
		}, Session{ID: "copilot:cs-1", Format: Copilot, ToolID: "cs-1", Cwd: "/home/dev/proj", Title: "Retry loop"}, "copilot:cs-1/r1", 0},
	}
	for _, c := range cases {
		t.Run(string(c.f), func(t *testing.T) {
			got, times, sessions, st := readFixture(t, c.f, filepath.Join("more", c.file), Options{FileTime: fileTime})
			diffEvents(t, typesTexts(got), c.want)
			if c.firstID != "" && len(got) > 0 && got[0].ID != c.firstID {
				t.Errorf("first event id %q, want %q", got[0].ID, c.firstID)
			}
			if len(sessions) > 0 {
				if s := sessions[len(sessions)-1]; s != c.session {
					t.Errorf("session %+v, want %+v", s, c.session)
				}
			}
			if st.Malformed != c.malformed {
				t.Errorf("%d malformed (%v), want %d", st.Malformed, st.Errors, c.malformed)
			}
			ids := map[string]bool{}
			for i, e := range got {
				if ids[e.ID] {
					t.Errorf("event id %s twice", e.ID)
				}
				ids[e.ID] = true
				if times[i].IsZero() {
					t.Errorf("event %s has no time", e.ID)
				}
			}
		})
	}
}

// TestMoreFixturesReadAgain: a document read again, or a JSON-lines file
// resumed at its checkpoint, yields the same events for what was read, so
// that the store counts them as duplicates.
func TestMoreFixturesReadAgain(t *testing.T) {
	for _, c := range []struct {
		f    Format
		file string
	}{{Amp, "T-amp-1.json"}, {Continue, "sessions/k-1.json"}, {Cline, "tasks/1733000000000/ui_messages.json"}, {Copilot, "ws1/chatSessions/cs-1.jsonl"}} {
		first, firstTimes, _, st := readFixture(t, c.f, filepath.Join("more", c.file), Options{FileTime: time.Unix(100, 0)})
		cp := st.Checkpoint
		cp.Offset, cp.Line = 0, 0
		// Read again later, as the daemon does a rewritten document.
		again, againTimes, _, _ := readFixture(t, c.f, filepath.Join("more", c.file), Options{FileTime: time.Unix(200, 0), Resume: &cp})
		diffEvents(t, again, first)
		for i := range min(len(firstTimes), len(againTimes)) {
			if !firstTimes[i].Equal(againTimes[i]) {
				t.Errorf("%s: event %s at %v, then at %v", c.f, first[i].ID, firstTimes[i], againTimes[i])
			}
		}
	}
}
