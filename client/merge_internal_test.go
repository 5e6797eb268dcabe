package client

import (
	"fmt"
	"testing"

	"github.com/ragd/ragd/api"
)

func hits(project string, scores ...float64) *api.SearchResponse {
	id := int64(len(project))
	r := &api.SearchResponse{Project: project, SearchResult: &api.SearchResult{SearchID: &id}}
	for i, s := range scores {
		r.Hits = append(r.Hits, api.Hit{ChunkID: fmt.Sprintf("%s-%d", project, i+1), Rank: i + 1, Score: s})
	}
	return r
}

func TestMergeProjects(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    []*api.SearchResponse
		limit int
		want  []string
	}{
		{"interleaved by rank, ties by score", []*api.SearchResponse{hits("a", 0.5, 0.4, 0.3), hits("b", 0.9, 0.2)}, 0,
			[]string{"b-1", "a-1", "a-2", "b-2", "a-3"}},
		{"limit", []*api.SearchResponse{hits("a", 0.5, 0.4, 0.3), hits("b", 0.9, 0.2)}, 3, []string{"b-1", "a-1", "a-2"}},
		{"equal scores keep the projects' order", []*api.SearchResponse{hits("a", 1), hits("b", 1)}, 0, []string{"a-1", "b-1"}},
		{"a project left out", []*api.SearchResponse{nil, hits("b", 1)}, 0, []string{"b-1"}},
		{"nothing", nil, 5, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := MergeProjects(tc.in, AllProjectsRRFK, tc.limit)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d hits, want %v", len(got), tc.want)
			}
			for i, h := range got {
				if h.ChunkID != tc.want[i] || h.Position != i+1 || h.SearchID == nil || *h.SearchID != int64(len(h.Project)) {
					t.Errorf("hit %d = %s (position %d, project %s), want %s", i, h.ChunkID, h.Position, h.Project, tc.want[i])
				}
			}
		})
	}
}
