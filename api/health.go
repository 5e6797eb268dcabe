package api

import (
	"time"

	"github.com/ragd/ragd"
)

// Health is the answer of GET /v1/health.
type Health struct {
	Version   string          `json:"version"`
	Socket    string          `json:"socket"`
	Database  DatabaseHealth  `json:"database"`
	Embedding EmbeddingHealth `json:"embedding"`
	Index     IndexStats      `json:"index"`
	// Config is the configuration file the daemon read at start.
	Config ConfigHealth `json:"config"`
	// Backfill is the background vector fill; absent without an
	// embedding provider.
	Backfill *BackfillProgress `json:"backfill,omitempty"`
	// Space profiles the embedding space; absent while too few chunks have
	// a vector to measure it.
	Space *SpaceProfile `json:"space,omitempty"`
}

// BackfillProgress is what the background vector fill has done and has
// left: chunks written without a vector (a large reindex or import, or a
// provider that was down) get one at the provider's pace, newest first.
type BackfillProgress struct {
	// Pending counts the chunks without a vector, in every project.
	Pending int `json:"pending"`
	// Filled counts the vectors filled since the daemon started.
	Filled int `json:"filled"`
	// PerSecond is the recent fill rate; 0 before the first step.
	PerSecond float64 `json:"perSecond"`
	// ETASeconds is Pending at PerSecond; absent when the rate is unknown.
	ETASeconds *float64 `json:"etaSeconds,omitempty"`
	// LastError is the last step's failure, "" after a good step.
	LastError string `json:"lastError,omitempty"`
}

// ConfigHealth is the configuration file as the daemon read it: a client
// that finds the file changed since can say that the daemon runs on the old
// settings until it restarts.
type ConfigHealth struct {
	Path string `json:"path"`
	// ModTime is the file's modification time when the daemon read it;
	// absent when there was no file (the defaults).
	ModTime *time.Time `json:"modTime,omitempty"`
}

// DatabaseHealth describes the store.
type DatabaseHealth struct {
	Path          string `json:"path"`
	SchemaVersion int    `json:"schemaVersion"`
	SqliteVec     string `json:"sqliteVec"`
	Space         string `json:"space"`
	// Checks are the engine's own checks (a server's version, an
	// extension), for ragd doctor; absent for an engine without any.
	Checks []DatabaseCheck `json:"checks,omitempty"`
}

// DatabaseCheck is one check an engine makes of itself: one line of ragd
// doctor.
type DatabaseCheck struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	// Fix says how to repair what failed.
	Fix string `json:"fix,omitempty"`
}

// EmbeddingHealth is the state of the embedding provider, for the daemon's
// health route and `ragd doctor`.
type EmbeddingHealth struct {
	Provider       string `json:"provider"` // "ollama" or "openai"
	Host           string `json:"host"`     // base URL, e.g. http://127.0.0.1:11434 or http://127.0.0.1:8080/v1
	Model          string `json:"model"`    // as configured
	Dims           int    `json:"dims"`     // as the index expects
	Space          string `json:"space"`    // Space().String()
	DocumentPrefix string `json:"document_prefix"`
	QueryPrefix    string `json:"query_prefix"`
	Version        string `json:"version,omitempty"` // Ollama's, when reachable
	Available      bool   `json:"available"`
	Reason         string `json:"reason,omitempty"` // why not, when not available
	// Busy is set when not available because the server is up but does
	// not answer now (overloaded, or embedding a reindex): not down.
	Busy bool `json:"busy,omitempty"`
	// ContextLength is the model's input limit in tokens that texts are
	// cut to: configured, learned from the server, or the default.
	ContextLength int `json:"contextLength,omitempty"`
}

// IndexStats are the sizes of the index, for the daemon's health route.
type IndexStats struct {
	Projects int            `json:"projects"`
	Chunks   map[string]int `json:"chunks"` // by scope
	// Vectors counts chunks with a vector; LexicalOnly those without one.
	Vectors     int   `json:"vectors"`
	LexicalOnly int   `json:"lexicalOnly"`
	Sessions    int   `json:"sessions"`
	Events      int   `json:"events"`
	Searches    int   `json:"searches"`
	Votes       int   `json:"votes"`
	FileBytes   int64 `json:"fileBytes"` // the database file, without its WAL
}

// FromIndexStats returns s on the wire.
func FromIndexStats(s ragd.IndexStats) IndexStats { return IndexStats(s) }

// FromDatabaseCheck returns c on the wire.
func FromDatabaseCheck(c ragd.DatabaseCheck) DatabaseCheck { return DatabaseCheck(c) }

// FromDatabaseChecks returns cs on the wire.
func FromDatabaseChecks(cs []ragd.DatabaseCheck) []DatabaseCheck {
	return fromEach(cs, FromDatabaseCheck)
}

// FromEmbeddingHealth returns h on the wire.
func FromEmbeddingHealth(h ragd.EmbeddingHealth) EmbeddingHealth { return EmbeddingHealth(h) }

// FromBackfillProgress returns p on the wire.
func FromBackfillProgress(p ragd.BackfillProgress) BackfillProgress { return BackfillProgress(p) }
