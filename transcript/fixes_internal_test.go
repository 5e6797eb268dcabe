package transcript

import (
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd"
)

// readString reads data as format f from a file named name and returns
// the events' ids, types and texts.
func readString(t *testing.T, f Format, name, data string) ([]ev, Stats) {
	t.Helper()
	var evs []ev
	st, err := Read(f, strings.NewReader(data), name, Options{Location: time.UTC}, func(s *Session, e ragd.Event) error {
		if err := e.Validate(); err != nil {
			t.Errorf("event %s is invalid: %v", e.ID, err)
		}
		evs = append(evs, ev{e.ID, e.Type, e.Actor, e.Text, e.Title})
		return nil
	})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return evs, st
}

// typesTexts drops the ids and titles, for tests about the mapping only.
func typesTexts(evs []ev) []ev {
	out := make([]ev, len(evs))
	for i, e := range evs {
		out[i] = ev{Type: e.Type, Actor: e.Actor, Text: e.Text}
	}
	return out
}

func claudeLine(uuid, content string) string {
	return `{"sessionId":"s1","cwd":"/p","type":"user","uuid":"` + uuid + `","timestamp":"2026-01-02T10:00:00Z","message":{"role":"user","content":` + content + "}}\n"
}

// TestClaudeInjectedAndCommands: the IDE's state is not a prompt; a slash
// command's arguments are, unless it is a built-in whose arguments are
// settings.
func TestClaudeInjectedAndCommands(t *testing.T) {
	data := claudeLine("u1", `[{"type":"text","text":"<ide_opened_file>The user opened the file /p/a.go in the IDE. This may or may not be related to the current task.</ide_opened_file>"},{"type":"text","text":"Why is a.go slow?"}]`) +
		claudeLine("u2", `"<ide_selection>The user selected lines 1 to 3</ide_selection> and explain this"`) +
		claudeLine("u3", `"<command-message>orchestrator is running…</command-message>\n<command-name>/orchestrator</command-name>\n<command-args>plan the queue migration</command-args>"`) +
		claudeLine("u4", `"<command-name>/init</command-name>\n<command-message>init</command-message>\n<command-args></command-args>"`) +
		claudeLine("u5", `"<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args>opus</command-args>"`)
	got, _ := readString(t, ClaudeCode, "/p/s1.jsonl", data)
	diffEvents(t, typesTexts(got), []ev{
		{Type: TypeSystemNote, Actor: ActorSystem, Text: "<ide_opened_file>The user opened the file /p/a.go in the IDE. This may or may not be related to the current task.</ide_opened_file>"},
		{Type: ragd.TypeChatMessage, Actor: ragd.ActorPerson, Text: "Why is a.go slow?"},
		{Type: ragd.TypeChatMessage, Actor: ragd.ActorPerson, Text: "and explain this"},
		{Type: ragd.TypeChatMessage, Actor: ragd.ActorPerson, Text: "plan the queue migration"},
		{Type: TypeCommand, Actor: ragd.ActorPerson, Text: "/init"},
		{Type: TypeCommand, Actor: ragd.ActorPerson, Text: "/model opus"},
	})
}

// TestGeminiCommandArguments: a custom command's arguments are the prompt.
func TestGeminiCommandArguments(t *testing.T) {
	data := `{"sessionId":"g","projectHash":"h","startTime":"2026-01-02T10:00:00Z","lastUpdated":"2026-01-02T10:00:00Z","kind":"main"}
{"id":"m1","timestamp":"2026-01-02T10:00:01Z","type":"user","content":[{"text":"expanded prompt"}],"displayContent":[{"text":"/review-pr look at the retry loop"}]}
{"id":"m2","timestamp":"2026-01-02T10:00:02Z","type":"user","content":[{"text":"init prompt"}],"displayContent":[{"text":"/init"}]}
{"id":"m3","timestamp":"2026-01-02T10:00:03Z","type":"user","content":[{"text":"x"}],"displayContent":[{"text":"/memory add we use SQLite"}]}
`
	got, _ := readString(t, Gemini, "/p/chats/session-g.jsonl", data)
	diffEvents(t, typesTexts(got), []ev{
		{Type: ragd.TypeChatMessage, Actor: ragd.ActorPerson, Text: "look at the retry loop"},
		{Type: TypeCommand, Actor: ragd.ActorPerson, Text: "/init"},
		{Type: TypeCommand, Actor: ragd.ActorPerson, Text: "/memory add we use SQLite"},
	})
}

// TestAiderConfirmationsAndFailedEdits: answers to Aider's questions are
// not prompts, its report of edits that failed is not the reply, and
// /ask's arguments are a prompt.
func TestAiderConfirmationsAndFailedEdits(t *testing.T) {
	data := `# aider chat started at 2026-01-06 09:00:00

#### Comment on CONVENTIONS.md  
> CONVENTIONS.md  
> Add file to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y  

Sure, here is the edit.

> Applied edit  
> # 1 SEARCH/REPLACE block failed to match!

## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in a.go
<<<<<<< SEARCH
old line
=======
new line
>>>>>>> REPLACE

The SEARCH section must exactly match an existing block of lines including all white space, comments, indentation, docstrings, etc

# The other 1 SEARCH/REPLACE block were applied successfully.
Don't re-send them.
Just reply with fixed versions of the block above that failed to match.  
> Commit abc fix  

#### Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: all  
> Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: a  

The fixed block follows.

#### /ask why did it fail?  

It did not match.

#### /add b.go  
`
	got, _ := readString(t, Aider, "/repo/.aider.chat.history.md", data)
	report := "Applied edit\n# 1 SEARCH/REPLACE block failed to match!\n\n## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in a.go\n<<<<<<< SEARCH\nold line\n=======\nnew line\n>>>>>>> REPLACE\n\nThe SEARCH section must exactly match an existing block of lines including all white space, comments, indentation, docstrings, etc\n\n# The other 1 SEARCH/REPLACE block were applied successfully.\nDon't re-send them.\nJust reply with fixed versions of the block above that failed to match.\nCommit abc fix"
	diffEvents(t, typesTexts(got), []ev{
		{Type: ragd.TypeChatMessage, Actor: ragd.ActorPerson, Text: "Comment on CONVENTIONS.md"},
		{Type: TypeSystemNote, Actor: ActorSystem, Text: "CONVENTIONS.md\nAdd file to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y"},
		{Type: ragd.TypeAgentResponse, Actor: ragd.ActorAgent, Text: "Sure, here is the edit."},
		{Type: TypeSystemNote, Actor: ActorSystem, Text: report},
		{Type: TypeSystemNote, Actor: ragd.ActorPerson, Text: "Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: all"},
		{Type: TypeSystemNote, Actor: ActorSystem, Text: "Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: a"},
		{Type: ragd.TypeAgentResponse, Actor: ragd.ActorAgent, Text: "The fixed block follows."},
		{Type: ragd.TypeChatMessage, Actor: ragd.ActorPerson, Text: "why did it fail?"},
		{Type: ragd.TypeAgentResponse, Actor: ragd.ActorAgent, Text: "It did not match."},
		{Type: TypeCommand, Actor: ragd.ActorPerson, Text: "/add b.go"},
	})
}

// TestAiderReasoningIsThinking: the thinking a reasoning model writes
// into Aider's reply, between Aider's reasoning tags, is the agent's
// thinking and not its answer (an empty one, as in the bench's Monochromatic
// history, is dropped); the reply keeps the id of the whole block.
func TestAiderReasoningIsThinking(t *testing.T) {
	const tag = "thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b"
	data := "# aider chat started at 2026-01-07 09:00:00\n\n" +
		"#### What's this dir doing?  \n\n" +
		"<" + tag + ">\n\n\n\n\n\n</" + tag + ">\n\n" +
		"You haven't shared any files yet.\n\n" +
		"#### And now?  \n\n" +
		"<" + tag + ">\n\nThe person added main.go; it starts a server.\n\n</" + tag + ">\n\n" +
		"It starts an HTTP server.\n\n" +
		"#### Only think  \n\n" +
		"<" + tag + ">\n\nNothing to say yet\n"
	got, _ := readString(t, Aider, "/repo/.aider.chat.history.md", data)
	diffEvents(t, typesTexts(got), []ev{
		{Type: ragd.TypeChatMessage, Actor: ragd.ActorPerson, Text: "What's this dir doing?"},
		{Type: ragd.TypeAgentResponse, Actor: ragd.ActorAgent, Text: "You haven't shared any files yet."},
		{Type: ragd.TypeChatMessage, Actor: ragd.ActorPerson, Text: "And now?"},
		{Type: TypeThinking, Actor: ragd.ActorAgent, Text: "The person added main.go; it starts a server."},
		{Type: ragd.TypeAgentResponse, Actor: ragd.ActorAgent, Text: "It starts an HTTP server."},
		{Type: ragd.TypeChatMessage, Actor: ragd.ActorPerson, Text: "Only think"},
		{Type: TypeThinking, Actor: ragd.ActorAgent, Text: "Nothing to say yet"},
	})
	// The reply's id is derived from the block as written, thinking
	// included: ids (and the judged questions naming them) do not move.
	block := "<" + tag + ">\n\n\n\n\n\n</" + tag + ">\n\nYou haven't shared any files yet."
	off := int64(strings.Index(data, "<"+tag))
	if want := derivedID("aider:2026-01-07T09:00:00", off, []byte(block)); got[1].ID != want {
		t.Errorf("reply id %s, want %s (from the whole block)", got[1].ID, want)
	}
	if !strings.HasPrefix(got[3].ID, got[4].ID+"/thinking/") {
		t.Errorf("thinking id %s is not under its reply's %s", got[3].ID, got[4].ID)
	}
}

func TestSplitSlash(t *testing.T) {
	for _, c := range []struct {
		in, name, args string
		ok             bool
	}{
		{"/init", "init", "", true},
		{"/orchestrator plan it", "orchestrator", "plan it", true},
		{"/ask\nwhy?", "ask", "why?", true},
		{"/usr/bin/env go", "", "", false},
		{"// a comment", "", "", false},
		{"/", "", "", false},
		{"plain", "", "", false},
	} {
		name, args, ok := splitSlash(c.in)
		if name != c.name || args != c.args || ok != c.ok {
			t.Errorf("splitSlash(%q) = %q, %q, %v; want %q, %q, %v", c.in, name, args, ok, c.name, c.args, c.ok)
		}
	}
}

// TestCodexEarlyRollout: a rollout written before Codex wrapped its lines
// has no user_message events: its user items are the prompts.
func TestCodexEarlyRollout(t *testing.T) {
	data := `{"id":"0199bbbb-0000-7000-8000-000000000001","timestamp":"2025-05-01T10:00:00.000Z","instructions":null}
{"record_type":"state"}
{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n<cwd>/p</cwd>\n</environment_context>"}]}
{"type":"message","role":"user","content":[{"type":"input_text","text":"Why is it slow?"}]}
{"type":"message","role":"assistant","content":[{"type":"output_text","text":"It polls."}]}
`
	got, _ := readString(t, Codex, "/p/rollout-2025-05-01T10-00-00-0199bbbb-0000-7000-8000-000000000001.jsonl", data)
	diffEvents(t, typesTexts(got), []ev{
		note("<environment_context>\n<cwd>/p</cwd>\n</environment_context>"),
		person("Why is it slow?"),
		agent("It polls."),
	})
}
