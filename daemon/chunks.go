package daemon

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
)

// maxListedSections bounds the sections a "no such section" answer lists.
const maxListedSections = 40

// handlePassage answers GET /v1/projects/{project}/passage: it resolves a
// citation (chunk=ID; or path=FILE with heading=H repeated, outermost
// first; or event=ID with an optional session=S) into the whole section or
// message, with the sections or messages around it (around=N, 0..10).
func (d *Daemon) handlePassage(w http.ResponseWriter, r *http.Request) error {
	p, err := d.project(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	chunk, path, event, session := q.Get("chunk"), q.Get("path"), q.Get("event"), q.Get("session")
	headings := q["heading"]
	around := api.DefaultAround
	if s := q.Get("around"); s != "" {
		if around, err = strconv.Atoi(s); err != nil || around < 0 || around > api.MaxAround {
			return badRequest("around %q: want a number 0..%d", s, api.MaxAround)
		}
	}
	named := 0
	for _, s := range []string{chunk, path, event} {
		if s != "" {
			named++
		}
	}
	switch {
	case named != 1:
		return badRequest("name one citation: chunk=ID, or path=FILE with heading=HEADING repeated (outermost first), or event=ID")
	case len(headings) > 0 && path == "":
		return badRequest("heading needs path: the file the section is in")
	case session != "" && event == "":
		return badRequest("session needs event: the message in the session")
	}
	ctx := r.Context()
	var out *api.Passage
	switch {
	case chunk != "":
		cs, err := d.store.Chunks(ctx, []string{chunk})
		if err != nil {
			return err
		}
		if len(cs) == 0 || cs[0].ProjectID != p.ID {
			return notFound("project %s has no chunk %q: a reindex that changed its text gave it a new id; search again", p.Name, chunk)
		}
		c := cs[0]
		if c.Scope == ragd.ScopeSession {
			out, err = d.messagePassage(ctx, p, c.EventID, "", around)
		} else {
			out, err = d.sectionPassage(ctx, p, c.SourcePath, c.HeadingPath)
		}
		if err != nil {
			return err
		}
		out.ChunkID = c.ID
	case path != "":
		if out, err = d.sectionPassage(ctx, p, path, headings); err != nil {
			return err
		}
	default:
		if out, err = d.messagePassage(ctx, p, event, session, around); err != nil {
			return err
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// sectionPassage is the section of file path with the given heading path.
// A heading path is matched exactly, then with the document's title as its
// first heading left out, then ignoring case: a model quoting a citation
// rarely gets all three right.
func (d *Daemon) sectionPassage(ctx context.Context, p ragd.Project, path string, heading []string) (*api.Passage, error) {
	cs, err := d.store.FileChunks(ctx, p.ID, path)
	if err != nil {
		return nil, err
	}
	if len(cs) == 0 {
		return nil, notFound("project %s has no indexed file %q: paths are relative to the repository, under docs/ (coverage lists what is indexed)", p.Name, path)
	}
	var sections [][]string // distinct heading paths, in document order
	for _, c := range cs {
		if !slices.ContainsFunc(sections, func(h []string) bool { return slices.Equal(h, c.HeadingPath) }) {
			sections = append(sections, c.HeadingPath)
		}
	}
	title := cs[0].Title
	at := findSection(sections, heading, title)
	if at < 0 {
		names := make([]string, 0, min(len(sections), maxListedSections))
		for _, h := range sections[:min(len(sections), maxListedSections)] {
			names = append(names, quoteHeading(h))
		}
		return nil, notFound("%s has no section %s; its sections: %s", path, quoteHeading(heading), strings.Join(names, ", "))
	}
	target := sections[at]
	out := &api.Passage{
		Project: p.Name, Scope: cs[0].Scope,
		Origin: ragd.Origin{Kind: ragd.OriginFile, SourcePath: path, HeadingPath: target, Title: title, Commit: cs[0].SourceCommit},
		Chunks: []string{},
	}
	var mine []ragd.Chunk
	for _, c := range cs {
		if slices.Equal(c.HeadingPath, target) {
			mine = append(mine, c)
			out.Chunks = append(out.Chunks, c.ID)
		}
	}
	out.Text = joinChunks(mine)
	if len(target) > 0 {
		out.Parent = &api.SectionRef{HeadingPath: slices.Clone(target[:len(target)-1])}
	}
	if at > 0 {
		out.Previous = &api.SectionRef{HeadingPath: sections[at-1]}
	}
	if at+1 < len(sections) {
		out.Next = &api.SectionRef{HeadingPath: sections[at+1]}
	}
	for _, h := range sections {
		if len(h) == len(target)+1 && slices.Equal(h[:len(target)], target) {
			out.Subsections = append(out.Subsections, api.SectionRef{HeadingPath: h})
		}
	}
	return out, nil
}

// findSection returns the index of heading in sections, or -1.
func findSection(sections [][]string, heading []string, title string) int {
	candidates := [][]string{heading}
	if len(heading) > 0 && strings.EqualFold(strings.TrimSpace(heading[0]), strings.TrimSpace(title)) {
		candidates = append(candidates, heading[1:])
	}
	for _, equal := range []func(a, b string) bool{
		func(a, b string) bool { return a == b },
		func(a, b string) bool { return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b)) },
	} {
		for _, want := range candidates {
			if i := slices.IndexFunc(sections, func(h []string) bool { return slices.EqualFunc(h, want, equal) }); i >= 0 {
				return i
			}
		}
	}
	return -1
}

func quoteHeading(h []string) string {
	if len(h) == 0 {
		return "[] (the text under the title)"
	}
	return fmt.Sprintf("%q", h)
}

// joinChunks joins a section's chunks into its text. Consecutive chunks
// overlap in the source; the overlap is written once. A chunk whose text is
// not its source span (invalid bytes were replaced) cannot be cut by
// offsets, and is written whole after a blank line.
func joinChunks(cs []ragd.Chunk) string {
	var b strings.Builder
	end := -1
	for _, c := range cs {
		content := c.Content
		switch {
		case end < 0:
		case c.Start < end && len(content) == c.End-c.Start:
			cut := end - c.Start
			if cut >= len(content) {
				continue
			}
			content = content[cut:]
		default:
			b.WriteString("\n\n")
		}
		b.WriteString(content)
		end = max(end, c.End)
	}
	return b.String()
}

// messagePassage is session message id, with around messages either side.
func (d *Daemon) messagePassage(ctx context.Context, p ragd.Project, id, session string, around int) (*api.Passage, error) {
	ev, err := d.store.Event(ctx, p.ID, id)
	if errors.Is(err, ragd.ErrNotFound) {
		return nil, notFound("project %s has no event %q", p.Name, id)
	}
	if err != nil {
		return nil, err
	}
	if session != "" && ev.SessionID != session {
		return nil, notFound("event %q is in session %q, not %q", id, ev.SessionID, session)
	}
	before, after, err := d.store.EventsAround(ctx, p.ID, id, ragd.IndexedTypes, around)
	if err != nil {
		return nil, err
	}
	cs, err := d.store.EventChunks(ctx, p.ID, id)
	if err != nil {
		return nil, err
	}
	out := &api.Passage{
		Project: p.Name, Scope: ragd.ScopeSession,
		Origin: ragd.Origin{Kind: ragd.OriginSession, SessionID: ev.SessionID, EventID: ev.ID, Title: ev.Title},
		Text:   ev.Text, Chunks: []string{}, Message: &ev, Before: before, After: after,
	}
	for _, c := range cs {
		out.Chunks = append(out.Chunks, c.ID)
	}
	return out, nil
}
