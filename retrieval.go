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
	// LexicalCandidates returns the k best bm25 matches of the FTS5
	// expression match that f selects, best first.
	LexicalCandidates(ctx context.Context, f Filter, match string, k int) ([]LexicalCandidate, error)
	// LexicalScores returns the bm25 of match for each of chunkIDs of the
	// project that it matches.
	LexicalScores(ctx context.Context, projectID int64, match string, chunkIDs []string) (map[string]float64, error)
	// TermDocs returns the project's lexical statistics for tokens: its
	// row count and how many rows hold each token, the figures bm25 weighs
	// a term with.
	TermDocs(ctx context.Context, projectID int64, tokens []string) (TermDocs, error)
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

// TermDocs are the statistics of a project's lexical index that bm25 takes
// a single-token term's weight from.
type TermDocs struct {
	// Rows is the number of rows (chunks) in the project's lexical index.
	Rows int64
	// Docs maps each token asked about to the number of rows holding it;
	// a token no row holds maps to 0.
	Docs map[string]int64
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

// LexicalCandidate is a chunk found by the FTS5 match.
type LexicalCandidate struct {
	ChunkID string
	// BM25 is FTS5's bm25() score: negative, lower is a better match.
	BM25 float64
}
