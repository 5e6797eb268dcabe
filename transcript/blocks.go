package transcript

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/ragd/ragd"
)

// Helpers the readers of the newer formats share: content blocks in the
// Anthropic message shape (Droid, Cursor's agent transcripts, Amp, Cline),
// whole JSON documents, and the folders the tools keep their data in.

// blockRoles says how the blocks of one message map: who wrote the text,
// and which text the tool injected in the person's place.
type blockRoles struct {
	// user is set for a message of the person's role.
	user bool
	// injected reports whether a user text block is the tool's (context,
	// attachments) rather than typed; nil means none is.
	injected func(string) bool
	// prompt, if not nil, extracts the typed text from a user block that
	// wraps it (Cursor's <user_query>); ok false leaves the block as it is.
	prompt func(string) (string, bool)
	// answer, if not nil, cleans an assistant text block; "" makes it
	// thinking (Cursor writes "[REDACTED]" in the place of its thinking).
	answer func(string) string
}

// emitBlocks maps a message's content, a string or a list of blocks: user
// text is the person's prompt (unless injected), assistant text the
// agent's answer, tool_use a call, tool_result a result, thinking thinking,
// images and documents attachments. Several blocks are named id/0, id/1….
func (rd *reader) emitBlocks(id string, content json.RawMessage, t time.Time, br blockRoles, record string) error {
	if len(content) == 0 || string(content) == "null" {
		rd.skip(string(rd.format) + " message without content")
		return nil
	}
	if content[0] == '"' {
		var s string
		if err := json.Unmarshal(content, &s); err != nil {
			rd.bad(rd.line, "message content: "+err.Error())
			return nil
		}
		return rd.emitBlock(id, claudeBlock{Type: "text", Text: s}, t, br, record)
	}
	var blocks []claudeBlock
	if err := json.Unmarshal(content, &blocks); err != nil {
		rd.bad(rd.line, "message content is neither a string nor a list of blocks")
		return nil
	}
	for i, b := range blocks {
		if err := rd.emitBlock(id+"/"+itoa(i), b, t, br, record); err != nil {
			return err
		}
	}
	return nil
}

func (rd *reader) emitBlock(id string, b claudeBlock, t time.Time, br blockRoles, record string) error {
	m := meta{Record: record, Block: b.Type}
	switch b.Type {
	case "text", "input_text", "output_text":
		text := b.Text
		switch {
		case br.user && br.prompt != nil:
			if p, ok := br.prompt(text); ok {
				return rd.emit(id, ragd.TypeChatMessage, ragd.ActorPerson, p, t, "", m)
			}
			fallthrough
		case br.user:
			if br.injected != nil && br.injected(text) {
				return rd.emit(id, TypeSystemNote, ActorSystem, text, t, "", m)
			}
			return rd.emit(id, ragd.TypeChatMessage, ragd.ActorPerson, text, t, "", m)
		}
		if br.answer != nil {
			if text = br.answer(text); isBlank(text) {
				return rd.emit(id, TypeThinking, ragd.ActorAgent, b.Text, t, "", m)
			}
		}
		if isBlank(text) {
			rd.skip("empty " + string(rd.format) + " text block")
			return nil
		}
		return rd.emit(id, ragd.TypeAgentResponse, ragd.ActorAgent, text, t, "", m)
	case "thinking", "redacted_thinking", "reasoning":
		return rd.emit(id, TypeThinking, ragd.ActorAgent, b.Thinking+b.Text, t, "", m)
	case "tool_use", "server_tool_use", "tool-call", "tool_call":
		m.Name, m.CallID = b.Name, b.ID
		return rd.emit(id, TypeToolCall, ragd.ActorAgent, strings.TrimSpace(b.Name+" "+compactJSON(b.Input)), t, "", m)
	case "tool_result", "web_search_tool_result", "tool-result":
		m.CallID, m.Error = b.ToolUseID, b.IsError
		return rd.emit(id, TypeToolResult, ActorTool, toolContent(b.Content), t, "", m)
	case "image", "document", "file":
		return rd.emit(id, TypeAttachment, ragd.ActorPerson, b.Type, t, "", m)
	}
	rd.skip("unknown " + string(rd.format) + " block type " + quoteType(b.Type))
	return nil
}

// toolContent renders a tool result's content: a string, a list of text
// blocks, or any JSON as it is.
func toolContent(raw json.RawMessage) string {
	if s := stringContent(raw, ""); s != "" {
		return s
	}
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	return compactJSON(raw)
}

// readDocument reads a whole JSON document of at most MaxDocumentBytes
// into v. ok is false when it was not read: too large, not (yet) whole
// (a document being rewritten: Stats.Incomplete), or not JSON of v's
// shape (counted malformed). err is r's failure.
func (rd *reader) readDocument(r io.Reader, v any) (ok bool, err error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxDocumentBytes+1))
	if err != nil {
		return false, err
	}
	if len(b) > MaxDocumentBytes {
		rd.bad(0, "document larger than "+itoa(MaxDocumentBytes)+" bytes")
		return false, nil
	}
	rd.st.Lines = 0
	if err := json.Unmarshal(b, v); err != nil {
		var syn *json.SyntaxError
		if len(strings.TrimSpace(string(b))) == 0 || (asSyntax(err, &syn) && syn.Offset >= int64(len(b))) {
			rd.st.Incomplete = true
			return false, nil
		}
		rd.bad(0, "invalid JSON document: "+err.Error())
		return false, nil
	}
	return true, nil
}

func asSyntax(err error, syn **json.SyntaxError) bool {
	s, ok := err.(*json.SyntaxError)
	if ok {
		*syn = s
	}
	return ok
}

// fileTime is the time given to records that carry none (Cursor's agent
// transcripts, Continue's sessions): Options.FileTime, else the latest
// record time seen, else the Unix epoch, so that an event always has one.
func (rd *reader) fileTime() time.Time {
	switch {
	case !rd.opt.FileTime.IsZero():
		return rd.opt.FileTime
	case !rd.lastTime.IsZero():
		return rd.lastTime
	}
	return time.Unix(0, 0).UTC()
}

// stem is a file's name without its folder and extension.
func stem(name string) string {
	base := filepath.Base(name)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// hasPrefixAny reports whether s, trimmed, starts with one of prefixes.
func hasPrefixAny(s string, prefixes ...string) bool {
	s = strings.TrimSpace(s)
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// msTime converts Unix milliseconds to a time; zero for 0.
func msTime(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// configDirs returns where applications keep per-user configuration on
// this system, as VS Code and its forks do: $XDG_CONFIG_HOME (default
// ~/.config) on Linux, ~/Library/Application Support on macOS,
// %APPDATA% on Windows.
func configDirs(getenv func(string) string) []string {
	home := getenv("HOME")
	switch runtime.GOOS {
	case "darwin":
		if home != "" {
			return []string{filepath.Join(home, "Library", "Application Support")}
		}
	case "windows":
		if d := getenv("APPDATA"); d != "" {
			return []string{d}
		}
	default:
		if d := getenv("XDG_CONFIG_HOME"); d != "" {
			return []string{d}
		}
		if home != "" {
			return []string{filepath.Join(home, ".config")}
		}
	}
	return nil
}

// dataDir returns $XDG_DATA_HOME (default ~/.local/share) joined with
// elems.
func dataDir(f Format, getenv func(string) string, elems ...string) ([]string, error) {
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return []string{filepath.Join(append([]string{d}, elems...)...)}, nil
	}
	p, err := homePath(f, getenv, append([]string{".local", "share"}, elems...)...)
	if err != nil {
		return nil, err
	}
	return []string{p}, nil
}

// existing keeps the paths that exist, so that a default location list
// naming every editor's folder reports only the installed ones.
func existing(paths []string) []string {
	var out []string
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// docTime is the time of records without one in a document read whole
// each time it changes: the time the first read gave them, kept in the
// checkpoint (Checkpoint.LastTime), so that a record read again keeps its
// time and is a duplicate, not a conflict.
func (rd *reader) docTime() time.Time {
	if rd.lastTime.IsZero() {
		rd.seen(rd.fileTime())
	}
	return rd.lastTime
}
