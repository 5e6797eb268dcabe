package index

import (
	"fmt"
	"strings"
	"time"
)

// Report is what a reindex did, scope by scope. The daemon returns it as is.
type Report struct {
	Project string         `json:"project"`
	Scopes  []*ScopeReport `json:"scopes"`
	// Complete is true only when every scope asked for was written and
	// every chunk of them has a vector.
	Complete bool `json:"complete"`
	// Summary is one line a CLI can print: the scopes' summaries joined.
	Summary    string    `json:"summary"`
	StartedAt  time.Time `json:"startedAt"`
	DurationMs int64     `json:"durationMs"`
}

// Statuses of a ScopeReport.
const (
	StatusOK        = "ok"
	StatusFailed    = "failed"
	StatusCancelled = "cancelled"
	// StatusNotRun is a scope not attempted because an earlier scope of the
	// same reindex failed.
	StatusNotRun = "not run"
)

// ScopeReport is what a reindex did to one scope. It is also the report
// stored with the scope's index run.
type ScopeReport struct {
	Scope  string `json:"scope"`
	Status string `json:"status"`
	// RunID is the index run recorded for this scope.
	RunID int64  `json:"runId"`
	Error string `json:"error,omitempty"`

	// Commit is the commit the documents were read from (docs, adr);
	// WorkTree is set when they were read from the working tree instead.
	Commit   string `json:"commit,omitempty"`
	Branch   string `json:"branch,omitempty"`
	WorkTree bool   `json:"workTree,omitempty"`
	// Files counts the documents read (docs, adr), those that gave no chunk
	// included; Bytes is their size.
	Files int `json:"files,omitempty"`
	// Digest identifies the documents read: the SHA-256 of their paths and
	// contents. Coverage compares it in working-tree mode, where the
	// commit says nothing of the files.
	Digest string `json:"digest,omitempty"`
	Bytes  int64  `json:"bytes"`
	// Sessions and Messages count what was read of the session log.
	Sessions int `json:"sessions,omitempty"`
	Messages int `json:"messages,omitempty"`
	// EventsThrough is when the latest message read was appended: later
	// ones make the session scope stale.
	EventsThrough *time.Time `json:"eventsThrough,omitempty"`

	Chunks ChunkCounts `json:"chunks"`
	// Unchanged is set when the scope already held exactly these chunks:
	// nothing was written.
	Unchanged bool `json:"unchanged"`
	// Vectors and LexicalOnly count the scope's chunks with and without a
	// vector after the write.
	Vectors     int `json:"vectors"`
	LexicalOnly int `json:"lexicalOnly"`
	// Complete is true when the scope was written and every chunk of it
	// has a vector.
	Complete  bool            `json:"complete"`
	Embedding EmbeddingReport `json:"embedding"`

	// Skipped are inputs not indexed, with why: the files the git reader
	// left out, files with nothing to index, and files the chunker failed
	// on.
	Skipped []Input `json:"skipped"`
	// Replaced are inputs indexed with their invalid UTF-8 or NUL bytes
	// replaced by U+FFFD: indexed, but not as written.
	Replaced []Input `json:"replaced"`
	// Notes are remarks about the whole read, e.g. "no docs/ folder at HEAD".
	Notes []string `json:"notes"`

	Durations Durations `json:"durations"`
	Summary   string    `json:"summary"`
}

// ChunkCounts is what the write did: Total chunks in the scope after it, of
// which Inserted are new and Kept unchanged (same id); Deleted are chunks
// that vanished or changed.
type ChunkCounts struct {
	Total    int `json:"total"`
	Inserted int `json:"inserted"`
	Kept     int `json:"kept"`
	Deleted  int `json:"deleted"`
}

// EmbeddingReport is what embedding did for one scope.
type EmbeddingReport struct {
	// Space is the embedder's embedding space, "" without one.
	Space string `json:"space,omitempty"`
	// Available is false when some chunk that needed a vector got none.
	Available bool `json:"available"`
	// Embedded counts vectors computed by the provider; Cached those found
	// in the embedding cache; Reused the chunks unchanged since the last
	// reindex that kept their vector without asking the embedder.
	Embedded int `json:"embedded"`
	Cached   int `json:"cached"`
	Reused   int `json:"reused"`
	// Skipped counts blank texts (nothing to embed); Failed the texts left
	// without a vector.
	Skipped int `json:"skipped"`
	Failed  int `json:"failed"`
	// Calls counts requests to the provider.
	Calls  int    `json:"calls"`
	Reason string `json:"reason,omitempty"`
	// ProviderDown is set when the provider was found down during this
	// reindex (timeout, connection refused, model missing…): from then on
	// it was not asked again, and the remaining chunks were written
	// lexical only.
	ProviderDown bool `json:"providerDown,omitempty"`
}

// Input is a source that was skipped or altered, and why: a file (Path) or
// a session message (SessionID, EventID).
type Input struct {
	Path      string `json:"path,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
	EventID   string `json:"eventId,omitempty"`
	Reason    string `json:"reason"`
	// Size is the file's size for "file too large", and the real content's
	// size for a Git LFS pointer.
	Size int64 `json:"size,omitempty"`
}

// Durations are the phases' wall times in milliseconds. docs and adr share
// one read of the tree: both report its duration.
type Durations struct {
	ReadMs  int64 `json:"readMs"`
	ChunkMs int64 `json:"chunkMs"`
	EmbedMs int64 `json:"embedMs"`
	WriteMs int64 `json:"writeMs"`
	TotalMs int64 `json:"totalMs"`
}

func ms(d time.Duration) int64 { return d.Milliseconds() }

func newScopeReport(scope string) *ScopeReport {
	return &ScopeReport{Scope: scope, Status: StatusNotRun, Skipped: []Input{}, Replaced: []Input{}, Notes: []string{}}
}

// summarize fills the Summary of a finished scope report.
func (sr *ScopeReport) summarize() {
	var b strings.Builder
	b.WriteString(sr.Scope + ": ")
	switch sr.Status {
	case StatusFailed:
		b.WriteString("failed: " + sr.Error)
		sr.Summary = b.String()
		return
	case StatusCancelled, StatusNotRun:
		b.WriteString(sr.Status)
		sr.Summary = b.String()
		return
	}
	if sr.Scope == "session" {
		fmt.Fprintf(&b, "%s, %s", plural(sr.Sessions, "session"), plural(sr.Messages, "message"))
	} else {
		b.WriteString(plural(sr.Files, "file"))
		if sr.WorkTree {
			b.WriteString(" (working tree)")
		}
	}
	c := sr.Chunks
	if sr.Unchanged {
		fmt.Fprintf(&b, ", %s (unchanged)", plural(c.Total, "chunk"))
	} else {
		fmt.Fprintf(&b, ", %s (%d new, %d kept, %d deleted)", plural(c.Total, "chunk"), c.Inserted, c.Kept, c.Deleted)
	}
	if n := len(sr.Skipped); n > 0 {
		fmt.Fprintf(&b, ", %d skipped", n)
	}
	if n := len(sr.Replaced); n > 0 {
		fmt.Fprintf(&b, ", %d with bad bytes replaced", n)
	}
	if len(sr.Notes) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(sr.Notes, "; "))
	}
	reason := sr.Embedding.Reason
	if reason == "" {
		reason = "no vector"
	}
	switch {
	case c.Total == 0:
	case sr.LexicalOnly == 0:
		b.WriteString(", all with vectors")
	case sr.Vectors == 0:
		b.WriteString(", lexical only: " + reason)
	default:
		fmt.Fprintf(&b, ", %d lexical only: %s", sr.LexicalOnly, reason)
	}
	sr.Summary = b.String()
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// finish fills the report's totals from its scopes.
func (r *Report) finish(took time.Duration) {
	r.Complete = len(r.Scopes) > 0
	var parts []string
	for _, sr := range r.Scopes {
		if sr.Summary == "" {
			sr.summarize()
		}
		parts = append(parts, sr.Summary)
		r.Complete = r.Complete && sr.Complete
	}
	r.Summary = strings.Join(parts, "; ")
	r.DurationMs = ms(took)
}
