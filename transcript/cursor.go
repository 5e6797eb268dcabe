package transcript

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
)

// Cursor is the Cursor editor's agent transcripts.
const Cursor Format = "cursor"

// cursorFormat reads Cursor's agent transcripts:
// ~/.cursor/projects/<folder slug>/agent-transcripts/<id>.jsonl, one
// message per line ({role, message: {content blocks}}), appended, without
// ids or times: a record is named by its offset and a hash of its line,
// and timed by the file's modification time when first read.
var cursorFormat = Descriptor{
	Name: Cursor,
	Tool: "Cursor",
	Paths: func(getenv func(string) string) ([]string, error) {
		p, err := homePath(Cursor, getenv, ".cursor", "projects")
		if err != nil {
			return nil, err
		}
		return []string{p}, nil
	},
	Match: func(path string) bool {
		return strings.HasSuffix(filepath.Base(path), ".jsonl") && filepath.Base(filepath.Dir(path)) == "agent-transcripts"
	},
	Looks: "*.jsonl files in an agent-transcripts folder (give a file of another name itself)",
	Read:  readCursor,
}

type cursorRecord struct {
	Role    string `json:"role"`
	Message struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

func readCursor(r io.Reader, name string, opt Options, fn Func) (Stats, error) {
	rd := newReader(Cursor, name, opt, fn)
	if rd.sess == nil {
		s := rd.setSession(stem(name))
		// <folder slug>/agent-transcripts/<id>.jsonl
		if dir := filepath.Dir(name); filepath.Base(dir) == "agent-transcripts" {
			s.Slug = filepath.Base(filepath.Dir(dir))
		}
	}
	err := rd.lines(r, func(line []byte, n int, off int64, final bool) (bool, error) {
		if len(bytes.TrimSpace(line)) == 0 {
			return true, nil
		}
		var rec cursorRecord
		if err := json.Unmarshal(line, &rec); err != nil {
			if final {
				return false, nil
			}
			rd.bad(n, "invalid JSON: "+err.Error())
			return true, nil
		}
		rd.st.Records++
		rd.raw = line
		rd.setSession(rd.sess.ToolID)
		id := derivedID(rd.sess.ToolID, off, line)
		t := rd.fileTime()
		switch rec.Role {
		case "user":
			return true, rd.emitBlocks(id, rec.Message.Content, t, blockRoles{user: true, prompt: cursorQuery, injected: cursorInjected}, "user")
		case "assistant":
			return true, rd.emitBlocks(id, rec.Message.Content, t, blockRoles{answer: cursorAnswer}, "assistant")
		}
		rd.skip("cursor record of role " + quoteType(rec.Role))
		return true, nil
	})
	return rd.st, err
}

// cursorQuery returns what the person typed from a user block that wraps
// it in <user_query>, leaving the context Cursor attaches around it.
func cursorQuery(s string) (string, bool) {
	if !strings.Contains(s, "<user_query>") {
		return "", false
	}
	return between(s, "<user_query>", "</user_query>"), true
}

// cursorInjected: the context Cursor sends in the person's place (open
// files, attached files, rules, its own notes).
func cursorInjected(s string) bool {
	return hasPrefixAny(s, "<user_info>", "<attached_files>", "<open_and_recently_viewed_files>", "<rules>",
		"<project_layout>", "<git_status>", "<system_reminder>", "<system-reminder>", "<additional_data>", "<cursor_commands>")
}

// cursorAnswer drops the "[REDACTED]" Cursor writes where its thinking
// was; an answer of nothing else is thinking.
func cursorAnswer(s string) string {
	return strings.TrimSpace(strings.ReplaceAll(s, "[REDACTED]", ""))
}
