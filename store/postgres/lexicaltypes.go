package postgres

import "github.com/ragd/ragd"

// The lexical query types of the contract (package ragd), under the names
// this package's code and tests use.
type (
	LexicalTerm      = ragd.LexicalTerm
	LexicalQuery     = ragd.LexicalQuery
	LexicalMatches   = ragd.LexicalMatches
	LexicalCandidate = ragd.LexicalCandidate
)
