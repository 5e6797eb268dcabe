package api

import (
	"net/url"
	"strconv"

	"github.com/ragd/ragd"
)

// MaxAround bounds PassageQuery.Around: a few messages either side are the
// context of a cited one, a whole session is a different question.
const MaxAround = 10

// DefaultAround is the messages either side a passage brings when not told.
const DefaultAround = 2

// PassageQuery names the citation GET /v1/projects/{project}/passage
// resolves, in one of three ways: a chunk id (any scope); a file and the
// heading path of one of its sections (docs, adr); or a session message's
// event id.
type PassageQuery struct {
	ChunkID string
	// Path is a file's path in the repository; HeadingPath the section's
	// headings under the document title, outermost first (none: the text
	// before the first subheading).
	Path        string
	HeadingPath []string
	// EventID is a session message; SessionID, when given, must be its
	// session.
	EventID   string
	SessionID string
	// Around is how many messages either side of a session message to
	// bring, 0..MaxAround; nil means DefaultAround.
	Around *int
}

// Encode returns q as a query string, with its "?".
func (q PassageQuery) Encode() string {
	v := url.Values{}
	for _, kv := range [][2]string{{"chunk", q.ChunkID}, {"path", q.Path}, {"event", q.EventID}, {"session", q.SessionID}} {
		if kv[1] != "" {
			v.Set(kv[0], kv[1])
		}
	}
	for _, h := range q.HeadingPath {
		v.Add("heading", h)
	}
	if q.Around != nil {
		v.Set("around", strconv.Itoa(*q.Around))
	}
	return "?" + v.Encode()
}

// Passage is a resolved citation: the whole section or message it points
// into, with what surrounds it.
type Passage struct {
	Project string `json:"project"`
	Scope   string `json:"scope"`
	// Origin cites the passage: the file, the section's heading path and
	// the commit; or the session and the message.
	Origin ragd.Origin `json:"origin"`
	// ChunkID is the chunk asked for, when the passage was asked by chunk.
	ChunkID string `json:"chunkId,omitempty"`
	// Text is the whole section (its chunks joined, their overlaps removed)
	// or the whole message.
	Text string `json:"text"`
	// Chunks are the ids of the chunks Text is made of, in order.
	Chunks []string `json:"chunks"`

	// Parent is the section enclosing this one (the text under the title
	// for a top-level section); absent for the text under the title, which
	// nothing encloses. Previous and Next are the sections before and after
	// this one in the document; Subsections those directly under it.
	// Heading paths only: ask for one to read it.
	Parent      *SectionRef  `json:"parent,omitempty"`
	Previous    *SectionRef  `json:"previous,omitempty"`
	Next        *SectionRef  `json:"next,omitempty"`
	Subsections []SectionRef `json:"subsections,omitempty"`

	// Message is the cited session event; Before and After the messages
	// around it in its session, in order.
	Message *ragd.Event  `json:"message,omitempty"`
	Before  []ragd.Event `json:"before,omitempty"`
	After   []ragd.Event `json:"after,omitempty"`
}

// SectionRef names a section of the same document by its heading path
// (empty: the text under the title).
type SectionRef struct {
	HeadingPath []string `json:"headingPath"`
}

// FromPassage returns p on the wire; nil for nil.
func FromPassage(p *ragd.Passage) *Passage {
	if p == nil {
		return nil
	}
	ref := func(r ragd.SectionRef) SectionRef { return SectionRef(r) }
	return &Passage{
		Project: p.Project, Scope: p.Scope, Origin: p.Origin, ChunkID: p.ChunkID, Text: p.Text, Chunks: p.Chunks,
		Parent: fromPtr(p.Parent, ref), Previous: fromPtr(p.Previous, ref), Next: fromPtr(p.Next, ref),
		Subsections: fromEach(p.Subsections, ref),
		Message:     p.Message, Before: p.Before, After: p.After,
	}
}
