package api

import (
	"bytes"
	"encoding/json"
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
	// Redactions counts the secrets redacted from the events before they
	// were stored, by kind.
	Redactions map[string]int `json:"redactions,omitempty"`
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

// PathSessionsRedact is the route that re-applies the redaction rules to
// the session text already stored.
const PathSessionsRedact = Version + "/sessions/redact"

// RedactRequest is the body of POST /v1/sessions/redact.
type RedactRequest struct {
	// Project limits the pass to one project. Optional: every project by
	// default.
	Project string `json:"project,omitempty"`
}

// RedactReport is what a redaction pass changed.
type RedactReport struct {
	Projects []RedactedProject `json:"projects"`
	// Redactions counts the secrets found in stored text, by kind: 0 for
	// a second pass with the same rules.
	Redactions map[string]int `json:"redactions"`
	DurationMs int64          `json:"durationMs"`
}

// RedactedProject counts the rows of one project a pass rewrote.
type RedactedProject struct {
	Project     string `json:"project"`
	Events      int    `json:"events"`
	Sessions    int    `json:"sessions"`
	Chunks      int    `json:"chunks"`
	Checkpoints int    `json:"checkpoints"`
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
