package daemon

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/transcript"
)

// followDelay is how long the follower gathers writes before it reads: a
// turn of a coding agent writes several records in quick succession, and
// one read of them is cheaper than one per record. It is counted from the
// first write, so a file written without pause is still read this often.
const followDelay = 250 * time.Millisecond

// FollowAll in [sessions] follow follows every format.
const FollowAll = "all"

// follower appends what coding agents write to their transcripts as they
// write it, for the formats [sessions] follow names (opt-in: reading a
// person's sessions is theirs to turn on). At start it catches up with
// what was written while the daemon was not running, from the stored
// checkpoints; then it watches the tools' folders with fsnotify.
type follower struct {
	d  *Daemon
	fs *fsnotify.Watcher // nil when nothing is followed

	mu      sync.Mutex
	formats map[transcript.Format]*followed
	dirs    map[string]transcript.Format // watched folder -> its format
	pending map[string]transcript.Format // files written since the last read
	timer   *time.Timer
	closed  bool
	// passed, when set (tests), is called after each pass of the follower
	// with its report.
	passed func(api.TranscriptReport)

	// memory keeps, per format, where files of sessions no project
	// contains were read up to (see index.TranscriptImport.Memory). It is used
	// under d.transcripts.
	memory map[transcript.Format]map[string]ragd.TranscriptFile
}

type followed struct {
	paths []string
	last  *api.TranscriptReport
	err   string
}

// followFormats returns the formats cfg follows.
func followFormats(cfg SessionsConfig) ([]transcript.Format, error) {
	var out []transcript.Format
	for _, name := range cfg.Follow {
		if name == FollowAll {
			return transcript.Formats, nil
		}
		f, err := transcript.ParseFormat(name)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out, nil
}

func newFollower(d *Daemon) (*follower, error) {
	fl := &follower{d: d, formats: map[transcript.Format]*followed{}, dirs: map[string]transcript.Format{},
		pending: map[string]transcript.Format{}, memory: map[transcript.Format]map[string]ragd.TranscriptFile{}}
	formats, err := followFormats(d.cfg.Sessions)
	if err != nil || len(formats) == 0 {
		return fl, err
	}
	if fl.fs, err = fsnotify.NewWatcher(); err != nil {
		return nil, err
	}
	projects, err := d.store.Projects(context.Background())
	if err != nil {
		fl.fs.Close()
		return nil, err
	}
	for _, f := range formats {
		fw := &followed{}
		fl.formats[f] = fw
		fl.memory[f] = map[string]ragd.TranscriptFile{}
		paths, err := transcript.DefaultPaths(f, os.Getenv)
		if err != nil {
			fw.err = err.Error()
			continue
		}
		if perRepository(f) {
			// Aider keeps its history in each repository: the registered
			// ones are followed.
			for _, p := range projects {
				paths = append(paths, p.Path)
			}
		}
		fw.paths = paths
		for _, p := range paths {
			fl.watchTree(f, p)
		}
	}
	d.wg.Add(2)
	go func() {
		defer d.wg.Done()
		fl.loop()
	}()
	go func() {
		defer d.wg.Done()
		fl.catchUp(formats)
	}()
	return fl, nil
}

// perRepository reports whether format f keeps its transcripts in each
// repository.
func perRepository(f transcript.Format) bool {
	d, err := transcript.Lookup(f)
	return err == nil && d.PerRepository()
}

// isDatabase reports whether format f's sources are databases.
func isDatabase(f transcript.Format) bool {
	d, err := transcript.Lookup(f)
	return err == nil && d.HasDatabases()
}

// watchTree watches root and the folders under it (in a repository, for
// a per-repository format: the folders of its files only). A root that
// does not exist is left: the tool is not installed, or has written
// nothing yet.
func (fl *follower) watchTree(f transcript.Format, root string) {
	info, err := os.Stat(root)
	if err != nil {
		fl.d.logger.Debug("follow: not watching", "format", f, "path", root, "err", err)
		return
	}
	if !info.IsDir() {
		fl.watchDir(f, filepath.Dir(root))
		return
	}
	if d, err := transcript.Lookup(f); err == nil && d.PerRepository() && transcript.IsRepository(root) {
		for _, rf := range d.RepoFiles {
			dir := filepath.Dir(filepath.Join(root, filepath.FromSlash(rf)))
			if di, err := os.Stat(dir); err == nil && di.IsDir() {
				fl.watchDir(f, dir)
			}
		}
		return
	}
	filepath.WalkDir(root, func(path string, de fs.DirEntry, err error) error {
		if err == nil && de.IsDir() {
			fl.watchDir(f, path)
		}
		return nil
	})
}

func (fl *follower) watchDir(f transcript.Format, dir string) {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	if _, ok := fl.dirs[dir]; ok || fl.closed {
		return
	}
	if err := fl.fs.Add(dir); err != nil {
		fl.d.logger.Warn("follow: cannot watch", "format", f, "dir", dir, "err", err)
		return
	}
	fl.dirs[dir] = f
}

// catchUp imports what was written while the daemon was not running.
func (fl *follower) catchUp(formats []transcript.Format) {
	for _, f := range formats {
		fl.mu.Lock()
		paths := fl.formats[f].paths
		fl.mu.Unlock()
		if len(paths) == 0 {
			continue
		}
		fl.pass(f, paths)
	}
}

func (fl *follower) loop() {
	for {
		select {
		case ev, ok := <-fl.fs.Events:
			if !ok {
				return
			}
			fl.event(ev)
		case err, ok := <-fl.fs.Errors:
			if !ok {
				return
			}
			fl.d.logger.Warn("follow: file watch", "err", err)
		}
	}
}

// event queues a written transcript; a new folder under a followed one is
// watched, and the transcripts already in it queued. Removals do nothing:
// sessions a tool deletes stay in ragd.
func (fl *follower) event(ev fsnotify.Event) {
	if !ev.Has(fsnotify.Create) && !ev.Has(fsnotify.Write) {
		return
	}
	fl.mu.Lock()
	f, ok := fl.dirs[filepath.Dir(ev.Name)]
	fl.mu.Unlock()
	if !ok {
		return
	}
	// A folder made in a repository (Aider's, Crush's) is the project's,
	// not the tool's; one made in a tool's own folder is watched.
	if ev.Has(fsnotify.Create) && !(perRepository(f) && transcript.IsRepository(filepath.Dir(ev.Name))) {
		if info, err := os.Stat(ev.Name); err == nil && info.IsDir() {
			fl.watchTree(f, ev.Name)
			files, _ := transcript.Discover(f, []string{ev.Name})
			for _, p := range files {
				fl.queue(f, p)
			}
			return
		}
	}
	name := ev.Name
	if db := strings.TrimSuffix(name, "-wal"); db != name && isDatabase(f) {
		// A database in WAL mode is written through its -wal.
		name = db
	}
	if transcript.IsTranscript(f, name) {
		fl.queue(f, name)
	}
}

func (fl *follower) queue(f transcript.Format, path string) {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	if fl.closed {
		return
	}
	fl.pending[path] = f
	if fl.timer == nil {
		fl.timer = time.AfterFunc(followDelay, fl.flush)
	}
}

// flush reads the files written since the last flush.
func (fl *follower) flush() {
	// Counted under the lock close takes, so that Close never waits on
	// d.wg while a timer adds to it.
	fl.mu.Lock()
	if fl.closed {
		fl.mu.Unlock()
		return
	}
	pending := fl.pending
	fl.pending, fl.timer = map[string]transcript.Format{}, nil
	fl.d.wg.Add(1)
	fl.mu.Unlock()
	defer fl.d.wg.Done()

	byFormat := map[transcript.Format][]string{}
	for p, f := range pending {
		byFormat[f] = append(byFormat[f], p)
	}
	for _, f := range transcript.Formats {
		if files := byFormat[f]; len(files) > 0 {
			fl.pass(f, files)
		}
	}
}

// pass imports the transcripts of format f under paths and records the
// report.
func (fl *follower) pass(f transcript.Format, paths []string) {
	if fl.d.ctx.Err() != nil {
		return
	}
	rep, err := fl.d.importer.Import(fl.d.ctx, index.TranscriptImport{Format: f, Paths: paths, Memory: fl.memory[f]}, nil)
	if err != nil && fl.d.ctx.Err() == nil {
		fl.d.logger.Warn("follow: import failed", "format", f, "err", err)
	} else if err == nil && rep.Appended > 0 {
		fl.d.logger.Info("follow: appended", "format", f, "events", rep.Appended, "messages", rep.Indexed)
	}
	last := api.FromTranscriptReport(rep)
	fl.mu.Lock()
	fw := fl.formats[f]
	fw.last = last
	fw.err = ""
	if err != nil {
		fw.err = err.Error()
	}
	hook := fl.passed
	fl.mu.Unlock()
	if hook != nil && last != nil {
		hook(*last)
	}
}

// status reports what is followed.
func (d *Daemon) followStatus() api.FollowStatus {
	fl := d.follower
	fl.mu.Lock()
	defer fl.mu.Unlock()
	st := api.FollowStatus{Formats: []api.FollowedFormat{}}
	for _, f := range transcript.Formats {
		ff := api.FollowedFormat{Format: string(f), Paths: []string{}}
		if fw, ok := fl.formats[f]; ok {
			ff.Followed, ff.Last, ff.Error = true, fw.last, fw.err
			ff.Paths = append(ff.Paths, fw.paths...)
		} else if paths, err := transcript.DefaultPaths(f, os.Getenv); err == nil && paths != nil {
			ff.Paths = paths
		}
		for _, df := range fl.dirs {
			if df == f {
				ff.Watching++
			}
		}
		st.Formats = append(st.Formats, ff)
	}
	return st
}

// close stops the follower; calling it again does nothing.
func (fl *follower) close() error {
	fl.mu.Lock()
	if fl.closed {
		fl.mu.Unlock()
		return nil
	}
	fl.closed = true
	if fl.timer != nil {
		fl.timer.Stop()
	}
	fl.mu.Unlock()
	if fl.fs == nil {
		return nil
	}
	return fl.fs.Close()
}

// followChoices lists what [sessions] follow accepts, for the
// configuration template: every registered format, or "all".
func followChoices() string {
	names := make([]string, 0, len(transcript.Formats)+1)
	for _, f := range transcript.Formats {
		names = append(names, strconv.Quote(string(f)))
	}
	return strings.Join(names, ", ") + " or " + strconv.Quote(FollowAll)
}
