package transcript

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ragd/ragd"
)

// geminiFormat reads Gemini CLI's sessions:
// $GEMINI_CLI_HOME (default ~)/.gemini/tmp/<project hash>/chats/session-*.json
// (a document rewritten as it grows) and session-*.jsonl (appended).
var geminiFormat = Descriptor{
	Name: Gemini,
	Tool: "Gemini CLI",
	Paths: func(getenv func(string) string) ([]string, error) {
		home := getenv("GEMINI_CLI_HOME")
		if home == "" {
			home = getenv("HOME")
		}
		if home == "" {
			return nil, fmt.Errorf("transcript: no home directory for the %s transcripts ($HOME is not set)", Gemini)
		}
		return []string{filepath.Join(home, ".gemini", "tmp")}, nil
	},
	Match: func(path string) bool {
		base := filepath.Base(path)
		return strings.HasPrefix(base, "session-") && (strings.HasSuffix(base, ".json") || strings.HasSuffix(base, ".jsonl")) &&
			filepath.Base(filepath.Dir(path)) == "chats"
	},
	Looks:    "session-*.json and session-*.jsonl files in a chats folder (give a file of another name itself)",
	Rewrites: func(path string) bool { return strings.EqualFold(filepath.Ext(path), ".json") },
	Read:     readGemini,
}

// Gemini CLI keeps a session either as one JSON document
// (ConversationRecord: sessionId, projectHash, startTime, lastUpdated,
// messages, summary, kind), rewritten as it grows, or, in newer versions,
// as JSON lines: the same header first, then one message per line, a
// message written again when it changes (tool calls added), and
// {"$set": {...}} and {"$rewindTo": id} records.

type geminiHeader struct {
	SessionID   string  `json:"sessionId"`
	ProjectHash string  `json:"projectHash"`
	StartTime   string  `json:"startTime"`
	LastUpdated string  `json:"lastUpdated"`
	Summary     *string `json:"summary"`
	Kind        string  `json:"kind"`
}

type geminiMessage struct {
	ID             string          `json:"id"`
	Timestamp      string          `json:"timestamp"`
	Type           string          `json:"type"`
	Content        json.RawMessage `json:"content"`
	DisplayContent json.RawMessage `json:"displayContent"`
	Thoughts       []struct {
		Subject     string `json:"subject"`
		Description string `json:"description"`
	} `json:"thoughts"`
	ToolCalls []struct {
		ID     string          `json:"id"`
		Name   string          `json:"name"`
		Args   json.RawMessage `json:"args"`
		Result json.RawMessage `json:"result"`
		Status string          `json:"status"`
	} `json:"toolCalls"`
}

// geminiRecentMessages is how many messages the JSON-lines reader
// remembers to recognise a rewritten one; Gemini rewrites only the message
// being produced.
const geminiRecentMessages = 64

type geminiReader struct {
	*reader
	// recent holds the event ids emitted for the latest messages, so that
	// a message written again yields only its new parts.
	recent map[string]map[string]bool
	order  []string
}

// readGemini reads a Gemini CLI session: a .json document, or JSON lines.
func readGemini(r io.Reader, name string, opt Options, fn Func) (Stats, error) {
	gr := &geminiReader{reader: newReader(Gemini, name, opt, fn), recent: map[string]map[string]bool{}}
	gr.scoped = true
	if strings.EqualFold(filepath.Ext(name), ".json") {
		err := gr.document(r)
		return gr.st, err
	}
	err := gr.lines(r, func(line []byte, n int, off int64, final bool) (bool, error) {
		if len(bytes.TrimSpace(line)) == 0 {
			return true, nil
		}
		var rec struct {
			geminiMessage
			geminiHeader
			Set      *geminiHeader `json:"$set"`
			RewindTo *string       `json:"$rewindTo"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			if final {
				return false, nil
			}
			gr.bad(n, "invalid JSON: "+err.Error())
			return true, nil
		}
		gr.st.Records++
		gr.raw = line
		switch {
		case rec.Set != nil:
			return true, gr.header(rec.Set, false)
		case rec.RewindTo != nil:
			// Earlier messages stay: ragd keeps what was said.
			gr.skip("gemini rewind (earlier messages kept)")
			return true, nil
		case rec.geminiMessage.ID != "" && rec.geminiMessage.Type != "":
			return true, gr.message(&rec.geminiMessage)
		case rec.geminiHeader.SessionID != "":
			return true, gr.header(&rec.geminiHeader, true)
		}
		gr.skip("unknown gemini record")
		return true, nil
	})
	return gr.st, err
}

// document reads a .json session as a stream: the header fields, then the
// messages one at a time, so that memory is bounded by the largest message
// rather than by the session.
func (gr *geminiReader) document(r io.Reader) error {
	lr := &io.LimitedReader{R: r, N: MaxDocumentBytes + 1}
	dec := json.NewDecoder(lr)
	fail := func(err error) error {
		if lr.N <= 0 {
			gr.bad(0, "document larger than "+itoa(MaxDocumentBytes)+" bytes")
			return nil
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			// A document being rewritten: read again later.
			gr.st.Incomplete = true
			return nil
		}
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		if errors.As(err, &syn) || errors.As(err, &typ) {
			gr.bad(0, "invalid JSON document: "+err.Error())
			return nil
		}
		return fmt.Errorf("transcript: reading %s: %w", gr.name, err)
	}
	if tok, err := dec.Token(); err != nil {
		return fail(err)
	} else if tok != json.Delim('{') {
		gr.bad(0, "not a JSON object")
		return nil
	}
	var h geminiHeader
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fail(err)
		}
		key, _ := tok.(string)
		switch key {
		case "messages":
			if err := gr.header(&h, true); err != nil {
				return err
			}
			if tok, err := dec.Token(); err != nil {
				return fail(err)
			} else if tok != json.Delim('[') {
				gr.bad(0, "messages is not a list")
				return nil
			}
			for i := 1; dec.More(); i++ {
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return fail(err)
				}
				gr.line, gr.raw = i, raw
				gr.st.Records++
				var m geminiMessage
				if err := json.Unmarshal(raw, &m); err != nil || m.ID == "" || m.Type == "" {
					gr.bad(i, "message without id or type")
					continue
				}
				if err := gr.message(&m); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return fail(err)
			}
		case "sessionId", "projectHash", "startTime", "lastUpdated", "summary", "kind":
			var v *string
			if err := dec.Decode(&v); err != nil {
				return fail(err)
			}
			if v == nil {
				continue
			}
			switch key {
			case "sessionId":
				h.SessionID = *v
			case "projectHash":
				h.ProjectHash = *v
			case "startTime":
				h.StartTime = *v
			case "lastUpdated":
				h.LastUpdated = *v
			case "summary":
				h.Summary = v
			case "kind":
				h.Kind = *v
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return fail(err)
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return fail(err)
	}
	gr.raw = nil
	// A summary written after the messages titles the session too.
	return gr.header(&h, false)
}

// header takes the session's fields from a header or a $set record. start
// is set for the session's first header.
func (gr *geminiReader) header(h *geminiHeader, start bool) error {
	if start || gr.sess == nil {
		id := h.SessionID
		if id == "" && gr.sess != nil {
			id = gr.sess.ToolID
		}
		if id == "" {
			id = strings.TrimSuffix(filepath.Base(gr.name), filepath.Ext(gr.name))
		}
		gr.setSession(id)
	}
	if h.ProjectHash != "" {
		gr.sess.ProjectHash = h.ProjectHash
	}
	if h.Kind != "" {
		gr.sess.Subagent = h.Kind == "subagent"
	}
	for _, s := range []string{h.StartTime, h.LastUpdated} {
		if t, ok := parseTime(s); ok {
			gr.seen(t)
		}
	}
	if h.Summary == nil || strings.TrimSpace(*h.Summary) == "" || gr.sess.Title == gr.redact(*h.Summary) || gr.lastTime.IsZero() {
		return nil
	}
	return gr.emit("title/"+shortHash(*h.Summary), TypeTitle, ActorSystem, *h.Summary, gr.lastTime, *h.Summary, meta{Record: "summary"})
}

func (gr *geminiReader) message(m *geminiMessage) error {
	if gr.sess == nil {
		gr.header(&geminiHeader{}, true)
	}
	t, ok := parseTime(m.Timestamp)
	if !ok {
		gr.bad(gr.line, "message "+m.ID+" without a valid timestamp")
		return nil
	}
	gr.seen(t)
	done := gr.recent[m.ID]
	if done == nil {
		done = map[string]bool{}
		gr.recent[m.ID] = done
		gr.order = append(gr.order, m.ID)
		if len(gr.order) > geminiRecentMessages {
			delete(gr.recent, gr.order[0])
			gr.order = gr.order[1:]
		}
	} else {
		gr.skip("gemini message written again (new parts kept)")
	}
	emit := func(id, typ, actor, text string, mt meta) error {
		if done[id] {
			return nil
		}
		done[id] = true
		return gr.emit(id, typ, actor, text, t, "", mt)
	}
	sub := gr.sess.Subagent
	mt := meta{Record: m.Type}
	switch m.Type {
	case "user":
		text, hasText := partsText(m.Content)
		typ, actor := ragd.TypeChatMessage, ragd.ActorPerson
		if sub {
			typ, actor = TypeSubagentMessage, ragd.ActorAgent
		}
		if len(m.DisplayContent) > 0 && string(m.DisplayContent) != "null" {
			// What the person saw themselves type; content is what the
			// model was sent (a slash command's expansion, a tool's
			// response sent in the person's place).
			shown, shownText := partsText(m.DisplayContent)
			switch {
			case !shownText:
				typ, actor = TypeSystemNote, ActorSystem
			case strings.HasPrefix(strings.TrimSpace(shown), "/"):
				typ, text = TypeCommand, strings.TrimSpace(shown)
				if p, ok := commandPrompt(shown, geminiSettingCommands, nil); ok && !sub {
					// A custom command's arguments are the request.
					typ, text = ragd.TypeChatMessage, p
				}
			default:
				text = shown
			}
		} else if !hasText {
			return emit(m.ID, TypeAttachment, ragd.ActorPerson, "attachment", mt)
		}
		return emit(m.ID, typ, actor, text, mt)
	case "gemini":
		for i, th := range m.Thoughts {
			if err := emit(m.ID+"/thought/"+itoa(i), TypeThinking, ragd.ActorAgent, strings.TrimSpace(th.Subject+"\n"+th.Description), mt); err != nil {
				return err
			}
		}
		text, _ := partsText(m.Content)
		typ, actor := ragd.TypeAgentResponse, ragd.ActorAgent
		if sub {
			typ, actor = TypeSubagentResponse, ActorSubagent
		}
		if !isBlank(text) {
			if err := emit(m.ID, typ, actor, text, mt); err != nil {
				return err
			}
		}
		for _, tc := range m.ToolCalls {
			cm := meta{Record: m.Type, Block: "toolCall", Name: tc.Name, CallID: tc.ID}
			if err := emit(m.ID+"/call/"+tc.ID, TypeToolCall, ragd.ActorAgent, strings.TrimSpace(tc.Name+" "+compactJSON(tc.Args)), cm); err != nil {
				return err
			}
			switch tc.Status {
			case "success", "error", "cancelled":
				cm.Block, cm.Error = "toolResult", tc.Status != "success"
				if err := emit(m.ID+"/result/"+tc.ID, TypeToolResult, ActorTool, toolResultText(tc.Result), cm); err != nil {
					return err
				}
			}
		}
		return nil
	case "info", "error", "warning":
		text, _ := partsText(m.Content)
		return emit(m.ID, TypeSystemNote, ActorSystem, text, mt)
	}
	gr.skip("unknown gemini message type " + quoteType(m.Type))
	return nil
}

// partsText renders a Gemini PartListUnion (a string, a part, or a list of
// them) as its text parts joined; hasText says whether any was text.
func partsText(raw json.RawMessage) (text string, hasText bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	type part struct {
		Text    *string `json:"text"`
		Thought bool    `json:"thought"`
	}
	var parts []part
	if json.Unmarshal(raw, &parts) != nil {
		var p part
		if json.Unmarshal(raw, &p) != nil {
			return "", false
		}
		parts = []part{p}
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Text == nil || p.Thought {
			continue
		}
		hasText = true
		b.WriteString(*p.Text)
	}
	return b.String(), hasText
}

// toolResultText renders a tool call's result parts: function responses'
// output, or their whole response, and text parts.
func toolResultText(raw json.RawMessage) string {
	var parts []struct {
		Text             string `json:"text"`
		FunctionResponse *struct {
			Response json.RawMessage `json:"response"`
		} `json:"functionResponse"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		text, _ := partsText(raw)
		return text
	}
	var b strings.Builder
	for _, p := range parts {
		out := p.Text
		if p.FunctionResponse != nil {
			var o struct {
				Output string `json:"output"`
			}
			if json.Unmarshal(p.FunctionResponse.Response, &o) == nil && o.Output != "" {
				out = o.Output
			} else {
				out = string(p.FunctionResponse.Response)
			}
		}
		if out == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(out)
	}
	return b.String()
}

// GeminiProjectHash returns the hash Gemini CLI names a project by (the
// SHA-256 of its root path, in hex), to match a session's ProjectHash
// with a registered project's root.
func GeminiProjectHash(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:])
}
