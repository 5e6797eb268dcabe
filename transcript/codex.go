package transcript

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/ragd/ragd"
)

// codexFormat reads Codex CLI's rollouts:
// $CODEX_HOME/sessions (default ~/.codex/sessions)/YYYY/MM/DD/rollout-*.jsonl.
var codexFormat = Descriptor{
	Name: Codex,
	Tool: "Codex CLI",
	Paths: func(getenv func(string) string) ([]string, error) {
		return envOrHome(Codex, getenv, "CODEX_HOME", []string{"sessions"}, []string{".codex", "sessions"})
	},
	Match: func(path string) bool {
		base := filepath.Base(path)
		return strings.HasPrefix(base, "rollout-") && strings.HasSuffix(base, ".jsonl")
	},
	Looks: "rollout-*.jsonl files (the names Codex gives its sessions; give a file of another name itself)",
	Read:  readCodex,
}

// codexLine is one line of a Codex CLI rollout: {timestamp, type, payload}.
// Rollouts written before Codex wrapped its lines hold a bare session
// header ({id, timestamp, ...}) and bare response items ({type: "message",
// ...}); those are read too.
type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	ID        string          `json:"id"`
	Record    string          `json:"record_type"`
}

type codexMeta struct {
	ID  string `json:"id"`
	Cwd string `json:"cwd"`
	Git *struct {
		Branch string `json:"branch"`
	} `json:"git"`
}

// codexItem is a ResponseItem of Codex's protocol; which fields are set
// depends on Type.
type codexItem struct {
	Type    string `json:"type"`
	Role    string `json:"role"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Summary []struct {
		Text string `json:"text"`
	} `json:"summary"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	Action    json.RawMessage `json:"action"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Message   string          `json:"message"`
}

// Response item types Codex records; the ones not mapped are skipped.
var codexItemTypes = map[string]bool{
	"message": true, "reasoning": true, "function_call": true, "function_call_output": true,
	"custom_tool_call": true, "custom_tool_call_output": true, "local_shell_call": true,
	"web_search_call": true, "ghost_snapshot": true, "compaction": true, "other": true,
}

// Prefixes of user-role text that Codex injects: the environment, the
// AGENTS.md and user instructions, turn-aborted notes.
var codexInjected = []string{
	"<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<INSTRUCTIONS>",
	"<user_shell_command>", "<turn_aborted>", "<skill>", "<permissions instructions>",
}

// readCodex reads a Codex CLI rollout.
func readCodex(r io.Reader, name string, opt Options, fn Func) (Stats, error) {
	rd := newReader(Codex, name, opt, fn)
	err := readRecords(rd, r, func(l *codexLine, line []byte, n int, off int64) error { return codexRecord(rd, l, line, n, off) })
	return rd.st, err
}

func codexRecord(rd *reader, l *codexLine, line []byte, n int, off int64) error {
	t, ok := parseTime(l.Timestamp)
	if ok {
		rd.seen(t)
	} else {
		t = rd.lastTime
	}
	payload := l.Payload
	typ := l.Type
	// bare is set for the records of an early rollout, which has no
	// user_message events: its user response items are the prompts.
	bare := false
	switch {
	case len(payload) == 0 && typ == "" && l.ID != "":
		// The bare session header of an early rollout.
		typ, payload = "session_meta", line
	case len(payload) == 0 && codexItemTypes[typ]:
		typ, payload, bare = "response_item", line, true
	case l.Record != "":
		rd.skip("codex " + quoteType(l.Record) + " record")
		return nil
	}
	switch typ {
	case "session_meta":
		var m codexMeta
		if err := json.Unmarshal(payload, &m); err != nil || m.ID == "" {
			rd.bad(n, "session_meta without an id")
			return nil
		}
		s := rd.setSession(m.ID)
		s.Cwd = m.Cwd
		if m.Git != nil && m.Git.Branch != "" {
			s.GitBranch = m.Git.Branch
		}
		return nil
	case "turn_context":
		var c struct {
			Cwd string `json:"cwd"`
		}
		_ = json.Unmarshal(payload, &c)
		codexSession(rd)
		if rd.sess.Cwd == "" {
			rd.sess.Cwd = c.Cwd
		}
		rd.skip("codex turn_context record")
		return nil
	case "event_msg":
		// A user_message event is what the person typed: the canonical
		// list of prompts (the user response items also carry injected
		// context, and the history a compaction replaces). The other
		// events repeat response items (agent_message, agent_reasoning) or
		// report the UI's state (token_count, ...).
		var e struct {
			Type    string `json:"type"`
			Message string `json:"message"`
			Kind    string `json:"kind"`
		}
		_ = json.Unmarshal(payload, &e)
		if e.Type != "user_message" {
			rd.skip("codex event_msg " + quoteType(e.Type))
			return nil
		}
		codexSession(rd)
		if t = codexTime(rd, t, n); t.IsZero() {
			return nil
		}
		id := derivedID(rd.sess.ToolID, off, line)
		m := meta{Record: "user_message", Block: e.Kind}
		if (e.Kind != "" && e.Kind != "plain") || codexIsInjected(e.Message) {
			return rd.emit(id, TypeSystemNote, ActorSystem, e.Message, t, "", m)
		}
		return rd.emit(id, ragd.TypeChatMessage, ragd.ActorPerson, e.Message, t, "", m)
	case "compacted":
		// The summary the session continued from; its replacement history
		// repeats earlier turns and is not read.
		var c struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(payload, &c)
		codexSession(rd)
		if t = codexTime(rd, t, n); t.IsZero() {
			return nil
		}
		return rd.emit(derivedID(rd.sess.ToolID, off, line), TypeCompacted, ActorSystem, c.Message, t, "", meta{Record: typ})
	case "response_item":
	default:
		rd.skip("unknown codex record type " + quoteType(typ))
		return nil
	}
	var it codexItem
	if err := json.Unmarshal(payload, &it); err != nil {
		rd.bad(n, "response_item: "+err.Error())
		return nil
	}
	codexSession(rd)
	t = codexTime(rd, t, n)
	if t.IsZero() {
		return nil
	}
	id := derivedID(rd.sess.ToolID, off, line)
	m := meta{Record: it.Type}
	switch it.Type {
	case "message":
		for i, c := range it.Content {
			pid := id + "/" + itoa(i)
			m.Block = c.Type
			var err error
			switch {
			case c.Type == "input_image":
				err = rd.emit(pid, TypeAttachment, ragd.ActorPerson, "image", t, "", m)
			case it.Role == "assistant":
				err = rd.emit(pid, ragd.TypeAgentResponse, ragd.ActorAgent, c.Text, t, "", m)
			case it.Role == "user" && !codexIsInjected(c.Text) && bare:
				err = rd.emit(pid, ragd.TypeChatMessage, ragd.ActorPerson, c.Text, t, "", m)
			case it.Role == "user" && !codexIsInjected(c.Text):
				// The prompt is its user_message event; this copy, or a
				// compaction's replay of it, is not stored again.
				rd.skip("codex user response_item (the user_message event is the prompt)")
			default:
				// Developer and system messages, and injected user text.
				err = rd.emit(pid, TypeSystemNote, ActorSystem, c.Text, t, "", m)
			}
			if err != nil {
				return err
			}
		}
		return nil
	case "reasoning":
		// The encrypted reasoning is never kept; its summary is.
		var b strings.Builder
		for _, s := range it.Summary {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(s.Text)
		}
		return rd.emit(id, TypeThinking, ragd.ActorAgent, b.String(), t, "", m)
	case "function_call", "custom_tool_call", "local_shell_call", "web_search_call":
		m.Name, m.CallID = it.Name, it.CallID
		input := it.Arguments + it.Input
		if input == "" && len(it.Action) > 0 {
			input = string(it.Action)
		}
		return rd.emit(id, TypeToolCall, ragd.ActorAgent, strings.TrimSpace(it.Name+" "+input), t, "", m)
	case "function_call_output", "custom_tool_call_output":
		m.CallID = it.CallID
		return rd.emit(id, TypeToolResult, ActorTool, codexOutput(it.Output), t, "", m)
	}
	rd.skip("codex response_item " + quoteType(it.Type))
	return nil
}

// codexSession makes sure a session is set: a rollout whose header was
// lost is named for the session id at the end of its file name.
func codexSession(rd *reader) {
	if rd.sess != nil {
		return
	}
	rd.setSession(codexFileID(rd.name))
}

// codexTime is t, or, for a record without a time, the latest time seen;
// zero (and the line reported) when there is none.
func codexTime(rd *reader, t time.Time, n int) time.Time {
	if t.IsZero() {
		rd.bad(n, "record without a valid timestamp")
	}
	return t
}

// codexFileID returns the session id a rollout's name ends with
// (rollout-2025-10-21T20-02-50-<uuid>.jsonl), or the name without its
// extension.
func codexFileID(name string) string {
	const uuidLen = 36
	stem := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	if len(stem) > uuidLen && stem[len(stem)-uuidLen-1] == '-' {
		return stem[len(stem)-uuidLen:]
	}
	return stem
}

func codexIsInjected(text string) bool {
	trim := strings.TrimSpace(text)
	for _, p := range codexInjected {
		if strings.HasPrefix(trim, p) {
			return true
		}
	}
	return false
}

// codexOutput renders a tool output: a string, a list of content items, or
// an object with content.
func codexOutput(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Content string `json:"content"`
	}
	if json.Unmarshal(raw, &o) == nil && o.Content != "" {
		return o.Content
	}
	return stringContent(raw, "")
}
