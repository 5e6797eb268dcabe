package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/source"
)

// staleScopes lists the scopes of p whose sources moved since they were
// last indexed (or that never were).
func (d *Daemon) staleScopes(ctx context.Context, p ragd.Project) ([]string, error) {
	cov, err := d.indexer.Coverage(ctx, p)
	if err != nil {
		return nil, err
	}
	var stale []string
	for _, sc := range cov.Scopes {
		if sc.Stale {
			stale = append(stale, sc.Scope)
		}
	}
	return stale, nil
}

func (d *Daemon) handleReindex(w http.ResponseWriter, r *http.Request) error {
	p, err := d.project(r)
	if err != nil {
		return err
	}
	var req api.ReindexRequest
	if r.ContentLength != 0 {
		if err := d.decodeJSON(w, r, &req); err != nil {
			return err
		}
	}
	names := req.Scopes
	if req.Scope != "" {
		names = append(names, req.Scope)
	}
	scopes, err := index.ParseScopes(names)
	if err != nil {
		return badRequest("%v", err)
	}
	// The reindex stops when the client goes away or the daemon stops,
	// whichever comes first; its transaction then rolls back.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(d.ctx, cancel)
	defer stop()

	if !wantsStream(r) {
		rep, err := d.indexer.Reindex(ctx, p, scopes, nil)
		if err != nil {
			return err
		}
		d.watcher.refresh(p.ID)
		writeJSON(w, http.StatusOK, rep)
		return nil
	}

	// A newline-delimited JSON stream: progress events as they come, then
	// the report. Errors after the header are the stream's last line.
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	enc := json.NewEncoder(w)
	send := func(ev api.ReindexEvent) {
		if enc.Encode(ev) == nil {
			rc.Flush()
		}
	}
	rep, err := d.indexer.Reindex(ctx, p, scopes, func(pr api.Progress) {
		send(api.ReindexEvent{Progress: &pr})
	})
	if err != nil {
		he := d.asHTTPError(err)
		send(api.ReindexEvent{Report: rep, Error: &api.ErrorDetail{Code: he.code, Message: he.msg}})
		return nil
	}
	d.watcher.refresh(p.ID)
	send(api.ReindexEvent{Report: rep})
	return nil
}

// asHTTPError is classify for errors reported inside a stream.
func (d *Daemon) asHTTPError(err error) *httpError {
	var he *httpError
	if errors.As(err, &he) {
		return he
	}
	return d.classify(err)
}

func wantsStream(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		if mt, _, err := mime.ParseMediaType(strings.TrimSpace(part)); err == nil &&
			(mt == "application/x-ndjson" || mt == "application/jsonl") {
			return true
		}
	}
	return r.URL.Query().Get("stream") == "1"
}

func (d *Daemon) handleCoverage(w http.ResponseWriter, r *http.Request) error {
	p, err := d.project(r)
	if err != nil {
		return err
	}
	cov, err := d.indexer.Coverage(r.Context(), p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, cov)
	return nil
}

func (d *Daemon) handleAppendEvents(w http.ResponseWriter, r *http.Request) error {
	p, err := d.project(r)
	if err != nil {
		return err
	}
	var raw json.RawMessage
	if err := d.decodeJSON(w, r, &raw); err != nil {
		return err
	}
	var events []ragd.Event
	var many struct {
		Events []json.RawMessage `json:"events"`
	}
	if json.Unmarshal(raw, &many) == nil && many.Events != nil {
		for i, e := range many.Events {
			ev, err := source.ParseEvent(e)
			if err != nil {
				return badRequest("events[%d]: %v", i, err)
			}
			events = append(events, ev)
		}
	} else {
		ev, err := source.ParseEvent(raw)
		if err != nil {
			return badRequest("event: %v", err)
		}
		events = []ragd.Event{ev}
	}
	if len(events) == 0 {
		return badRequest("no events: send one event object, or {\"events\": [...]}")
	}
	res, err := d.indexer.AppendEvents(r.Context(), p, events)
	if err != nil {
		if errors.Is(err, index.ErrInvalidEvent) {
			return badRequest("%v", err)
		}
		return err
	}
	if res.Messages > 0 {
		d.watcher.schedule(p.ID)
	}
	status := http.StatusOK
	if len(res.Conflicts) > 0 && res.Appended == 0 && res.Duplicates == 0 {
		status = http.StatusConflict
	}
	writeJSON(w, status, res)
	return nil
}

// handleImportEvents reads a JSON-lines event file as the request body.
func (d *Daemon) handleImportEvents(w http.ResponseWriter, r *http.Request) error {
	p, err := d.project(r)
	if err != nil {
		return err
	}
	body := http.MaxBytesReader(w, r.Body, max(d.cfg.Daemon.MaxBodyBytes, 256<<20))
	rep, err := d.indexer.ImportEvents(r.Context(), p, body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return &httpError{http.StatusRequestEntityTooLarge, api.CodeTooLarge,
				fmt.Sprintf("event file larger than %d bytes: split it (%d events were stored)", mbe.Limit, rep.Appended)}
		}
		return err
	}
	if rep.Messages > 0 {
		d.watcher.schedule(p.ID)
	}
	writeJSON(w, http.StatusOK, rep)
	return nil
}

func (d *Daemon) handleGetEvent(w http.ResponseWriter, r *http.Request) error {
	p, err := d.project(r)
	if err != nil {
		return err
	}
	id := r.PathValue("event")
	ev, err := d.indexer.Event(r.Context(), p, id)
	if errors.Is(err, ragd.ErrNotFound) {
		return notFound("project %s has no event %q", p.Name, id)
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ev)
	return nil
}
