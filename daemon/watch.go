package daemon

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/source"
)

// refreshDelay gathers the burst of file events one git command makes (a
// commit writes objects, the ref, the reflog and HEAD) into one refresh.
const refreshDelay = 100 * time.Millisecond

// watcher marks scopes stale when a project's git HEAD or refs move, and
// runs the opt-in auto-reindex. Reindex stays manual by default, as the seed
// decided: a watcher that reindexed on every commit would spend the
// embedding budget behind the user's back.
type watcher struct {
	d  *Daemon
	fs *fsnotify.Watcher

	mu       sync.Mutex
	projects map[int64]*watched
	dirs     map[string]map[int64]bool // watched directory -> projects
	closed   bool

	// refreshed, when set (tests), is called after each refresh of a project.
	refreshed func(projectID int64)
}

type watched struct {
	p     ragd.Project
	stale []string
	timer *time.Timer // pending refresh
	auto  *time.Timer // pending auto-reindex
}

func newWatcher(d *Daemon) (*watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &watcher{d: d, fs: fw, projects: map[int64]*watched{}, dirs: map[string]map[int64]bool{}}
	ps, err := d.store.Projects(context.Background())
	if err != nil {
		fw.Close()
		return nil, err
	}
	// The projects are known at once; their folders are watched and their
	// stale scopes computed in the background: the statistics of a large
	// session log take long, and the daemon answers meanwhile (a search's
	// notice of stale scopes comes once they are known).
	var todo []ragd.Project
	for _, p := range ps {
		if w.track(p) {
			todo = append(todo, p)
		}
	}
	d.wg.Add(2)
	go func() {
		defer d.wg.Done()
		w.loop()
	}()
	go func() {
		defer d.wg.Done()
		if startupHook != nil {
			startupHook(d.ctx)
		}
		for _, p := range todo {
			if !w.tracked(p.ID) || d.ctx.Err() != nil {
				continue // removed since, or the daemon stops
			}
			w.watch(p)
		}
	}()
	return w, nil
}

// startupHook, when set (tests), runs before the start-up refresh of
// every project.
var startupHook func(ctx context.Context)

// add starts watching a project (again, after a settings change), and
// computes its stale scopes before it returns.
func (w *watcher) add(p ragd.Project) {
	if w.track(p) {
		w.watch(p)
	}
}

// track records p as watched, and reports whether it is new (its folders
// are to be watched).
func (w *watcher) track(p ragd.Project) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return false
	}
	if old, ok := w.projects[p.ID]; ok {
		old.p = p
		return false
	}
	w.projects[p.ID] = &watched{p: p}
	return true
}

// tracked reports whether project id is watched.
func (w *watcher) tracked(id int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.projects[id]
	return ok && !w.closed
}

// watch watches the folders of a tracked project that move its HEAD, and
// computes its stale scopes.
func (w *watcher) watch(p ragd.Project) {
	head, err := source.Head(w.d.ctx, p.Path)
	if err != nil && head.GitDir == "" {
		w.d.logger.Warn("cannot watch project", "project", p.Name, "path", p.Path, "err", err)
	} else {
		dirs := []string{head.GitDir, head.CommonDir, filepath.Join(head.CommonDir, "refs")}
		filepath.WalkDir(filepath.Join(head.CommonDir, "refs"), func(path string, de os.DirEntry, err error) error {
			if err == nil && de.IsDir() {
				dirs = append(dirs, path)
			}
			return nil
		})
		for _, dir := range uniq(dirs...) {
			w.watchDir(dir, p.ID)
		}
	}
	w.refresh(p.ID)
}

func (w *watcher) watchDir(dir string, projectID int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dirs[dir] == nil {
		if err := w.fs.Add(dir); err != nil {
			w.d.logger.Debug("watch", "dir", dir, "err", err)
			return
		}
		w.dirs[dir] = map[int64]bool{}
	}
	w.dirs[dir][projectID] = true
}

// remove stops watching a project.
func (w *watcher) remove(p ragd.Project) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if wp, ok := w.projects[p.ID]; ok {
		stopTimer(wp.timer)
		stopTimer(wp.auto)
		delete(w.projects, p.ID)
	}
	for dir, ids := range w.dirs {
		delete(ids, p.ID)
		if len(ids) == 0 {
			w.fs.Remove(dir)
			delete(w.dirs, dir)
		}
	}
}

func stopTimer(t *time.Timer) {
	if t != nil {
		t.Stop()
	}
}

func (w *watcher) loop() {
	for {
		select {
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			w.event(ev)
		case err, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			w.d.logger.Warn("file watch", "err", err)
		}
	}
}

// event schedules a refresh of every project watching the event's folder,
// when the file is one that moves HEAD: HEAD itself, packed-refs, a ref.
func (w *watcher) event(ev fsnotify.Event) {
	dir, name := filepath.Split(ev.Name)
	dir = filepath.Clean(dir)
	if strings.HasSuffix(name, ".lock") {
		return
	}
	isRef := strings.Contains(ev.Name, string(filepath.Separator)+"refs"+string(filepath.Separator))
	if name != "HEAD" && name != "packed-refs" && !isRef {
		return
	}
	w.mu.Lock()
	ids := make([]int64, 0, len(w.dirs[dir]))
	for id := range w.dirs[dir] {
		ids = append(ids, id)
	}
	w.mu.Unlock()
	if ev.Has(fsnotify.Create) && isRef {
		if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
			for _, id := range ids {
				w.watchDir(ev.Name, id)
			}
		}
	}
	for _, id := range ids {
		w.schedule(id)
	}
}

func (w *watcher) schedule(id int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	wp, ok := w.projects[id]
	if !ok || w.closed {
		return
	}
	stopTimer(wp.timer)
	wp.timer = time.AfterFunc(refreshDelay, func() { w.refresh(id) })
}

// refresh recomputes a project's stale scopes and, if the project opted in,
// schedules an auto-reindex of them.
func (w *watcher) refresh(id int64) {
	w.mu.Lock()
	wp, ok := w.projects[id]
	w.mu.Unlock()
	if !ok {
		return
	}
	stale, err := w.d.staleScopes(w.d.ctx, wp.p)
	if err != nil {
		w.d.logger.Debug("stale check", "project", wp.p.Name, "err", err)
	}
	w.mu.Lock()
	wp.stale = stale
	auto := wp.p.AutoReindex && len(stale) > 0 && !w.closed
	if auto {
		stopTimer(wp.auto)
		p := wp.p
		wp.auto = time.AfterFunc(w.d.cfg.Index.AutoDebounce.Duration, func() { w.autoReindex(p, stale) })
	}
	hook := w.refreshed
	w.mu.Unlock()
	if hook != nil {
		hook(id)
	}
}

func (w *watcher) autoReindex(p ragd.Project, scopes []string) {
	// Counted under the lock that close takes, so that Close never waits on
	// d.wg while a timer adds to it. A project removed, or switched to
	// manual, since the timer was set is left alone.
	w.mu.Lock()
	if wp, ok := w.projects[p.ID]; w.closed || !ok || !wp.p.AutoReindex {
		w.mu.Unlock()
		return
	}
	w.d.wg.Add(1)
	w.mu.Unlock()
	defer w.d.wg.Done()
	if w.d.ctx.Err() != nil {
		return
	}
	w.d.logger.Info("auto-reindex", "project", p.Name, "scopes", scopes)
	rep, err := w.d.indexer.Reindex(w.d.ctx, p, scopes, nil)
	if err != nil {
		w.d.logger.Warn("auto-reindex failed", "project", p.Name, "err", err)
	} else {
		w.d.logger.Info("auto-reindex done", "project", p.Name, "summary", rep.Summary)
	}
	w.refresh(p.ID)
}

// staleScopes returns the project's stale scopes as last computed.
func (w *watcher) staleScopes(p ragd.Project) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if wp, ok := w.projects[p.ID]; ok {
		return slices.Clone(wp.stale)
	}
	return nil
}

// close stops the watcher; calling it again does nothing.
func (w *watcher) close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	for _, wp := range w.projects {
		stopTimer(wp.timer)
		stopTimer(wp.auto)
	}
	w.mu.Unlock()
	return w.fs.Close()
}
