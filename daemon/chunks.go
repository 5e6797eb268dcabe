package daemon

import (
	"net/http"
	"strconv"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/search"
)

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
	out, err := search.Passage(r.Context(), d.store, p, search.Citation{
		Chunk: chunk, Path: path, Heading: headings, Event: event, Session: session, Around: around})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.FromPassage(out))
	return nil
}
