package daemon

import "context"

// SetRefreshHook makes the watcher call fn after each refresh of a
// project's stale scopes (after a change notice, a reindex, an
// auto-reindex): tests wait on it instead of sleeping.
func (d *Daemon) SetRefreshHook(fn func(projectID int64)) {
	d.watcher.mu.Lock()
	defer d.watcher.mu.Unlock()
	d.watcher.refreshed = fn
}

// ServeLimits are the timeouts and the connection bound of daemons opened
// from now on (see limits).
type ServeLimits = limits

// SetServeLimits sets the limits of daemons opened from now on and returns
// a function that restores the defaults.
func SetServeLimits(l ServeLimits) (restore func()) {
	defaultLimits, l = l, defaultLimits
	return func() { defaultLimits = l }
}

// PeakConns returns the most connections the daemon served at once.
func (d *Daemon) PeakConns() int { return int(d.limiter.peak.Load()) }

// SetStartupHook makes daemons opened from now on call fn (with the
// daemon's context) before computing their projects' stale scopes at
// start-up, and returns a function that removes it.
func SetStartupHook(fn func(ctx context.Context)) (restore func()) {
	startupHook = fn
	return func() { startupHook = nil }
}
