package ragd

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// What the index writes and reads back: the store is the one implementation;
// index and daemon see these types only.

// ChunkInput is one chunk to write with ReplaceScope.
type ChunkInput struct {
	SourcePath   string // docs, adr
	SourceCommit string // docs, adr
	SessionID    string // session
	EventID      string // session

	HeadingPath []string
	Title       string
	Position    int
	Start, End  int
	Content     string
	ContentHash string
	// Vector in the store's embedding space, or nil when the provider could
	// not embed the text. A nil vector keeps the vector an unchanged chunk
	// already has: it was computed from the same text in the same space.
	Vector []float32
}

// ChunkID derives a chunk's stable id from its project, scope, source (path,
// or session and event), position and content hash.
func ChunkID(projectID int64, scope, source string, position int, contentHash string) string {
	h := sha256.New()
	fmt.Fprintf(h, "ragd-chunk-v1\x00%d\x00%s\x00%s\x00%d\x00%s", projectID, scope, source, position, contentHash)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// ReplaceResult counts what ReplaceScope did.
type ReplaceResult struct {
	Inserted int // new chunks
	Kept     int // unchanged chunks that kept their id (and votes)
	Deleted  int // chunks that vanished or changed, with their votes
	Vectors  int // chunks that have a vector after the replace
}

// ScopeStats describes the chunks of one scope of a project.
type ScopeStats struct {
	Chunks int
	// LexicalOnly counts chunks without a vector.
	LexicalOnly int
	// Unembeddable counts, by reason, the LexicalOnly chunks the model
	// refused for good (see Unembeddable): the fill does not retry them.
	Unembeddable map[string]int
	// Sources maps each source (the path for docs and adr, the session id
	// for session) to its number of chunks.
	Sources map[string]int
}

// ChunkState is what a reindex compares a stored chunk with, beside its id.
type ChunkState struct {
	// Vector reports whether the chunk has a vector.
	Vector bool
	// Unembeddable reports a chunk without a vector that the model
	// refused for good: a reindex does not ask again.
	Unembeddable bool
	SourceCommit string
	HeadingPath  []string
	Title        string
	Start, End   int
}

// SessionStats describes a project's session log against its session chunks.
// Messages are the events of the types asked for.
type SessionStats struct {
	// Sessions counts sessions with at least one message; SessionsIndexed
	// those of them that have chunks.
	Sessions, SessionsIndexed int
	// Messages counts messages; MessagesIndexed those that have chunks.
	Messages, MessagesIndexed int
	// LastAppended is when the latest message was stored; zero if none.
	LastAppended time.Time
	// UnindexedSince counts messages stored after the since argument that
	// have no chunk: appended without their chunks (by a store call that
	// was given none, or before appends were indexed), so a reindex of the
	// session scope would add them.
	UnindexedSince int
}

// ID returns the id ReplaceScope gives the chunk c in a project's scope, so
// that a caller can tell beforehand which chunks are already stored.
func (c *ChunkInput) ID(projectID int64, scope string) string {
	return ChunkID(projectID, scope, c.Source(scope), c.Position, c.ContentHash)
}

// RemovedTelemetry counts the telemetry rows RemoveProject deleted.
type RemovedTelemetry struct {
	Searches int // rag_searches rows
	Votes    int // rag_feedback rows, gone with their searches
}

// Statuses of an index run. A run that never finishes (its process was
// killed) stays RunRunning forever; nothing reads such a run as the last
// indexed state.
const (
	RunRunning = "running"
	RunOK      = "ok"
	RunFailed  = "failed"
)

// Run is one reindex of one scope of a project.
type Run struct {
	ID        int64
	ProjectID int64
	Scope     string
	Status    string
	// Commit is the commit the run read, "" when none (sessions, or a run
	// that failed before reading).
	Commit    string
	StartedAt time.Time
	// FinishedAt is zero while the run is running.
	FinishedAt time.Time
	// Report is the run's JSON report, "{}" until it finishes.
	Report json.RawMessage
}

// AppendResult counts what AppendEvents did.
type AppendResult struct {
	// Appended counts events stored by this call; ByType counts them by
	// event type.
	Appended int
	ByType   map[string]int
	// Duplicates counts events already stored with the same content: no-ops.
	Duplicates int
	// SessionsCreated counts sessions that did not exist before this call.
	SessionsCreated int
	// Conflicts are the events refused because their id is stored with
	// other content, in input order.
	Conflicts []EventConflict
	// Chunks counts the session chunks written for the events stored (see
	// store.Store.AppendSession); Retitled the chunks already stored whose
	// session got a new title, rewritten with it.
	Chunks, Retitled int
	// Unindexed counts the events stored of an indexed type (see Indexed)
	// that were given no chunk: only a reindex of the session scope makes
	// them searchable.
	Unindexed int
}

// SessionChunkTitle is the title a session's chunks carry: the session's
// title, or its id while it has none. A reindex and an append title chunks
// alike, so that a chunk is the same whichever way it was written.
func SessionChunkTitle(title, sessionID string) string {
	if title == "" {
		return sessionID
	}
	return title
}

// Message is an event to index, with the title of its session.
type Message struct {
	SessionID string
	// SessionTitle is the session's title, "" if it has none.
	SessionTitle string
	EventID      string
	Type         string
	Actor        string
	Text         string
	Time         time.Time
	// CreatedAt is when the store stored the event.
	CreatedAt time.Time
}

func (c *ChunkInput) Source(scope string) string {
	if scope == ScopeSession {
		return c.SessionID + "\x00" + c.EventID
	}
	return c.SourcePath
}

// Matches reports whether writing c with ReplaceScope would leave the stored
// chunk as it is: c's id is the stored chunk's, c brings no vector, and
// every field ReplaceScope updates is equal.
func (st ChunkState) Matches(c *ChunkInput) bool {
	return c.Vector == nil && st.SourceCommit == c.SourceCommit && st.Title == c.Title &&
		st.Start == c.Start && st.End == c.End && slices.Equal(st.HeadingPath, c.HeadingPath)
}

// LanguageChange is what SetLanguage did.
type LanguageChange struct {
	Project Project
	// Rebuilt is set when the lexical table was rebuilt for a new language;
	// Chunks is then the number of chunks it was rebuilt from.
	Rebuilt bool
	Chunks  int
}

// PendingVector is a chunk that has no vector yet.
type PendingVector struct {
	Seq         int64
	ProjectID   int64
	Scope       string
	Title       string
	HeadingPath []string
	Content     string
	ContentHash string
}

// Unembeddable marks a pending chunk whose text the embedding model will
// never embed: it stays lexical-only and leaves the fill's queue, for the
// store's embedding space.
type Unembeddable struct {
	Seq int64
	// ContentHash is the pending chunk's: a text changed since is not
	// marked.
	ContentHash string
	// Reason is why, as the provider answered, e.g. "ollama rejected the
	// request: the input length exceeds the context length".
	Reason string
}

// VectorFill is the vector computed for a pending chunk.
type VectorFill struct {
	Seq int64
	// ContentHash is the pending chunk's: a chunk whose text changed since
	// it was read is not given the old text's vector.
	ContentHash string
	Vector      []float32
}

// Rewriter rewrites stored session text (a redaction pass): the store
// applies it, the caller decides what changes. Each function returns its
// input unchanged when there is nothing to rewrite.
type Rewriter struct {
	// Text rewrites a text. count is false for chunks, whose text repeats
	// their event's, so that a caller counting what it finds counts once.
	Text func(s string, count bool) string
	// JSON rewrites a JSON document (an event payload, a checkpoint).
	JSON func(b []byte) []byte
}

// RewriteResult counts the rows a rewrite changed.
type RewriteResult struct {
	Events      int
	Sessions    int
	Chunks      int
	Checkpoints int
}
