package ragd

import "time"

// Chunk is one stored, citable piece of a document or a session message.
type Chunk struct {
	// ID is stable across reindexes: the same source, position and content
	// keep it, so votes on unchanged chunks survive a reindex.
	ID        string
	ProjectID int64
	Scope     string
	// SourcePath and SourceCommit locate docs and adr chunks.
	SourcePath   string
	SourceCommit string
	// SessionID and EventID locate session chunks.
	SessionID string
	EventID   string

	HeadingPath []string
	Title       string
	Position    int
	Start, End  int // byte offsets of Content in the source
	Content     string
	ContentHash string
	// EmbeddingSpace is the space of the chunk's vector, "" when it has none
	// (lexical only).
	EmbeddingSpace string
	IndexedAt      time.Time
}
