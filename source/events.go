package source

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ragd/ragd"
)

// wireEvent is ragd.Event as it appears in a file, with time kept as text so
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
// ReadEvents. The error wraps ragd.ErrInvalidEvent.
func ParseEvent(data []byte) (ragd.Event, error) {
	e, p := parseEvent(data)
	if p != "" {
		return ragd.Event{}, fmt.Errorf("%w: %s", ragd.ErrInvalidEvent, p)
	}
	return e, nil
}

// parseEvent is ParseEvent returning the reason as text, for ragd.LineError.
func parseEvent(data []byte) (ragd.Event, string) {
	// Checked before decoding because encoding/json would silently
	// replace invalid bytes with U+FFFD, storing text that is not what
	// the file says.
	if !utf8.Valid(data) {
		return ragd.Event{}, "invalid UTF-8"
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		// json.Unmarshal accepts null into a struct; we want an object.
		return ragd.Event{}, "not a JSON object"
	}
	var w wireEvent
	if err := json.Unmarshal(data, &w); err != nil {
		if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && te.Field != "" {
			return ragd.Event{}, fmt.Sprintf("field %s: expected %s, got %s", te.Field, te.Type, te.Value)
		}
		return ragd.Event{}, "invalid JSON: " + strings.TrimPrefix(err.Error(), "json: ")
	}
	e := ragd.Event{
		ID: w.ID, SessionID: w.SessionID, Type: w.Type, Actor: w.Actor,
		Text: w.Text, Title: w.Title, Payload: w.Payload,
	}
	if bytes.Equal(e.Payload, []byte("null")) {
		e.Payload = nil
	}
	if w.Time != "" {
		t, err := time.Parse(time.RFC3339Nano, w.Time)
		if err != nil {
			return ragd.Event{}, fmt.Sprintf("bad time %q: want RFC 3339, such as 2026-11-29T12:00:00Z", w.Time)
		}
		if t.IsZero() {
			return ragd.Event{}, fmt.Sprintf("bad time %q: the zero time", w.Time)
		}
		e.Time = t
	}
	return e, e.Problem()
}
