package ragd

import "context"

// What a search reads: one snapshot's raw candidates of each signal.

// Snapshot is one consistent read of an index: both signals' candidates and
// the chunks they name come from the same state, whatever a reindex commits
// meanwhile. The store returns raw candidates; the search merges, weighs and
// cuts them. A Snapshot is used by one goroutine and must be closed.
type Snapshot interface {
	// VectorCandidates returns the k chunks nearest vec (a unit vector of
	// the index's space) that f selects, nearest first.
	VectorCandidates(ctx context.Context, f Filter, vec []float32, k int) ([]VectorCandidate, error)
	// VectorDistances returns the distance of each of chunkIDs that has a
	// vector to vec.
	VectorDistances(ctx context.Context, vec []float32, chunkIDs []string) (map[string]float64, error)
	// LexicalCandidates returns the k chunks f selects that best match q,
	// best first, with what the engine made of q: its own rendering of it
	// and the words it left out as negligible.
	LexicalCandidates(ctx context.Context, f Filter, q LexicalQuery, k int) (LexicalMatches, error)
	// LexicalScores returns the lexical score of q (higher is better, on
	// LexicalCandidates' scale) of each of chunkIDs of the project that q
	// matches; the others are absent.
	LexicalScores(ctx context.Context, projectID int64, q LexicalQuery, chunkIDs []string) (map[string]float64, error)
	// LexicalLanguage names the language the project's lexical index was
	// analysed in, as the snapshot sees it: a query is analysed the same way.
	LexicalLanguage(ctx context.Context, projectID int64) (string, error)
	// Chunks returns the chunks with ids, in no particular order.
	Chunks(ctx context.Context, ids []string) ([]Chunk, error)
	// VectorCoverage counts the chunks f selects and how many of them have
	// a vector: the others wait for the background fill, and the vector
	// signal cannot find them.
	VectorCoverage(ctx context.Context, f Filter) (chunks, vectors int, err error)
	Close() error
}

// Filter selects the chunks a candidate query may return.
type Filter struct {
	ProjectID int64
	// Scopes to search; empty means every scope.
	Scopes []string
}

// VectorCandidate is a chunk found by the vector KNN.
type VectorCandidate struct {
	ChunkID string
	// Distance is the cosine distance 1 - cos(query, chunk), in [0, 2].
	Distance float64
}

// LexicalTerm is one analysed term: its tokens must be adjacent and in
// order (a phrase when more than one); with Prefix the last token matches
// any token it begins.
type LexicalTerm struct {
	// Word is the user's word or phrase the term came from: what
	// explanations and LexicalMatches.Dropped name.
	Word string
	// Tokens are analysed by package lexical in the query's Language.
	Tokens []string
	Prefix bool
}

// LexicalQuery is a lexical search: chunks holding any of Terms and none
// of Excluded. Each engine renders it in its own syntax; no token is ever
// syntax.
type LexicalQuery struct {
	// Language is the analysis the tokens come from (lexical.Language).
	Language string
	Terms    []LexicalTerm
	Excluded []LexicalTerm
	// KeepFrequent asks the engine to search every term, even those it
	// would leave out as negligible (Dropped is then empty): for comparing
	// rankings and costs with and without. An engine that leaves nothing
	// out ignores it.
	KeepFrequent bool
}

// LexicalMatches is what an engine found for a LexicalQuery.
type LexicalMatches struct {
	// Candidates are the matches, best first.
	Candidates []LexicalCandidate
	// Expression is the engine's own rendering of the query it ran (an FTS5
	// MATCH expression, a tsquery), for explanations; "" when the query has
	// no term.
	Expression string
	// Dropped are the Words of Terms the engine left out as negligible
	// (SQLite: terms at the bm25 idf floor); nil when none was.
	Dropped []string
}

// LexicalCandidate is a chunk found by the lexical match.
type LexicalCandidate struct {
	ChunkID string
	// Score is the engine's relevance of the chunk to the query: higher is
	// better (SQLite: −bm25; PostgreSQL: Σ idf·ts_rank over
	// the query's terms, store/postgres/rank.go).
	Score float64
}
