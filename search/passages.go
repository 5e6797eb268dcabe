package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ragd/ragd"
)

// maxListedSections bounds the sections a "no such section" answer lists.
const maxListedSections = 40

// PassageStore is what resolving a citation needs of the database: chunks
// by id, by file and by event, and session events by id and around one.
// *store.Store is one.
type PassageStore interface {
	Chunks(ctx context.Context, ids []string) ([]ragd.Chunk, error)
	// FileChunks returns the chunks of file path of a project (docs or
	// adr), in document order.
	FileChunks(ctx context.Context, projectID int64, path string) ([]ragd.Chunk, error)
	// EventChunks returns the chunks of one session event, in order.
	EventChunks(ctx context.Context, projectID int64, eventID string) ([]ragd.Chunk, error)
	// Event returns one stored event; an error wrapping ragd.ErrNotFound
	// when there is none.
	Event(ctx context.Context, projectID int64, id string) (ragd.Event, error)
	// EventsAround returns up to n events of the given types before and
	// after event id in its session, in time order.
	EventsAround(ctx context.Context, projectID int64, id string, types []string, n int) (before, after []ragd.Event, err error)
}

// Citation names one passage to resolve: exactly one of Chunk, Path (with
// Heading, outermost first) or Event (with Session, optional). Around is
// how many messages either side a session message comes with.
type Citation struct {
	Chunk   string
	Path    string
	Heading []string
	Event   string
	Session string
	Around  int
}

// notFoundError is a citation that names nothing stored: its message says
// what, and it wraps ragd.ErrNotFound.
type notFoundError string

func (e notFoundError) Error() string        { return string(e) }
func (e notFoundError) Is(target error) bool { return target == ragd.ErrNotFound }

func notFoundf(format string, args ...any) error {
	return notFoundError(fmt.Sprintf(format, args...))
}

// Passage resolves citation c in project p into the whole section or
// message it names, with the sections or messages around it. A citation
// that names nothing stored gives an error wrapping ragd.ErrNotFound whose
// message says what there is instead.
func Passage(ctx context.Context, st PassageStore, p ragd.Project, c Citation) (*ragd.Passage, error) {
	switch {
	case c.Chunk != "":
		cs, err := st.Chunks(ctx, []string{c.Chunk})
		if err != nil {
			return nil, err
		}
		if len(cs) == 0 || cs[0].ProjectID != p.ID {
			return nil, notFoundf("project %s has no chunk %q: a reindex that changed its text gave it a new id; search again", p.Name, c.Chunk)
		}
		ch := cs[0]
		var out *ragd.Passage
		if ch.Scope == ragd.ScopeSession {
			out, err = messagePassage(ctx, st, p, ch.EventID, "", c.Around)
		} else {
			out, err = sectionPassage(ctx, st, p, ch.SourcePath, ch.HeadingPath)
		}
		if err != nil {
			return nil, err
		}
		out.ChunkID = ch.ID
		return out, nil
	case c.Path != "":
		return sectionPassage(ctx, st, p, c.Path, c.Heading)
	default:
		return messagePassage(ctx, st, p, c.Event, c.Session, c.Around)
	}
}

// sectionPassage is the section of file path with the given heading path.
// A heading path is matched exactly, then with the document's title as its
// first heading left out, then ignoring case: a model quoting a citation
// rarely gets all three right.
func sectionPassage(ctx context.Context, st PassageStore, p ragd.Project, path string, heading []string) (*ragd.Passage, error) {
	cs, err := st.FileChunks(ctx, p.ID, path)
	if err != nil {
		return nil, err
	}
	if len(cs) == 0 {
		return nil, notFoundf("project %s has no indexed file %q: paths are relative to the repository, under docs/ (coverage lists what is indexed)", p.Name, path)
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
		return nil, notFoundf("%s has no section %s; its sections: %s", path, quoteHeading(heading), strings.Join(names, ", "))
	}
	target := sections[at]
	out := &ragd.Passage{
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
		out.Parent = &ragd.SectionRef{HeadingPath: slices.Clone(target[:len(target)-1])}
	}
	if at > 0 {
		out.Previous = &ragd.SectionRef{HeadingPath: sections[at-1]}
	}
	if at+1 < len(sections) {
		out.Next = &ragd.SectionRef{HeadingPath: sections[at+1]}
	}
	for _, h := range sections {
		if len(h) == len(target)+1 && slices.Equal(h[:len(target)], target) {
			out.Subsections = append(out.Subsections, ragd.SectionRef{HeadingPath: h})
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
func messagePassage(ctx context.Context, st PassageStore, p ragd.Project, id, session string, around int) (*ragd.Passage, error) {
	ev, err := st.Event(ctx, p.ID, id)
	if errors.Is(err, ragd.ErrNotFound) {
		return nil, notFoundf("project %s has no event %q", p.Name, id)
	}
	if err != nil {
		return nil, err
	}
	if session != "" && ev.SessionID != session {
		return nil, notFoundf("event %q is in session %q, not %q", id, ev.SessionID, session)
	}
	before, after, err := st.EventsAround(ctx, p.ID, id, ragd.IndexedTypes, around)
	if err != nil {
		return nil, err
	}
	cs, err := st.EventChunks(ctx, p.ID, id)
	if err != nil {
		return nil, err
	}
	out := &ragd.Passage{
		Project: p.Name, Scope: ragd.ScopeSession,
		Origin: ragd.Origin{Kind: ragd.OriginSession, SessionID: ev.SessionID, EventID: ev.ID, Title: ev.Title},
		Text:   ev.Text, Chunks: []string{}, Message: &ev, Before: before, After: after,
	}
	for _, c := range cs {
		out.Chunks = append(out.Chunks, c.ID)
	}
	return out, nil
}
