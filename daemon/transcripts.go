package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/redact"
	"github.com/ragd/ragd/transcript"
)

// fileKind names the type of a file that is not regular, for an error.
func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}

func (d *Daemon) handleTranscriptImport(w http.ResponseWriter, r *http.Request) error {
	var req api.TranscriptImportRequest
	if err := d.decodeJSON(w, r, &req); err != nil {
		return err
	}
	f, err := transcript.ParseFormat(req.Format)
	if err != nil {
		return badRequest("format: %v", err)
	}
	opt := index.TranscriptImport{Format: f, KeepRaw: req.KeepRaw}
	for _, p := range req.Paths {
		if !filepath.IsAbs(p) {
			return badRequest("path %q: must be absolute (the daemon does not know your working directory)", p)
		}
		// Stat follows a symlink the user gave: theirs to give. A FIFO
		// would block the import, a device never end.
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && !fi.Mode().IsRegular() {
			return badRequest("path %q: not a regular file or a folder (%s): give transcript files or the folders that hold them", p, fileKind(fi.Mode()))
		}
		opt.Paths = append(opt.Paths, filepath.Clean(p))
	}
	if req.Project != "" {
		p, err := d.store.Project(r.Context(), req.Project)
		if errors.Is(err, ragd.ErrNotFound) {
			return notFound("unknown project %q: register it with `ragd add PATH` (GET /v1/projects lists them)", req.Project)
		}
		if err != nil {
			return err
		}
		opt.Into = &p
	}
	// An import reads for minutes: the write timeout bounds writing the
	// answer (or each line of the stream), not the work before it.
	rc := http.NewResponseController(w)
	rc.SetWriteDeadline(time.Time{})
	defer d.writeSoon(rc) // an error answer is written after the return
	// The import stops when the client goes away or the daemon stops; what
	// was stored stays (it is idempotent), and the checkpoints say where.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(d.ctx, cancel)
	defer stop()

	if !wantsStream(r) {
		rep, err := d.importer.Import(ctx, opt, nil)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, api.FromTranscriptReport(rep))
		return nil
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	send := func(ev api.TranscriptImportEvent) {
		if enc.Encode(ev) == nil {
			rc.Flush()
		}
	}
	rep, err := d.importer.Import(ctx, opt, func(pr ragd.TranscriptProgress) {
		wire := api.FromTranscriptProgress(pr)
		send(api.TranscriptImportEvent{Progress: &wire})
	})
	if err != nil {
		he := d.asHTTPError(err)
		send(api.TranscriptImportEvent{Report: api.FromTranscriptReport(rep), Error: &api.ErrorDetail{Code: he.code, Message: redact.String(he.msg, nil)}})
		return nil
	}
	send(api.TranscriptImportEvent{Report: api.FromTranscriptReport(rep)})
	return nil
}

func (d *Daemon) handleForgetSession(w http.ResponseWriter, r *http.Request) error {
	p, err := d.project(r)
	if err != nil {
		return err
	}
	id := r.PathValue("session")
	res, err := d.store.ForgetSession(r.Context(), p.ID, id)
	if errors.Is(err, ragd.ErrNotFound) {
		return notFound("project %s has no session %q", p.Name, id)
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.Forgotten{Project: p.Name, Session: id, Events: res.Events, Chunks: res.Chunks})
	return nil
}

func (d *Daemon) handleFollowStatus(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, d.followStatus())
	return nil
}

// handleRedactSessions re-applies the redaction rules to the session text
// already stored, for one project or all.
func (d *Daemon) handleRedactSessions(w http.ResponseWriter, r *http.Request) error {
	var req api.RedactRequest
	if err := d.decodeJSON(w, r, &req); err != nil {
		return err
	}
	start := time.Now()
	var projects []ragd.Project
	if req.Project != "" {
		p, err := d.store.Project(r.Context(), req.Project)
		if errors.Is(err, ragd.ErrNotFound) {
			return notFound("unknown project %q: register it with `ragd add PATH` (GET /v1/projects lists them)", req.Project)
		}
		if err != nil {
			return err
		}
		projects = []ragd.Project{p}
	} else {
		var err error
		if projects, err = d.store.Projects(r.Context()); err != nil {
			return err
		}
	}
	rep := api.RedactReport{Projects: []api.RedactedProject{}, Redactions: map[string]int{}}
	// An import writes checkpoints as it goes: not while they are rewritten.
	d.transcripts.Lock()
	defer d.transcripts.Unlock()
	for _, p := range projects {
		res, err := d.indexer.RedactSessions(r.Context(), p, rep.Redactions)
		if err != nil {
			return err
		}
		rep.Projects = append(rep.Projects, api.FromRedactedProject(res))
	}
	rep.DurationMs = time.Since(start).Milliseconds()
	writeJSON(w, http.StatusOK, rep)
	return nil
}
