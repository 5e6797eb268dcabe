package daemon

// SetRefreshHook makes the watcher call fn after each refresh of a
// project's stale scopes (after a change notice, a reindex, an
// auto-reindex): tests wait on it instead of sleeping.
func (d *Daemon) SetRefreshHook(fn func(projectID int64)) {
	d.watcher.mu.Lock()
	defer d.watcher.mu.Unlock()
	d.watcher.refreshed = fn
}
