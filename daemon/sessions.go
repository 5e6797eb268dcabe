package daemon

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/transcript"
)

// handleListSessions answers GET /v1/projects/{project}/sessions?since=&from=:
// the project's sessions, the most recent first. since is an RFC 3339 time
// or a duration back from now; from a transcript format.
func (d *Daemon) handleListSessions(w http.ResponseWriter, r *http.Request) error {
	p, err := d.project(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	var f ragd.SessionFilter
	if f.Since, err = ParseWhen(q.Get("since"), time.Now()); err != nil {
		return badRequest("since: %v", err)
	}
	if from := q.Get("from"); from != "" {
		if _, err := transcript.ParseFormat(from); err != nil {
			return badRequest("from %q: want one of %s", from, transcript.Names(", "))
		}
		f.IDPrefix = from + ":"
	}
	list, err := d.store.ListSessions(r.Context(), p.ID, f)
	if err != nil {
		return err
	}
	for i := range list {
		list[i].Format = sessionFormat(list[i].ID)
	}
	writeJSON(w, http.StatusOK, api.SessionList{Project: p.Name, Sessions: list})
	return nil
}

// handleGetSession answers GET /v1/projects/{project}/sessions/{session}:
// the whole conversation, mechanism events included.
func (d *Daemon) handleGetSession(w http.ResponseWriter, r *http.Request) error {
	p, err := d.project(r)
	if err != nil {
		return err
	}
	id := r.PathValue("session")
	events, err := d.store.SessionEvents(r.Context(), p.ID, id)
	if errors.Is(err, ragd.ErrNotFound) {
		return notFound("project %s has no session %q (GET %s lists them)", p.Name, id, api.ProjectPath(p.Name, "/sessions"))
	}
	if err != nil {
		return err
	}
	si := ragd.SessionInfo{ID: id, Format: sessionFormat(id), Events: len(events)}
	for i, e := range events {
		if i == 0 {
			si.Title, si.First = e.Title, e.Time
		}
		si.Last = e.Time
		if ragd.Indexed(e.Type) {
			si.Messages++
		}
	}
	writeJSON(w, http.StatusOK, api.Conversation{Project: p.Name, Session: si, Events: events})
	return nil
}

// sessionFormat is the transcript format a session id names as its prefix
// ("codex" of "codex:0197…"), "" when it names none.
func sessionFormat(id string) string {
	prefix, _, ok := strings.Cut(id, ":")
	if !ok {
		return ""
	}
	if _, err := transcript.ParseFormat(prefix); err != nil {
		return ""
	}
	return prefix
}
