package ragd

// What the daemon says of its own state: the index's sizes, the engine's
// and the embedding provider's checks, the background fill, the embedding
// space's profile (the health route, `ragd doctor`, `ragd eval`).

// IndexStats are the sizes of the index, for the daemon's health route.
type IndexStats struct {
	Projects int
	Chunks   map[string]int // by scope
	// Vectors counts chunks with a vector; LexicalOnly those without one.
	Vectors     int
	LexicalOnly int
	Sessions    int
	Events      int
	Searches    int
	Votes       int
	FileBytes   int64 // the database file, without its WAL
}

// DatabaseCheck is one check an engine makes of itself: one line of ragd
// doctor.
type DatabaseCheck struct {
	Name   string
	OK     bool
	Detail string
	// Fix says how to repair what failed.
	Fix string
}

// EmbeddingHealth is the state of the embedding provider, for the daemon's
// health route and `ragd doctor`.
type EmbeddingHealth struct {
	Provider       string // "ollama" or "openai"
	Host           string // base URL, e.g. http://127.0.0.1:11434 or http://127.0.0.1:8080/v1
	Model          string // as configured
	Dims           int    // as the index expects
	Space          string // Space().String()
	DocumentPrefix string
	QueryPrefix    string
	Version        string // Ollama's, when reachable
	Available      bool
	Reason         string // why not, when not available
	// Busy is set when not available because the server is up but does
	// not answer now (overloaded, or embedding a reindex): not down.
	Busy bool
	// ContextLength is the model's input limit in tokens that texts are
	// cut to: configured, learned from the server, or the default.
	ContextLength int
}

// BackfillProgress is what the background vector fill has done and has
// left: chunks written without a vector (a large reindex or import, or a
// provider that was down) get one at the provider's pace, newest first.
type BackfillProgress struct {
	// Pending counts the chunks without a vector, in every project.
	Pending int
	// Filled counts the vectors filled since the daemon started.
	Filled int
	// PerSecond is the recent fill rate; 0 before the first step.
	PerSecond float64
	// ETASeconds is Pending at PerSecond; nil when the rate is unknown.
	ETASeconds *float64
	// LastError is the last step's failure, "" after a good step.
	LastError string
}

// SpaceProfile is how flat the stored embedding space is: the mean cosine
// similarity of random pairs of chunks' vectors. Unrelated texts score
// near 0 in a space that tells them apart, 0.7–0.9 in a flat one
// (glove-100d), where weighted fusion's vector half scores every chunk
// high and exact keyword matches sink. Its JSON is part of an evaluation's
// report (eval.Report).
type SpaceProfile struct {
	Space string `json:"space"`
	// Pairs is how many random pairs were measured.
	Pairs        int     `json:"pairs"`
	RandomCosine float64 `json:"randomCosine"`
	// WeightedUnreliable is set when the configured weighted fusion is
	// unreliable in this space (search.Config.WeightedUnreliable); Advice
	// then says why and what to do.
	WeightedUnreliable bool   `json:"weightedUnreliable"`
	Advice             string `json:"advice,omitempty"`
}
