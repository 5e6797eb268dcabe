package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"time"

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
	// A reindex computes for minutes: the write timeout bounds writing the
	// answer (or each line of the stream), not the work before it.
	rc := http.NewResponseController(w)
	rc.SetWriteDeadline(time.Time{})
	defer d.writeSoon(rc) // an error answer is written after the return
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
		d.writeSoon(rc)
		writeJSON(w, http.StatusOK, api.FromIndexReport(rep))
		return nil
	}

	// A newline-delimited JSON stream: progress events as they come, then
	// the report. Errors after the header are the stream's last line.
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	send := func(ev api.ReindexEvent) {
		d.writeSoon(rc)
		if enc.Encode(ev) == nil {
			rc.Flush()
		}
	}
	rep, err := d.indexer.Reindex(ctx, p, scopes, func(pr ragd.Progress) {
		wire := api.FromProgress(pr)
		send(api.ReindexEvent{Progress: &wire})
	})
	if err != nil {
		he := d.asHTTPError(err)
		send(api.ReindexEvent{Report: api.FromIndexReport(rep), Error: &api.ErrorDetail{Code: he.code, Message: he.msg}})
		return nil
	}
	d.watcher.refresh(p.ID)
	send(api.ReindexEvent{Report: api.FromIndexReport(rep)})
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
	c, err := d.indexer.Coverage(r.Context(), p)
	if err != nil {
		return err
	}
	cov := api.FromCoverage(c)
	bp, err := d.backfill.Progress(r.Context())
	if err != nil {
		return err
	}
	backfill := api.FromBackfillProgress(bp)
	cov.Backfill = &backfill
	space, err := d.spaceProfile(r.Context(), d.searcher.Config)
	if err != nil {
		return err
	}
	cov.Space = api.FromSpaceProfile(space)
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
	events, err := appendedEvents(raw)
	if err != nil {
		return err
	}
	res, err := d.indexer.AppendEvents(r.Context(), p, events)
	if err != nil {
		if errors.Is(err, index.ErrInvalidEvent) {
			return badRequest("%v", err)
		}
		return err
	}
	if res.Unindexed > 0 {
		// Messages with chunks leave the session scope as fresh as it
		// was; only these make it stale.
		d.watcher.schedule(p.ID)
	}
	if len(res.Conflicts) > 0 && res.Appended == 0 && res.Duplicates == 0 {
		// Nothing taken: an error, whose details keep the counts.
		msgs := make([]string, len(res.Conflicts))
		for i, c := range res.Conflicts {
			msgs[i] = c.Error
		}
		return &httpError{status: http.StatusConflict, code: api.CodeEventConflict,
			msg: "no event appended: " + strings.Join(msgs, "; "), details: api.FromAppendReport(res)}
	}
	writeJSON(w, http.StatusOK, api.FromAppendReport(res))
	return nil
}

// appendedEvents reads the body of POST /v1/projects/{project}/events: one
// event object, or {"events": [...]} and nothing else.
func appendedEvents(raw json.RawMessage) ([]ragd.Event, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, describeDecodeError(err)
	}
	if obj == nil {
		return nil, badRequest("request body: want a JSON object, got null")
	}
	list, many := obj["events"]
	if !many {
		ev, err := source.ParseEvent(raw)
		if err != nil {
			return nil, badRequest("event: %v", err)
		}
		return []ragd.Event{ev}, nil
	}
	for k := range obj {
		if k != "events" {
			return nil, badRequest("request body: field %q beside \"events\": send one event object, or {\"events\": [...]} alone", k)
		}
	}
	var items []json.RawMessage
	if json.Unmarshal(list, &items) != nil || items == nil {
		return nil, badRequest("events: want an array of events, got %s", jsonKind(list))
	}
	if len(items) == 0 {
		return nil, badRequest("no events: send one event object, or {\"events\": [...]}")
	}
	events := make([]ragd.Event, 0, len(items))
	for i, e := range items {
		ev, err := source.ParseEvent(e)
		if err != nil {
			return nil, badRequest("events[%d]: %v", i, err)
		}
		events = append(events, ev)
	}
	return events, nil
}

// jsonKind names the kind of a JSON value by its first byte.
func jsonKind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 'n':
		return "null"
	case 't', 'f':
		return "boolean"
	}
	return "number"
}

// handleImportEvents reads a JSON-lines event file as the request body.
func (d *Daemon) handleImportEvents(w http.ResponseWriter, r *http.Request) error {
	p, err := d.project(r)
	if err != nil {
		return err
	}
	// An import reads and stores as the body comes: each read gets the read
	// timeout, the whole may take minutes, and so may the work after it.
	rc := http.NewResponseController(w)
	rc.SetWriteDeadline(time.Time{})
	defer d.writeSoon(rc)
	body := http.MaxBytesReader(w, &idleReader{r: r.Body, rc: rc, timeout: d.limits.Read}, max(d.cfg.Daemon.MaxBodyBytes, 256<<20))
	rep, err := d.indexer.ImportEvents(r.Context(), p, body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return &httpError{http.StatusRequestEntityTooLarge, api.CodeTooLarge,
				fmt.Sprintf("event file larger than %d bytes: split it (%d events were stored)", mbe.Limit, rep.Appended), nil}
		}
		return err
	}
	if rep.Unindexed > 0 {
		d.watcher.schedule(p.ID)
	}
	d.writeSoon(rc)
	writeJSON(w, http.StatusOK, api.FromImportReport(rep))
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
