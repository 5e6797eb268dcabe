package store

// The exact top-k without scoring every match (docs/adr/0017-lexical-top-k.md).
//
// FTS5 answers `MATCH a OR b OR c ORDER BY bm25 LIMIT k` by scoring every
// row any term is in: at 100k chunks a question of three mid-frequency
// words scores 11,000 rows, and the scoring (bm25's per-row instance
// count and row size) is three quarters of the query's time, the matching
// one quarter. Most of those rows hold one of the words only, and a row
// holding one word scores at most that word's best contribution: below
// the k-th best answer as soon as the best answers hold two words or
// more, as a question's best answers nearly always do.
//
// So the store first asks FTS5 for the rows holding at least two of the n
// words, as an expression in conjunctive form: one clause per word, each
// OR-ing the other n−1 words,
//
//	("b" OR "c") AND ("a" OR "c") AND ("a" OR "b")
//
// FTS5 walks an AND by seeking each clause to the next rowid the others
// are at, so it reads the rare words' rows and skips through the common
// ones' (its doclist indexes), and scores only the rows that match. In
// such an expression every word is a phrase of n−1 clauses, and at a row
// the expression matches every phrase stands at that row exactly when the
// row holds its word (an AND's children all stand at the row it matches;
// an OR's children stand at their first row from it on). bm25 sums each
// phrase's weight, so it scores such a row n−1 times the OR query's bm25,
// computed in another order: the same score up to rounding (a few units
// in the last place; TestLexicalTopK_EqualsExhaustive checks it).
//
// Then it checks the answer is the exhaustive one: the k-th best of those
// rows (θ, a real row's real score, so at most the true k-th) must
// outscore what any row holding one word can score, the largest of the
// words' bounds. A word's bound is its best contribution in the index,
// read exactly (one ranked query of the word alone, cheap for a word in
// few rows), or for a commoner word idf·(k1 + 1), which no row reaches
// (bm25's frequency part tends to k1 + 1). When the check fails, or the
// query is not of that shape, the whole OR query runs as before.
// Nothing is stored: appends, deletes and reindexes change the FTS5 table
// alone, and every bound and score is read in the search's snapshot.

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ragd/ragd"
)

// bm25K1 is FTS5's k1 (fts5_aux.c): a row's frequency part
// f·(k1 + 1)/(f + k1·(1 − b + b·D/avgdl)) is below k1 + 1 for every f.
const bm25K1 = 1.2

// The shape and size of query the top-k pass is tried for.
var (
	// topKFromRows: the pass is tried when the words' rows sum to at least
	// this many. Below, the whole query scores them in about a
	// millisecond (BenchmarkLexicalTopK), less than the pass's bound
	// queries would add.
	topKFromRows int64 = 4000
	// topKMaxTerms is the most words the pass takes: its expression
	// repeats each word n−1 times, and FTS5 counts each repeat's rows for
	// its idf, so a long question's expression costs more than it saves.
	topKMaxTerms = 5
	// tightBoundRows: a word in at most this many rows is bounded by its
	// exact best contribution, one ranked query of that word alone (about
	// a millisecond at this size); a commoner word by idf·(k1 + 1).
	tightBoundRows int64 = 5000
)

// topKBoundMargin is the relative margin θ must clear the bound by: the
// scores of the pass and of the bounds are sums in other orders than the
// whole query's, equal up to rounding far below it.
const topKBoundMargin = 1e-9

// topKMethod is a way LexicalCandidates finds its first k rows.
type topKMethod int

const (
	topKMaxScore topKMethod = iota // the MaxScore pass (lexicalmaxscore.go)
	topKPairs                      // the rows holding two words (this file)
	topKOff                        // every match scored
)

// lexicalTopK is the method LexicalCandidates uses; tests and benchmarks
// compare the others.
var lexicalTopK = topKMaxScore

// topKPass is what LexicalCandidates' pass did, for tests and benchmarks.
type topKPass int

const (
	topKNotTried topKPass = iota // the query is not of the pass's shape or size
	topKExact                    // the pass's rows are the answer
	topKFellBack                 // the check failed: the whole query answered
)

// atLeastTwoOf returns the FTS5 expression matching the rows that hold at
// least two of terms (clean, two or more), less the excluded ones: one
// clause per term OR-ing the others. Every term is in len(terms)−1
// clauses.
func atLeastTwoOf(terms, excluded []ragd.LexicalTerm) string {
	var b strings.Builder
	for i := range terms {
		if i > 0 {
			b.WriteString(" AND ")
		}
		b.WriteString("(")
		first := true
		for j, t := range terms {
			if j == i {
				continue
			}
			if !first {
				b.WriteString(" OR ")
			}
			first = false
			b.WriteString(ftsString(t))
		}
		b.WriteString(")")
	}
	m := b.String()
	if x := orList(excluded); x != "" {
		m = "(" + m + ") NOT (" + x + ")"
	}
	return m
}

// topKShape reports whether the pass can take terms: two to topKMaxTerms
// single tokens (no phrase, no prefix: their rows are not counted ahead),
// each in fewer than half the rows, whose rows sum to at least
// topKFromRows in the index td describes.
func topKShape(terms []ragd.LexicalTerm, td TermDocs) bool {
	if len(terms) < 2 || len(terms) > topKMaxTerms || td.Rows <= 0 {
		return false
	}
	var rows int64
	for _, t := range terms {
		if t.Prefix || len(t.Tokens) != 1 {
			return false
		}
		n, ok := td.Docs[t.Tokens[0]]
		if !ok || idf(td.Rows, n) <= negligibleIDF {
			// A word in half the rows or more: the expression would count
			// its rows n−1 times for nothing it weighs (frequent-word
			// pruning leaves it out unless the query keeps every word).
			return false
		}
		rows += n
	}
	return rows >= topKFromRows
}

// termBound returns the most term t (a single token, in n of the rows
// rows of the project's lexical table) adds to any row's score: its
// exact best contribution when it is in at most tightBoundRows rows,
// idf·(k1 + 1) otherwise (FTS5's idf, floored at negligibleIDF).
func (sn *Snapshot) termBound(ctx context.Context, projectID int64, t ragd.LexicalTerm, n int64, rows int64) (float64, error) {
	if n == 0 {
		return 0, nil
	}
	if n > tightBoundRows {
		return max(idf(rows, n), negligibleIDF) * (bm25K1 + 1), nil
	}
	tbl := lexicalTable(projectID)
	var best float64
	if err := sn.tx.QueryRowContext(ctx, "SELECT bm25("+tbl+") AS s FROM "+tbl+" WHERE "+tbl+" MATCH ? ORDER BY s LIMIT 1", ftsString(t)).Scan(&best); err != nil {
		return 0, fmt.Errorf("bound of %q: %w", t.Tokens[0], err)
	}
	return -best, nil
}

// topKCandidates tries the pass for the terms (clean) less excluded,
// whose document frequencies td holds: the best k rows holding two terms
// or more, when the k-th of them outscores every term's bound; then they
// are the whole query's best k, scored as it scores them up to rounding.
// Otherwise it returns topKNotTried or topKFellBack and no rows: the
// caller runs the whole query.
func (sn *Snapshot) topKCandidates(ctx context.Context, f ragd.Filter, terms, excluded []ragd.LexicalTerm, td TermDocs, k int) ([]ragd.LexicalCandidate, topKPass, error) {
	if k <= 0 || !topKShape(terms, td) {
		return nil, topKNotTried, nil
	}
	// The bounds first: with an estimate of θ, they tell when the check
	// would fail after the expression's cost; the whole query then runs
	// at once. The bounds that cost nothing (idf·(k1 + 1)) go first, so
	// that a hopeless query reads none of the others.
	estimate, bound := pairEstimate(terms, td, k), 0.0
	for _, tight := range []bool{false, true} {
		for _, t := range terms {
			n := td.Docs[t.Tokens[0]]
			if (n > 0 && n <= tightBoundRows) != tight {
				continue
			}
			ub, err := sn.termBound(ctx, f.ProjectID, t, n, td.Rows)
			if err != nil {
				return nil, topKNotTried, err
			}
			if bound = max(bound, ub); estimate <= bound {
				return nil, topKNotTried, nil
			}
		}
	}
	out, err := sn.matchCandidates(ctx, f, atLeastTwoOf(terms, excluded), k)
	if err != nil {
		return nil, topKNotTried, err
	}
	if len(out) < k {
		return nil, topKFellBack, nil
	}
	repeats := float64(len(terms) - 1)
	for i := range out {
		out[i].Score /= repeats
	}
	// θ is a real row's score, at most the true k-th best: every row
	// holding one word scores at most its bound, below θ.
	if theta := out[k-1].Score; math.IsNaN(theta) || theta <= bound*(1+topKBoundMargin) {
		return nil, topKFellBack, nil
	}
	return out, topKExact, nil
}

// pairEstimate estimates the k-th best score among rows holding two of
// terms: pairs of words by their idfs' sum, best first, each expected in
// df_a·df_b/N rows if words fell independently, until k rows are
// expected; the sum of that pair's idfs (a row holding each once at the
// average length). 0 when fewer than k such rows are expected at all.
func pairEstimate(terms []ragd.LexicalTerm, td TermDocs, k int) float64 {
	type pair struct{ score, rows float64 }
	var ps []pair
	for i := range terms {
		for j := i + 1; j < len(terms); j++ {
			a, b := td.Docs[terms[i].Tokens[0]], td.Docs[terms[j].Tokens[0]]
			if a == 0 || b == 0 {
				continue
			}
			ps = append(ps, pair{idf(td.Rows, a) + idf(td.Rows, b), float64(a) * float64(b) / float64(td.Rows)})
		}
	}
	slices.SortFunc(ps, func(x, y pair) int { return cmp.Compare(y.score, x.score) })
	expected := 0.0
	for _, p := range ps {
		if expected += p.rows; expected >= float64(k) {
			return p.score
		}
	}
	return 0
}
