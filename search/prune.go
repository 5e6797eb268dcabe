package search

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/ragd/ragd"
)

// Frequent-word pruning (docs/adr/0009-scale.md, "Frequent words").
//
// FTS5 answers `MATCH … ORDER BY bm25 LIMIT k` by scoring every row any
// OR-ed term matches: a word in most chunks makes a search score most of
// the project. bm25 weighs a term by log((N − n + 0.5)/(n + 0.5)), N the
// rows and n those holding the term, and FTS5 floors that at 1e-6 once it
// is not positive, that is once the term is in half the rows or more. Such
// a term moves a row's score by at most (k1 + 1)·1e-6 = 2.2e-6: it changes
// no order among rows that match a weighing term, and only adds rows that
// match nothing else, scored about 0, below all of those.

// negligibleIDF is FTS5's floor for a term's idf (fts5_aux.c): a term
// weighed this little or less moves a score by at most 2.2e-6, tie noise.
const negligibleIDF = 1e-6

// idf is FTS5 bm25's inverse document frequency of a term n of rows rows
// hold, before FTS5's floor.
func idf(rows, n int64) float64 {
	return math.Log((float64(rows) - float64(n) + 0.5) / (float64(n) + 0.5))
}

// pruneTokens lists the tokens whose document frequencies Prune reads:
// q's single-token positive terms, prefixes aside.
func (q Query) pruneTokens() []string {
	var out []string
	for _, t := range q.included {
		if len(t.Tokens) == 1 && !t.Prefix {
			out = append(out, t.Tokens[0])
		}
	}
	return out
}

// Prune returns q without the positive terms bm25 would weigh nothing in
// the index td describes, when a term that weighs remains: what it leaves
// out changes no score by more than tie noise, and each such term would
// make FTS5 score every row holding it. lexicalCandidates turns the pruned
// query's rows into the whole query's list, scores and order. Dropped and weighing terms are
// single tokens (not prefixes): a dropped one is in half the index's rows
// or more (its idf is at FTS5's floor); a weighing one is in at least one
// row and in fewer than half, so the rows it matches outscore every row
// only dropped terms match. When no term weighs, q is returned whole: its
// terms then all weigh the same 1e-6 (or match nothing), and none is
// negligible beside the others. Phrases and prefixes are kept and never
// count as weighing (how many rows they match is not known without
// matching them). Exclusions are unchanged. The words dropped are in
// Query.Dropped.
func (q Query) Prune(td ragd.TermDocs) Query {
	if len(q.included) < 2 || td.Rows <= 0 {
		return q
	}
	weighs := false
	drop := make([]bool, len(q.included))
	for i, t := range q.included {
		if t.Prefix || len(t.Tokens) != 1 {
			continue
		}
		n := td.Docs[t.Tokens[0]]
		w := idf(td.Rows, n)
		weighs = weighs || (n > 0 && w > negligibleIDF)
		drop[i] = w <= negligibleIDF
	}
	if !weighs || !slices.Contains(drop, true) {
		return q
	}
	out := q
	out.whole = &q
	out.included, out.words, out.Dropped = nil, nil, nil
	for i, t := range q.included {
		if !drop[i] {
			out.included = append(out.included, t)
			out.words = append(out.words, q.words[i])
			continue
		}
		out.droppedTerms++
		if w := q.words[i]; !slices.Contains(out.Dropped, w) {
			out.Dropped = append(out.Dropped, w)
		}
	}
	// A word some of whose terms remain (a run of bigrams) is still searched.
	out.Dropped = slices.DeleteFunc(out.Dropped, func(w string) bool { return slices.Contains(out.words, w) })
	out.Match = match(out.included, out.excluded)
	return out
}

// unpruned returns the query Prune was given, q itself if it dropped
// nothing.
func (q Query) unpruned() Query {
	if q.whole == nil {
		return q
	}
	return *q.whole
}

// droppedWeight is the most a term at FTS5's idf floor adds to a row's
// bm25: (k1 + 1)·1e-6, since a term's saturated frequency stays below k1 + 1.
const droppedWeight = 2.2e-6

// pruneMargin is how many rows past k the pruned query reads, so that the
// row after them is almost always further from the k-th than the dropped
// terms' weight: then no row it did not read can enter the top k.
const pruneMargin = 8

// lexicalCandidates returns the k best lexical candidates of r's query in
// sn: exactly the list, scores and order of the whole query (every word
// searched), at the cost of its weighing words when r's query is pruned.
// The pruned query reads k + pruneMargin rows; each row's whole score is at
// most the dropped terms' weight better than its pruned one, and a row
// only dropped words match scores within that weight of 0. So when the
// k-th row is further than that weight from the first row not read (or
// from 0 when every row was read), the whole query's top k is among the
// rows read: they are scored with the whole query (LexicalScores) and
// sorted as the store sorts. Otherwise, when too few rows match the
// weighing words or a near-tie straddles the cut, the whole query runs,
// r's query becomes it, and nothing is reported dropped.
func lexicalCandidates(ctx context.Context, sn ragd.Snapshot, f ragd.Filter, r *request, k int) ([]ragd.LexicalCandidate, error) {
	if r.query.whole == nil {
		return sn.LexicalCandidates(ctx, f, r.query.Match, k)
	}
	got, err := sn.LexicalCandidates(ctx, f, r.query.Match, k+pruneMargin)
	if err != nil {
		return nil, err
	}
	shift := droppedWeight * float64(r.query.droppedTerms)
	bound := 0.0
	if len(got) == k+pruneMargin {
		bound = got[len(got)-1].BM25
	}
	if len(got) < k || got[k-1].BM25 >= bound-shift {
		r.query = r.query.unpruned()
		return sn.LexicalCandidates(ctx, f, r.query.Match, k)
	}
	ids := make([]string, len(got))
	for i, c := range got {
		ids[i] = c.ChunkID
	}
	exact, err := sn.LexicalScores(ctx, f.ProjectID, r.query.whole.Match, ids)
	if err != nil {
		return nil, err
	}
	for i := range got {
		score, ok := exact[got[i].ChunkID]
		if !ok {
			return nil, fmt.Errorf("lexical candidates: chunk %s matches %s but not %s", got[i].ChunkID, r.query.Match, r.query.whole.Match)
		}
		got[i].BM25 = score
	}
	slices.SortFunc(got, func(a, b ragd.LexicalCandidate) int {
		return cmp.Or(cmp.Compare(a.BM25, b.BM25), cmp.Compare(a.ChunkID, b.ChunkID))
	})
	return got[:k], nil
}
