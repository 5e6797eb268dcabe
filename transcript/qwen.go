package transcript

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"

	"github.com/ragd/ragd"
)

// Qwen is Qwen Code's chat recording.
const Qwen Format = "qwen"

// qwenFormat reads Qwen Code's sessions:
// ~/.qwen/projects/<project>/chats/<session id>.jsonl, one record per line
// ({uuid, parentUuid, sessionId, timestamp, type, cwd, message}), appended.
// Messages are Gemini-style content (role, parts: text, thought,
// functionCall, functionResponse).
var qwenFormat = Descriptor{
	Name: Qwen,
	Tool: "Qwen Code",
	Paths: func(getenv func(string) string) ([]string, error) {
		p, err := homePath(Qwen, getenv, ".qwen", "projects")
		if err != nil {
			return nil, err
		}
		return []string{p}, nil
	},
	Match: func(path string) bool {
		return strings.HasSuffix(filepath.Base(path), ".jsonl") && filepath.Base(filepath.Dir(path)) == "chats"
	},
	Looks: "*.jsonl files in a chats folder (give a file of another name itself)",
	Read:  readQwen,
}

type qwenRecord struct {
	UUID       string `json:"uuid"`
	SessionID  string `json:"sessionId"`
	Timestamp  string `json:"timestamp"`
	Type       string `json:"type"`
	Subtype    string `json:"subtype"`
	Cwd        string `json:"cwd"`
	GitBranch  string `json:"gitBranch"`
	Provenance string `json:"provenance"`
	Message    *struct {
		Role  string     `json:"role"`
		Parts []qwenPart `json:"parts"`
	} `json:"message"`
	SystemPayload json.RawMessage `json:"systemPayload"`
}

type qwenPart struct {
	Text         *string `json:"text"`
	Thought      bool    `json:"thought"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
	InlineData *struct {
		MimeType string `json:"mimeType"`
	} `json:"inlineData"`
}

// qwenSettingCommands are Qwen Code's built-in commands (Gemini CLI's,
// and its own).
var qwenSettingCommands = func() map[string]bool {
	m := setOf("approval-mode", "agents", "language", "rename", "resume", "summary", "export", "insight")
	for k := range geminiSettingCommands {
		m[k] = true
	}
	return m
}()

func readQwen(r io.Reader, name string, opt Options, fn Func) (Stats, error) {
	rd := newReader(Qwen, name, opt, fn)
	rd.scoped = true
	err := readRecords(rd, r, func(rec *qwenRecord, _ []byte, n int, _ int64) error { return qwenRecordEvents(rd, rec, n) })
	return rd.st, err
}

func qwenRecordEvents(rd *reader, rec *qwenRecord, n int) error {
	if rec.UUID == "" || rec.Type == "" {
		rd.bad(n, "record without uuid or type")
		return nil
	}
	t, ok := parseTime(rec.Timestamp)
	if !ok {
		rd.bad(n, rec.Type+" record without a valid timestamp")
		return nil
	}
	rd.seen(t)
	s := rd.setSession(firstNonEmpty(rec.SessionID, stem(rd.name)))
	if s.Cwd == "" {
		s.Cwd = rec.Cwd
	}
	if rec.GitBranch != "" {
		s.GitBranch = rec.GitBranch
	}
	m := meta{Record: rec.Type, Block: rec.Subtype}
	switch rec.Type {
	case "system":
		switch rec.Subtype {
		case "chat_compression":
			return rd.emit(rec.UUID, TypeCompacted, ActorSystem, "conversation compacted", t, "", m)
		case "slash_command":
			var p struct {
				RawCommand string `json:"rawCommand"`
				Phase      string `json:"phase"`
			}
			_ = json.Unmarshal(rec.SystemPayload, &p)
			if p.Phase == "result" || isBlank(p.RawCommand) {
				rd.skip("qwen slash_command result")
				return nil
			}
			if prompt, ok := commandPrompt(p.RawCommand, qwenSettingCommands, nil); ok {
				return rd.emit(rec.UUID, ragd.TypeChatMessage, ragd.ActorPerson, prompt, t, "", m)
			}
			return rd.emit(rec.UUID, TypeCommand, ragd.ActorPerson, strings.TrimSpace(p.RawCommand), t, "", m)
		case "custom_title":
			var p struct {
				Title string `json:"title"`
			}
			_ = json.Unmarshal(rec.SystemPayload, &p)
			if isBlank(p.Title) {
				rd.skip("empty qwen custom_title")
				return nil
			}
			return rd.emit(rec.UUID, TypeTitle, ActorSystem, p.Title, t, p.Title, m)
		}
		// Telemetry, attribution and file-history snapshots, session
		// settings: the tool's bookkeeping.
		rd.skip("qwen system " + quoteType(rec.Subtype) + " record")
		return nil
	case "user", "assistant", "tool_result":
	default:
		rd.skip("unknown qwen record type " + quoteType(rec.Type))
		return nil
	}
	if rec.Message == nil {
		rd.skip("qwen " + rec.Type + " record without a message")
		return nil
	}
	user := rec.Type == "user"
	// A user record not of the person (a goal's control prompt, a
	// notification) is the tool's.
	injected := user && rec.Provenance != "" && rec.Provenance != "real_user"
	parts := rec.Message.Parts
	for i, p := range parts {
		id := rec.UUID
		if len(parts) > 1 {
			id += "/" + itoa(i)
		}
		var err error
		switch {
		case p.FunctionCall != nil:
			cm := meta{Record: rec.Type, Block: "functionCall", Name: p.FunctionCall.Name, CallID: p.FunctionCall.ID}
			err = rd.emit(id, TypeToolCall, ragd.ActorAgent, strings.TrimSpace(p.FunctionCall.Name+" "+compactJSON(p.FunctionCall.Args)), t, "", cm)
		case p.FunctionResponse != nil:
			cm := meta{Record: rec.Type, Block: "functionResponse", Name: p.FunctionResponse.Name, CallID: p.FunctionResponse.ID}
			err = rd.emit(id, TypeToolResult, ActorTool, toolResultText(json.RawMessage(`[{"functionResponse":{"response":`+string(orNull(p.FunctionResponse.Response))+`}}]`)), t, "", cm)
		case p.InlineData != nil:
			err = rd.emit(id, TypeAttachment, ragd.ActorPerson, p.InlineData.MimeType, t, "", m)
		case p.Text == nil:
			rd.skip("qwen part without text")
		case p.Thought:
			err = rd.emit(id, TypeThinking, ragd.ActorAgent, *p.Text, t, "", m)
		case injected || (user && hasPrefixAny(*p.Text, "<system-reminder>", "--- Content from referenced files ---")):
			err = rd.emit(id, TypeSystemNote, ActorSystem, *p.Text, t, "", m)
		case user:
			err = rd.emit(id, ragd.TypeChatMessage, ragd.ActorPerson, *p.Text, t, "", m)
		case rec.Type == "assistant":
			if isBlank(*p.Text) {
				rd.skip("empty qwen text part")
				continue
			}
			err = rd.emit(id, ragd.TypeAgentResponse, ragd.ActorAgent, *p.Text, t, "", m)
		default:
			err = rd.emit(id, TypeToolResult, ActorTool, *p.Text, t, "", m)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func orNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}
