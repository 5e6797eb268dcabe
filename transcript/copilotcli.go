package transcript

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"

	"github.com/ragd/ragd"
)

// CopilotCLI is GitHub Copilot CLI's session event log.
const CopilotCLI Format = "copilot-cli"

// copilotCLIFormat reads GitHub Copilot CLI's sessions:
// $COPILOT_HOME (default ~/.copilot)/session-state/<id>.jsonl, and in newer
// versions session-state/<id>/events.jsonl: one event per line
// ({type, data, id, timestamp, parentId}), appended.
var copilotCLIFormat = Descriptor{
	Name: CopilotCLI,
	Tool: "GitHub Copilot CLI",
	Paths: func(getenv func(string) string) ([]string, error) {
		return envOrHome(CopilotCLI, getenv, "COPILOT_HOME", []string{"session-state"}, []string{".copilot", "session-state"})
	},
	Match: func(path string) bool { return strings.HasSuffix(filepath.Base(path), ".jsonl") },
	Looks: "*.jsonl event logs (session-state/<id>.jsonl, session-state/<id>/events.jsonl)",
	Read:  readCopilotCLI,
}

type copilotCLIEvent struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

type copilotCLIData struct {
	SessionID string `json:"sessionId"`
	Context   struct {
		Cwd    string `json:"cwd"`
		Branch string `json:"branch"`
	} `json:"context"`
	Content       string `json:"content"`
	ReasoningText string `json:"reasoningText"`
	Attachments   []struct {
		Type string `json:"type"`
	} `json:"attachments"`
	ToolRequests []struct {
		ToolCallID string          `json:"toolCallId"`
		Name       string          `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
	} `json:"toolRequests"`
	ToolCallID string          `json:"toolCallId"`
	Success    *bool           `json:"success"`
	Result     json.RawMessage `json:"result"`
	Message    string          `json:"message"`
	Title      string          `json:"title"`
}

// Copilot CLI events that carry no conversation: skipped, counted.
var copilotCLISkipped = map[string]bool{
	"session.info": true, "session.model_change": true, "assistant.turn_start": true, "assistant.turn_end": true,
	"tool.execution_start": true, "tool.execution_partial_result": true, "session.usage_info": true,
	"assistant.usage": true, "session.truncation": true, "session.idle": true, "abort": true,
	"session.resume": true, "session.shutdown": true, "hook.start": true, "hook.end": true,
}

func readCopilotCLI(r io.Reader, name string, opt Options, fn Func) (Stats, error) {
	rd := newReader(CopilotCLI, name, opt, fn)
	rd.scoped = true
	err := readRecords(rd, r, func(e *copilotCLIEvent, _ []byte, n int, _ int64) error { return copilotCLIRecord(rd, e, n) })
	return rd.st, err
}

func copilotCLIRecord(rd *reader, e *copilotCLIEvent, n int) error {
	var d copilotCLIData
	if len(e.Data) > 0 {
		if err := json.Unmarshal(e.Data, &d); err != nil {
			rd.bad(n, e.Type+" event: "+err.Error())
			return nil
		}
	}
	switch {
	case e.Type == "session.start":
		s := rd.setSession(firstNonEmpty(d.SessionID, copilotCLIFileID(rd.name)))
		if d.Context.Cwd != "" {
			s.Cwd = d.Context.Cwd
		}
		if d.Context.Branch != "" {
			s.GitBranch = d.Context.Branch
		}
		if t, ok := parseTime(e.Timestamp); ok {
			rd.seen(t)
		}
		return nil
	case strings.HasSuffix(e.Type, "_delta"):
		rd.skip("copilot-cli partial streaming event")
		return nil
	case copilotCLISkipped[e.Type]:
		rd.skip("copilot-cli " + e.Type + " event")
		return nil
	}
	if e.ID == "" {
		rd.bad(n, e.Type+" event without an id")
		return nil
	}
	t, ok := parseTime(e.Timestamp)
	if !ok {
		rd.bad(n, e.Type+" event without a valid timestamp")
		return nil
	}
	rd.seen(t)
	if rd.sess == nil {
		rd.setSession(copilotCLIFileID(rd.name))
	}
	m := meta{Record: e.Type}
	switch e.Type {
	case "user.message":
		for i, a := range d.Attachments {
			if err := rd.emit(e.ID+"/attachment/"+itoa(i), TypeAttachment, ragd.ActorPerson, a.Type, t, "", m); err != nil {
				return err
			}
		}
		if name, _, ok := splitSlash(d.Content); ok && !strings.Contains(d.Content, "\n") {
			if p, ok := commandPrompt(d.Content, copilotCLISettingCommands, nil); ok {
				m.Name = name
				return rd.emit(e.ID, ragd.TypeChatMessage, ragd.ActorPerson, p, t, "", m)
			}
			return rd.emit(e.ID, TypeCommand, ragd.ActorPerson, d.Content, t, "", m)
		}
		return rd.emit(e.ID, ragd.TypeChatMessage, ragd.ActorPerson, d.Content, t, "", m)
	case "assistant.message":
		if !isBlank(d.ReasoningText) {
			if err := rd.emit(e.ID+"/thinking", TypeThinking, ragd.ActorAgent, d.ReasoningText, t, "", m); err != nil {
				return err
			}
		}
		if !isBlank(d.Content) {
			if err := rd.emit(e.ID, ragd.TypeAgentResponse, ragd.ActorAgent, d.Content, t, "", m); err != nil {
				return err
			}
		}
		for _, tr := range d.ToolRequests {
			cm := meta{Record: e.Type, Block: "toolRequest", Name: tr.Name, CallID: tr.ToolCallID}
			if err := rd.emit(e.ID+"/call/"+tr.ToolCallID, TypeToolCall, ragd.ActorAgent, strings.TrimSpace(tr.Name+" "+jsonArgs(tr.Arguments)), t, "", cm); err != nil {
				return err
			}
		}
		return nil
	case "assistant.reasoning":
		return rd.emit(e.ID, TypeThinking, ragd.ActorAgent, d.Content, t, "", m)
	case "tool.execution_complete":
		m.CallID = d.ToolCallID
		m.Error = d.Success != nil && !*d.Success
		return rd.emit(e.ID, TypeToolResult, ActorTool, copilotCLIResult(d.Result), t, "", m)
	case "session.error", "session.warning":
		return rd.emit(e.ID, TypeSystemNote, ActorSystem, d.Message, t, "", m)
	case "session.compaction_complete":
		return rd.emit(e.ID, TypeCompacted, ActorSystem, firstNonEmpty(d.Content, "conversation compacted"), t, "", m)
	case "session.title_changed":
		if isBlank(d.Title) {
			rd.skip("empty copilot-cli title")
			return nil
		}
		return rd.emit(e.ID, TypeTitle, ActorSystem, d.Title, t, d.Title, m)
	}
	rd.skip("unknown copilot-cli event type " + quoteType(e.Type))
	return nil
}

// copilotCLISettingCommands are Copilot CLI's built-in commands.
var copilotCLISettingCommands = setOf("add-dir", "agent", "clear", "compact", "context", "cwd", "cd", "delegate",
	"exit", "quit", "feedback", "help", "list-dirs", "login", "logout", "mcp", "model", "reset-allowed-tools",
	"resume", "session", "share", "theme", "usage", "user", "terminal-setup", "plugin", "skills", "ide")

// copilotCLIFileID names a session by its file: session-state/<id>.jsonl,
// or session-state/<id>/events.jsonl.
func copilotCLIFileID(name string) string {
	if filepath.Base(name) == "events.jsonl" {
		return filepath.Base(filepath.Dir(name))
	}
	return stem(name)
}

// copilotCLIResult renders a tool's result: its content for the model, or
// the whole result.
func copilotCLIResult(raw json.RawMessage) string {
	var r struct {
		Content         string `json:"content"`
		TextResultFoLLM string `json:"text_result_for_llm"`
	}
	if json.Unmarshal(raw, &r) == nil {
		if s := firstNonEmpty(r.Content, r.TextResultFoLLM); s != "" {
			return s
		}
	}
	return toolContent(raw)
}

// jsonArgs renders tool arguments: a JSON string holding JSON, or JSON.
func jsonArgs(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return compactJSON(raw)
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
