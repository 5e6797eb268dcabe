package postgres

import "github.com/ragd/ragd"

// TEMPORARY, for the lead to delete at merge. Branch lexq landed the lexical
// query types of CONTRACT.md section 1 in package ragd; the engine names
// them by these aliases, so that its Snapshot satisfies ragd.Snapshot.
type (
	LexicalTerm      = ragd.LexicalTerm
	LexicalQuery     = ragd.LexicalQuery
	LexicalMatches   = ragd.LexicalMatches
	LexicalCandidate = ragd.LexicalCandidate
)
