package client

import (
	"cmp"
	"slices"

	"github.com/ragd/ragd/api"
)

// AllProjectsRRFK is the k of the reciprocal rank fusion that merges the
// projects' hits: the usual constant, as the search route's own RRF uses.
const AllProjectsRRFK = 60

// MergeProjects fuses the projects' ranked lists by reciprocal rank: each
// hit scores 1/(k + its rank in its project). Equal ranks are ordered by
// the project's own score, then by the order of responses; limit bounds
// the merged list (0: no bound). A nil response (a project that could not
// be searched) adds nothing.
func MergeProjects(responses []*api.SearchResponse, k, limit int) []api.ProjectHit {
	out := []api.ProjectHit{}
	order := map[string]int{}
	for i, r := range responses {
		if r == nil || r.SearchResult == nil {
			continue
		}
		order[r.Project] = i
		for _, h := range r.Hits {
			out = append(out, api.ProjectHit{Hit: h, Project: r.Project, SearchID: r.SearchID, Fused: 1 / float64(k+h.Rank)})
		}
	}
	slices.SortStableFunc(out, func(a, b api.ProjectHit) int {
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
