package search

import (
	"encoding/json"
)

// Response is the answer to a search, encoded by the daemon as is.
type Response struct {
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
	Fusion        Fusion         `json:"fusion"`
	Normalization Normalization  `json:"normalization"`
	Fill          bool           `json:"fill"`
	// RRFK is the k of reciprocal rank fusion; absent for weighted fusion.
	RRFK int `json:"rrfK,omitempty"`
	// LatencyMs is the time from the request to the answer, query embedding
	// included, telemetry write excluded.
	LatencyMs float64 `json:"latencyMs"`
	// Explain is present when the request asked for it.
	Explain *Explain `json:"explain,omitempty"`
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
	VectorScore  *float64 `json:"vectorScore"`
	LexicalScore *float64 `json:"lexicalScore"`
	Scope        string   `json:"scope"`
	Origin       Origin   `json:"origin"`
	// Explain is present when the request asked for it.
	Explain *HitExplain `json:"explain,omitempty"`
}

// Origin kinds.
const (
	OriginFile    = "file"
	OriginSession = "session"
)

// Origin says where a hit comes from: a union on Kind. A "file" origin (docs
// and adr) has SourcePath, HeadingPath, Title and the Commit the text was
// read from; a "session" origin has SessionID, EventID (the source message)
// and Title. Its JSON holds exactly the fields of its kind.
type Origin struct {
	Kind        string   `json:"kind"`
	SourcePath  string   `json:"sourcePath,omitempty"`
	HeadingPath []string `json:"headingPath,omitempty"`
	Commit      string   `json:"commit,omitempty"`
	SessionID   string   `json:"sessionId,omitempty"`
	EventID     string   `json:"eventId,omitempty"`
	Title       string   `json:"title"`
}

// MarshalJSON writes the fields of o's kind, each always present.
func (o Origin) MarshalJSON() ([]byte, error) {
	if o.Kind == OriginSession {
		return json.Marshal(struct {
			Kind      string `json:"kind"`
			SessionID string `json:"sessionId"`
			EventID   string `json:"eventId"`
			Title     string `json:"title"`
		}{o.Kind, o.SessionID, o.EventID, o.Title})
	}
	heading := o.HeadingPath
	if heading == nil {
		heading = []string{}
	}
	return json.Marshal(struct {
		Kind        string   `json:"kind"`
		SourcePath  string   `json:"sourcePath"`
		HeadingPath []string `json:"headingPath"`
		Title       string   `json:"title"`
		Commit      string   `json:"commit,omitempty"`
	}{o.Kind, o.SourcePath, heading, o.Title, o.Commit})
}

// HitExplain answers "why was this found" for one hit.
type HitExplain struct {
	// VectorRank and LexicalRank are the hit's 1-based ranks in the
	// candidate lists; null when that list does not hold it.
	VectorRank  *int `json:"vectorRank"`
	LexicalRank *int `json:"lexicalRank"`
	// Distance is the raw cosine distance and BM25 the raw bm25 score
	// (negative, lower is better); null when that signal did not score the
	// hit. A score with a null rank was filled.
	Distance *float64 `json:"distance"`
	BM25     *float64 `json:"bm25"`
}

// Explain holds what both signals found before fusion.
type Explain struct {
	// Match is the FTS5 expression the query became; "" when it had no
	// searchable word.
	Match string `json:"match"`
	// Vector is the KNN candidate list, nearest first.
	Vector []ExplainCandidate `json:"vector"`
	// Lexical is the FTS5 candidate list, best first.
	Lexical []ExplainCandidate `json:"lexical"`
}

// ExplainCandidate is one entry of a candidate list.
type ExplainCandidate struct {
	ChunkID string `json:"chunkId"`
	Rank    int    `json:"rank"`
	// Distance (vector list) or BM25 (lexical list): the raw score.
	Distance *float64 `json:"distance,omitempty"`
	BM25     *float64 `json:"bm25,omitempty"`
}

func explainCandidates(c Candidates) *Explain {
	e := &Explain{Vector: []ExplainCandidate{}, Lexical: []ExplainCandidate{}}
	for i, v := range c.Vector {
		e.Vector = append(e.Vector, ExplainCandidate{ChunkID: v.ChunkID, Rank: i + 1, Distance: ptr(v.Distance)})
	}
	for i, l := range c.Lexical {
		e.Lexical = append(e.Lexical, ExplainCandidate{ChunkID: l.ChunkID, Rank: i + 1, BM25: ptr(l.BM25)})
	}
	return e
}

func hitExplain(f Fused) *HitExplain {
	e := &HitExplain{Distance: f.Distance, BM25: f.BM25}
	if f.VectorRank > 0 {
		e.VectorRank = ptr(f.VectorRank)
	}
	if f.LexicalRank > 0 {
		e.LexicalRank = ptr(f.LexicalRank)
	}
	return e
}
