package search

import (
	"context"
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
// make FTS5 score every row holding it. lexicalCandidates adds the rows
// only dropped words match when the others are too few. Dropped and weighing terms are
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
		if w := q.words[i]; !slices.Contains(out.Dropped, w) {
			out.Dropped = append(out.Dropped, w)
		}
	}
	// A word some of whose terms remain (a run of bigrams) is still searched.
	out.Dropped = slices.DeleteFunc(out.Dropped, func(w string) bool { return slices.Contains(out.words, w) })
	out.Match = match(out.included, out.excluded)
	return out
}

// lexicalCandidates returns the k best lexical candidates of r's query in
// sn. A pruned query scores a row that matches it by its pruned bm25, at
// most the dropped terms' weight (2.2e-6 each) away from the whole query's,
// and a row only dropped words match by the whole query's bm25 (within
// that weight of 0, after every other row). When the pruned query finds k
// rows, that is its list, at the cost of its weighing words; otherwise the
// rows only dropped words match follow, taken from the whole query (at its
// cost). Either way the list is the whole query's up to ties, and a list
// read deeper starts with the one read shallower: what replays rely on.
func lexicalCandidates(ctx context.Context, sn ragd.Snapshot, f ragd.Filter, r *request, k int) ([]ragd.LexicalCandidate, error) {
	got, err := sn.LexicalCandidates(ctx, f, r.query.Match, k)
	if err != nil || len(got) >= k || r.query.whole == nil {
		return got, err
	}
	whole, err := sn.LexicalCandidates(ctx, f, r.query.whole.Match, k)
	if err != nil {
		return nil, err
	}
	have := make(map[string]bool, len(got))
	for _, c := range got {
		have[c.ChunkID] = true
	}
	for _, c := range whole {
		if len(got) == k {
			break
		}
		if !have[c.ChunkID] {
			got = append(got, c)
		}
	}
	return got, nil
}

// lexicalScores returns the lexical score of each of ids that r's query
// matches, as lexicalCandidates scores it: by the pruned query where it
// matches, else by the whole query.
func lexicalScores(ctx context.Context, sn ragd.Snapshot, r *request, ids []string) (map[string]float64, error) {
	out, err := sn.LexicalScores(ctx, r.ProjectID, r.query.Match, ids)
	if err != nil || r.query.whole == nil {
		return out, err
	}
	var rest []string
	for _, id := range ids {
		if _, ok := out[id]; !ok {
			rest = append(rest, id)
		}
	}
	if len(rest) == 0 {
		return out, nil
	}
	more, err := sn.LexicalScores(ctx, r.ProjectID, r.query.whole.Match, rest)
	if err != nil {
		return nil, err
	}
	for id, score := range more {
		out[id] = score
	}
	return out, nil
}
