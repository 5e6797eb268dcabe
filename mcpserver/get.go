package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
)

// GetInput is the get tool's arguments: one citation, named one way.
type GetInput struct {
	Project     string   `json:"project,omitempty"`
	ChunkID     string   `json:"chunkId,omitempty" jsonschema:"A hit's chunkId from search."`
	File        string   `json:"file,omitempty" jsonschema:"A document's path in the repository, e.g. docs/adr/0001-storage.md (with headingPath)."`
	HeadingPath []string `json:"headingPath,omitempty" jsonschema:"With file: the section's headings under the document title, outermost first, e.g. [\"Decision\"]; empty for the text under the title."`
	EventID     string   `json:"eventId,omitempty" jsonschema:"A session message's event id (a session hit's eventId)."`
	SessionID   string   `json:"sessionId,omitempty" jsonschema:"Optional, with eventId: the message's session, checked."`
	Around      *int     `json:"around,omitempty" jsonschema:"Messages to bring either side of a session message, 0..10."`
}

// GetOutput is a resolved citation.
type GetOutput struct {
	Project  string `json:"project"`
	Scope    string `json:"scope"`
	Citation string `json:"citation"`
	// ChunkID is the chunk asked for, when asked by chunk.
	ChunkID     string   `json:"chunkId,omitempty"`
	File        string   `json:"file,omitempty"`
	HeadingPath []string `json:"headingPath,omitempty"`
	Title       string   `json:"title,omitempty"`
	Commit      string   `json:"commit,omitempty"`
	SessionID   string   `json:"sessionId,omitempty"`
	EventID     string   `json:"eventId,omitempty"`
	Text        string   `json:"text" jsonschema:"The whole section, or the whole message."`
	Chunks      []string `json:"chunks" jsonschema:"The chunk ids the text is made of."`
	// Parent, Previous, Next and Subsections are heading paths of sections
	// of the same document (an empty path: the text under the title).
	Parent      *Section  `json:"parent,omitempty" jsonschema:"The enclosing section; open it with get {file, headingPath}."`
	Previous    *Section  `json:"previous,omitempty"`
	Next        *Section  `json:"next,omitempty"`
	Subsections []Section `json:"subsections,omitempty"`
	// Before and After are the messages around a session message.
	Before []Message `json:"before,omitempty"`
	After  []Message `json:"after,omitempty"`
	// Message is the cited message itself, for a session citation.
	Message *Message `json:"message,omitempty"`
}

// Section names a section of a document by its heading path.
type Section struct {
	HeadingPath []string `json:"headingPath"`
}

// Message is one session message.
type Message struct {
	EventID string    `json:"eventId"`
	Type    string    `json:"type"`
	Actor   string    `json:"actor"`
	Time    time.Time `json:"time"`
	Text    string    `json:"text"`
}

// errOneCitation is the mistake of naming no citation, or several.
var errOneCitation = fmt.Errorf("%w: name one citation: chunkId; or file (+ headingPath); or eventId (+ sessionId)", ragd.ErrInvalid)

func (s *Server) get(ctx context.Context, _ *mcp.CallToolRequest, in GetInput) (*mcp.CallToolResult, GetOutput, error) {
	named := 0
	for _, v := range []string{in.ChunkID, in.File, in.EventID} {
		if v != "" {
			named++
		}
	}
	switch {
	case named != 1:
		return nil, GetOutput{}, s.toolError(in.Project, errOneCitation)
	case len(in.HeadingPath) > 0 && in.File == "":
		return nil, GetOutput{}, s.toolError(in.Project, fmt.Errorf("%w: headingPath needs file, the document it is in", ragd.ErrInvalid))
	case in.SessionID != "" && in.EventID == "":
		return nil, GetOutput{}, s.toolError(in.Project, fmt.Errorf("%w: sessionId needs eventId, the message in that session", ragd.ErrInvalid))
	}
	return run(ctx, s, in.Project, func(project string) (string, GetOutput, error) {
		p, err := s.opts.Client.Passage(ctx, project, api.PassageQuery{ChunkID: in.ChunkID, Path: in.File,
			HeadingPath: in.HeadingPath, EventID: in.EventID, SessionID: in.SessionID, Around: in.Around})
		if err != nil {
			return "", GetOutput{}, err
		}
		out := getOutput(p)
		return getText(out), out, nil
	})
}

func getOutput(p *api.Passage) GetOutput {
	out := GetOutput{Project: p.Project, Scope: p.Scope, Citation: citation(p.Origin), ChunkID: p.ChunkID,
		Title: p.Origin.Title, Text: p.Text, Chunks: p.Chunks}
	if out.Chunks == nil {
		out.Chunks = []string{}
	}
	if p.Origin.Kind == ragd.OriginSession {
		out.SessionID, out.EventID = p.Origin.SessionID, p.Origin.EventID
	} else {
		out.File, out.HeadingPath, out.Commit = p.Origin.SourcePath, p.Origin.HeadingPath, p.Origin.Commit
	}
	section := func(r *api.SectionRef) *Section {
		if r == nil {
			return nil
		}
		return &Section{HeadingPath: nonNil(r.HeadingPath)}
	}
	out.Parent, out.Previous, out.Next = section(p.Parent), section(p.Previous), section(p.Next)
	for _, r := range p.Subsections {
		out.Subsections = append(out.Subsections, *section(&r))
	}
	message := func(e ragd.Event) Message {
		return Message{EventID: e.ID, Type: e.Type, Actor: e.Actor, Time: e.Time, Text: e.Text}
	}
	if p.Message != nil {
		m := message(*p.Message)
		out.Message = &m
	}
	for _, e := range p.Before {
		out.Before = append(out.Before, message(e))
	}
	for _, e := range p.After {
		out.After = append(out.After, message(e))
	}
	return out
}

func nonNil(h []string) []string {
	if h == nil {
		return []string{}
	}
	return h
}

// getText is the compact form of a passage: the citation, where to read
// on, and the text.
func getText(out GetOutput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s [%s]", out.Citation, out.Scope)
	if out.Title != "" {
		fmt.Fprintf(&b, " — %s", out.Title)
	}
	b.WriteString("\n")
	if out.Message != nil {
		for _, m := range out.Before {
			writeMessage(&b, m, "  ")
		}
		writeMessage(&b, *out.Message, "> ")
		for _, m := range out.After {
			writeMessage(&b, m, "  ")
		}
		return b.String()
	}
	nav := func(label string, s *Section) {
		if s != nil {
			fmt.Fprintf(&b, "%s: %s\n", label, heading(s.HeadingPath))
		}
	}
	nav("parent", out.Parent)
	nav("previous", out.Previous)
	nav("next", out.Next)
	if len(out.Subsections) > 0 {
		subs := make([]string, len(out.Subsections))
		for i, s := range out.Subsections {
			subs[i] = heading(s.HeadingPath)
		}
		fmt.Fprintf(&b, "subsections: %s\n", strings.Join(subs, "; "))
	}
	b.WriteString("\n" + out.Text)
	return b.String()
}

func writeMessage(b *strings.Builder, m Message, mark string) {
	fmt.Fprintf(b, "%s[%s %s %s %s] %s\n", mark, m.EventID, m.Type, m.Actor, m.Time.Format(time.RFC3339),
		strings.ReplaceAll(m.Text, "\n", "\n"+mark))
}

// heading shows a heading path as a model would quote it back.
func heading(h []string) string {
	if len(h) == 0 {
		return "[] (the text under the title)"
	}
	return fmt.Sprintf("%q", h)
}
