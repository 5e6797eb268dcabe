package search

import "github.com/ragd/ragd/api"

func explainCandidates(c Candidates) *api.Explain {
	e := &api.Explain{Vector: []api.ExplainCandidate{}, Lexical: []api.ExplainCandidate{}}
	for i, v := range c.Vector {
		e.Vector = append(e.Vector, api.ExplainCandidate{ChunkID: v.ChunkID, Rank: i + 1, Distance: ptr(v.Distance)})
	}
	for i, l := range c.Lexical {
		e.Lexical = append(e.Lexical, api.ExplainCandidate{ChunkID: l.ChunkID, Rank: i + 1, Lexical: ptr(l.Score)})
	}
	return e
}

func hitExplain(f Fused) *api.HitExplain {
	e := &api.HitExplain{Distance: f.Distance, Lexical: f.Lexical}
	if f.VectorRank > 0 {
		e.VectorRank = ptr(f.VectorRank)
	}
	if f.LexicalRank > 0 {
		e.LexicalRank = ptr(f.LexicalRank)
	}
	return e
}
