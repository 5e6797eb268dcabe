package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/ragd/ragd"
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

// TranscriptImport is what one transcript import asks for.
type TranscriptImport struct {
	Format transcript.Format
	// Paths are files and folders to look in; none means the format's
	// standard location (and for Aider the registered repositories).
	Paths []string
	// Into, when set, receives every session, whatever its folder.
	Into    *ragd.Project
	KeepRaw bool
	// Memory, when set (the follower), keeps where files of sessions no
	// project contains were read up to, between passes: they have no
	// project to store a checkpoint under.
	Memory map[string]ragd.TranscriptFile
}

// TranscriptStore is what a transcript import needs of the database
// besides the Indexer's Store: the projects sessions go to, where each
// file was read up to, and the sessions forgotten on purpose, which an
// import leaves out. *store.Store is one.
type TranscriptStore interface {
	Projects(ctx context.Context) ([]ragd.Project, error)
	// TranscriptFiles returns the checkpoints stored for the file at
	// path, one per project it was read into.
	TranscriptFiles(ctx context.Context, path string) ([]ragd.TranscriptFile, error)
	// SaveTranscriptFile stores (or replaces) the checkpoint of tf's file
	// for tf's project.
	SaveTranscriptFile(ctx context.Context, tf ragd.TranscriptFile) error
	// ForgottenSessions returns the ids of a project's sessions that were
	// forgotten on purpose.
	ForgottenSessions(ctx context.Context, projectID int64) (map[string]bool, error)
}

// Importer reads coding agents' transcripts into projects' session logs
// through Indexer, file by file, resuming each file where the last import
// stopped. Set its fields, then use it.
type Importer struct {
	// Store keeps the checkpoints. Required.
	Store TranscriptStore
	// Indexer appends the events (and their chunks). Required.
	Indexer *Indexer
	// Lock, when set, is held while a file is read into the store, so that
	// one file is never read twice at once (imports and a follower); the
	// caller holds it too while it rewrites stored session text.
	Lock sync.Locker
	// Stale, when set, is called after an import with each project that
	// received messages without chunks: its stale scopes want a refresh
	// (and an auto-reindex, if it opted in).
	Stale func(projectID int64)
}

func (im *Importer) lock() func() {
	if im.Lock == nil {
		return func() {}
	}
	im.Lock.Lock()
	return im.Lock.Unlock
}

// Import reads the transcripts of one format and appends their events to
// the projects they belong to, file by file, resuming each file where the
// last import stopped. progress, if not nil, is called as files are done.
// Projects that received messages without chunks are passed to Stale.
func (im *Importer) Import(ctx context.Context, opt TranscriptImport, progress func(ragd.TranscriptProgress)) (*ragd.TranscriptReport, error) {
	start := time.Now()
	rep := &ragd.TranscriptReport{
		Format: string(opt.Format), Paths: opt.Paths, Conflicts: []ragd.Conflict{},
		Skipped: map[string]int{}, LineErrors: []ragd.FileLineError{}, Redactions: map[string]int{},
		Projects: []ragd.ProjectImport{}, Unregistered: []ragd.UnregisteredSession{},
	}
	desc, err := transcript.Lookup(opt.Format)
	if err != nil {
		return rep, err
	}
	projects, err := im.Store.Projects(ctx)
	if err != nil {
		return rep, err
	}
	if len(rep.Paths) == 0 {
		if rep.Paths, err = transcript.DefaultPaths(opt.Format, os.Getenv); err != nil {
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
	found, err := transcript.DiscoverAll(opt.Format, rep.Paths)
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
	ir := &importRun{im: im, opt: opt, rep: rep, projects: projects,
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
			return rep, fmt.Errorf("import %s transcripts: %w", opt.Format, err)
		}
		if err := ir.file(ctx, path); err != nil {
			return rep, err
		}
		if progress != nil && (time.Since(last) >= progressEvery || i == len(files)-1) {
			last = time.Now()
			progress(ragd.TranscriptProgress{Done: i + 1, Total: len(files), File: path, Messages: rep.Messages})
		}
	}
	return rep, nil
}

// importRun is one import in progress.
type importRun struct {
	im       *Importer
	opt      TranscriptImport
	rep      *ragd.TranscriptReport
	projects []ragd.Project
	roots    []string
	// forgotten are each project's forgotten sessions, loaded when first
	// needed.
	forgotten    map[int64]map[string]bool
	perProject   map[int64]*projectCount
	unregistered map[string]bool
}

type projectCount struct {
	ragd.ProjectImport
	sessions map[string]bool
	// unindexed counts messages appended without chunks.
	unindexed int
}

// target returns the project session s goes to, or ok false when no
// registered project contains its folder.
func (ir *importRun) target(s *transcript.Session) (ragd.Project, bool) {
	if ir.opt.Into != nil {
		return *ir.opt.Into, true
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
	if ir.opt.Into != nil {
		return ir.opt.Into.ID
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
		if tf.Format != string(ir.opt.Format) {
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
// Importer's Lock is taken, without blocking, and read only if it is a
// regular file; a database is read by path, from a copy
// (transcript.ReadFile).
func (ir *importRun) file(ctx context.Context, path string) error {
	desc, err := transcript.Lookup(ir.opt.Format)
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
	defer ir.im.lock()()
	saved, err := ir.im.Store.TranscriptFiles(ctx, path)
	if err != nil {
		return err
	}
	if m, ok := ir.opt.Memory[path]; ok {
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
	document := isDocument(ir.opt.Format, path)
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
			return transcript.ReadFile(ctx, ir.opt.Format, path, opt, fn)
		}
		return transcript.Read(ir.opt.Format, ctxReader{ctx, fh}, path, opt, fn)
	}
	st, err := read(transcript.Options{KeepRaw: ir.opt.KeepRaw, Resume: cp, FileTime: modTime},
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
	if st.Checkpoint.Session != nil || ir.opt.Into != nil {
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
	row := ragd.TranscriptFile{Path: path, ProjectID: saveAs.ID, Format: string(ir.opt.Format),
		Size: size, ModTime: modTime, Checkpoint: b}
	switch {
	case saveAs.ID != 0 && !unmatched && len(targets) == 0:
		return ir.im.Store.SaveTranscriptFile(ctx, row)
	case saveAs.ID == 0 && ir.opt.Memory != nil:
		ir.opt.Memory[path] = row
	}
	return nil
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
		if set, err = ir.im.Store.ForgottenSessions(ctx, projectID); err != nil {
			return false, err
		}
		ir.forgotten[projectID] = set
	}
	return set[sessionID], nil
}

func (ir *importRun) count(p ragd.Project) *projectCount {
	pc, ok := ir.perProject[p.ID]
	if !ok {
		pc = &projectCount{ProjectImport: ragd.ProjectImport{Project: p.Name}, sessions: map[string]bool{}}
		ir.perProject[p.ID] = pc
	}
	return pc
}

// append stores a batch of events of one project through the indexer, which
// holds them to the event rules and is idempotent by id.
func (ir *importRun) append(ctx context.Context, p ragd.Project, events []ragd.Event) error {
	res, err := ir.im.Indexer.AppendEventsWith(ctx, p, events, AppendOptions{KeepRawPayload: ir.opt.KeepRaw, Redacted: true})
	if err != nil {
		if errors.Is(err, ErrInvalidEvent) {
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
		ir.rep.Unregistered = append(ir.rep.Unregistered, ragd.UnregisteredSession{
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
			rep.LineErrors = append(rep.LineErrors, ragd.FileLineError{File: le.File, Line: le.Line, Reason: le.Reason})
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
		if pc.unindexed > 0 && ir.im.Stale != nil {
			ir.im.Stale(id)
		}
	}
	sort.Slice(ir.rep.Projects, func(i, j int) bool { return ir.rep.Projects[i].Project < ir.rep.Projects[j].Project })
}
