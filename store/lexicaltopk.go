package store

// What the lexical top-k passes share (docs/adr/0017-lexical-top-k.md):
// the method LexicalCandidates finds its first k rows with, and what it
// did. The pass is the MaxScore pass (lexicalmaxscore.go); Decision 1's
// two-word pass, which it replaced, is described in the ADR.

// bm25K1 is FTS5's k1 (fts5_aux.c): a row's frequency part
// f·(k1 + 1)/(f + k1·(1 − b + b·D/avgdl)) is below k1 + 1 for every f.
const bm25K1 = 1.2

// topKMethod is a way LexicalCandidates finds its first k rows.
type topKMethod int

const (
	topKMaxScore topKMethod = iota // the MaxScore pass (lexicalmaxscore.go)
	topKOff                        // every match scored
)

// lexicalTopK is the method LexicalCandidates uses; benchmarks compare
// the other.
var lexicalTopK = topKMaxScore

// topKPass is what LexicalCandidates' pass did, for tests and benchmarks.
type topKPass int

const (
	topKNotTried topKPass = iota // the query is not of the pass's shape or size
	topKExact                    // the pass's rows are the answer
	topKFellBack                 // the pass gave way: the whole query answered
)
