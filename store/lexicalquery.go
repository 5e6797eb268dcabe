package store

// The lexical query: a ragd.LexicalQuery rendered as an FTS5 expression,
// and the frequent-word pruning bm25's statistics allow
// (docs/adr/0009-scale.md, "Frequent words").
//
// FTS5 answers `MATCH … ORDER BY bm25 LIMIT k` by scoring every row any
// OR-ed term matches: a word in most chunks makes a search score most of
// the project. bm25 weighs a term by log((N − n + 0.5)/(n + 0.5)), N the
// rows and n those holding the term, and FTS5 floors that at 1e-6 once it
// is not positive, that is once the term is in half the rows or more. Such
// a term moves a row's score by at most (k1 + 1)·1e-6 = 2.2e-6: it changes
// no order among rows that match a weighing term, and only adds rows that
// match nothing else, scored about 0, below all of those.

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ragd/ragd"
)

// negligibleIDF is FTS5's floor for a term's idf (fts5_aux.c): a term
// weighed this little or less moves a score by at most 2.2e-6, tie noise.
const negligibleIDF = 1e-6

// idf is FTS5 bm25's inverse document frequency of a term n of rows rows
// hold, before FTS5's floor.
func idf(rows, n int64) float64 {
	return math.Log((float64(rows) - float64(n) + 0.5) / (float64(n) + 0.5))
}

// MatchExpression returns q as the FTS5 expression LexicalCandidates runs
// before any pruning: the terms OR-ed, less the excluded ones; "" when q
// has no term with a token. Every token is inside an FTS5 string, where
// nothing is syntax, so no LexicalQuery makes FTS5 fail.
func MatchExpression(q ragd.LexicalQuery) string {
	return matchOf(cleanTerms(q.Terms), cleanTerms(q.Excluded))
}

// matchOf is the FTS5 expression of terms less excluded, terms being
// clean (cleanTerms).
func matchOf(terms, excluded []ragd.LexicalTerm) string {
	m := orList(terms)
	if m == "" {
		return ""
	}
	if x := orList(excluded); x != "" {
		// One NOT over an OR group, not a chain of NOTs: FTS5 flattens OR
		// but nests each NOT, and refuses trees deeper than 256.
		m = "(" + m + ") NOT (" + x + ")"
	}
	return m
}

// orList joins terms with OR.
func orList(terms []ragd.LexicalTerm) string {
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString(ftsString(t))
	}
	return b.String()
}

// ftsString returns t as an FTS5 string: its tokens joined by spaces in
// double quotes, a double quote doubled, a NUL made a space, then " *"
// with Prefix. Inside the quotes nothing is syntax: the table's tokenizer
// splits the string into the phrase's tokens, at a NUL as at a space (FTS5
// would read a NUL as the end of the expression). t must hold a token.
func ftsString(t ragd.LexicalTerm) string {
	s := `"` + ftsEscaper.Replace(strings.Join(t.Tokens, " ")) + `"`
	if t.Prefix {
		s += " *"
	}
	return s
}

// ftsEscaper writes text inside an FTS5 string.
var ftsEscaper = strings.NewReplacer(`"`, `""`, "\x00", " ")

// cleanTerms returns terms without their empty tokens, without the terms
// left with none (they match nothing) and without repeats (each would
// count twice in bm25). It returns terms itself when nothing goes.
func cleanTerms(terms []ragd.LexicalTerm) []ragd.LexicalTerm {
	clean := true
	seen := make(map[string]bool, len(terms))
	for _, t := range terms {
		k := termKey(t)
		clean = clean && !slices.Contains(t.Tokens, "") && len(t.Tokens) > 0 && !seen[k]
		seen[k] = true
	}
	if clean {
		return terms
	}
	out := make([]ragd.LexicalTerm, 0, len(terms))
	clear(seen)
	for _, t := range terms {
		if slices.Contains(t.Tokens, "") {
			t.Tokens = slices.DeleteFunc(slices.Clone(t.Tokens), func(s string) bool { return s == "" })
		}
		k := termKey(t)
		if len(t.Tokens) == 0 || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, t)
	}
	return out
}

// termKey is what two terms that match alike share: their FTS5 string.
func termKey(t ragd.LexicalTerm) string {
	if len(t.Tokens) == 0 {
		return ""
	}
	return ftsString(t)
}

// pruning is the frequent-word pruning of one query in one project.
type pruning struct {
	// kept are the query's terms without the dropped ones; nil when none
	// was dropped.
	kept []ragd.LexicalTerm
	// dropped are the Words left out entirely; nil when none was.
	dropped []string
}

// prune leaves out of terms (clean) the ones bm25 would weigh nothing in
// the index td describes, when a term that weighs remains: what it leaves
// out changes no score by more than tie noise, and each such term would
// make FTS5 score every row holding it. LexicalCandidates adds the rows
// only dropped words match when the others are too few. Dropped and
// weighing terms are single tokens (not prefixes): a dropped one is in half
// the index's rows or more (its idf is at FTS5's floor); a weighing one is
// in at least one row and in fewer than half, so the rows it matches
// outscore every row only dropped terms match. When no term weighs,
// nothing is dropped: the terms then all weigh the same 1e-6 (or match
// nothing), and none is negligible beside the others. Phrases and prefixes
// are kept and never count as weighing (how many rows they match is not
// known without matching them). A word some of whose terms remain (a run
// of bigrams) is still searched, so not among the dropped.
func prune(terms []ragd.LexicalTerm, td TermDocs) pruning {
	if len(terms) < 2 || td.Rows <= 0 {
		return pruning{}
	}
	weighs := false
	drop := make([]bool, len(terms))
	for i, t := range terms {
		if t.Prefix || len(t.Tokens) != 1 {
			continue
		}
		n := td.Docs[t.Tokens[0]]
		w := idf(td.Rows, n)
		weighs = weighs || (n > 0 && w > negligibleIDF)
		drop[i] = w <= negligibleIDF
	}
	if !weighs || !slices.Contains(drop, true) {
		return pruning{}
	}
	var p pruning
	for i, t := range terms {
		if !drop[i] {
			p.kept = append(p.kept, t)
		} else if !slices.Contains(p.dropped, t.Word) {
			p.dropped = append(p.dropped, t.Word)
		}
	}
	p.dropped = slices.DeleteFunc(p.dropped, func(w string) bool {
		return slices.ContainsFunc(p.kept, func(t ragd.LexicalTerm) bool { return t.Word == w })
	})
	if len(p.dropped) == 0 {
		p.dropped = nil
	}
	return p
}

// pruneTokens lists the tokens whose document frequencies prune reads:
// the single-token terms, prefixes aside.
func pruneTokens(terms []ragd.LexicalTerm) []string {
	var out []string
	for _, t := range terms {
		if len(t.Tokens) == 1 && !t.Prefix {
			out = append(out, t.Tokens[0])
		}
	}
	return out
}

// lexicalPlan is how the snapshot runs one query in one project: the whole
// expression and, when pruning dropped terms, the pruned one.
type lexicalPlan struct {
	projectID int64
	whole     string
	keepAll   bool
	// pruned is the expression without the dropped terms; "" when no term
	// was dropped.
	pruned  string
	dropped []string
	// first are the terms of expression() and excluded the query's
	// excluded terms, both clean; td their statistics when read (hasTD).
	first, excluded []ragd.LexicalTerm
	td              TermDocs
	hasTD           bool
	// terms are the query's terms, clean: those of whole.
	terms []ragd.LexicalTerm
}

// scoringOf is how the plan scores an expression of terms (less the
// excluded): by ragd_bm25 with the kept row counts when every term is a
// single token whose count the bounds table keeps (no phrase's rows then
// counted for bm25's idf, lexicalbm25.go: the same scores bit for bit),
// else by FTS5's bm25.
func (p lexicalPlan) scoringOf(terms []ragd.LexicalTerm) lexicalScoring {
	whole := fts5Scoring(lexicalTable(p.projectID))
	if !p.hasTD || !p.td.Kept || len(terms) == 0 {
		return whole
	}
	q := maxScoreQuery{table: lexicalTable(p.projectID), docs: make([]int64, len(terms)), rows: p.td.Rows, tokens: p.td.Tokens}
	for i, t := range terms {
		n, ok := int64(0), false
		if !t.Prefix && len(t.Tokens) == 1 {
			n, ok = p.td.Docs[t.Tokens[0]]
		}
		if !ok || p.td.Rows <= 0 {
			return whole
		}
		q.docs[i] = n
	}
	return q.scoring(0)
}

// plan renders q for project projectID and prunes it, reading the
// statistics of the project's lexical index in the snapshot. The last
// plan is kept: a search asks for candidates, then for the scores of the
// other signal's candidates, of one query.
func (sn *Snapshot) plan(ctx context.Context, projectID int64, q ragd.LexicalQuery) (lexicalPlan, error) {
	terms, excluded := cleanTerms(q.Terms), cleanTerms(q.Excluded)
	p := lexicalPlan{projectID: projectID, whole: matchOf(terms, excluded), keepAll: q.KeepFrequent, first: terms, excluded: excluded, terms: terms}
	if last := sn.lastPlan; last != nil && last.projectID == p.projectID && last.whole == p.whole && last.keepAll == p.keepAll {
		return *last, nil
	}
	tokens := pruneTokens(terms)
	if p.whole != "" && len(terms) >= 2 && len(tokens) > 0 {
		// Read for the frequent-word pruning and the top-k pass
		// (maxScoreCandidates), which keeps every word.
		td, err := sn.TermDocs(ctx, projectID, tokens)
		if err != nil {
			return p, err
		}
		p.td, p.hasTD = td, true
		if pr := prune(terms, td); pr.kept != nil && !q.KeepFrequent {
			p.pruned, p.dropped, p.first = matchOf(pr.kept, excluded), pr.dropped, pr.kept
		}
	} else if p.whole != "" && len(tokens) > 0 {
		// One term: its row count, if kept, spares FTS5's bm25 a walk of
		// its rows (scoringOf); not counted otherwise.
		td, err := sn.termDocs(ctx, projectID, tokens, false)
		if err != nil {
			return p, err
		}
		p.td, p.hasTD = td, td.Kept
	}
	sn.lastPlan = &p
	return p, nil
}

// expression is the expression the plan searches first.
func (p lexicalPlan) expression() string {
	if p.pruned != "" {
		return p.pruned
	}
	return p.whole
}

// LexicalCandidates returns up to k chunks matching q, best first (highest
// −bm25), among the filter's project and scopes, with the FTS5 expression
// run and the words left out of it. q's tokens must be analysed for the
// project's language (LexicalLanguage). Terms bm25 weighs nothing are left
// out when a weighing one remains (unless q.KeepFrequent), and a pruned
// query scores a row that matches it by its pruned bm25, at most the
// dropped terms' weight (2.2e-6 each) away from the whole query's, and a
// row only dropped words match by the whole query's bm25 (within that
// weight of 0, after every other row). When the pruned query finds k rows,
// that is its list, at the cost of its weighing words; otherwise the rows
// only dropped words match follow, taken from the whole query (at its
// cost). Either way the list is the whole query's up to ties, and a list
// read deeper starts with the one read shallower: what replays rely on.
// The top-k pass (maxScoreCandidates) answers some questions without scoring
// every match; its scores are the same sums in another order, so rows
// whose scores differ by rounding alone may trade places.
func (sn *Snapshot) LexicalCandidates(ctx context.Context, f ragd.Filter, q ragd.LexicalQuery, k int) (_ ragd.LexicalMatches, err error) {
	defer func() { err = corruptIndex(f.ProjectID, err) }()
	p, err := sn.plan(ctx, f.ProjectID, q)
	if err != nil {
		return ragd.LexicalMatches{}, fmt.Errorf("lexical candidates: %w", err)
	}
	out := ragd.LexicalMatches{Expression: p.expression(), Dropped: p.dropped}
	if k <= 0 || p.whole == "" {
		return out, nil
	}
	if out.Candidates, err = sn.firstCandidates(ctx, f, p, k); err != nil || len(out.Candidates) >= k || p.pruned == "" {
		return out, err
	}
	whole, err := sn.scoredCandidates(ctx, f, p.whole, p.scoringOf(p.terms), k)
	if err != nil {
		return out, err
	}
	have := make(map[string]bool, len(out.Candidates))
	for _, c := range out.Candidates {
		have[c.ChunkID] = true
	}
	for _, c := range whole {
		if len(out.Candidates) == k {
			break
		}
		if !have[c.ChunkID] {
			out.Candidates = append(out.Candidates, c)
		}
	}
	return out, nil
}

// firstCandidates returns the best k rows of the plan's expression(): by
// the top-k pass when it can prove them the best, else by the expression
// itself.
func (sn *Snapshot) firstCandidates(ctx context.Context, f ragd.Filter, p lexicalPlan, k int) ([]ragd.LexicalCandidate, error) {
	sn.lastTopK = topKNotTried
	if p.hasTD && lexicalTopK != topKOff {
		out, pass, err := sn.maxScoreCandidates(ctx, f, p.first, p.excluded, p.td, k)
		sn.lastTopK = pass
		if err != nil || pass == topKExact {
			return out, err
		}
	}
	return sn.scoredCandidates(ctx, f, p.expression(), p.scoringOf(p.first), k)
}

// LexicalScores returns the score (−bm25) of q for each of the given chunks
// of a project that q matches, as LexicalCandidates scores it: by the
// pruned query where it matches, else by the whole query. Chunks that do
// not match, or belong to another project, are absent from the map.
func (sn *Snapshot) LexicalScores(ctx context.Context, projectID int64, q ragd.LexicalQuery, chunkIDs []string) (_ map[string]float64, err error) {
	defer func() { err = corruptIndex(projectID, err) }()
	if len(chunkIDs) == 0 {
		return map[string]float64{}, nil
	}
	p, err := sn.plan(ctx, projectID, q)
	if err != nil {
		return nil, fmt.Errorf("lexical scores: %w", err)
	}
	out, err := sn.matchScores(ctx, projectID, p.expression(), p.scoringOf(p.first), chunkIDs)
	if err != nil || p.pruned == "" {
		return out, err
	}
	var rest []string
	for _, id := range chunkIDs {
		if _, ok := out[id]; !ok {
			rest = append(rest, id)
		}
	}
	if len(rest) == 0 {
		return out, nil
	}
	more, err := sn.matchScores(ctx, projectID, p.whole, p.scoringOf(p.terms), rest)
	if err != nil {
		return nil, err
	}
	for id, score := range more {
		out[id] = score
	}
	return out, nil
}
