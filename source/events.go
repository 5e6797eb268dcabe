package source

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Event types that are indexed for search.
const (
	TypeChatMessage   = "chat.message"
	TypeAgentResponse = "agent.response"
)

// ErrInvalidEvent is wrapped by the errors of Event.Validate and ParseEvent.
var ErrInvalidEvent = errors.New("invalid event")

// Event is one line of a session event file. Its JSON encoding (as produced
// by encoding/json) is the file format; see ReadEvents.
type Event struct {
	ID        string    `json:"id"`
	SessionID string    `json:"sessionId"`
	Type      string    `json:"type"`
	Actor     string    `json:"actor"`
	Text      string    `json:"text,omitempty"`
	Time      time.Time `json:"time"`
	// Title is the session's title, if the event carries one.
	Title string `json:"title,omitempty"`
	// Payload is any JSON value, kept verbatim; nil when absent or null.
	Payload json.RawMessage `json:"payload,omitempty"`
}

// Indexed reports whether events of type typ are indexed for search:
// only chat.message and agent.response are. Other types are valid and
// stored, but not indexed.
func Indexed(typ string) bool {
	return typ == TypeChatMessage || typ == TypeAgentResponse
}

// Validate checks e by the rules of the file format, so that an event
// arriving by another way (the daemon's socket) is held to the same rules
// as one read from a file. The error wraps ErrInvalidEvent.
func (e Event) Validate() error {
	if p := e.problem(); p != "" {
		return fmt.Errorf("%w: %s", ErrInvalidEvent, p)
	}
	return nil
}

// problem returns why e is invalid, or "".
func (e Event) problem() string {
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
	if e.Payload != nil && !json.Valid(e.Payload) {
		return "payload is not valid JSON"
	}
	return ""
}

// wireEvent is Event as it appears in a file, with time kept as text so
// that a bad time gets its own message.
type wireEvent struct {
	ID        string          `json:"id"`
	SessionID string          `json:"sessionId"`
	Type      string          `json:"type"`
	Actor     string          `json:"actor"`
	Text      string          `json:"text"`
	Time      string          `json:"time"`
	Title     string          `json:"title"`
	Payload   json.RawMessage `json:"payload"`
}

// ParseEvent decodes and validates one event from its JSON text (one line
// of a file, without the line ending), by the rules described at
// ReadEvents. The error wraps ErrInvalidEvent.
func ParseEvent(data []byte) (Event, error) {
	e, p := parseEvent(data)
	if p != "" {
		return Event{}, fmt.Errorf("%w: %s", ErrInvalidEvent, p)
	}
	return e, nil
}

// parseEvent is ParseEvent returning the reason as text, for LineError.
func parseEvent(data []byte) (Event, string) {
	// Checked before decoding because encoding/json would silently
	// replace invalid bytes with U+FFFD, storing text that is not what
	// the file says.
	if !utf8.Valid(data) {
		return Event{}, "invalid UTF-8"
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		// json.Unmarshal accepts null into a struct; we want an object.
		return Event{}, "not a JSON object"
	}
	var w wireEvent
	if err := json.Unmarshal(data, &w); err != nil {
		if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && te.Field != "" {
			return Event{}, fmt.Sprintf("field %s: expected %s, got %s", te.Field, te.Type, te.Value)
		}
		return Event{}, "invalid JSON: " + strings.TrimPrefix(err.Error(), "json: ")
	}
	e := Event{
		ID: w.ID, SessionID: w.SessionID, Type: w.Type, Actor: w.Actor,
		Text: w.Text, Title: w.Title, Payload: w.Payload,
	}
	if bytes.Equal(e.Payload, []byte("null")) {
		e.Payload = nil
	}
	if w.Time != "" {
		t, err := time.Parse(time.RFC3339Nano, w.Time)
		if err != nil {
			return Event{}, fmt.Sprintf("bad time %q: want RFC 3339, such as 2026-11-29T12:00:00Z", w.Time)
		}
		if t.IsZero() {
			return Event{}, fmt.Sprintf("bad time %q: the zero time", w.Time)
		}
		e.Time = t
	}
	return e, e.problem()
}
