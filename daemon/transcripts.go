package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/redact"
	"github.com/ragd/ragd/transcript"
)

// Bounds of a transcript import.
const (
	// transcriptBatch is how many events go to the store per transaction:
	// the event import's batch, large enough to amortise the commit, small
	// enough that memory stays bounded whatever the file's size.
	transcriptBatch = 500
	// maxListed bounds the unregistered sessions, conflicts and malformed
	// lines a report lists (all are counted): a report stays one readable
	// stream line.
	maxListed = 200
	// progressEvery is the least time between two progress lines of a
	// stream: 10,000 small files must not become 10,000 lines.
	progressEvery = 100 * time.Millisecond
)

// transcriptOptions are what one import asks for.
type transcriptOptions struct {
	format transcript.Format
	// paths are files and folders to look in; none means the format's
	// standard location (and for Aider the registered repositories).
	paths []string
	// into, when set, receives every session, whatever its folder.
	into    *ragd.Project
	keepRaw bool
	// memory, when set (the follower), keeps where files of sessions no
	// project contains were read up to, between passes: they have no
	// project to store a checkpoint under.
	memory map[string]ragd.TranscriptFile
}

// importTranscripts reads the transcripts of one format and appends their
// events to the projects they belong to, file by file, resuming each file
// where the last import stopped. progress, if not nil, is called as files
// are done. Projects that received messages get their stale scopes
// refreshed (and an auto-reindex, if they opted in).
func (d *Daemon) importTranscripts(ctx context.Context, opt transcriptOptions, progress func(api.TranscriptProgress)) (*api.TranscriptReport, error) {
	start := time.Now()
	rep := &api.TranscriptReport{
		Format: string(opt.format), Paths: opt.paths, Conflicts: []api.Conflict{},
		Skipped: map[string]int{}, LineErrors: []api.FileLineError{}, Redactions: map[string]int{},
		Projects: []api.ProjectImport{}, Unregistered: []api.UnregisteredSession{},
	}
	desc, err := transcript.Lookup(opt.format)
	if err != nil {
		return rep, err
	}
	projects, err := d.store.Projects(ctx)
	if err != nil {
		return rep, err
	}
	if len(rep.Paths) == 0 {
		if rep.Paths, err = transcript.DefaultPaths(opt.format, os.Getenv); err != nil {
			return rep, fmt.Errorf("%w: %v: give the paths to import", ragd.ErrInvalid, err)
		}
		if desc.PerRepository() {
			for _, p := range projects {
				rep.Paths = append(rep.Paths, p.Path)
			}
		}
	}
	if rep.Paths == nil {
		rep.Paths = []string{}
	}
	found, err := transcript.DiscoverAll(opt.format, rep.Paths)
	if err != nil {
		return rep, err
	}
	files := found.Files
	rep.Files = len(files)
	rep.UnreadableCount = len(found.Unreadable)
	rep.Unreadable = found.Unreadable[:min(len(found.Unreadable), maxListed)]
	if rep.Files == 0 {
		rep.LookedFor = desc.Looks
	}
	ir := &importRun{d: d, opt: opt, rep: rep, projects: projects,
		forgotten: map[int64]map[string]bool{}, perProject: map[int64]*projectCount{}, unregistered: map[string]bool{}}
	for _, p := range projects {
		ir.roots = append(ir.roots, p.Path)
	}
	defer func() {
		ir.finish()
		rep.DurationMs = time.Since(start).Milliseconds()
	}()

	var last time.Time
	for i, path := range files {
		if err := ctx.Err(); err != nil {
			return rep, fmt.Errorf("import %s transcripts: %w", opt.format, err)
		}
		if err := ir.file(ctx, path); err != nil {
			return rep, err
		}
		if progress != nil && (time.Since(last) >= progressEvery || i == len(files)-1) {
			last = time.Now()
			progress(api.TranscriptProgress{Done: i + 1, Total: len(files), File: path, Messages: rep.Messages})
		}
	}
	return rep, nil
}

// importRun is one import in progress.
type importRun struct {
	d        *Daemon
	opt      transcriptOptions
	rep      *api.TranscriptReport
	projects []ragd.Project
	roots    []string
	// forgotten are each project's forgotten sessions, loaded when first
	// needed.
	forgotten    map[int64]map[string]bool
	perProject   map[int64]*projectCount
	unregistered map[string]bool
}

type projectCount struct {
	api.ProjectImport
	sessions map[string]bool
	// unindexed counts messages appended without chunks.
	unindexed int
}

// target returns the project session s goes to, or ok false when no
// registered project contains its folder.
func (ir *importRun) target(s *transcript.Session) (ragd.Project, bool) {
	if ir.opt.into != nil {
		return *ir.opt.into, true
	}
	root, ok := transcript.MatchProject(*s, ir.roots)
	if !ok {
		return ragd.Project{}, false
	}
	for _, p := range ir.projects {
		if p.Path == root {
			return p, true
		}
	}
	return ragd.Project{}, false
}

// checkpointOwner is the project id a checkpoint is stored under: the
// project its session goes to, 0 for none.
func (ir *importRun) checkpointOwner(cp transcript.Checkpoint) int64 {
	if ir.opt.into != nil {
		return ir.opt.into.ID
	}
	if cp.Session == nil {
		return 0
	}
	p, ok := ir.target(cp.Session)
	if !ok {
		return 0
	}
	return p.ID
}

// isDocument reports whether a transcript is read whole each time (a
// document or database rewritten in place) rather than resumed.
func isDocument(f transcript.Format, path string) bool {
	d, err := transcript.Lookup(f)
	return err == nil && d.IsRewritten(path)
}

// resumePoint picks, among the stored checkpoints of a file, the one that
// is valid for this import: of this format, and stored under the project
// its session goes to now (a folder registered since, or an import into a
// named project, reads the file again from the start).
func (ir *importRun) resumePoint(saved []ragd.TranscriptFile) (*ragd.TranscriptFile, *transcript.Checkpoint) {
	for i := range saved {
		tf := &saved[i]
		if tf.Format != string(ir.opt.format) {
			continue
		}
		var cp transcript.Checkpoint
		if json.Unmarshal(tf.Checkpoint, &cp) != nil {
			continue
		}
		if ir.checkpointOwner(cp) == tf.ProjectID {
			return tf, &cp
		}
	}
	return nil, nil
}

// skippedNotRegular is the Skipped reason of a listed path that is not a
// regular file (a FIFO, a device): never read, since a FIFO blocks its
// reader and a device may never end.
const skippedNotRegular = "not a regular file"

// openTranscript opens a transcript file without blocking, whatever it is
// now (a FIFO blocks in open(2) until a writer comes; O_NONBLOCK does
// not), and returns it with its metadata when it is a regular file. A file
// that is no longer there, or not regular, gives a nil file and no error.
func openTranscript(path string) (*os.File, os.FileInfo, error) {
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("transcript %s: %w", path, err)
	}
	info, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, nil, fmt.Errorf("transcript %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		fh.Close()
		return nil, info, nil
	}
	return fh, info, nil
}

// ctxReader reads r until ctx ends: a file that grows as fast as it is
// read, or a huge one, stops with its client.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (cr ctxReader) Read(p []byte) (int, error) {
	if err := cr.ctx.Err(); err != nil {
		return 0, err
	}
	return cr.r.Read(p)
}

// file imports one transcript file. A stream is opened before the
// daemon-wide transcripts lock is taken, without blocking, and read only
// if it is a regular file; a database is read by path, from a copy
// (transcript.ReadFile).
func (ir *importRun) file(ctx context.Context, path string) error {
	desc, err := transcript.Lookup(ir.opt.format)
	if err != nil {
		return err
	}
	var fh *os.File
	var size int64
	var modTime time.Time
	if desc.IsDatabase(path) {
		// A database in WAL mode changes its -wal, not itself.
		size, modTime, err = transcript.DatabaseStat(path)
		if errors.Is(err, os.ErrNotExist) {
			ir.rep.Files-- // deleted since it was listed: what was imported of it stays
			return nil
		}
		if err != nil {
			return fmt.Errorf("transcript %s: %w", path, err)
		}
	} else {
		var info os.FileInfo
		fh, info, err = openTranscript(path)
		if err != nil {
			return err
		}
		if fh == nil {
			ir.rep.Files--
			if info != nil {
				ir.rep.Skipped[skippedNotRegular]++
			}
			// Else deleted since it was listed: what was imported of it stays.
			return nil
		}
		defer fh.Close()
		size, modTime = info.Size(), info.ModTime()
	}
	ir.d.transcripts.Lock()
	defer ir.d.transcripts.Unlock()
	saved, err := ir.d.store.TranscriptFiles(ctx, path)
	if err != nil {
		return err
	}
	if m, ok := ir.opt.memory[path]; ok {
		saved = append(saved, m)
	}
	tf, cp := ir.resumePoint(saved)
	if cp != nil {
		ir.noteUnregistered(cp.Session, path)
	}
	if tf != nil && tf.Size == size && tf.ModTime.Equal(modTime) {
		ir.rep.Unchanged++
		return nil
	}
	document := isDocument(ir.opt.format, path)
	switch {
	case cp != nil && document:
		// A document is read whole, with what the last read kept (the
		// time given to records without one), so that what was stored
		// already counts as duplicates.
		whole := *cp
		whole.Offset, whole.Line = 0, 0
		cp = &whole
	case cp != nil && cp.Offset > size:
		// A file shorter than where we stopped was replaced: read it
		// again (event ids are stable, so what was stored already counts
		// as duplicates).
		cp = nil
	}

	if cp != nil && !document {
		if _, err := fh.Seek(cp.Offset, io.SeekStart); err != nil {
			return fmt.Errorf("transcript %s: seek to %d: %w", path, cp.Offset, err)
		}
		ir.rep.Resumed++
	}

	batches := map[int64][]ragd.Event{}
	targets := map[int64]ragd.Project{}
	unmatched := false
	var stored error
	flush := func(p ragd.Project) error {
		evs := batches[p.ID]
		batches[p.ID] = evs[:0]
		if len(evs) == 0 {
			return nil
		}
		return ir.append(ctx, p, evs)
	}
	read := func(opt transcript.Options, fn transcript.Func) (transcript.Stats, error) {
		if fh == nil {
			return transcript.ReadFile(ctx, ir.opt.format, path, opt, fn)
		}
		return transcript.Read(ir.opt.format, ctxReader{ctx, fh}, path, opt, fn)
	}
	st, err := read(transcript.Options{KeepRaw: ir.opt.keepRaw, Resume: cp, FileTime: modTime},
		func(s *transcript.Session, e ragd.Event) error {
			p, ok := ir.target(s)
			if !ok {
				unmatched = true
				ir.noteUnregistered(s, path)
				return nil
			}
			targets[p.ID] = p
			forgotten, err := ir.isForgotten(ctx, p.ID, s.ID)
			if err != nil {
				return err
			}
			if forgotten {
				ir.rep.Forgotten++
				return nil
			}
			ir.count(p).sessions[s.ID] = true
			batches[p.ID] = append(batches[p.ID], e)
			if len(batches[p.ID]) >= transcriptBatch {
				if stored = flush(p); stored != nil {
					return stored
				}
			}
			return nil
		})
	if err == nil {
		for _, p := range targets {
			if err = flush(p); err != nil {
				break
			}
		}
	}
	ir.add(st)
	if err != nil {
		if stored != nil {
			err = stored // not wrapped in the reader's "line N: event X"
		}
		return fmt.Errorf("import %s: %w", path, err)
	}

	// Where to keep the checkpoint: under the one project the file's
	// sessions went to. A file some of whose sessions went nowhere, or to
	// several projects, keeps none and is read again next time.
	saveAs := ragd.Project{}
	if st.Checkpoint.Session != nil || ir.opt.into != nil {
		if p, ok := ir.target(orEmpty(st.Checkpoint.Session)); ok {
			saveAs = p
		}
	}
	delete(targets, saveAs.ID)
	b, err := json.Marshal(st.Checkpoint)
	if err != nil {
		return fmt.Errorf("transcript %s: checkpoint: %w", path, err)
	}
	// The readers redact what their checkpoints hold; this is the same
	// redaction once more, for state a reader keeps that it did not.
	b = redact.JSON(b, ir.rep.Redactions)
	row := ragd.TranscriptFile{Path: path, ProjectID: saveAs.ID, Format: string(ir.opt.format),
		Size: size, ModTime: modTime, Checkpoint: b}
	switch {
	case saveAs.ID != 0 && !unmatched && len(targets) == 0:
		return ir.d.store.SaveTranscriptFile(ctx, row)
	case saveAs.ID == 0 && ir.opt.memory != nil:
		ir.opt.memory[path] = row
	}
	return nil
}

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

func orEmpty(s *transcript.Session) *transcript.Session {
	if s == nil {
		return &transcript.Session{}
	}
	return s
}

func (ir *importRun) isForgotten(ctx context.Context, projectID int64, sessionID string) (bool, error) {
	set, ok := ir.forgotten[projectID]
	if !ok {
		var err error
		if set, err = ir.d.store.ForgottenSessions(ctx, projectID); err != nil {
			return false, err
		}
		ir.forgotten[projectID] = set
	}
	return set[sessionID], nil
}

func (ir *importRun) count(p ragd.Project) *projectCount {
	pc, ok := ir.perProject[p.ID]
	if !ok {
		pc = &projectCount{ProjectImport: api.ProjectImport{Project: p.Name}, sessions: map[string]bool{}}
		ir.perProject[p.ID] = pc
	}
	return pc
}

// append stores a batch of events of one project through the indexer, which
// holds them to the event rules and is idempotent by id.
func (ir *importRun) append(ctx context.Context, p ragd.Project, events []ragd.Event) error {
	res, err := ir.d.indexer.AppendEventsWith(ctx, p, events, index.AppendOptions{KeepRawPayload: ir.opt.keepRaw, Redacted: true})
	if err != nil {
		if errors.Is(err, index.ErrInvalidEvent) {
			return fmt.Errorf("%w: %v", ragd.ErrInvalid, err)
		}
		return err
	}
	rep := ir.rep
	rep.Appended += res.Appended
	rep.Indexed += res.Messages
	rep.Chunks += res.Chunks
	rep.Kept += res.Appended - res.Messages
	rep.Duplicates += res.Duplicates
	rep.SessionsCreated += res.SessionsCreated
	for k, v := range res.Redactions {
		rep.Redactions[k] += v
	}
	for _, c := range res.Conflicts {
		if len(rep.Conflicts) < maxListed {
			rep.Conflicts = append(rep.Conflicts, c)
		}
	}
	pc := ir.count(p)
	pc.Appended += res.Appended
	pc.Indexed += res.Messages
	pc.unindexed += res.Unindexed
	return nil
}

// noteUnregistered counts (once) a session no project contains.
func (ir *importRun) noteUnregistered(s *transcript.Session, path string) {
	if s == nil || ir.unregistered[s.ID] {
		return
	}
	if _, ok := ir.target(s); ok {
		return
	}
	ir.unregistered[s.ID] = true
	ir.rep.UnregisteredCount++
	if len(ir.rep.Unregistered) < maxListed {
		ir.rep.Unregistered = append(ir.rep.Unregistered, api.UnregisteredSession{
			Session: s.ID, Cwd: s.Cwd, ProjectHash: s.ProjectHash, File: path})
	}
}

// add adds one file's reading statistics to the report.
func (ir *importRun) add(st transcript.Stats) {
	rep := ir.rep
	rep.Lines += st.Lines
	rep.Records += st.Records
	rep.Sessions += st.Sessions
	rep.Messages += st.Messages
	rep.Mechanism += st.Mechanism
	rep.Malformed += st.Malformed
	for k, v := range st.Skipped {
		rep.Skipped[k] += v
	}
	for k, v := range st.Redactions {
		rep.Redactions[k] += v
	}
	for _, le := range st.Errors {
		if len(rep.LineErrors) < maxListed {
			rep.LineErrors = append(rep.LineErrors, api.FileLineError{File: le.File, Line: le.Line, Reason: le.Reason})
		}
	}
	if st.Incomplete {
		rep.Incomplete++
	}
}

// finish fills the per-project counts and has the projects that received
// messages without chunks refresh their stale scopes (and auto-reindex, if
// they opted in). Messages appended with their chunks leave the session
// scope as fresh as it was.
func (ir *importRun) finish() {
	for id, pc := range ir.perProject {
		pc.Sessions = len(pc.sessions)
		ir.rep.Projects = append(ir.rep.Projects, pc.ProjectImport)
		if pc.unindexed > 0 {
			ir.d.watcher.schedule(id)
		}
	}
	sort.Slice(ir.rep.Projects, func(i, j int) bool { return ir.rep.Projects[i].Project < ir.rep.Projects[j].Project })
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
	opt := transcriptOptions{format: f, keepRaw: req.KeepRaw}
	for _, p := range req.Paths {
		if !filepath.IsAbs(p) {
			return badRequest("path %q: must be absolute (the daemon does not know your working directory)", p)
		}
		// Stat follows a symlink the user gave: theirs to give. A FIFO
		// would block the import, a device never end.
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && !fi.Mode().IsRegular() {
			return badRequest("path %q: not a regular file or a folder (%s): give transcript files or the folders that hold them", p, fileKind(fi.Mode()))
		}
		opt.paths = append(opt.paths, filepath.Clean(p))
	}
	if req.Project != "" {
		p, err := d.store.Project(r.Context(), req.Project)
		if errors.Is(err, ragd.ErrNotFound) {
			return notFound("unknown project %q: register it with `ragd add PATH` (GET /v1/projects lists them)", req.Project)
		}
		if err != nil {
			return err
		}
		opt.into = &p
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
		rep, err := d.importTranscripts(ctx, opt, nil)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, rep)
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
	rep, err := d.importTranscripts(ctx, opt, func(pr api.TranscriptProgress) {
		send(api.TranscriptImportEvent{Progress: &pr})
	})
	if err != nil {
		he := d.asHTTPError(err)
		send(api.TranscriptImportEvent{Report: rep, Error: &api.ErrorDetail{Code: he.code, Message: redact.String(he.msg, nil)}})
		return nil
	}
	send(api.TranscriptImportEvent{Report: rep})
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
		rep.Projects = append(rep.Projects, res)
	}
	rep.DurationMs = time.Since(start).Milliseconds()
	writeJSON(w, http.StatusOK, rep)
	return nil
}
