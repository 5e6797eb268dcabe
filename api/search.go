package api

import "github.com/ragd/ragd"

// The search route's vocabulary and bounds: the domain's (ragd), as the
// wire spells them.
const (
	FusionWeighted = ragd.FusionWeighted
	FusionRRF      = ragd.FusionRRF
	MaxLimit       = ragd.MaxSearchLimit
	MaxQueryLength = ragd.MaxQueryLength
)

// Fusions lists the fusions the search route takes, the default first.
func Fusions() []string { return ragd.Fusions() }

// FusionChoices names the fusions for help texts and the MCP tool's
// schema (ragd.FusionChoices).
func FusionChoices() string { return ragd.FusionChoices() }

// SearchRequest is the body of POST /v1/projects/{project}/search.
type SearchRequest struct {
	Query  string   `json:"query"`
	Scopes []string `json:"scopes,omitempty"` // docs, adr, session; none = all
	// Limit is the number of hits, 1..20; absent = the configured default.
	Limit   *int   `json:"limit,omitempty"`
	Fusion  string `json:"fusion,omitempty"` // weighted | rrf; absent = configured
	Explain bool   `json:"explain,omitempty"`
	// Actor is person (default), agent, or agent:NAME for a named agent
	// (the MCP server sends its client's name); SessionID the session the
	// search comes from, if any: it then also lands in that session's event
	// log.
	Actor     string `json:"actor,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
}

// SearchResponse is the search's answer plus what the daemon knows about
// the index: the scopes whose source moved since they were indexed.
type SearchResponse struct {
	*SearchResult
	Project string   `json:"project"`
	Stale   []string `json:"stale"`
	// Notice is said once, on the daemon's first search of a weighted
	// fusion its embedding space makes unreliable (SpaceProfile.Advice).
	Notice string `json:"notice,omitempty"`
	// Limit is the most hits the search could answer: the request's limit,
	// or the configured default when it gave none (a search of every
	// project cuts its merged list there).
	Limit int `json:"limit"`
}

// SearchResult is the answer of the search itself, before the daemon adds
// what it knows of the project (see SearchResponse).
type SearchResult struct {
	// SearchID identifies the telemetry row votes refer to; nil (null) when
	// recording it failed: there is nothing to vote on, which is not the
	// same as having found nothing.
	SearchID *int64 `json:"searchId"`
	Hits     []Hit  `json:"hits"` // never null
	// VectorAvailable is false when the query could not be embedded; the
	// search then ran on the lexical signal alone, and Degraded is true.
	VectorAvailable bool `json:"vectorAvailable"`
	Degraded        bool `json:"degraded"`
	// Reason says why the search was degraded or found nothing to search for.
	Reason        string         `json:"reason,omitempty"`
	Weights       AppliedWeights `json:"weights"`
	Fusion        string         `json:"fusion"`
	Normalization string         `json:"normalization"`
	Fill          bool           `json:"fill"`
	// RRFK is the k of reciprocal rank fusion; absent for weighted fusion.
	RRFK int `json:"rrfK,omitempty"`
	// VectorCoverage says how many of the searched chunks had a vector;
	// absent when the query had nothing to search for.
	VectorCoverage *VectorCoverage `json:"vectorCoverage,omitempty"`
	// LatencyMs is the time from the request to the answer, query embedding
	// included, telemetry write excluded.
	LatencyMs float64 `json:"latencyMs"`
	// Explain is present when the request asked for it.
	Explain *Explain `json:"explain,omitempty"`
}

// VectorCoverage counts the chunks a search looked in and those of them
// with a vector. The others (written while the provider was down, or
// waiting for the background fill after a large import) are found by the
// lexical signal only, until their vector is filled.
type VectorCoverage struct {
	Chunks  int `json:"chunks"`
	Vectors int `json:"vectors"`
	// Share is Vectors / Chunks, 1 when there are no chunks.
	Share float64 `json:"share"`
}

// NewVectorCoverage returns the coverage of vectors among chunks
// (ragd.NewVectorCoverage) on the wire.
func NewVectorCoverage(chunks, vectors int) *VectorCoverage {
	return FromVectorCoverage(ragd.NewVectorCoverage(chunks, vectors))
}

// AppliedWeights are the weights and threshold the fusion used. All three are
// null under RRF, which uses neither.
type AppliedWeights struct {
	Vector    *float64 `json:"vector"`
	Lexical   *float64 `json:"lexical"`
	Threshold *float64 `json:"threshold"`
}

// Hit is one result: the citation contract.
type Hit struct {
	ChunkID string `json:"chunkId"`
	// Rank is 1-based: the position in Hits, and what a vote records.
	Rank    int     `json:"rank"`
	Content string  `json:"content"`
	Score   float64 `json:"score"`
	// VectorScore and LexicalScore are null when that signal did not score
	// the chunk, never 0.
	VectorScore  *float64    `json:"vectorScore"`
	LexicalScore *float64    `json:"lexicalScore"`
	Scope        string      `json:"scope"`
	Origin       ragd.Origin `json:"origin"`
	// Explain is present when the request asked for it.
	Explain *HitExplain `json:"explain,omitempty"`
}

// HitExplain answers "why was this found" for one hit.
type HitExplain struct {
	// VectorRank and LexicalRank are the hit's 1-based ranks in the
	// candidate lists; null when that list does not hold it.
	VectorRank  *int `json:"vectorRank"`
	LexicalRank *int `json:"lexicalRank"`
	// Distance is the raw cosine distance and Lexical the store's raw
	// lexical score (higher is better; SQLite: −bm25, PostgreSQL: an
	// idf-weighted ts_rank); null when that signal did not score the hit. A score
	// with a null rank was filled.
	Distance *float64 `json:"distance"`
	Lexical  *float64 `json:"lexical"`
	// Rule is, for a file, the rule that read it into its scope at the last
	// reindex ("doc/adr/ (from .adr-dir)", "root file"): Found's Rule.
	Rule string `json:"rule,omitempty"`
}

// Explain holds what both signals found before fusion.
type Explain struct {
	// Match is the store's rendering of the lexical query it ran (SQLite:
	// an FTS5 expression); "" when it had no searchable word.
	Match string `json:"match"`
	// Dropped are the query's words the store left out of Match as
	// negligible (SQLite: each is in half the project's chunks or more,
	// where bm25 weighs it nothing, and a rarer word was searched). Absent
	// when none was.
	Dropped []string `json:"dropped,omitempty"`
	// Vector is the KNN candidate list, nearest first.
	Vector []ExplainCandidate `json:"vector"`
	// Lexical is the lexical candidate list, best first.
	Lexical []ExplainCandidate `json:"lexical"`
}

// ExplainCandidate is one entry of a candidate list.
type ExplainCandidate struct {
	ChunkID string `json:"chunkId"`
	Rank    int    `json:"rank"`
	// Distance (vector list) or Lexical (lexical list, higher is better):
	// the raw score.
	Distance *float64 `json:"distance,omitempty"`
	Lexical  *float64 `json:"lexical,omitempty"`
}

// FeedbackRequest is the body of POST /v1/feedback.
type FeedbackRequest struct {
	SearchID  int64  `json:"searchId"`
	ChunkID   string `json:"chunkId"`
	Verdict   string `json:"verdict"` // useful | irrelevant
	Actor     string `json:"actor,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
}

// Vote is a recorded vote.
type Vote struct {
	SearchID int64  `json:"searchId"`
	ChunkID  string `json:"chunkId"`
	Rank     int    `json:"rank"` // copied from the search's hits
	Verdict  string `json:"verdict"`
	// Replaced is the verdict this vote replaced; absent for a first vote.
	Replaced string `json:"replaced,omitempty"`
}

// FromSearchResult returns r on the wire; nil for nil.
func FromSearchResult(r *ragd.SearchResult) *SearchResult {
	if r == nil {
		return nil
	}
	return &SearchResult{
		SearchID: r.SearchID, Hits: fromEach(r.Hits, FromHit),
		VectorAvailable: r.VectorAvailable, Degraded: r.Degraded, Reason: r.Reason,
		Weights: AppliedWeights(r.Weights), Fusion: r.Fusion, Normalization: r.Normalization,
		Fill: r.Fill, RRFK: r.RRFK, VectorCoverage: FromVectorCoverage(r.VectorCoverage),
		LatencyMs: r.LatencyMs, Explain: fromPtr(r.Explain, fromExplain),
	}
}

// FromHit returns h on the wire.
func FromHit(h ragd.Hit) Hit {
	return Hit{
		ChunkID: h.ChunkID, Rank: h.Rank, Content: h.Content, Score: h.Score,
		VectorScore: h.VectorScore, LexicalScore: h.LexicalScore, Scope: h.Scope, Origin: h.Origin,
		Explain: fromPtr(h.Explain, func(e ragd.HitExplain) HitExplain { return HitExplain(e) }),
	}
}

// FromVectorCoverage returns c on the wire; nil for nil.
func FromVectorCoverage(c *ragd.VectorCoverage) *VectorCoverage {
	return fromPtr(c, func(c ragd.VectorCoverage) VectorCoverage { return VectorCoverage(c) })
}

func fromExplain(e ragd.Explain) Explain {
	return Explain{Match: e.Match, Dropped: e.Dropped, Vector: fromEach(e.Vector, fromCandidate), Lexical: fromEach(e.Lexical, fromCandidate)}
}

func fromCandidate(c ragd.ExplainCandidate) ExplainCandidate { return ExplainCandidate(c) }

// FromVote returns v on the wire.
func FromVote(v ragd.RecordedVote) Vote { return Vote(v) }
