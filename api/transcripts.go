package api

import (
	"net/url"

	"github.com/ragd/ragd"
)

// Paths of the transcript routes.
const (
	PathTranscriptsImport = Version + "/transcripts/import"
	PathTranscriptsFollow = Version + "/transcripts/follow"
)

// SessionPath is the path of one session of a project: DELETE forgets it.
func SessionPath(project, sessionID string) string {
	return ProjectPath(project, "/sessions/"+url.PathEscape(sessionID))
}

// TranscriptImportRequest is the body of POST /v1/transcripts/import: read
// a coding agent's transcripts and append their sessions to the projects
// they ran in.
type TranscriptImportRequest struct {
	// Format is claude-code, codex, gemini or aider.
	Format string `json:"format"`
	// Paths are absolute files or folders to read. Optional: none means the
	// tool's standard location as the daemon's environment gives it (for
	// Aider, every registered project's repository).
	Paths []string `json:"paths,omitempty"`
	// Project, when set, imports every session into this project, whatever
	// folder it ran in (a folder that no longer exists, a repository not
	// registered). Optional: by default each session goes to the registered
	// project whose repository contains its folder, and sessions of other
	// folders are listed, not imported.
	Project string `json:"project,omitempty"`
	// KeepRaw keeps each event's source record, unredacted, as its payload.
	// Optional; off by default, since transcripts hold pasted secrets.
	KeepRaw bool `json:"keepRaw,omitempty"`
}

// TranscriptImportEvent is one line of an import's progress stream:
// progress lines, then one line with the report (or the error).
type TranscriptImportEvent = StreamEvent[TranscriptProgress, TranscriptReport]

// TranscriptProgress is how far an import is: files done of those found,
// and the messages read so far.
type TranscriptProgress struct {
	Done     int    `json:"done"`
	Total    int    `json:"total"`
	File     string `json:"file,omitempty"`
	Messages int    `json:"messages"`
}

// TranscriptReport is what an import (or a follower's pass) did.
type TranscriptReport struct {
	Format string `json:"format"`
	// Paths are where transcripts were looked for.
	Paths []string `json:"paths"`
	// Files counts the transcripts found; Unchanged those with nothing new
	// since the last import (not read); Resumed those read from where the
	// last import stopped.
	Files int `json:"files"`
	// Unreadable lists the first folders (and paths) that could not be
	// read, each as its error; UnreadableCount counts them all. They were
	// skipped: the rest was imported.
	Unreadable      []string `json:"unreadable,omitempty"`
	UnreadableCount int      `json:"unreadableCount,omitempty"`
	// LookedFor, when no transcript was found, says what was looked for
	// ("rollout-*.jsonl files").
	LookedFor string `json:"lookedFor,omitempty"`
	Unchanged int    `json:"unchanged"`
	Resumed   int    `json:"resumed"`
	// Lines, Records and Sessions count what was read.
	Lines    int `json:"lines"`
	Records  int `json:"records"`
	Sessions int `json:"sessions"`
	// Messages and Mechanism count the events read: conversation (to be
	// indexed) and the rest (tool calls, thinking, ...: stored, not
	// indexed).
	Messages  int `json:"messages"`
	Mechanism int `json:"mechanism"`
	// Stored counts what was new: events appended, of which Indexed are
	// messages (searchable at once: their Chunks are written with them) and
	// Kept mechanism events; Duplicates were already stored.
	Appended        int        `json:"appended"`
	Indexed         int        `json:"indexed"`
	Chunks          int        `json:"chunks"`
	Kept            int        `json:"kept"`
	Duplicates      int        `json:"duplicates"`
	SessionsCreated int        `json:"sessionsCreated"`
	Conflicts       []Conflict `json:"conflicts"`
	// Skipped counts records and parts left out on purpose, by reason.
	Skipped map[string]int `json:"skipped"`
	// Malformed counts unreadable lines; LineErrors lists the first of
	// them as file:line.
	Malformed  int             `json:"malformed"`
	LineErrors []FileLineError `json:"lineErrors"`
	// Incomplete counts files whose last line was still being written: it
	// is read next time.
	Incomplete int `json:"incomplete"`
	// Redactions counts the secrets redacted, by kind.
	Redactions map[string]int `json:"redactions"`
	// Projects says where the sessions went.
	Projects []ProjectImport `json:"projects"`
	// Unregistered are the sessions of folders no registered project
	// contains: not imported. Register the repository (ragd add) or import
	// them into a project with Project.
	Unregistered      []UnregisteredSession `json:"unregistered"`
	UnregisteredCount int                   `json:"unregisteredCount"`
	// Forgotten counts events of sessions forgotten on purpose, left out.
	Forgotten  int   `json:"forgotten"`
	DurationMs int64 `json:"durationMs"`
}

// FileLineError is a malformed line of a file, left out.
type FileLineError struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// ProjectImport counts what an import appended to one project.
type ProjectImport struct {
	Project  string `json:"project"`
	Sessions int    `json:"sessions"`
	Appended int    `json:"appended"`
	Indexed  int    `json:"indexed"`
}

// UnregisteredSession is a session whose folder no registered project
// contains.
type UnregisteredSession struct {
	Session string `json:"session"`
	// Cwd is the folder it ran in; "" when the transcript does not say
	// (Gemini names only a hash of it, in ProjectHash).
	Cwd         string `json:"cwd,omitempty"`
	ProjectHash string `json:"projectHash,omitempty"`
	File        string `json:"file"`
}

// Forgotten is the answer of DELETE /v1/projects/{project}/sessions/{id}.
type Forgotten struct {
	Project string `json:"project"`
	Session string `json:"session"`
	Events  int    `json:"events"`
	Chunks  int    `json:"chunks"`
}

// FollowStatus is the answer of GET /v1/transcripts/follow: what the daemon
// follows, as configured by [sessions] follow.
type FollowStatus struct {
	// Formats lists every format; Followed says whether it is configured.
	Formats []FollowedFormat `json:"formats"`
}

// FollowedFormat is one format's follower.
type FollowedFormat struct {
	Format   string `json:"format"`
	Followed bool   `json:"followed"`
	// Paths are the folders watched (or that would be), Watching how many
	// folders are watched now.
	Paths    []string `json:"paths"`
	Watching int      `json:"watching"`
	// Last is the report of the follower's latest pass, nil before one.
	Last  *TranscriptReport `json:"last,omitempty"`
	Error string            `json:"error,omitempty"`
}

// SessionsQuery selects the sessions of GET /v1/projects/{project}/sessions.
// Every field is optional.
type SessionsQuery struct {
	// Since is an RFC 3339 time or a duration back from now ("7d", "36h"):
	// the sessions whose last event is at or after it.
	Since string
	// From is a transcript format ("codex"): the sessions imported from it.
	From string
}

// Encode returns q as a query string, with its "?" ("" when q is empty).
func (q SessionsQuery) Encode() string {
	v := url.Values{}
	for _, kv := range [][2]string{{"since", q.Since}, {"from", q.From}} {
		if kv[1] != "" {
			v.Set(kv[0], kv[1])
		}
	}
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

// SessionList is the answer of GET /v1/projects/{project}/sessions: the
// project's sessions, the most recent first.
type SessionList struct {
	Project  string             `json:"project"`
	Sessions []ragd.SessionInfo `json:"sessions"`
}

// Conversation is the answer of GET /v1/projects/{project}/sessions/{session}:
// the session and all its events in time order, mechanism included.
type Conversation struct {
	Project string           `json:"project"`
	Session ragd.SessionInfo `json:"session"`
	Events  []ragd.Event     `json:"events"`
}
