package ragd

import "time"

// What a reindex did, and what the index of a project covers now (package
// index computes them; the daemon sends them).

// Statuses of a ScopeReport.
const (
	StatusOK        = "ok"
	StatusFailed    = "failed"
	StatusCancelled = "cancelled"
	// StatusNotRun is a scope not attempted because an earlier scope of the
	// same reindex failed.
	StatusNotRun = "not run"
)

// IndexReport is what a reindex did, scope by scope.
type IndexReport struct {
	Project string
	Scopes  []*ScopeReport
	// Complete is true only when every scope asked for was written and
	// every chunk of them has a vector.
	Complete bool
	// Summary is one line a CLI can print: the scopes' summaries joined.
	Summary    string
	StartedAt  time.Time
	DurationMs int64
}

// Progress is one step of a reindex. Done and Total count files (read and
// chunk of docs and adr), messages (read and chunk of session), texts
// (embed) or chunks (write, done). A phase reports when it starts (Done 0),
// at most about twenty times along the way, and when it ends. docs and adr
// share one read of the repository: it starts under the first of them, and
// each ends its read phase with its own files. A scope whose chunks all have
// vectors already reports no embed phase.
type Progress struct {
	Phase string
	Scope string
	Done  int
	// Failed counts what the phase tried and could not do: texts left
	// without a vector (embed). Done + Failed reaches Total when the phase
	// ends; the report says why.
	Failed int
	Total  int
}

// Coverage is what the index of a project covers now, against its sources.
type Coverage struct {
	Project string
	// Head is where HEAD points now; nil when the repository cannot be read
	// (see Notes).
	Head *Head
	// Running is set while a reindex of the project is in progress.
	Running bool
	// Notes are remarks, e.g. why the repository could not be read.
	Notes  []string
	Scopes []*ScopeCoverage
	// Language is the language in force for the project's text
	// (Project.LanguageInForce), LanguageSetting the project's own setting.
	Language        string
	LanguageSetting string
	// Layout is what the rules found where, and what they left out; nil
	// when the repository cannot be read.
	Layout *LayoutReport
}

// The background fill's progress and the space's profile are the daemon's,
// across projects: it adds them to a project's coverage on the wire.

// Head is a repository's HEAD.
type Head struct {
	Commit   string
	Branch   string
	Detached bool
	// WorkTree is set when documents are read from the working tree
	// (Indexer.Source.WorkTree), so Total counts the files on disk.
	WorkTree bool
}

// NoVectorReason counts the chunks left without a vector for one reason.
type NoVectorReason struct {
	Reason string
	Chunks int
}

// ScopeCoverage is one scope's coverage.
type ScopeCoverage struct {
	Scope string
	// Unit is what Total and Indexed count: "files" (the prose files the
	// rules choose, at HEAD) or "sessions" (sessions with indexed
	// messages).
	Unit string
	// Total sources and how many of them have chunks.
	Total   int
	Indexed int
	// Unindexed lists the first sources without chunks.
	Unindexed []string
	// Skipped counts chosen files the reader leaves out (Git LFS pointers,
	// files too large…); they are in Total, never in Indexed.
	Skipped int
	// Messages and MessagesIndexed count session messages (chat.message,
	// agent.response) and those with chunks.
	Messages        int
	MessagesIndexed int
	// Chunks in the scope; LexicalOnly of them have no vector.
	Chunks      int
	LexicalOnly int
	// Unembeddable says why some of the LexicalOnly chunks will never
	// get a vector from this model (the provider refused their text for
	// good, e.g. too long); the background fill does not retry them. The
	// others are waiting for the fill.
	Unembeddable []NoVectorReason
	// LastIndexed is when the last successful reindex of the scope ended,
	// and LastCommit what it read; nil and "" when there was none. A run
	// that failed, or never finished, does not count.
	LastIndexed *time.Time
	LastCommit  string
	// Stale is set when the sources changed since the last successful
	// reindex (HEAD moved, messages appended) or there was none; StaleReason
	// says how.
	Stale       bool
	StaleReason string
}

// LeftOut counts the prose files the rules left out for one reason; a
// folder not entered at all (node_modules, testdata) counts as one, its
// example ending in "/".
type LeftOut struct {
	Reason   string
	Count    int
	Examples []string
}

// Declared is a folder the project declares in a file of its own.
type Declared struct {
	File  string
	Dir   string
	Scope string
	// Missing is set for a folder that holds no prose (a stale
	// declaration): it is not used.
	Missing bool
	// Outside is set for a folder outside the repository (Dir is then the
	// name as written): it is not used either.
	Outside bool
}

// LayoutReport is what the rules found in a project's repository, and what they
// left out: so that an empty index is never silent.
type LayoutReport struct {
	// Settings are the project's own as set.
	Settings Layout
	Found    []Found
	LeftOut  []LeftOut
	Declared []Declared
	// Uncommitted names prose files in the working tree that are not in
	// the commit read (at most 20), when HEAD is read: what
	// `[index] work_tree = true` would add.
	Uncommitted []string
	// UncommittedCount is how many there are in all.
	UncommittedCount int
	// Notes are the reader's remarks: stale declarations, a configured ADR
	// folder that holds no prose, no prose at all.
	Notes []string
}

// Phases of a reindex, as Progress reports them.
const (
	PhaseRead  = "read"
	PhaseChunk = "chunk"
	PhaseEmbed = "embed"
	PhaseWrite = "write"
	PhaseDone  = "done"
)

// ScopeReport is what a reindex did to one scope. Its JSON is the report
// stored with the scope's index run (Run.Report): its tags are that
// format, read back by coverage and the explanation of hits.
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
	// Notes are remarks about the whole read, e.g. "no prose files at HEAD".
	Notes []string `json:"notes"`
	// Found groups the documents read by the rule that chose them (docs,
	// adr).
	Found []Found `json:"found,omitempty"`
	// Rules is the version of the rules that find documents the scope was
	// read with: a scope read by older rules is stale.
	Rules int `json:"rules,omitempty"`
	// Settings is a digest of the settings that say what is read (the
	// project's include, exclude, ADR folders and switches, and the
	// daemon's excludes) the scope was read with: a scope whose settings
	// changed since is stale. Absent in runs from before it was recorded.
	Settings string `json:"settings,omitempty"`

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
	// Unusable is set with ProviderDown when the provider answered, but
	// with no usable vector (a refused key, an answer that is not
	// embeddings, vectors of another length or all zero): the background
	// fill gets the same answers until the provider or the configuration
	// is fixed.
	Unusable bool `json:"unusable,omitempty"`
	// Deferred counts the texts left to the background vector fill: the
	// scope needed more new vectors than a reindex embeds before writing
	// (Indexer.InlineVectors), so its chunks were written at once, lexical
	// only, and get their vectors at the provider's pace. Failed does not
	// count them.
	Deferred int `json:"deferred,omitempty"`
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

// Found is a group of documents read into one scope by one rule.
type Found struct {
	Scope string `json:"scope"`
	// Rule says it as a person reads it: "doc/adr/ (from .adr-dir)",
	// "docs/ (docs folder)", "root file", "package README".
	Rule string `json:"rule"`
	// Kind, Dir and From are the rule's parts (source.Rule).
	Kind  string `json:"kind"`
	Dir   string `json:"dir,omitempty"`
	From  string `json:"from,omitempty"`
	Files int    `json:"files"`
}
