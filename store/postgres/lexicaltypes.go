package postgres

// Until branch lexq lands on main, copies of the lexical query types of
// CONTRACT.md section 1 (package ragd, retrieval.go there). When it lands,
// this file becomes aliases:
//
//	type LexicalTerm = ragd.LexicalTerm
//	type LexicalQuery = ragd.LexicalQuery
//	type LexicalMatches = ragd.LexicalMatches
//	type LexicalCandidate = ragd.LexicalCandidate
//
// and Snapshot satisfies ragd.Snapshot.

// LexicalTerm is one analysed term: its tokens must be adjacent and in
// order (a phrase when more than one); with Prefix the last token matches
// any token it begins.
type LexicalTerm struct {
	// Word is the user's word or phrase the term came from.
	Word string
	// Tokens are analysed by package lexical in the query's Language.
	Tokens []string
	Prefix bool
}

// LexicalQuery is a lexical search: chunks holding any of Terms and none
// of Excluded.
type LexicalQuery struct {
	Language string
	Terms    []LexicalTerm
	Excluded []LexicalTerm
	// KeepFrequent asks the engine to leave no term out; this engine
	// leaves none out anyway.
	KeepFrequent bool
}

// LexicalMatches is what the engine found for a LexicalQuery.
type LexicalMatches struct {
	Candidates []LexicalCandidate // best first
	Expression string             // the tsquery run, "" when there was none
	Dropped    []string           // always nil here: no term is left out
}

// LexicalCandidate is a chunk found by the lexical match.
type LexicalCandidate struct {
	ChunkID string
	// Score is ts_rank_cd: higher is better.
	Score float64
}
