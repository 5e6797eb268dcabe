package ragd

import "errors"

// What appending and importing session events did (package index does it;
// the daemon sends these).

// Conflict is an event refused because its id is stored with other content.
type Conflict struct {
	EventID string
	// Fields names what differs ("sessionId", "type", "actor", "text",
	// "time", "payload").
	Fields []string
	// Error is the conflict as a sentence.
	Error string
}

// AppendReport counts what appending events did (the store's
// AppendResult, as a project's events route answers it).
type AppendReport struct {
	// Appended counts events stored; Messages those of them that are
	// indexed (chat.message, agent.response).
	Appended int
	Messages int
	// Chunks counts the chunks written for the new messages, in the same
	// transaction: they search lexically at once, and get vectors from the
	// background fill.
	Chunks int
	// Unindexed counts new messages left without chunks, which only a
	// reindex of the session scope indexes; 0 but for a store written
	// without them.
	Unindexed int
	// Duplicates counts events already stored with the same content.
	Duplicates      int
	SessionsCreated int
	// Conflicts are events refused: their id is stored with other content.
	Conflicts []Conflict
	// Redactions counts the secrets redacted from the events before they
	// were stored, by kind.
	Redactions map[string]int
}

// ImportReport counts what ImportEvents did.
type ImportReport struct {
	// Lines counts the lines read, blank ones included; Events the valid
	// events among them.
	Lines  int
	Events int
	AppendReport
	// Bad counts malformed lines; LineErrors lists the first
	// source.MaxLineErrors of them with their line numbers.
	Bad        int
	LineErrors []LineError
}

// RedactedProject counts the rows of one project a pass rewrote.
type RedactedProject struct {
	Project     string
	Events      int
	Sessions    int
	Chunks      int
	Checkpoints int
}

// Err returns the conflicts as one error matching ErrEventConflict, or nil.
func (r AppendReport) Err() error {
	var errs []error
	for _, c := range r.Conflicts {
		errs = append(errs, EventConflict{EventID: c.EventID, Fields: c.Fields})
	}
	return errors.Join(errs...)
}

// TranscriptProgress is how far an import is: files done of those found,
// and the messages read so far.
type TranscriptProgress struct {
	Done     int
	Total    int
	File     string
	Messages int
}

// TranscriptReport is what an import (or a follower's pass) did.
type TranscriptReport struct {
	Format string
	// Paths are where transcripts were looked for.
	Paths []string
	// Files counts the transcripts found; Unchanged those with nothing new
	// since the last import (not read); Resumed those read from where the
	// last import stopped.
	Files int
	// Unreadable lists the first folders (and paths) that could not be
	// read, each as its error; UnreadableCount counts them all. They were
	// skipped: the rest was imported.
	Unreadable      []string
	UnreadableCount int
	// LookedFor, when no transcript was found, says what was looked for
	// ("rollout-*.jsonl files").
	LookedFor string
	Unchanged int
	Resumed   int
	// Lines, Records and Sessions count what was read.
	Lines    int
	Records  int
	Sessions int
	// Messages and Mechanism count the events read: conversation (to be
	// indexed) and the rest (tool calls, thinking, ...: stored, not
	// indexed).
	Messages  int
	Mechanism int
	// Stored counts what was new: events appended, of which Indexed are
	// messages (searchable at once: their Chunks are written with them) and
	// Kept mechanism events; Duplicates were already stored.
	Appended        int
	Indexed         int
	Chunks          int
	Kept            int
	Duplicates      int
	SessionsCreated int
	Conflicts       []Conflict
	// Skipped counts records and parts left out on purpose, by reason.
	Skipped map[string]int
	// Malformed counts unreadable lines; LineErrors lists the first of
	// them as file:line.
	Malformed  int
	LineErrors []FileLineError
	// Incomplete counts files whose last line was still being written: it
	// is read next time.
	Incomplete int
	// Redactions counts the secrets redacted, by kind.
	Redactions map[string]int
	// Projects says where the sessions went.
	Projects []ProjectImport
	// Unregistered are the sessions of folders no registered project
	// contains: not imported. Register the repository (ragd add) or import
	// them into a project with Project.
	Unregistered      []UnregisteredSession
	UnregisteredCount int
	// Forgotten counts events of sessions forgotten on purpose, left out.
	Forgotten  int
	DurationMs int64
}

// FileLineError is a malformed line of a file, left out.
type FileLineError struct {
	File   string
	Line   int
	Reason string
}

// ProjectImport counts what an import appended to one project.
type ProjectImport struct {
	Project  string
	Sessions int
	Appended int
	Indexed  int
}

// UnregisteredSession is a session whose folder no registered project
// contains.
type UnregisteredSession struct {
	Session string
	// Cwd is the folder it ran in; "" when the transcript does not say
	// (Gemini names only a hash of it, in ProjectHash).
	Cwd         string
	ProjectHash string
	File        string
}
