package ragd

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Event types that are conversation, and so indexed for search. Every other
// type (tool.call, tool.result, agent.status, ...) is mechanism: stored in
// the log, never a chunk.
const (
	TypeChatMessage   = "chat.message"
	TypeAgentResponse = "agent.response"
)

// Actors of the conversation events.
const (
	ActorPerson = "person"
	ActorAgent  = "agent"
)

// IndexedTypes lists the event types that become chunks.
var IndexedTypes = []string{TypeChatMessage, TypeAgentResponse}

// Indexed reports whether events of type typ are indexed for search: only
// chat.message and agent.response are. Other types are valid and stored,
// but not indexed.
func Indexed(typ string) bool {
	return typ == TypeChatMessage || typ == TypeAgentResponse
}

// Event is one event of a project's session log. Its JSON encoding (as
// produced by encoding/json) is the session event file format and the
// socket's; see source.ReadEvents.
type Event struct {
	ID        string    `json:"id"`
	SessionID string    `json:"sessionId"`
	Type      string    `json:"type"`
	Actor     string    `json:"actor"`
	Text      string    `json:"text,omitempty"`
	Time      time.Time `json:"time"`
	// Title is the session's title, if the event carries one. The store
	// keeps it per session, not per event: the latest in time wins, and an
	// event read back carries its session's current title.
	Title string `json:"title,omitempty"`
	// Payload is any JSON value, kept verbatim; nil when absent or null.
	Payload json.RawMessage `json:"payload,omitempty"`
	// CreatedAt is when the store first stored the event; zero on input.
	CreatedAt time.Time `json:"-"`
}

// Validate checks e by the rules of the event file format, so that an event
// arriving by any way (a file, the socket, a transcript importer) is held to
// the same rules. The error wraps ErrInvalidEvent.
func (e Event) Validate() error {
	if p := e.Problem(); p != "" {
		return fmt.Errorf("%w: %s", ErrInvalidEvent, p)
	}
	return nil
}

// Problem returns why e is invalid, as a short phrase ("missing id"), or ""
// when it is valid.
func (e Event) Problem() string {
	for _, f := range []struct{ name, v string }{
		{"id", e.ID}, {"sessionId", e.SessionID}, {"type", e.Type}, {"actor", e.Actor},
	} {
		if strings.TrimSpace(f.v) == "" {
			return "missing " + f.name
		}
	}
	if e.Time.IsZero() {
		return "missing time"
	}
	if Indexed(e.Type) && strings.TrimSpace(e.Text) == "" {
		return "missing text for type " + e.Type
	}
	for _, f := range []struct{ name, v string }{
		{"id", e.ID}, {"sessionId", e.SessionID}, {"type", e.Type}, {"actor", e.Actor},
		{"text", e.Text}, {"title", e.Title},
	} {
		if !utf8.ValidString(f.v) {
			return "invalid UTF-8 in " + f.name
		}
	}
	// Names are stored as text in every engine; PostgreSQL's text holds no
	// NUL (texts have theirs replaced by the store, names cannot be).
	for _, f := range []struct{ name, v string }{
		{"id", e.ID}, {"sessionId", e.SessionID}, {"type", e.Type}, {"actor", e.Actor},
	} {
		if strings.ContainsRune(f.v, 0) {
			return "NUL character in " + f.name
		}
	}
	if e.Payload != nil && !json.Valid(e.Payload) {
		return "payload is not valid JSON"
	}
	return ""
}

// EventConflict is an event whose id the project already has with other
// content. It is not stored; the stored event stays as it was.
type EventConflict struct {
	EventID string
	// Fields names what differs, by the event file's field names
	// ("sessionId", "type", "actor", "text", "time", "payload").
	Fields []string
}

func (c EventConflict) Error() string {
	return fmt.Sprintf("event %q: %v (%s differ)", c.EventID, ErrEventConflict, strings.Join(c.Fields, ", "))
}

// Is makes errors.Is(c, ErrEventConflict) true.
func (c EventConflict) Is(target error) bool { return target == ErrEventConflict }

// LineError is a malformed line of a file read line by line (an event file,
// a transcript), left out: its 1-based number and why.
type LineError struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

func (e LineError) Error() string {
	return "line " + strconv.Itoa(e.Line) + ": " + e.Reason
}

// SessionInfo summarises one stored session: what a list of sessions shows
// to pick one without knowing its id.
type SessionInfo struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
	// Format is the coding agent whose transcript the session was imported
	// from (the id's prefix before ":", "claude-code"), "" for a session of
	// an event file.
	Format string `json:"format,omitempty"`
	// First and Last are the times of its first and last event.
	First time.Time `json:"first"`
	Last  time.Time `json:"last"`
	// Events counts every event; Messages those that are conversation
	// (chat.message, agent.response).
	Events   int `json:"events"`
	Messages int `json:"messages"`
}
