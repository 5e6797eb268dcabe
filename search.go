package ragd

import "strings"

// The search's vocabulary and bounds, said once for every layer: package
// search defines its Fusion values and limits from these, and package api
// spells them on the wire.
const (
	// FusionWeighted blends the two signals' scores; FusionRRF fuses their
	// ranks (reciprocal rank fusion).
	FusionWeighted = "weighted"
	FusionRRF      = "rrf"
	// MaxSearchLimit bounds the hits of one search: more is a dump, not a
	// citation.
	MaxSearchLimit = 20
	// MaxQueryLength is the longest query, in characters after trimming: a
	// question, not a document.
	MaxQueryLength = 1000
)

// Fusions lists the fusions a search takes, the default first.
func Fusions() []string { return []string{FusionWeighted, FusionRRF} }

// fusionSummaries says in a few words what each fusion does.
var fusionSummaries = map[string]string{
	FusionWeighted: "score blend",
	FusionRRF:      "reciprocal rank fusion",
}

// FusionChoices names the fusions for help texts and the MCP tool's
// schema, each with what it does: "weighted (score blend) or rrf
// (reciprocal rank fusion)".
func FusionChoices() string {
	var parts []string
	for _, f := range Fusions() {
		parts = append(parts, f+" ("+fusionSummaries[f]+")")
	}
	return strings.Join(parts, " or ")
}

// SearchResult is the answer of one search of one project, before the
// daemon adds what it knows of the project (its name, stale scopes).
type SearchResult struct {
	// SearchID identifies the telemetry row votes refer to; nil when
	// recording it failed: there is nothing to vote on, which is not the
	// same as having found nothing.
	SearchID *int64
	Hits     []Hit // never nil
	// VectorAvailable is false when the query could not be embedded; the
	// search then ran on the lexical signal alone, and Degraded is true.
	VectorAvailable bool
	Degraded        bool
	// Reason says why the search was degraded or found nothing to search for.
	Reason        string
	Weights       AppliedWeights
	Fusion        string
	Normalization string
	Fill          bool
	// RRFK is the k of reciprocal rank fusion; 0 for weighted fusion.
	RRFK int
	// VectorCoverage says how many of the searched chunks had a vector;
	// nil when the query had nothing to search for.
	VectorCoverage *VectorCoverage
	// LatencyMs is the time from the request to the answer, query embedding
	// included, telemetry write excluded.
	LatencyMs float64
	// Explain is set when the request asked for it.
	Explain *Explain
}

// VectorCoverage counts the chunks a search looked in and those of them
// with a vector. The others (written while the provider was down, or
// waiting for the background fill after a large import) are found by the
// lexical signal only, until their vector is filled.
type VectorCoverage struct {
	Chunks  int
	Vectors int
	// Share is Vectors / Chunks, 1 when there are no chunks.
	Share float64
}

// NewVectorCoverage returns the coverage of vectors among chunks.
func NewVectorCoverage(chunks, vectors int) *VectorCoverage {
	c := &VectorCoverage{Chunks: chunks, Vectors: vectors, Share: 1}
	if chunks > 0 {
		c.Share = float64(vectors) / float64(chunks)
	}
	return c
}

// AppliedWeights are the weights and threshold the fusion used. All three
// are nil under RRF, which uses neither.
type AppliedWeights struct {
	Vector    *float64
	Lexical   *float64
	Threshold *float64
}

// Hit is one result: the citation contract.
type Hit struct {
	ChunkID string
	// Rank is 1-based: the position in Hits, and what a vote records.
	Rank    int
	Content string
	Score   float64
	// VectorScore and LexicalScore are nil when that signal did not score
	// the chunk, never 0.
	VectorScore  *float64
	LexicalScore *float64
	Scope        string
	Origin       Origin
	// Explain is set when the request asked for it.
	Explain *HitExplain
}

// HitExplain answers "why was this found" for one hit.
type HitExplain struct {
	// VectorRank and LexicalRank are the hit's 1-based ranks in the
	// candidate lists; nil when that list does not hold it.
	VectorRank  *int
	LexicalRank *int
	// Distance is the raw cosine distance and Lexical the store's raw
	// lexical score (higher is better; SQLite: −bm25, PostgreSQL: an
	// idf-weighted ts_rank); nil when that signal did not score the hit. A
	// score with a nil rank was filled.
	Distance *float64
	Lexical  *float64
	// Rule is, for a file, the rule that read it into its scope at the last
	// reindex ("doc/adr/ (from .adr-dir)", "root file").
	Rule string
}

// Explain holds what both signals found before fusion.
type Explain struct {
	// Match is the store's rendering of the lexical query it ran (SQLite:
	// an FTS5 expression); "" when it had no searchable word.
	Match string
	// Dropped are the query's words the store left out of Match as
	// negligible (SQLite: each is in half the project's chunks or more,
	// where bm25 weighs it nothing, and a rarer word was searched).
	Dropped []string
	// Vector is the KNN candidate list, nearest first.
	Vector []ExplainCandidate
	// Lexical is the lexical candidate list, best first.
	Lexical []ExplainCandidate
}

// ExplainCandidate is one entry of a candidate list.
type ExplainCandidate struct {
	ChunkID string
	Rank    int
	// Distance (vector list) or Lexical (lexical list, higher is better):
	// the raw score.
	Distance *float64
	Lexical  *float64
}

// RecordedVote is a vote as the feedback route answers it: what was stored,
// and the verdict it replaced ("" for a first vote).
type RecordedVote struct {
	SearchID int64
	ChunkID  string
	Rank     int // copied from the search's hits
	Verdict  string
	Replaced string
}
