package ragd

import (
	"encoding/json"
	"errors"
	"time"
)

// Telemetry: what a search and a vote leave behind, and what measure reads.

// Errors RecordFeedback returns besides ErrNotFound (no such search).
var (
	// ErrNotInHits means the voted chunk was not among the search's hits.
	ErrNotInHits = errors.New("chunk was not among the search's hits")
	// ErrChunkGone means the voted chunk was among the hits but a reindex
	// has since changed or removed it, and its votes with it.
	ErrChunkGone = errors.New("chunk no longer exists")
)

// Purposes of a search row. Evaluation searches never count in measurements.
const (
	PurposeSearch = "search"
	PurposeEval   = "eval"
)

// TelemetryHit is one hit as frozen in a rag_searches row.
type TelemetryHit struct {
	ChunkID string `json:"chunkId"`
	// Rank is 1-based.
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
	// VectorScore and LexicalScore are nil when that signal did not score
	// the chunk: null in the row, never 0.
	VectorScore  *float64 `json:"vectorScore"`
	LexicalScore *float64 `json:"lexicalScore"`
}

// SearchRecord is one rag_searches row.
type SearchRecord struct {
	ID        int64 // set by the database
	ProjectID int64
	Query     string
	Scopes    []string // empty: every scope
	Hits      []TelemetryHit
	// Weights is the JSON copy of the fusion settings at search time, stored
	// as given so that later changes to the settings never alter it.
	Weights         json.RawMessage
	Degraded        bool
	VectorAvailable bool
	LatencyMs       float64
	Actor           string
	SessionID       string // "" is stored as NULL: not from a session
	Purpose         string // PurposeSearch or PurposeEval; "" means PurposeSearch
	CreatedAt       time.Time
}

// FeedbackInput is one vote: a verdict on one chunk of one search.
type FeedbackInput struct {
	SearchID int64
	ChunkID  string
	Verdict  string // "useful" or "irrelevant"
	Actor    string
	// SessionID is "" (stored as NULL) when the vote did not come from a
	// session.
	SessionID string
	CreatedAt time.Time // zero: now
}

// FeedbackResult tells what RecordFeedback stored.
type FeedbackResult struct {
	// Rank is the chunk's 1-based rank, copied from the search's hits.
	Rank int
	// Previous is the verdict the vote replaced, "" for a first vote.
	Previous string
}

// Vote is one rag_feedback row.
type Vote struct {
	SearchID  int64
	ChunkID   string
	Rank      int
	Verdict   string
	Actor     string
	SessionID string
	CreatedAt time.Time
}

// TelemetryFilter selects the searches of a measurement window.
type TelemetryFilter struct {
	// ProjectID selects one project; 0 means every project.
	ProjectID int64
	// Since (inclusive) and Until (exclusive) bound the searches' creation
	// time.
	Since, Until time.Time
}

// SearchSummary is what a measurement needs of one rag_searches row.
type SearchSummary struct {
	ID              int64
	ProjectID       int64
	Query           string
	Weights         string // the frozen JSON, verbatim
	Degraded        bool
	VectorAvailable bool
	LatencyMs       float64
	Hits            int // number of hits the search returned
	CreatedAt       time.Time
}

// TelemetryWindow is the searches of a window and the votes on them, read in
// one snapshot.
type TelemetryWindow struct {
	Searches []SearchSummary // by creation time
	Votes    []Vote          // votes on Searches, by search and rank
}
