package api

import (
	"cmp"
	"slices"
)

// AllProjectsRRFK is the k of the reciprocal rank fusion that merges the
// projects' hits: the usual constant, as the search route's own RRF uses.
const AllProjectsRRFK = 60

// AllProjectsResponse is a search of every registered project: each
// project searched on its own statistics, the hits merged by rank.
type AllProjectsResponse struct {
	// Hits are the merged hits, best first, at most the request's limit.
	Hits []ProjectHit `json:"hits"` // never null
	// Projects say, for each project searched, what its own search said:
	// its search id (what votes on its hits refer to), degraded state,
	// vector coverage, stale scopes, or the error that left it out.
	Projects []ProjectSearch `json:"projects"`
	// Fusion is how the lists were merged: always rrf, with RRFK.
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

// MergeProjects fuses the projects' ranked lists by reciprocal rank: each
// hit scores 1/(k + its rank in its project). Equal ranks are ordered by
// the project's own score, then by the order of responses; limit bounds
// the merged list (0: no bound).
func MergeProjects(responses []*SearchResponse, k, limit int) []ProjectHit {
	out := []ProjectHit{}
	order := map[string]int{}
	for i, r := range responses {
		if r == nil || r.SearchResult == nil {
			continue
		}
		order[r.Project] = i
		for _, h := range r.Hits {
			out = append(out, ProjectHit{Hit: h, Project: r.Project, SearchID: r.SearchID, Fused: 1 / float64(k+h.Rank)})
		}
	}
	slices.SortStableFunc(out, func(a, b ProjectHit) int {
		return cmp.Or(cmp.Compare(b.Fused, a.Fused), cmp.Compare(b.Score, a.Score), cmp.Compare(order[a.Project], order[b.Project]))
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	for i := range out {
		out[i].Position = i + 1
	}
	return out
}
