package search

import (
	"context"

	"github.com/ragd/ragd"
)

// lexicalCandidates returns the k best lexical candidates of r's query in
// sn, and records in r's query what the store ran: its rendering of the
// query and the words it left out as negligible.
func lexicalCandidates(ctx context.Context, sn ragd.Snapshot, f ragd.Filter, r *request, k int) ([]ragd.LexicalCandidate, error) {
	m, err := sn.LexicalCandidates(ctx, f, r.query.Lexical, k)
	if err != nil {
		return nil, err
	}
	r.query.Expression, r.query.Dropped = m.Expression, m.Dropped
	return m.Candidates, nil
}

// lexicalScores returns the lexical score of each of ids that r's query
// matches, as lexicalCandidates scores it.
func lexicalScores(ctx context.Context, sn ragd.Snapshot, r *request, ids []string) (map[string]float64, error) {
	return sn.LexicalScores(ctx, r.ProjectID, r.query.Lexical, ids)
}
