package transcript

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ragd/ragd"
)

// Crush is Charm's Crush (and the older OpenCode Go program it grew from):
// a SQLite database per repository.
const Crush Format = "crush"

// crushFormat reads Crush's database, kept in each repository as
// .crush/crush.db: sessions (id, parent_session_id, title, created_at) and
// messages (id, session_id, role, parts as JSON, created_at,
// finished_at), rewritten in place as the tool works. It is read from a
// copy (see snapshot), never opened where it is.
var crushFormat = Descriptor{
	Name: Crush,
	Tool: "Crush",
	Paths: func(getenv func(string) string) ([]string, error) {
		return nil, nil
	},
	Match:     func(path string) bool { return filepath.Base(path) == "crush.db" },
	Looks:     ".crush/crush.db in each repository (give a file of another name itself)",
	RepoFiles: []string{".crush/crush.db"},
	ReadFile:  readCrush,
}

// crushRow is one message of a Crush-schema database.
type crushRow struct {
	ID, Session, Role, Parts string
	Created                  int64
	// Finished is false for an assistant message still being written.
	Finished bool
}

type crushPart struct {
	Type string `json:"type"`
	Data struct {
		Text      string `json:"text"`
		Thinking  string `json:"thinking"`
		ID        string `json:"id"`
		Name      string `json:"name"`
		Input     string `json:"input"`
		ToolCall  string `json:"tool_call_id"`
		Content   string `json:"content"`
		IsError   bool   `json:"is_error"`
		Reason    string `json:"reason"`
		Message   string `json:"message"`
		Details   string `json:"details"`
		MIMEType  string `json:"mime_type"`
		Finished  *bool  `json:"finished"`
		Signature string `json:"signature"`
	} `json:"data"`
}

func readCrush(ctx context.Context, path string, opt Options, fn Func) (Stats, error) {
	rd := newReader(Crush, path, opt, fn)
	rd.scoped = true
	return readCrushSchema(ctx, rd, path)
}

// readCrushSchema reads a database of Crush's schema (also the older
// OpenCode Go program's) into rd's events.
func readCrushSchema(ctx context.Context, rd *reader, path string) (Stats, error) {
	tx, done, ok, err := rd.openSnapshot(ctx, path)
	if !ok || err != nil {
		return rd.st, err
	}
	defer done()
	defer tx.Rollback()
	if !hasTable(ctx, tx, "sessions") || !hasTable(ctx, tx, "messages") {
		rd.bad(0, "not a "+string(rd.format)+" database: no sessions and messages tables")
		return rd.st, nil
	}
	// The repository the database is in: <root>/.crush/crush.db.
	root := filepath.Dir(filepath.Dir(path))
	sessions := map[string]*Session{}
	rows, err := tx.QueryContext(ctx, "SELECT id, coalesce(parent_session_id, ''), title, created_at FROM sessions ORDER BY created_at, id")
	if err != nil {
		rd.bad(0, "sessions: "+err.Error())
		return rd.st, nil
	}
	for n := 1; rows.Next(); n++ {
		var id, parent, title sql.NullString
		var created any
		if err := rows.Scan(&id, &parent, &title, &created); err != nil {
			rd.bad(n, "session row: "+err.Error())
			continue
		}
		if isBlank(id.String) {
			rd.bad(n, "session without an id")
			continue
		}
		s := rd.setSession(id.String)
		s.Cwd, s.Subagent = root, parent.String != ""
		// The title is the session's as of its creation: a time every
		// read gives the same (the session's updated_at moves).
		at, _ := sqlInt(created)
		rd.giveTitle(s, title.String, unixTime(at))
		sessions[id.String] = s
	}
	rows.Close()
	finished := "1"
	if hasColumn(ctx, tx, "messages", "finished_at") {
		finished = "role <> 'assistant' OR finished_at IS NOT NULL"
	}
	rows, err = tx.QueryContext(ctx, "SELECT id, session_id, role, parts, created_at, "+finished+" FROM messages ORDER BY created_at, rowid")
	if err != nil {
		rd.bad(0, "messages: "+err.Error())
		return rd.st, nil
	}
	defer rows.Close()
	for n := 1; rows.Next(); n++ {
		rd.line = n
		rd.st.Records++
		m, ok := scanCrushRow(rd, rows, n)
		if !ok {
			continue
		}
		rd.raw = []byte(m.Parts)
		s, ok := sessions[m.Session]
		if !ok {
			s = rd.setSession(m.Session)
			s.Cwd = root
			sessions[m.Session] = s
		}
		rd.sess = s
		if err := crushMessage(rd, m); err != nil {
			return rd.st, err
		}
	}
	rd.checkpoint(0, 0)
	return rd.st, rows.Err()
}

// scanCrushRow reads the message row n of rows; ok is false, and the row
// counted as malformed, when a column the message needs is NULL or its
// time is not a number: the tool's schema forbids both, but a damaged or
// hand-edited database has them, and one bad row must not cost the rest.
func scanCrushRow(rd *reader, rows *sql.Rows, n int) (m crushRow, ok bool) {
	var id, session, role, parts sql.NullString
	var created any
	var finished sql.NullBool
	if err := rows.Scan(&id, &session, &role, &parts, &created, &finished); err != nil {
		rd.bad(n, "message row: "+err.Error())
		return m, false
	}
	name := "message " + strconv.Quote(id.String)
	switch {
	case isBlank(id.String):
		rd.bad(n, "message without an id")
		return m, false
	case isBlank(session.String):
		rd.bad(n, name+" without a session_id")
		return m, false
	case !role.Valid:
		rd.bad(n, name+" without a role")
		return m, false
	case !parts.Valid:
		rd.bad(n, name+" without parts")
		return m, false
	}
	t, ok := sqlInt(created)
	if !ok {
		rd.bad(n, name+": created_at "+sqlValue(created)+" is not a Unix time")
		return m, false
	}
	return crushRow{ID: id.String, Session: session.String, Role: role.String, Parts: parts.String,
		Created: t, Finished: finished.Valid && finished.Bool}, true
}

// unixTime reads a time Crush wrote in seconds (or, in some versions, in
// milliseconds).
func unixTime(v int64) time.Time {
	const msThreshold = 100_000_000_000 // later than 5138 in seconds
	switch {
	case v <= 0:
		return time.Time{}
	case v >= msThreshold:
		return time.UnixMilli(v).UTC()
	}
	return time.Unix(v, 0).UTC()
}

// crushMessage maps one message: its text parts joined as the prompt or
// the answer, reasoning as thinking, tool calls and results, errors.
func crushMessage(rd *reader, m crushRow) error {
	if !m.Finished {
		rd.st.Incomplete = true
		rd.skip(string(rd.format) + " message still being written")
		return nil
	}
	t := unixTime(m.Created)
	if t.IsZero() {
		rd.bad(rd.line, "message without a time")
		return nil
	}
	rd.seen(t)
	var parts []crushPart
	if err := json.Unmarshal([]byte(m.Parts), &parts); err != nil {
		rd.bad(rd.line, "parts: "+err.Error())
		return nil
	}
	sub := rd.sess.Subagent
	mt := meta{Record: m.Role}
	var text strings.Builder
	for i, p := range parts {
		id := m.ID + "/" + itoa(i)
		pm := meta{Record: m.Role, Block: p.Type}
		var err error
		switch p.Type {
		case "text":
			if text.Len() > 0 && !isBlank(p.Data.Text) {
				text.WriteString("\n\n")
			}
			text.WriteString(p.Data.Text)
		case "reasoning":
			err = rd.emit(id, TypeThinking, ragd.ActorAgent, p.Data.Thinking, t, "", pm)
		case "tool_call":
			pm.Name, pm.CallID = p.Data.Name, p.Data.ID
			err = rd.emit(id, TypeToolCall, ragd.ActorAgent, strings.TrimSpace(p.Data.Name+" "+p.Data.Input), t, "", pm)
		case "tool_result":
			pm.Name, pm.CallID, pm.Error = p.Data.Name, p.Data.ToolCall, p.Data.IsError
			err = rd.emit(id, TypeToolResult, ActorTool, p.Data.Content, t, "", pm)
		case "binary", "image_url":
			err = rd.emit(id, TypeAttachment, ragd.ActorPerson, firstNonEmpty(p.Data.MIMEType, p.Type), t, "", pm)
		case "finish":
			if p.Data.Reason == "error" {
				err = rd.emit(id, TypeSystemNote, ActorSystem, strings.TrimSpace(p.Data.Message+"\n"+p.Data.Details), t, "", pm)
			} else {
				rd.skip(string(rd.format) + " finish part")
			}
		default:
			rd.skip("unknown " + string(rd.format) + " part type " + quoteType(p.Type))
		}
		if err != nil {
			return err
		}
	}
	if isBlank(text.String()) {
		return nil
	}
	switch {
	case m.Role == "user" && sub:
		return rd.emit(m.ID, TypeSubagentMessage, ragd.ActorAgent, text.String(), t, "", mt)
	case m.Role == "user":
		return rd.emit(m.ID, ragd.TypeChatMessage, ragd.ActorPerson, text.String(), t, "", mt)
	case m.Role == "assistant" && sub:
		return rd.emit(m.ID, TypeSubagentResponse, ActorSubagent, text.String(), t, "", mt)
	case m.Role == "assistant":
		return rd.emit(m.ID, ragd.TypeAgentResponse, ragd.ActorAgent, text.String(), t, "", mt)
	}
	return rd.emit(m.ID, TypeSystemNote, ActorSystem, text.String(), t, "", mt)
}
