package api

// AllProjectsResponse is a search of every registered project: each
// project searched on its own statistics, the hits merged by rank.
type AllProjectsResponse struct {
	// Hits are the merged hits, best first, at most the request's limit.
	Hits []ProjectHit `json:"hits"` // never null
	// Projects say, for each project searched, what its own search said:
	// its search id (what votes on its hits refer to), degraded state,
	// vector coverage, stale scopes, or the error that left it out.
	Projects []ProjectSearch `json:"projects"`
	// Fusion is how the lists were merged: always rrf, with RRFK
	// (client.AllProjectsRRFK).
	Fusion string `json:"fusion"`
	RRFK   int    `json:"rrfK"`
}

// ProjectSearch is one project's part of a search of every project.
type ProjectSearch struct {
	Project         string          `json:"project"`
	SearchID        *int64          `json:"searchId"`
	Hits            int             `json:"hits"`
	Degraded        bool            `json:"degraded"`
	Reason          string          `json:"reason,omitempty"`
	VectorCoverage  *VectorCoverage `json:"vectorCoverage,omitempty"`
	Stale           []string        `json:"stale"`
	VectorAvailable bool            `json:"vectorAvailable"`
	// Explain is what the project's search made of the query, present
	// when the request asked for it.
	Explain *Explain `json:"explain,omitempty"`
	// Error is why the project could not be searched; its hits are absent.
	Error string `json:"error,omitempty"`
}

// ProjectHit is a hit of a search of every project: the project's own hit
// (Rank its rank in that project, which a vote records), the project, the
// search id to vote with, and the fused score that placed it.
type ProjectHit struct {
	Hit
	Project  string `json:"project"`
	SearchID *int64 `json:"searchId"`
	// Position is the 1-based place in the merged list.
	Position int `json:"position"`
	// Fused is Σ 1/(RRFK + rank): the rank of the hit in its project's list
	// is what is comparable across projects, not its score, which is on
	// that project's own bm25 statistics and normalisation.
	Fused float64 `json:"fused"`
}
