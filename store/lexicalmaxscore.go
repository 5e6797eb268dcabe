package store

// The MaxScore pass: the exact top-k of a question of single words without
// scoring every row any of them is in (docs/adr/0017-lexical-top-k.md,
// Decision 3).
//
// A word adds to a row's bm25 at most its bound, idf·(k1 + 1) (bm25's
// frequency part f·(k1 + 1)/(f + k1·(1 − b + b·D/avgdl)) stays below
// k1 + 1). A row holding the words of a set S scores at most the sum of
// their bounds; when that sum is below θ, the k-th best score of k real
// rows (so at most the true k-th), no such row is among the k best. The
// pass:
//
//  1. takes θ from a few rows that are cheap to find: those holding the
//     two rarest words (or the rarest alone), scored in full;
//  2. lists the minimal sets of words whose bounds reach θ (MaxScore's
//     essential words generalised: a set of common words can be needed
//     together where none is alone) and asks FTS5 for the rows holding one
//     of those sets, as an OR of ANDs. FTS5 walks an AND by seeking each
//     word to the rows the others are at (its doclist indexes), so the
//     common words' rows are skipped, not read;
//  3. scores those rows in full and keeps the k best: the whole query's.
//     When every such set holds the seed's words, the seed's rows already
//     are.
//
// Both queries AND every word of the question beside the expression that
// chooses the rows, `(chooser) AND ("a" OR "b" OR …)`: FTS5 then stands
// every word the row holds at the row, and ragd_bm25 (lexicalbm25.go)
// weighs the words of the second part by FTS5's idfs and the chooser's
// by 0. Its sum is bm25()'s over the whole query, in the same order with
// the same operations: the same scores bit for bit, and no phrase's rows
// counted for an idf (the store reads the document frequencies from the
// vocabulary, as pruning does).

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"

	"github.com/ragd/ragd"
)

// fts5IDF is FTS5 bm25's weight of a phrase in n of rows rows
// (fts5Bm25GetData): the idf, or 1e-6 where it is not positive.
func fts5IDF(rows, n int64) float64 {
	w := math.Log((float64(rows) - float64(n) + 0.5) / (float64(n) + 0.5))
	if w <= 0 {
		return negligibleIDF
	}
	return w
}

// The pass's limits.
var (
	// maxScoreFromRows: the pass is tried when the words' rows sum to at
	// least this many. Below, the whole query scores them in a few
	// milliseconds, about what the pass's two queries cost (on SciFact's
	// 8,208 chunks, BenchmarkLexicalTopKQuestions).
	maxScoreFromRows int64 = 5000
	// maxScoreMaxSets is the most sets of words the chooser ORs; past it
	// the pass takes each word that cannot be left out alone (MaxScore's
	// essential words), a looser chooser of fewer phrases.
	maxScoreMaxSets = 24
	// maxScoreMostShare: the pass goes on when the rows it expects to
	// score are at most this share of the whole query's.
	maxScoreMostShare = 0.5
)

// maxScoreMargin is the relative margin a set's bounds must fall below θ
// by to be left out: far above the rounding between the bounds (Go's
// arithmetic and log) and the scores (ragd_bm25's, libm's), a few units
// in the last place, so that a row whose score equals its words' bounds
// is never left out.
const maxScoreMargin = 1e-9

// maxScoreShape reports whether the pass can take terms: two or more
// single tokens (no phrase, no prefix: their rows are not counted ahead),
// whose rows sum to at least maxScoreFromRows in the index td describes.
func maxScoreShape(terms []ragd.LexicalTerm, td TermDocs) bool {
	if len(terms) < 2 || td.Rows <= 0 || td.Tokens <= 0 {
		return false
	}
	var rows int64
	for _, t := range terms {
		if t.Prefix || len(t.Tokens) != 1 {
			return false
		}
		n, ok := td.Docs[t.Tokens[0]]
		if !ok {
			return false
		}
		rows += n
	}
	return rows >= maxScoreFromRows
}

// maxScoreQuery is one question as the pass scores it.
type maxScoreQuery struct {
	table        string
	all          string  // every term OR-ed, in the question's order
	excluded     string  // the excluded terms OR-ed, or ""
	docs         []int64 // the rows holding each term
	rows, tokens int64   // the table's
}

// scoring returns the ragd_bm25 call scoring the rows of
// `(chooser) AND (all)`, chooser holding chooserPhrases phrases.
func (q maxScoreQuery) scoring(chooserPhrases int) lexicalScoring {
	args := make([]any, 0, 2+chooserPhrases+len(q.docs))
	args = append(args, q.rows, q.tokens)
	for range chooserPhrases {
		args = append(args, -1)
	}
	for _, n := range q.docs {
		args = append(args, n)
	}
	return lexicalScoring{expr: "ragd_bm25(" + q.table + ", " + placeholders(len(args)) + ")", args: args, desc: true}
}

// match is the expression of the rows chooser selects, every term beside
// them, less the excluded.
func (q maxScoreQuery) match(chooser string) string {
	m := "(" + chooser + ") AND (" + q.all + ")"
	if q.excluded != "" {
		m = "(" + m + ") NOT (" + q.excluded + ")"
	}
	return m
}

// maxScoreCandidates tries the pass for the terms (clean) less excluded,
// whose document frequencies td holds. It returns topKNotTried (the
// question is not of the pass's shape) or topKFellBack (too few rows to
// take θ from) and no rows, and the caller runs the whole query; or the
// whole query's best k rows, with the same scores, and topKExact.
func (sn *Snapshot) maxScoreCandidates(ctx context.Context, f ragd.Filter, terms, excluded []ragd.LexicalTerm, td TermDocs, k int) ([]ragd.LexicalCandidate, topKPass, error) {
	if k <= 0 || !maxScoreShape(terms, td) {
		return nil, topKNotTried, nil
	}
	q := maxScoreQuery{
		table:    lexicalTable(f.ProjectID),
		all:      orList(terms),
		excluded: orList(excluded),
		docs:     make([]int64, len(terms)),
		rows:     td.Rows,
		tokens:   td.Tokens,
	}
	// The words some row holds, best bound first.
	type word struct {
		term  ragd.LexicalTerm
		bound float64
		rows  int64
	}
	tokens := make([]string, len(terms))
	for i, t := range terms {
		tokens[i] = t.Tokens[0]
	}
	sats, _, err := sn.termBounds(ctx, f.ProjectID, tokens, float64(td.Tokens)/float64(td.Rows))
	if err != nil {
		return nil, topKNotTried, err
	}
	var live []word
	for i, t := range terms {
		n := td.Docs[t.Tokens[0]]
		q.docs[i] = n
		if n > 0 {
			sat, ok := sats[t.Tokens[0]]
			if !ok {
				sat = bm25K1 + 1 // no row reaches it
			}
			// Go's log may differ from libm's in the last place: far
			// inside maxScoreMargin.
			live = append(live, word{t, fts5IDF(td.Rows, n) * sat, n})
		}
	}
	slices.SortStableFunc(live, func(a, b word) int { return cmp.Compare(b.bound, a.bound) })
	if len(live) < 2 {
		return nil, topKNotTried, nil
	}
	// θ from the rows holding the two rarest words, else from those
	// holding one of the fewest rarest words in k rows or more.
	// covers reports whether a row holding the words of set holds the
	// seed's: then the seed's rows include all such rows.
	type seed struct {
		match   string
		phrases int
		covers  func(set []int) bool
	}
	seeds := []seed{{ftsString(live[0].term) + " AND " + ftsString(live[1].term), 2,
		func(set []int) bool { return slices.Contains(set, 0) && slices.Contains(set, 1) }}}
	var any []ragd.LexicalTerm
	for i, rows := 0, int64(0); i < len(live) && rows < int64(k); i++ {
		any, rows = append(any, live[i].term), rows+live[i].rows
	}
	seeds = append(seeds, seed{orList(any), len(any),
		func(set []int) bool { return slices.ContainsFunc(set, func(w int) bool { return w < len(any) }) }})
	theta := math.NaN()
	var seeded []ragd.LexicalCandidate
	var from seed
	for _, sd := range seeds {
		rows, err := sn.scoredCandidates(ctx, f, q.match(sd.match), q.scoring(sd.phrases), k)
		if err != nil {
			return nil, topKNotTried, err
		}
		if len(rows) == k {
			theta, seeded, from = rows[k-1].Score, rows, sd
			break
		}
	}
	if math.IsNaN(theta) || theta <= 0 {
		return nil, topKFellBack, nil
	}
	bounds := make([]float64, len(live))
	for i, w := range live {
		bounds[i] = w.bound
	}
	sets := viableSets(bounds, theta, maxScoreMaxSets)
	if sets == nil {
		sets = essentialWords(bounds, theta)
	}
	// The rows the chooser selects, as if words fell in rows
	// independently, against the rows the whole query scores: when it
	// saves little, the whole query (without the chooser's phrases) costs
	// less.
	chosen, all := 0.0, 0.0
	for _, w := range live {
		all += float64(w.rows)
	}
	for _, s := range sets {
		rows := float64(td.Rows)
		for _, w := range s {
			rows *= float64(live[w].rows) / float64(td.Rows)
		}
		chosen += rows
	}
	if chosen > maxScoreMostShare*all {
		return nil, topKFellBack, nil
	}
	if !slices.ContainsFunc(sets, func(set []int) bool { return !from.covers(set) }) {
		// Every row that can reach θ holds the seed's words: the seed's
		// best rows are the answer.
		return seeded, topKExact, nil
	}
	var chooser strings.Builder
	phrases := 0
	for i, s := range sets {
		if i > 0 {
			chooser.WriteString(" OR ")
		}
		if len(s) > 1 {
			chooser.WriteString("(")
		}
		for j, w := range s {
			if j > 0 {
				chooser.WriteString(" AND ")
			}
			chooser.WriteString(ftsString(live[w].term))
			phrases++
		}
		if len(s) > 1 {
			chooser.WriteString(")")
		}
	}
	out, err := sn.scoredCandidates(ctx, f, q.match(chooser.String()), q.scoring(phrases), k)
	if err != nil {
		return nil, topKNotTried, err
	}
	return out, topKExact, nil
}

// viableSets returns the minimal sets of words (indexes into bounds,
// which is sorted best first) whose bounds reach theta: every row that
// can score θ holds one of them. nil when there are more than max.
func viableSets(bounds []float64, theta float64, max int) [][]int {
	rest := make([]float64, len(bounds)+1) // rest[i]: the sum of bounds[i:]
	for i := len(bounds) - 1; i >= 0; i-- {
		rest[i] = rest[i+1] + bounds[i]
	}
	reaches := func(sum float64) bool { return sum*(1+maxScoreMargin) >= theta }
	var out [][]int
	var walk func(from int, set []int, sum float64) bool
	walk = func(from int, set []int, sum float64) bool {
		for i := from; i < len(bounds); i++ {
			if !reaches(sum + rest[i]) {
				return true // no set of the words left reaches θ
			}
			s := append(set, i)
			if reaches(sum + bounds[i]) {
				// Minimal: bounds[i] is its least bound, and without it
				// the set fell short.
				if out = append(out, slices.Clone(s)); len(out) > max {
					return false
				}
				continue
			}
			if !walk(i+1, s, sum+bounds[i]) {
				return false
			}
		}
		return true
	}
	if !walk(0, nil, 0) {
		return nil
	}
	return out
}

// essentialWords returns MaxScore's essential words as sets of one: the
// words (indexes into bounds, sorted best first) left once the words of
// least bound whose bounds sum below theta are set aside. A row holding
// none of them scores below θ.
func essentialWords(bounds []float64, theta float64) [][]int {
	sum, last := 0.0, len(bounds)
	for last > 0 && (sum+bounds[last-1])*(1+maxScoreMargin) < theta {
		sum += bounds[last-1]
		last--
	}
	out := make([][]int, last)
	for i := range out {
		out[i] = []int{i}
	}
	return out
}
