package ragd

import (
	"encoding/json"
	"strings"
)

// Origin kinds.
const (
	OriginFile    = "file"
	OriginSession = "session"
)

// Origin says where a hit comes from: a union on Kind. A "file" origin (docs
// and adr) has SourcePath, HeadingPath, Title and the Commit the text was
// read from; a "session" origin has SessionID, EventID (the source message)
// and Title. Its JSON holds exactly the fields of its kind.
type Origin struct {
	Kind        string   `json:"kind"`
	SourcePath  string   `json:"sourcePath,omitempty"`
	HeadingPath []string `json:"headingPath,omitempty"`
	Commit      string   `json:"commit,omitempty"`
	SessionID   string   `json:"sessionId,omitempty"`
	EventID     string   `json:"eventId,omitempty"`
	Title       string   `json:"title"`
}

// MarshalJSON writes the fields of o's kind, each always present.
func (o Origin) MarshalJSON() ([]byte, error) {
	if o.Kind == OriginSession {
		return json.Marshal(struct {
			Kind      string `json:"kind"`
			SessionID string `json:"sessionId"`
			EventID   string `json:"eventId"`
			Title     string `json:"title"`
		}{o.Kind, o.SessionID, o.EventID, o.Title})
	}
	heading := o.HeadingPath
	if heading == nil {
		heading = []string{}
	}
	return json.Marshal(struct {
		Kind        string   `json:"kind"`
		SourcePath  string   `json:"sourcePath"`
		HeadingPath []string `json:"headingPath"`
		Title       string   `json:"title"`
		Commit      string   `json:"commit,omitempty"`
	}{o.Kind, o.SourcePath, heading, o.Title, o.Commit})
}

// String is o as a citation, the one way ragd writes one: "docs/adr/0001.md
// § Decision › Why" for a section (the path alone for the text under the
// title), "session s1 › message e3" for a session message.
func (o Origin) String() string {
	if o.Kind == OriginSession {
		return "session " + o.SessionID + " › message " + o.EventID
	}
	if len(o.HeadingPath) == 0 {
		return o.SourcePath
	}
	return o.SourcePath + " § " + strings.Join(o.HeadingPath, " › ")
}
