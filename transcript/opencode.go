package transcript

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/ragd/ragd"
)

// OpenCode is sst's OpenCode: its SQLite database, and the database of the
// older OpenCode Go program.
const OpenCode Format = "opencode"

// openCodeFormat reads OpenCode's database, $XDG_DATA_HOME (default
// ~/.local/share)/opencode/opencode.db: session (id, parent_id, directory,
// title), message (id, session_id, data: {role, time}) and part (id,
// message_id, data: {type, text, tool, state, …}), rewritten in place; and
// the older OpenCode Go program's .opencode/opencode.db in each repository
// (the schema Crush kept). Both are read from a copy, never where they are.
// Before its database, OpenCode kept JSON files in
// <data>/opencode/storage: session/<project>/<session id>.json,
// message/<session id>/<message id>.json and part/<message id>/<part
// id>.json; each message file is read with its parts and its session.
var openCodeFormat = Descriptor{
	Name: OpenCode,
	Tool: "OpenCode",
	Paths: func(getenv func(string) string) ([]string, error) {
		dirs, err := dataDir(OpenCode, getenv, "opencode")
		if err != nil {
			return nil, err
		}
		return []string{filepath.Join(dirs[0], "opencode.db"), filepath.Join(dirs[0], "storage", "message")}, nil
	},
	Match: func(path string) bool {
		return filepath.Base(path) == "opencode.db" || openCodeMessageFile(path)
	},
	Looks:     "opencode.db, storage/message/<session>/<message>.json (and .opencode/opencode.db in each repository; give a file of another name itself)",
	RepoFiles: []string{".opencode/opencode.db"},
	Read:      readOpenCodeStorage,
	Rewrites:  func(string) bool { return true },
	ReadFile:  readOpenCode,
	Database:  func(path string) bool { return !strings.EqualFold(filepath.Ext(path), ".json") },
}

// openCodeMessageFile reports whether path is a message of OpenCode's
// JSON storage: storage/message/<session id>/<message id>.json.
func openCodeMessageFile(path string) bool {
	dir := filepath.Dir(path)
	return strings.HasSuffix(path, ".json") && filepath.Base(filepath.Dir(dir)) == "message" &&
		filepath.Base(filepath.Dir(filepath.Dir(dir))) == "storage"
}

// maxOpenCodeParts bounds the part files read for one message.
const maxOpenCodeParts = 10_000

// readOpenCodeStorage reads one message of OpenCode's JSON storage, with
// its parts (storage/part/<message id>/) and its session
// (storage/session/*/<session id>.json), found beside it by name.
func readOpenCodeStorage(r io.Reader, name string, opt Options, fn Func) (st Stats, err error) {
	rd := newReader(OpenCode, name, opt, fn)
	rd.scoped = true
	var msg struct {
		openCodeMessage
		ID        string `json:"id"`
		SessionID string `json:"sessionID"`
	}
	ok, err := rd.readDocument(r, &msg)
	if !ok || err != nil {
		return rd.st, err
	}
	defer func() {
		rd.checkpoint(0, 0)
		st = rd.st
	}()
	msgDir := filepath.Dir(name)
	storage := filepath.Dir(filepath.Dir(msgDir))
	sid := firstNonEmpty(msg.SessionID, filepath.Base(msgDir))
	mid := firstNonEmpty(msg.ID, stem(name))
	s := rd.setSession(sid)
	var sess struct {
		Directory string `json:"directory"`
		Title     string `json:"title"`
		ParentID  string `json:"parentID"`
		Time      struct {
			Created int64 `json:"created"`
		} `json:"time"`
	}
	if found, _ := filepath.Glob(filepath.Join(storage, "session", "*", sid+".json")); len(found) > 0 {
		if b, err := os.ReadFile(found[0]); err == nil && json.Unmarshal(b, &sess) == nil {
			s.Cwd = sess.Directory
			// Each message file is read by itself: the title's event
			// must have the same time from every one of them.
			if created := msTime(sess.Time.Created); !created.IsZero() {
				rd.giveTitle(s, sess.Title, created)
			}
			// A subagent's session names its parent; the parent's files
			// are beside it.
			if sess.ParentID != "" {
				parent, _ := filepath.Glob(filepath.Join(storage, "session", "*", sess.ParentID+".json"))
				s.Subagent = len(parent) > 0
			}
		}
	}
	turn := &openCodeTurn{id: mid, session: s, msg: msg.openCodeMessage}
	raw, _ := json.Marshal(msg)
	turn.raw = string(raw)
	partFiles, _ := filepath.Glob(filepath.Join(storage, "part", mid, "*.json"))
	sort.Strings(partFiles)
	if len(partFiles) > maxOpenCodeParts {
		rd.skip("opencode parts beyond " + itoa(maxOpenCodeParts))
		partFiles = partFiles[:maxOpenCodeParts]
	}
	for _, pf := range partFiles {
		if info, err := os.Stat(pf); err == nil && info.Size() > MaxLineBytes {
			rd.bad(0, "part "+pf+" larger than "+itoa(MaxLineBytes)+" bytes")
			continue
		}
		b, err := os.ReadFile(pf)
		if err != nil {
			rd.bad(0, "part "+pf+": "+err.Error())
			continue
		}
		turn.parts = append(turn.parts, openCodeRawPart{stem(pf), string(b)})
	}
	rd.st.Records++
	rd.line = 1
	return rd.st, openCodeEmit(rd, turn)
}

type openCodeMessage struct {
	Role string `json:"role"`
	Time struct {
		Created   int64 `json:"created"`
		Completed int64 `json:"completed"`
	} `json:"time"`
	Error json.RawMessage `json:"error"`
}

type openCodePart struct {
	Type      string `json:"type"`
	Text      string `json:"text"`
	Synthetic bool   `json:"synthetic"`
	Ignored   bool   `json:"ignored"`
	Tool      string `json:"tool"`
	CallID    string `json:"callID"`
	Mime      string `json:"mime"`
	Prompt    string `json:"prompt"`
	State     struct {
		Status string          `json:"status"`
		Input  json.RawMessage `json:"input"`
		Output string          `json:"output"`
		Error  string          `json:"error"`
	} `json:"state"`
}

func readOpenCode(ctx context.Context, path string, opt Options, fn Func) (Stats, error) {
	rd := newReader(OpenCode, path, opt, fn)
	rd.scoped = true
	tx, done, ok, err := rd.openSnapshot(ctx, path)
	if !ok || err != nil {
		return rd.st, err
	}
	if !hasTable(ctx, tx, "session") && hasTable(ctx, tx, "sessions") {
		// The older Go program's database.
		tx.Rollback()
		done()
		return readCrushSchema(ctx, rd, path)
	}
	defer done()
	defer tx.Rollback()
	if !hasTable(ctx, tx, "session") || !hasTable(ctx, tx, "message") || !hasTable(ctx, tx, "part") {
		rd.bad(0, "not an opencode database: no session, message and part tables")
		return rd.st, nil
	}
	sessions := map[string]*Session{}
	rows, err := tx.QueryContext(ctx, `SELECT s.id, s.directory, s.title, s.time_created,
		coalesce(s.parent_id, '') <> '' AND EXISTS (SELECT 1 FROM session p WHERE p.id = s.parent_id)
		FROM session s ORDER BY s.time_created, s.id`)
	if err != nil {
		rd.bad(0, "sessions: "+err.Error())
		return rd.st, nil
	}
	for n := 1; rows.Next(); n++ {
		var id, dir, title sql.NullString
		var sub sql.NullBool
		var created any
		if err := rows.Scan(&id, &dir, &title, &created, &sub); err != nil {
			rd.bad(n, "session row: "+err.Error())
			continue
		}
		if isBlank(id.String) {
			rd.bad(n, "session without an id")
			continue
		}
		// A session whose parent is in the database is a subagent's (the
		// task tool's); one whose parent is not is read as the person's.
		s := rd.setSession(id.String)
		s.Cwd, s.Subagent = dir.String, sub.Bool
		at, _ := sqlInt(created)
		rd.giveTitle(s, title.String, msTime(at))
		sessions[id.String] = s
	}
	rows.Close()
	rows, err = tx.QueryContext(ctx, `SELECT m.id, m.session_id, m.data, coalesce(p.id, ''), p.data
		FROM message m LEFT JOIN part p ON p.message_id = m.id
		ORDER BY m.time_created, m.id, p.time_created, p.id`)
	if err != nil {
		rd.bad(0, "messages: "+err.Error())
		return rd.st, nil
	}
	defer rows.Close()
	var cur *openCodeTurn
	flush := func() error {
		if cur == nil {
			return nil
		}
		t := cur
		cur = nil
		return openCodeEmit(rd, t)
	}
	for n := 1; rows.Next(); n++ {
		var mid, sid, mdata, pdata sql.NullString
		var pid string
		if err := rows.Scan(&mid, &sid, &mdata, &pid, &pdata); err != nil {
			rd.bad(n, "message row: "+err.Error())
			continue
		}
		if isBlank(mid.String) {
			// Its parts cannot name it: nothing joins it.
			rd.st.Records++
			rd.bad(rd.st.Records, "message without an id")
			continue
		}
		if cur == nil || cur.id != mid.String {
			if err := flush(); err != nil {
				return rd.st, err
			}
			rd.st.Records++
			rd.line = rd.st.Records
			cur = &openCodeTurn{id: mid.String, raw: mdata.String}
			name := "message " + strconv.Quote(mid.String)
			switch {
			case isBlank(sid.String):
				rd.bad(rd.line, name+" without a session_id")
				cur.bad = true
			case !mdata.Valid:
				rd.bad(rd.line, name+" without data")
				cur.bad = true
			default:
				s, ok := sessions[sid.String]
				if !ok {
					s = rd.setSession(sid.String)
					sessions[sid.String] = s
				}
				cur.session = s
				if err := json.Unmarshal([]byte(mdata.String), &cur.msg); err != nil {
					rd.bad(rd.line, name+": "+err.Error())
					cur.bad = true
				}
			}
		}
		if pid != "" && !cur.bad {
			if !pdata.Valid {
				rd.bad(rd.line, "part "+strconv.Quote(pid)+" without data")
				continue
			}
			cur.parts = append(cur.parts, openCodeRawPart{pid, pdata.String})
		}
	}
	if err := rows.Err(); err != nil {
		return rd.st, err
	}
	if err := flush(); err != nil {
		return rd.st, err
	}
	rd.checkpoint(0, 0)
	return rd.st, nil
}

type openCodeRawPart struct{ id, data string }

// openCodeTurn is one message with its parts.
type openCodeTurn struct {
	id      string
	session *Session
	raw     string
	msg     openCodeMessage
	parts   []openCodeRawPart
	bad     bool
}

// openCodeEmit maps one message: its text parts joined as the prompt or
// the answer, reasoning, finished tool calls with their results, files,
// compactions, subtasks.
func openCodeEmit(rd *reader, m *openCodeTurn) error {
	if m.bad {
		return nil
	}
	rd.sess, rd.raw = m.session, []byte(m.raw)
	if m.msg.Role == "assistant" && m.msg.Time.Completed == 0 && len(m.msg.Error) == 0 {
		rd.st.Incomplete = true
		rd.skip("opencode message still being written")
		return nil
	}
	t := msTime(m.msg.Time.Created)
	if t.IsZero() {
		rd.bad(rd.line, "message "+m.id+" without a time")
		return nil
	}
	rd.seen(t)
	user := m.msg.Role == "user"
	sub := m.session.Subagent
	var text strings.Builder
	for _, rp := range m.parts {
		var p openCodePart
		if err := json.Unmarshal([]byte(rp.data), &p); err != nil {
			rd.bad(rd.line, "part "+rp.id+": "+err.Error())
			continue
		}
		id := m.id + "/" + rp.id
		pm := meta{Record: m.msg.Role, Block: p.Type}
		var err error
		switch p.Type {
		case "text":
			switch {
			case p.Ignored:
				rd.skip("opencode ignored text part")
			case p.Synthetic:
				// Text OpenCode added (a file's contents, a reminder).
				err = rd.emit(id, TypeSystemNote, ActorSystem, p.Text, t, "", pm)
			default:
				if text.Len() > 0 && !isBlank(p.Text) {
					text.WriteString("\n\n")
				}
				text.WriteString(p.Text)
			}
		case "reasoning":
			err = rd.emit(id, TypeThinking, ragd.ActorAgent, p.Text, t, "", pm)
		case "tool":
			switch p.State.Status {
			case "completed", "error":
				pm.Name, pm.CallID = p.Tool, p.CallID
				if err = rd.emit(id+"/call", TypeToolCall, ragd.ActorAgent, strings.TrimSpace(p.Tool+" "+compactJSON(p.State.Input)), t, "", pm); err == nil {
					pm.Error = p.State.Status == "error"
					err = rd.emit(id+"/result", TypeToolResult, ActorTool, p.State.Output+p.State.Error, t, "", pm)
				}
			default:
				// Pending or running: read once it finished.
				rd.st.Incomplete = true
				rd.skip("opencode tool call still running")
			}
		case "file":
			err = rd.emit(id, TypeAttachment, ragd.ActorPerson, firstNonEmpty(p.Mime, "file"), t, "", pm)
		case "compaction":
			err = rd.emit(id, TypeCompacted, ActorSystem, "conversation compacted", t, "", pm)
		case "subtask":
			err = rd.emit(id, TypeSubagentMessage, ragd.ActorAgent, p.Prompt, t, "", pm)
		default:
			// step-start, step-finish, snapshot, patch, agent, retry: the
			// tool's bookkeeping.
			rd.skip("opencode " + quoteType(p.Type) + " part")
		}
		if err != nil {
			return err
		}
	}
	if isBlank(text.String()) {
		return nil
	}
	mt := meta{Record: m.msg.Role}
	switch {
	case user && sub:
		return rd.emit(m.id, TypeSubagentMessage, ragd.ActorAgent, text.String(), t, "", mt)
	case user:
		return rd.emit(m.id, ragd.TypeChatMessage, ragd.ActorPerson, text.String(), t, "", mt)
	case sub:
		return rd.emit(m.id, TypeSubagentResponse, ActorSubagent, text.String(), t, "", mt)
	}
	return rd.emit(m.id, ragd.TypeAgentResponse, ragd.ActorAgent, text.String(), t, "", mt)
}
