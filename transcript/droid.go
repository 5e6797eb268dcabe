package transcript

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"time"
)

// Droid is Factory's Droid session log.
const Droid Format = "droid"

// droidFormat reads Factory Droid's sessions:
// ~/.factory/sessions/<cwd slug>/<session id>.jsonl: a session_start record,
// then {type: "message", id, timestamp, message: {role, content blocks}},
// appended. The <id>.settings.json beside each holds settings only.
var droidFormat = Descriptor{
	Name: Droid,
	Tool: "Factory Droid",
	Paths: func(getenv func(string) string) ([]string, error) {
		p, err := homePath(Droid, getenv, ".factory", "sessions")
		if err != nil {
			return nil, err
		}
		return []string{p}, nil
	},
	Match: func(path string) bool { return strings.HasSuffix(filepath.Base(path), ".jsonl") },
	Looks: "*.jsonl session files",
	Read:  readDroid,
}

type droidRecord struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	Title     string `json:"title"`
	// SessionTitle is the name the person gave ("New Session" until then).
	SessionTitle string `json:"sessionTitle"`
	Cwd          string `json:"cwd"`
	Message      struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// droidInjected tells the text Droid puts in the person's message (a file
// the person named with @, reminders) from what they typed.
func droidInjected(s string) bool {
	return hasPrefixAny(s, "Contents of ", "<system-reminder>", "<system-notification>", "<context>")
}

func readDroid(r io.Reader, name string, opt Options, fn Func) (Stats, error) {
	rd := newReader(Droid, name, opt, fn)
	rd.scoped = true
	err := readRecords(rd, r, func(rec *droidRecord, _ []byte, n int, _ int64) error { return droidRecordEvents(rd, rec, n) })
	return rd.st, err
}

func droidRecordEvents(rd *reader, rec *droidRecord, n int) error {
	switch rec.Type {
	case "session_start":
		s := rd.setSession(firstNonEmpty(rec.ID, stem(rd.name)))
		if rec.Cwd != "" {
			s.Cwd = rec.Cwd
		}
		// session_start has no time: the title goes with the session's
		// first message, at its time.
		rd.giveTitle(s, firstNonEmpty(rec.Title, rec.SessionTitle), time.Time{})
		return nil
	case "message":
	default:
		// todo_state, compaction and settings records.
		rd.skip("droid " + quoteType(rec.Type) + " record")
		return nil
	}
	if rec.ID == "" {
		rd.bad(n, "message without an id")
		return nil
	}
	t, ok := parseTime(rec.Timestamp)
	if !ok {
		rd.bad(n, "message without a valid timestamp")
		return nil
	}
	rd.seen(t)
	if rd.sess == nil {
		rd.setSession(stem(rd.name))
	}
	switch rec.Message.Role {
	case "user":
		return rd.emitBlocks(rec.ID, rec.Message.Content, t, blockRoles{user: true, injected: droidInjected}, "user")
	case "assistant":
		return rd.emitBlocks(rec.ID, rec.Message.Content, t, blockRoles{}, "assistant")
	}
	rd.skip("droid message of role " + quoteType(rec.Message.Role))
	return nil
}
