package ragd

import "time"

// What every engine stores of sessions beyond their events: the types of
// the engine's methods that list and forget sessions and keep where a
// transcript import stopped.

// ForgetResult counts what ForgetSession deleted.
type ForgetResult struct {
	Events int
	Chunks int
}

// SessionFilter selects the sessions of ListSessions. Zero fields select all.
type SessionFilter struct {
	// Since keeps the sessions whose last event is at or after it.
	Since time.Time
	// IDPrefix keeps the sessions whose id starts with it ("codex:").
	IDPrefix string
}

// TranscriptFile is where an import stopped reading a transcript file, for
// one project. The engine keeps the checkpoint opaque.
type TranscriptFile struct {
	Path      string
	ProjectID int64
	Format    string
	// Size and ModTime are the file's when it was read: a file of the same
	// size and time has nothing new.
	Size    int64
	ModTime time.Time
	// Checkpoint is the reader's checkpoint, as JSON.
	Checkpoint []byte
	UpdatedAt  time.Time
}
