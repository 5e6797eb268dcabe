package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/ragd/ragd"
)

// AppendEventsRequest is the body of POST /v1/projects/{project}/events: one
// event, or many under "events".
type AppendEventsRequest struct {
	Events []ragd.Event `json:"events"`
}

// Conflict is an event refused because its id is stored with other content.
type Conflict struct {
	EventID string `json:"eventId"`
	// Fields names what differs ("sessionId", "type", "actor", "text",
	// "time", "payload").
	Fields []string `json:"fields"`
	// Error is the conflict as a sentence.
	Error string `json:"error"`
}

// AppendResult counts what AppendEvents did.
type AppendResult struct {
	// Appended counts events stored; Messages those of them that are
	// indexed (chat.message, agent.response).
	Appended int `json:"appended"`
	Messages int `json:"messages"`
	// Chunks counts the chunks written for the new messages, in the same
	// transaction: they search lexically at once, and get vectors from the
	// background fill.
	Chunks int `json:"chunks"`
	// Unindexed counts new messages left without chunks, which only a
	// reindex of the session scope indexes; 0 but for a store written
	// without them.
	Unindexed int `json:"unindexed,omitempty"`
	// Duplicates counts events already stored with the same content.
	Duplicates      int `json:"duplicates"`
	SessionsCreated int `json:"sessionsCreated"`
	// Conflicts are events refused: their id is stored with other content.
	Conflicts []Conflict `json:"conflicts"`
}

// ImportReport counts what ImportEvents did.
type ImportReport struct {
	// Lines counts the lines read, blank ones included; Events the valid
	// events among them.
	Lines  int `json:"lines"`
	Events int `json:"events"`
	AppendResult
	// Bad counts malformed lines; LineErrors lists the first
	// source.MaxLineErrors of them with their line numbers.
	Bad        int              `json:"bad"`
	LineErrors []ragd.LineError `json:"lineErrors"`
}

// Err returns the conflicts as one error matching ErrEventConflict, or nil.
func (r AppendResult) Err() error {
	var errs []error
	for _, c := range r.Conflicts {
		errs = append(errs, ragd.EventConflict{EventID: c.EventID, Fields: c.Fields})
	}
	return errors.Join(errs...)
}

// FoldMechanism is a mechanism event (a tool call, a result) in one line of
// at most max runes: its type, then its text or payload, flattened.
func FoldMechanism(ev ragd.Event, max int) string {
	body := ev.Text
	if body == "" && len(ev.Payload) > 0 {
		var b bytes.Buffer
		if json.Compact(&b, ev.Payload) == nil {
			body = b.String()
		} else {
			body = string(ev.Payload)
		}
	}
	line := ev.Type + " " + strings.Join(strings.Fields(body), " ")
	if r := []rune(line); len(r) > max {
		line = string(r[:max-1]) + "…"
	}
	return strings.TrimSpace(line)
}
