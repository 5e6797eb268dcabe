package search

import "github.com/ragd/ragd"

func explainCandidates(c Candidates) *ragd.Explain {
	e := &ragd.Explain{Vector: []ragd.ExplainCandidate{}, Lexical: []ragd.ExplainCandidate{}}
	for i, v := range c.Vector {
		e.Vector = append(e.Vector, ragd.ExplainCandidate{ChunkID: v.ChunkID, Rank: i + 1, Distance: ptr(v.Distance)})
	}
	for i, l := range c.Lexical {
		e.Lexical = append(e.Lexical, ragd.ExplainCandidate{ChunkID: l.ChunkID, Rank: i + 1, Lexical: ptr(l.Score)})
	}
	return e
}

func hitExplain(f Fused) *ragd.HitExplain {
	e := &ragd.HitExplain{Distance: f.Distance, Lexical: f.Lexical}
	if f.VectorRank > 0 {
		e.VectorRank = ptr(f.VectorRank)
	}
	if f.LexicalRank > 0 {
		e.LexicalRank = ptr(f.LexicalRank)
	}
	return e
}
