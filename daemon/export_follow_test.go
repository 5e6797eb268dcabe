package daemon

import "github.com/ragd/ragd/api"

// SetFollowHook makes the transcript follower call fn after each of its
// passes (the catch-up at start, each read of written files) with the
// pass's report: tests wait on it instead of sleeping. The report is
// recorded (FollowStatus) before fn is called.
func (d *Daemon) SetFollowHook(fn func(api.TranscriptReport)) {
	d.follower.mu.Lock()
	defer d.follower.mu.Unlock()
	d.follower.passed = fn
}

// SetBackfillHook makes the background vector fill call fn after each of
// its steps with what it filled and its error.
func (d *Daemon) SetBackfillHook(fn func(filled int, err error)) { d.backfill.OnStep(fn) }

// StopBackfill ends the background vector fill and waits for it: answers
// that show its queue and rate are then the same from run to run.
func (d *Daemon) StopBackfill() {
	d.stopBackfill()
	<-d.backfillDone
}
