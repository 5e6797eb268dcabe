package transcript

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/ragd/ragd"
)

// Cursor is the Cursor editor's agent transcripts.
const Cursor Format = "cursor"

// cursorFormat reads Cursor's conversations of both kinds:
//
//   - the agent's transcripts, ~/.cursor/projects/<folder slug>/
//     agent-transcripts/<id>.jsonl, one message per line ({role, message:
//     {content blocks}}), appended, without ids or times: a record is named
//     by its offset and a hash of its line, and timed by the file's
//     modification time when first read;
//   - the editor's state databases (SQLite, rewritten in place, read from a
//     copy), <config>/Cursor/User/workspaceStorage/<hash>/state.vscdb and
//     globalStorage/state.vscdb: the chat tabs and composers of the
//     ItemTable (workbench.panel.aichat.view.aichat.chatdata,
//     composer.composerData) and, in newer versions, the composers and
//     their bubbles of the cursorDiskKV table (composerData:<id>,
//     bubbleId:<composer>:<bubble>). aiService.prompts repeats the prompts
//     and is not read.
var cursorFormat = Descriptor{
	Name: Cursor,
	Tool: "Cursor",
	Paths: func(getenv func(string) string) ([]string, error) {
		p, err := homePath(Cursor, getenv, ".cursor", "projects")
		if err != nil {
			return nil, err
		}
		paths := []string{p}
		for _, cfg := range configDirs(getenv) {
			paths = append(paths, existing([]string{
				filepath.Join(cfg, "Cursor", "User", "workspaceStorage"),
				filepath.Join(cfg, "Cursor", "User", "globalStorage", "state.vscdb"),
			})...)
		}
		return paths, nil
	},
	Match: func(path string) bool {
		base := filepath.Base(path)
		return base == "state.vscdb" || strings.HasSuffix(base, ".jsonl") && filepath.Base(filepath.Dir(path)) == "agent-transcripts"
	},
	Looks:    "*.jsonl files in an agent-transcripts folder and state.vscdb databases (give a file of another name itself)",
	Read:     readCursor,
	ReadFile: readCursorState,
	Database: func(path string) bool { return strings.EqualFold(filepath.Ext(path), ".vscdb") },
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
	err := readRecords(rd, r, func(rec *cursorRecord, line []byte, _ int, off int64) error {
		rd.setSession(rd.sess.ToolID)
		id := derivedID(rd.sess.ToolID, off, line)
		t := rd.fileTime()
		switch rec.Role {
		case "user":
			return rd.emitBlocks(id, rec.Message.Content, t, blockRoles{user: true, prompt: cursorQuery, injected: cursorInjected}, "user")
		case "assistant":
			return rd.emitBlocks(id, rec.Message.Content, t, blockRoles{answer: cursorAnswer}, "assistant")
		}
		rd.skip("cursor record of role " + quoteType(rec.Role))
		return nil
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

// cursorBubble is one message of a chat tab or a composer: type "user" or
// 1 is the person's, "ai" or 2 the model's.
type cursorBubble struct {
	ID       string          `json:"id"`
	BubbleID string          `json:"bubbleId"`
	Type     json.RawMessage `json:"type"`
	Text     string          `json:"text"`
	RawText  string          `json:"rawText"`
}

func (b cursorBubble) role() string {
	switch strings.Trim(string(b.Type), `"`) {
	case "user", "1":
		return "user"
	case "ai", "2":
		return "assistant"
	}
	return ""
}

// cursorComposer is a composer (Cursor's agent and edit chats).
type cursorComposer struct {
	ComposerID   string         `json:"composerId"`
	Name         string         `json:"name"`
	CreatedAt    int64          `json:"createdAt"`
	Conversation []cursorBubble `json:"conversation"`
	Headers      []struct {
		BubbleID string `json:"bubbleId"`
	} `json:"fullConversationHeadersOnly"`
}

func readCursorState(ctx context.Context, path string, opt Options, fn Func) (Stats, error) {
	rd := newReader(Cursor, path, opt, fn)
	rd.scoped = true
	tx, done, ok, err := rd.openSnapshot(ctx, path)
	if !ok || err != nil {
		return rd.st, err
	}
	defer done()
	defer tx.Rollback()
	cwd := workspaceFolder(filepath.Dir(path))
	value := func(table, key string) []byte {
		var v []byte
		if err := tx.QueryRowContext(ctx, "SELECT value FROM "+table+" WHERE key = ?", key).Scan(&v); err != nil {
			return nil
		}
		return v
	}
	if hasTable(ctx, tx, "ItemTable") {
		if v := value("ItemTable", "workbench.panel.aichat.view.aichat.chatdata"); v != nil {
			var chat struct {
				Tabs []struct {
					TabID        string         `json:"tabId"`
					ChatTitle    string         `json:"chatTitle"`
					LastSendTime int64          `json:"lastSendTime"`
					Bubbles      []cursorBubble `json:"bubbles"`
				} `json:"tabs"`
			}
			rd.raw = nil
			if err := json.Unmarshal(v, &chat); err != nil {
				rd.bad(0, "chat data: "+err.Error())
			}
			for _, tab := range chat.Tabs {
				if err := rd.cursorConversation(tab.TabID, tab.ChatTitle, cwd, msTime(tab.LastSendTime), tab.Bubbles); err != nil {
					return rd.st, err
				}
			}
		}
		if v := value("ItemTable", "composer.composerData"); v != nil {
			var comp struct {
				AllComposers []cursorComposer `json:"allComposers"`
			}
			if err := json.Unmarshal(v, &comp); err != nil {
				rd.bad(0, "composer data: "+err.Error())
			}
			for _, c := range comp.AllComposers {
				if err := rd.cursorConversation(c.ComposerID, c.Name, cwd, msTime(c.CreatedAt), c.Conversation); err != nil {
					return rd.st, err
				}
			}
		}
	}
	if hasTable(ctx, tx, "cursorDiskKV") {
		rows, err := tx.QueryContext(ctx, "SELECT key, value FROM cursorDiskKV WHERE key LIKE 'composerData:%' ORDER BY key")
		if err != nil {
			rd.bad(0, "composers: "+err.Error())
			return rd.st, nil
		}
		var composers []cursorComposer
		for rows.Next() {
			var key string
			var v []byte
			if err := rows.Scan(&key, &v); err != nil {
				rows.Close()
				return rd.st, err
			}
			var c cursorComposer
			if err := json.Unmarshal(v, &c); err != nil {
				rd.bad(0, key+": "+err.Error())
				continue
			}
			c.ComposerID = firstNonEmpty(c.ComposerID, strings.TrimPrefix(key, "composerData:"))
			composers = append(composers, c)
		}
		rows.Close()
		for _, c := range composers {
			bubbles := c.Conversation
			if len(bubbles) == 0 {
				// Newer versions keep each bubble under its own key.
				for _, h := range c.Headers {
					var b cursorBubble
					if v := value("cursorDiskKV", "bubbleId:"+c.ComposerID+":"+h.BubbleID); v != nil && json.Unmarshal(v, &b) == nil {
						b.BubbleID = firstNonEmpty(b.BubbleID, h.BubbleID)
						bubbles = append(bubbles, b)
					}
				}
			}
			if err := rd.cursorConversation(c.ComposerID, c.Name, "", msTime(c.CreatedAt), bubbles); err != nil {
				return rd.st, err
			}
		}
	}
	rd.checkpoint(0, 0)
	return rd.st, nil
}

// cursorConversation maps one chat tab's or composer's bubbles: the
// person's text a prompt, the model's its answer. Bubbles carry no time of
// their own here: they take their conversation's.
func (rd *reader) cursorConversation(id, title, cwd string, t time.Time, bubbles []cursorBubble) error {
	if id == "" || len(bubbles) == 0 {
		return nil
	}
	s := rd.setSession(id)
	if cwd != "" {
		s.Cwd = cwd
	}
	if t.IsZero() {
		t = rd.docTime()
	}
	rd.giveTitle(s, title, t)
	rd.seen(t)
	for i, b := range bubbles {
		rd.st.Records++
		bid := firstNonEmpty(b.BubbleID, b.ID, "bubble-"+itoa(i))
		m := meta{Record: "bubble"}
		var err error
		switch b.role() {
		case "user":
			if isBlank(b.Text) {
				// The draft left in the input box.
				rd.skip("cursor empty user bubble")
				continue
			}
			err = rd.emit(bid, ragd.TypeChatMessage, ragd.ActorPerson, b.Text, t, "", m)
		case "assistant":
			text := firstNonEmpty(b.Text, b.RawText)
			if isBlank(text) {
				rd.skip("cursor empty answer bubble")
				continue
			}
			err = rd.emit(bid, ragd.TypeAgentResponse, ragd.ActorAgent, text, t, "", m)
		default:
			rd.skip("cursor bubble of type " + quoteType(string(b.Type)))
		}
		if err != nil {
			return err
		}
	}
	return nil
}
