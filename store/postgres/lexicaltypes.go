package postgres

import "github.com/ragd/ragd"

// The lexical query types of CONTRACT.md section 1, now in package ragd
// (branch lexq is on main): aliases, so that Snapshot satisfies
// ragd.Snapshot. (Made aliases by branch pgwire, as this file's comment
// asked once lexq landed; the engine's own branch may drop the file.)
type (
	LexicalTerm      = ragd.LexicalTerm
	LexicalQuery     = ragd.LexicalQuery
	LexicalMatches   = ragd.LexicalMatches
	LexicalCandidate = ragd.LexicalCandidate
)
