package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"path/filepath"
	"strings"
	"time"

	"github.com/ragd/ragd"
)

// claudeCodeFormat reads Claude Code's session files:
// $CLAUDE_CONFIG_DIR/projects (default ~/.claude/projects)/<project>/*.jsonl,
// subagent files included.
var claudeCodeFormat = Descriptor{
	Name: ClaudeCode,
	Tool: "Claude Code",
	Paths: func(getenv func(string) string) ([]string, error) {
		return envOrHome(ClaudeCode, getenv, "CLAUDE_CONFIG_DIR", []string{"projects"}, []string{".claude", "projects"})
	},
	Match: func(path string) bool { return strings.HasSuffix(filepath.Base(path), ".jsonl") },
	Looks: "*.jsonl files",
	Read:  readClaude,
}

// claudeRecord is one line of a Claude Code transcript. Only the fields the
// mapping reads are declared; the rest stay in the raw line.
type claudeRecord struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	UUID             string          `json:"uuid"`
	SessionID        string          `json:"sessionId"`
	Timestamp        string          `json:"timestamp"`
	Cwd              string          `json:"cwd"`
	GitBranch        string          `json:"gitBranch"`
	IsSidechain      bool            `json:"isSidechain"`
	IsMeta           bool            `json:"isMeta"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	Message          claudeMessage   `json:"message"`
	Content          json.RawMessage `json:"content"`
	Summary          string          `json:"summary"`
	LeafUUID         string          `json:"leafUuid"`
	CustomTitle      string          `json:"customTitle"`
	AITitle          string          `json:"aiTitle"`
	Attachment       json.RawMessage `json:"attachment"`
}

type claudeMessage struct {
	Role    string          `json:"role"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
}

// claudeBlock is one content block; which fields are set depends on Type.
type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// Title precedence in Claude Code's resume picker: a rename outranks a
// generated title, which outranks a summary.
const (
	titleSummary = iota + 1
	titleAI
	titleCustom
)

// Records Claude Code writes that carry no conversation: skipped, counted.
var claudeSkipped = map[string]bool{
	"file-history-snapshot": true, "permission-mode": true, "last-prompt": true,
	"queue-operation": true, "progress": true, "agent-name": true, "tag": true,
}

type claudeReader struct {
	*reader
	// pending maps a summary's leafUuid to its text until the record it
	// names is read: Claude Code writes the summaries of other sessions
	// into a file too, so only a summary whose leaf is in the file titles
	// its session.
	pending   map[string]string
	titleRank int
	// untimed are title records read before any record with a time.
	untimed []untimedTitle
}

type untimedTitle struct {
	id, title string
	rank      int
}

// readClaude reads a Claude Code transcript (one JSON record per line).
func readClaude(r io.Reader, name string, opt Options, fn Func) (Stats, error) {
	cr := &claudeReader{reader: newReader(ClaudeCode, name, opt, fn), pending: map[string]string{}}
	cr.scoped = true
	if c := opt.Resume; c != nil {
		maps.Copy(cr.pending, c.Summaries)
		cr.titleRank = c.TitleRank
	}
	cr.keep = func(c *Checkpoint) {
		if len(cr.pending) > 0 {
			c.Summaries = maps.Clone(cr.pending)
		}
		c.TitleRank = cr.titleRank
	}
	err := cr.lines(r, func(line []byte, n int, off int64, final bool) (bool, error) {
		if len(bytes.TrimSpace(line)) == 0 {
			return true, nil
		}
		var rec claudeRecord
		// The message is decoded with the record, in one scan of the line;
		// system records carry a string there, a type error that leaves
		// the rest of the record decoded.
		var typeErr *json.UnmarshalTypeError
		if err := json.Unmarshal(line, &rec); err != nil && !(errors.As(err, &typeErr) && typeErr.Field == "message") {
			if final {
				return false, nil
			}
			cr.bad(n, "invalid JSON: "+err.Error())
			return true, nil
		}
		cr.st.Records++
		cr.raw = line
		return true, cr.record(&rec, n)
	})
	if len(cr.pending) > 0 {
		cr.st.Skipped = addCounts(cr.st.Skipped, map[string]int{"summary of another session": len(cr.pending)})
	}
	return cr.st, err
}

func (cr *claudeReader) record(rec *claudeRecord, n int) error {
	switch {
	case rec.Type == "summary":
		return cr.summary(rec)
	case rec.Type == "custom-title" || rec.Type == "ai-title":
		title, rank := rec.CustomTitle, titleCustom
		if rec.Type == "ai-title" {
			title, rank = rec.AITitle, titleAI
		}
		if strings.TrimSpace(title) == "" {
			cr.skip("empty " + rec.Type)
			return nil
		}
		cr.ensureSession(rec)
		// The record has no id of its own: name it by its title.
		return cr.title(rec.Type+"/"+shortHash(title), title, rank)
	case claudeSkipped[rec.Type]:
		cr.skip("claude-code " + rec.Type + " record")
		return nil
	case rec.Type != "user" && rec.Type != "assistant" && rec.Type != "system" && rec.Type != "attachment":
		cr.skip("unknown claude-code record type " + quoteType(rec.Type))
		return nil
	}
	if rec.UUID == "" {
		cr.bad(n, rec.Type+" record without uuid")
		return nil
	}
	t, ok := parseTime(rec.Timestamp)
	if !ok {
		cr.bad(n, rec.Type+" record without a valid timestamp")
		return nil
	}
	cr.ensureSession(rec)
	cr.seen(t)
	if err := cr.flushUntimed(t); err != nil {
		return err
	}
	if err := cr.conversation(rec, t); err != nil {
		return err
	}
	// The record may be the leaf a summary named.
	if s, ok := cr.pending[rec.UUID]; ok {
		delete(cr.pending, rec.UUID)
		return cr.title("summary/"+rec.UUID, s, titleSummary)
	}
	return nil
}

// ensureSession starts or updates the session from a record: its session
// id, else the file's name (a transcript is named for its session).
func (cr *claudeReader) ensureSession(rec *claudeRecord) {
	id := rec.SessionID
	if id == "" && cr.sess != nil {
		id = cr.sess.ToolID
	}
	if id == "" {
		id = strings.TrimSuffix(filepath.Base(cr.name), filepath.Ext(cr.name))
	}
	s := cr.setSession(id)
	if s.Cwd == "" {
		s.Cwd = rec.Cwd
	}
	if rec.GitBranch != "" {
		s.GitBranch = rec.GitBranch
	}
}

func (cr *claudeReader) summary(rec *claudeRecord) error {
	if rec.LeafUUID == "" || strings.TrimSpace(rec.Summary) == "" {
		cr.skip("claude-code summary without leaf or text")
		return nil
	}
	if len(cr.pending) >= maxPendingSummaries {
		cr.skip("summary of another session")
		return nil
	}
	cr.pending[rec.LeafUUID] = rec.Summary
	return nil
}

// title emits a title event, unless a title of higher rank was read. A
// title needs a time: one read before any timed record waits for it.
func (cr *claudeReader) title(id, title string, rank int) error {
	if rank < cr.titleRank {
		cr.skip("title outranked by an earlier one")
		return nil
	}
	cr.titleRank = rank
	if cr.lastTime.IsZero() {
		if len(cr.untimed) < maxPendingSummaries {
			cr.untimed = append(cr.untimed, untimedTitle{id, title, rank})
		}
		return nil
	}
	return cr.emit(id, TypeTitle, ActorSystem, title, cr.lastTime, title, meta{Record: "title"})
}

func (cr *claudeReader) flushUntimed(t time.Time) error {
	for _, u := range cr.untimed {
		if u.rank < cr.titleRank {
			cr.skip("title outranked by an earlier one")
			continue
		}
		if err := cr.emit(u.id, TypeTitle, ActorSystem, u.title, t, u.title, meta{Record: "title"}); err != nil {
			return err
		}
	}
	cr.untimed = nil
	return nil
}

func (cr *claudeReader) conversation(rec *claudeRecord, t time.Time) error {
	id := rec.UUID
	m := meta{Record: rec.Type}
	switch rec.Type {
	case "system":
		m.Block = rec.Subtype
		if rec.Subtype == "compact_boundary" {
			return cr.emit(id, TypeCompacted, ActorSystem, "conversation compacted", t, "", m)
		}
		return cr.emit(id, TypeSystemNote, ActorSystem, stringContent(rec.Content, rec.Subtype), t, "", m)
	case "attachment":
		var a struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
			Stdout  string          `json:"stdout"`
		}
		_ = json.Unmarshal(rec.Attachment, &a)
		m.Block = a.Type
		return cr.emit(id, TypeSystemNote, ActorSystem, strings.TrimSpace(a.Type+" "+stringContent(a.Content, "")+" "+a.Stdout), t, "", m)
	}
	msg := &rec.Message
	if len(msg.Content) == 0 || string(msg.Content) == "null" {
		cr.skip("claude-code " + rec.Type + " record without message content")
		return nil
	}
	if msg.Content[0] == '"' {
		var str string
		if err := json.Unmarshal(msg.Content, &str); err != nil {
			cr.bad(cr.line, "message content: "+err.Error())
			return nil
		}
		return cr.block(rec, msg, id, claudeBlock{Type: "text", Text: str}, t)
	}
	var blocks []claudeBlock
	if err := json.Unmarshal(msg.Content, &blocks); err != nil {
		cr.bad(cr.line, "message content is neither a string nor a list of blocks")
		return nil
	}
	for i, b := range blocks {
		if err := cr.block(rec, msg, id+"/"+itoa(i), b, t); err != nil {
			return err
		}
	}
	return nil
}

// block maps one content block of a user or assistant record.
func (cr *claudeReader) block(rec *claudeRecord, msg *claudeMessage, id string, b claudeBlock, t time.Time) error {
	m := meta{Record: rec.Type, Block: b.Type}
	user := rec.Type == "user"
	switch b.Type {
	case "text":
		switch {
		case rec.IsSidechain && user:
			return cr.emit(id, TypeSubagentMessage, ragd.ActorAgent, b.Text, t, "", m)
		case rec.IsSidechain:
			return cr.emit(id, TypeSubagentResponse, ActorSubagent, b.Text, t, "", m)
		case user:
			typ, actor, text := classifyClaudeUser(rec, b.Text)
			return cr.emit(id, typ, actor, text, t, "", m)
		case msg.Model == "<synthetic>":
			// Claude Code's own messages in the assistant's place (API
			// errors, "No response requested.").
			return cr.emit(id, TypeSystemNote, ActorSystem, b.Text, t, "", m)
		default:
			return cr.emit(id, ragd.TypeAgentResponse, ragd.ActorAgent, b.Text, t, "", m)
		}
	case "thinking", "redacted_thinking":
		actor := ragd.ActorAgent
		if rec.IsSidechain {
			actor = ActorSubagent
		}
		return cr.emit(id, TypeThinking, actor, b.Thinking, t, "", m)
	case "tool_use", "server_tool_use":
		m.Name, m.CallID = b.Name, b.ID
		return cr.emit(id, TypeToolCall, ragd.ActorAgent, strings.TrimSpace(b.Name+" "+compactJSON(b.Input)), t, "", m)
	case "tool_result", "web_search_tool_result":
		m.CallID, m.Error = b.ToolUseID, b.IsError
		return cr.emit(id, TypeToolResult, ActorTool, stringContent(b.Content, ""), t, "", m)
	case "image", "document":
		return cr.emit(id, TypeAttachment, ragd.ActorPerson, b.Type, t, "", m)
	}
	cr.skip("unknown claude-code block type " + quoteType(b.Type))
	return nil
}

// Prefixes of user text that Claude Code wrote, not the person.
var claudeInjected = []string{
	"<local-command-caveat>", "Caveat: The messages below were generated by the user while running local commands",
	"<local-command-stdout>", "<local-command-stderr>", "<bash-stdout>", "<bash-stderr>",
	"<system-reminder>", "[Request interrupted", "<user-memory-input>", "<task-notification>",
}

// classifyClaudeUser tells a person's prompt from what Claude Code put in
// the person's place.
func classifyClaudeUser(rec *claudeRecord, text string) (typ, actor, out string) {
	trim := strings.TrimSpace(text)
	switch {
	case rec.IsCompactSummary || strings.HasPrefix(trim, "This session is being continued from a previous conversation"):
		return TypeCompacted, ActorSystem, text
	case rec.IsMeta:
		return TypeSystemNote, ActorSystem, text
	case strings.HasPrefix(trim, "<command-name>") || strings.HasPrefix(trim, "<command-message>"):
		cmd := slashCommand(trim)
		if p, ok := commandPrompt(cmd, claudeSettingCommands, nil); ok {
			// A command that sends its arguments as a request: they are
			// what the person typed.
			return ragd.TypeChatMessage, ragd.ActorPerson, p
		}
		return TypeCommand, ragd.ActorPerson, cmd
	case strings.HasPrefix(trim, "<ide_"):
		// The IDE's state (the file opened, the selection), put before
		// or in place of what the person typed.
		if rest := stripIDEContext(trim); !isBlank(rest) {
			return ragd.TypeChatMessage, ragd.ActorPerson, rest
		}
		return TypeSystemNote, ActorSystem, text
	case strings.HasPrefix(trim, "<bash-input>"):
		return TypeCommand, ragd.ActorPerson, "!" + between(trim, "<bash-input>", "</bash-input>")
	}
	for _, p := range claudeInjected {
		if strings.HasPrefix(trim, p) {
			return TypeSystemNote, ActorSystem, text
		}
	}
	return ragd.TypeChatMessage, ragd.ActorPerson, text
}

// stripIDEContext removes the leading <ide_…>…</ide_…> elements Claude
// Code's IDE integrations inject (ide_opened_file, ide_selection,
// ide_diagnostics) and returns what follows them.
func stripIDEContext(s string) string {
	for strings.HasPrefix(s, "<ide_") {
		end := strings.IndexByte(s, '>')
		if end < 0 {
			return ""
		}
		closing := "</" + s[1:end+1]
		j := strings.Index(s, closing)
		if j < 0 {
			return ""
		}
		s = strings.TrimSpace(s[j+len(closing):])
	}
	return s
}

// slashCommand renders a <command-name> wrapper as the command typed.
func slashCommand(s string) string {
	name := between(s, "<command-name>", "</command-name>")
	if name == "" {
		name = between(s, "<command-message>", "</command-message>")
	}
	if name != "" && !strings.HasPrefix(name, "/") {
		name = "/" + name
	}
	return strings.TrimSpace(name + " " + between(s, "<command-args>", "</command-args>"))
}

func between(s, open, close string) string {
	i := strings.Index(s, open)
	if i < 0 {
		return ""
	}
	s = s[i+len(open):]
	if j := strings.Index(s, close); j >= 0 {
		s = s[:j]
	}
	return strings.TrimSpace(s)
}

// stringContent renders a content value (a string, or a list of blocks
// of which the text ones count) as text; def when it has none.
func stringContent(raw json.RawMessage, def string) string {
	if len(raw) == 0 {
		return def
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) == nil {
		var b strings.Builder
		for _, bl := range blocks {
			if bl.Text == "" {
				continue
			}
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(bl.Text)
		}
		return b.String()
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return strings.Join(list, "\n")
	}
	return def
}

// quoteType names a record or block type in a skip reason, bounded so that
// a file of garbage types cannot grow Stats.Skipped without end.
func quoteType(t string) string {
	const maxTypeLen = 40
	if t == "" {
		return "(none)"
	}
	return shorten(t, maxTypeLen)
}
