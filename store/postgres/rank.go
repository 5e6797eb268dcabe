package postgres

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/ragd/ragd"
)

// The lexical ranking. ts_rank and ts_rank_cd weigh every query term alike:
// a claim's common words count as much as its one rare term, which loses
// to bm25 by 0.18–0.26 nDCG@10 on the judged sets (docs/engines.md). A
// chunk's score is instead Σ_t idf(t) · tf(t) over the query's terms, with
//
//	idf(t) = ln(1 + (N − n_t + 0.5) / (n_t + 0.5))
//
// (bm25's, never negative), N the project's chunks the owner may read and
// n_t those of them matching t, both counted in the snapshot (the GIN index
// answers each n_t), and tf(t) PostgreSQL's own ts_rank of the chunk for t
// alone, which already saturates with the term's occurrences. The
// candidates are still the chunks the whole query matches. No index of
// terms is kept beside PostgreSQL's.

// rankNormalization is ts_rank's length normalisation of each term's part:
// 0 keeps the rank as it is. (1, dividing by 1 + the logarithm of the
// chunk's length, measured worse on the judged sets: their answers are
// often the long sections.)
const rankNormalization = "0"

// lexStats are a project's lexical statistics as a snapshot sees them,
// counted once per snapshot: a search's LexicalScores reuses its
// LexicalCandidates' counts.
type lexStats struct {
	chunks int64            // N: chunks the owner may read
	df     map[string]int64 // n_t by rendered term
}

// The statistics are also kept across snapshots, in the Store, by the
// project's lexical generation (migration 0005): a snapshot seeing the
// same generations as the one that counted sees the same index, so it
// reuses N and every n_t counted then, and counts only the terms never
// asked. The Store has one owner, so one N.

// maxCachedTerms bounds the document frequencies kept for one project
// and generation: past it the counts start again (a daemon asks far fewer
// distinct words between two writes of a project).
const maxCachedTerms = 50_000

// statsCache is a Store's statistics by project, each valid for one
// generation.
type statsCache struct {
	mu        sync.Mutex
	byProject map[int64]*cachedStats
}

type cachedStats struct {
	generation string
	chunks     int64
	df         map[string]int64
}

// load copies into st what the cache holds of generation for terms.
func (c *statsCache) load(projectID int64, generation string, st *lexStats, terms []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.byProject[projectID]
	if e == nil || e.generation != generation {
		return
	}
	st.chunks = e.chunks
	for _, t := range terms {
		if n, ok := e.df[t]; ok {
			st.df[t] = n
		}
	}
}

// chunksOf returns the generation the cache holds of the project and N
// counted under it; ok is false when it holds none.
func (c *statsCache) chunksOf(projectID int64) (generation string, chunks int64, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.byProject[projectID]; e != nil && e.chunks >= 0 {
		return e.generation, e.chunks, true
	}
	return "", 0, false
}

// save records st's counts under generation, replacing another
// generation's.
func (c *statsCache) save(projectID int64, generation string, st *lexStats) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byProject == nil {
		c.byProject = map[int64]*cachedStats{}
	}
	e := c.byProject[projectID]
	if e == nil || e.generation != generation || len(e.df)+len(st.df) > maxCachedTerms {
		e = &cachedStats{generation: generation, chunks: st.chunks, df: map[string]int64{}}
		c.byProject[projectID] = e
	}
	for t, n := range st.df {
		e.df[t] = n
	}
}

// generation returns the project's lexical generation in the snapshot,
// read once.
func (sn *Snapshot) generation(ctx context.Context, projectID int64) (string, error) {
	if g, ok := sn.generations[projectID]; ok {
		return g, nil
	}
	var g string
	if err := sn.tx.QueryRow(ctx, "SELECT ragd_lexical_generation($1)", projectID).Scan(&g); err != nil {
		return "", sn.s.describe(fmt.Sprintf("lexical generation of project %d", projectID), err)
	}
	sn.setGeneration(projectID, g)
	return g, nil
}

func (sn *Snapshot) setGeneration(projectID int64, g string) {
	if sn.generations == nil {
		sn.generations = map[int64]string{}
	}
	sn.generations[projectID] = g
}

// rankTerm is one scored term of a query: its tsquery and its weight.
type rankTerm struct {
	tsquery string
	idf     float64
	// df is the chunks matching it (n_t); plain is set when it is one
	// lexeme, neither a phrase nor a prefix.
	df    int64
	plain bool
}

// Ranking only the chunks that can reach the top k (MaxScore). Under
// rankWeights (all 1) and rankNormalization 0, ts_rank of one lexeme in a
// chunk is Σ_{j=1..n} 1/j² / 1.64493406685 over its n occurrences: at
// least plainRankMin (one occurrence), always below plainRankMax (the sum
// never reaches π²/6). So a chunk matching none of a query's rarer terms,
// only some frequent plain ones F, scores below U = Σ_{t∈F} idf(t). The
// top k of the chunks matching the other terms, scored on every term, are
// the query's top k whenever there are k of them and the k-th scores above
// U: every chunk left out scores below it. A frequent word then costs its
// share of the score, not a ranking of every chunk holding it (at 10k
// chunks "w20", in three quarters of them, beside two rare words: the
// rare words' few hundred chunks ranked instead of 7.5k). When the check
// fails, the whole query is ranked: the answer is the same either way.
const (
	plainRankMin = 1 / 1.64493406685
	plainRankMax = 1.0
)

// splitFrequent returns the terms whose matches are ranked (the rarer
// ones) and U, the bound of the score of a chunk matching none of them;
// all of terms and 0 when none can be left out. Plain terms are left out,
// most frequent first, while U stays below kthAtLeast of the plain terms
// remaining: likely below the k-th score of the chunks the remaining terms
// find (LexicalCandidates checks it, so a wrong guess costs a second
// ranking, never another answer).
func splitFrequent(terms []rankTerm, k int) (rarer []rankTerm, bound float64) {
	var plain []int
	for i, t := range terms {
		if t.plain && t.df > 0 {
			plain = append(plain, i)
		}
	}
	sort.SliceStable(plain, func(a, b int) bool { return terms[plain[a]].df > terms[plain[b]].df })
	out := make([]bool, len(terms))
	for n, i := range plain {
		rest := plain[n+1:]
		if len(rest) == 0 {
			break
		}
		if bound+terms[i].idf*plainRankMax >= kthAtLeast(terms, rest, k) {
			break
		}
		bound += terms[i].idf * plainRankMax
		out[i] = true
	}
	for i, t := range terms {
		if !out[i] {
			rarer = append(rarer, t)
		}
	}
	if len(rarer) == len(terms) {
		return terms, 0
	}
	return rarer, bound
}

// kthAtLeast guesses a lower bound of the k-th score among the chunks
// matching the plain terms rest (indexes into terms): one occurrence of
// the least weighty of them, or, when the weightiest terms' chunks number
// k or more (by their document frequencies, as if no chunk held two of
// them), one occurrence of the least weighty of those. At 10k chunks the
// question "w4000 w700 w300" left nothing out by the first guess (one
// "w700" scores below "w300"'s bound) and ranked all 1,132 chunks holding
// any of them; the 58 chunks holding "w4000" each score above it, so
// "w300"'s 786 chunks are left out (docs/engines.md).
func kthAtLeast(terms []rankTerm, rest []int, k int) float64 {
	byIDF := append([]int(nil), rest...)
	sort.SliceStable(byIDF, func(a, b int) bool { return terms[byIDF[a]].idf > terms[byIDF[b]].idf })
	least := terms[byIDF[len(byIDF)-1]].idf * plainRankMin
	var chunks int64
	for _, j := range byIDF {
		if chunks += terms[j].df; chunks >= int64(k) {
			return max(least, terms[j].idf*plainRankMin)
		}
	}
	return least
}

// scoredTerms returns q's distinct rendered terms, in their order (an
// excluded term scores nothing: no chunk it matches is returned).
func scoredTerms(q ragd.LexicalQuery) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range q.Terms {
		if s := renderTerm(t); s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// plainTerms are q's rendered terms that are one lexeme, neither a phrase
// nor a prefix.
func plainTerms(q ragd.LexicalQuery) map[string]bool {
	out := map[string]bool{}
	for _, t := range q.Terms {
		if s := renderTerm(t); s != "" && !t.Prefix && !strings.Contains(s, "<->") {
			out[s] = true
		}
	}
	return out
}

// idf is bm25's inverse document frequency of a term matching n of N
// chunks.
func idf(n, N int64) float64 {
	return math.Log(1 + (float64(N-n)+0.5)/(float64(n)+0.5))
}

// rankTerms weighs q's terms by their rarity in the project, counting what
// the snapshot has not counted yet (in one round trip).
func (sn *Snapshot) rankTerms(ctx context.Context, projectID int64, q ragd.LexicalQuery) ([]rankTerm, error) {
	terms := scoredTerms(q)
	if sn.stats == nil {
		sn.stats = map[int64]*lexStats{}
	}
	gen, err := sn.generation(ctx, projectID)
	if err != nil {
		return nil, err
	}
	st := sn.stats[projectID]
	if st == nil {
		st = &lexStats{chunks: -1, df: map[string]int64{}}
		sn.stats[projectID] = st
	}
	sn.s.stats.load(projectID, gen, st, terms)
	b := &pgx.Batch{}
	if st.chunks < 0 {
		b.Queue("SELECT count(*) FROM chunks WHERE chunks.project_id = $1 AND "+visibleSQL(2), projectID, sn.s.owner)
	}
	var fresh []string
	for _, t := range terms {
		if _, ok := st.df[t]; !ok {
			fresh = append(fresh, t)
		}
	}
	if len(fresh) > 0 {
		// One GIN scan of the chunks matching any new term counts each of
		// them: a third of the time of one scan a term on PGlite.
		// Each term's tsquery is a FROM item, parsed once (rankSQL).
		sel := make([]string, len(fresh))
		from := make([]string, len(fresh))
		args := []any{projectID, sn.s.owner, strings.Join(fresh, " | ")}
		for i, t := range fresh {
			sel[i] = fmt.Sprintf("count(*) FILTER (WHERE chunks.tsv @@ dq%d)", i)
			from[i] = fmt.Sprintf(", to_tsquery('%s', $%d) AS dq%d", tsConfig, i+4, i)
			args = append(args, t)
		}
		b.Queue("SELECT "+strings.Join(sel, ", ")+" FROM chunks, to_tsquery('"+tsConfig+"', $3) AS dq"+strings.Join(from, "")+
			" WHERE chunks.project_id = $1 AND "+visibleSQL(2)+" AND chunks.tsv @@ dq", args...)
	}
	if b.Len() > 0 {
		res := sn.tx.SendBatch(ctx, b)
		if st.chunks < 0 {
			if err := res.QueryRow().Scan(&st.chunks); err != nil {
				res.Close()
				return nil, sn.s.describe(fmt.Sprintf("lexical statistics: chunks of project %d", projectID), err)
			}
		}
		if len(fresh) > 0 {
			n := make([]int64, len(fresh))
			dest := make([]any, len(fresh))
			for i := range n {
				dest[i] = &n[i]
			}
			if err := res.QueryRow().Scan(dest...); err != nil {
				res.Close()
				return nil, sn.s.describe(fmt.Sprintf("lexical statistics: chunks of project %d matching %s", projectID, strings.Join(fresh, " | ")), err)
			}
			for i, t := range fresh {
				st.df[t] = n[i]
			}
		}
		if err := res.Close(); err != nil {
			return nil, sn.s.describe(fmt.Sprintf("lexical statistics of project %d", projectID), err)
		}
		sn.s.stats.save(projectID, gen, st)
	}
	plain := plainTerms(q)
	out := make([]rankTerm, len(terms))
	for i, t := range terms {
		out[i] = rankTerm{tsquery: t, idf: idf(st.df[t], st.chunks), df: st.df[t], plain: plain[t]}
	}
	return out, nil
}

// rankSQL returns the score expression of terms, the FROM items it reads
// (each term's tsquery, a parameter numbered from first on, parsed once
// per query as a FROM item: to_tsquery is STABLE, so in the expression it
// would be parsed again for every matching row), and those parameters.
// Each weight is written out: the expression is what Expression shows.
func rankSQL(terms []rankTerm, first int) (score, from string, args []any) {
	parts := make([]string, len(terms))
	froms := make([]string, len(terms))
	args = make([]any, len(terms))
	for i, t := range terms {
		parts[i] = fmt.Sprintf("%s * ts_rank('%s', chunks.tsv, rq%d, %s)",
			formatWeight(t.idf), rankWeights, i, rankNormalization)
		froms[i] = fmt.Sprintf(", to_tsquery('%s', $%d) AS rq%d", tsConfig, first+i, i)
		args[i] = t.tsquery
	}
	return "(" + strings.Join(parts, " + ") + ")", strings.Join(froms, ""), args
}

// formatWeight writes an idf as SQL: a float8 literal, exact.
func formatWeight(w float64) string {
	return strconv.FormatFloat(w, 'g', -1, 64) + "::float8"
}

// describeRanking is the ranking for Expression: each term's weight.
func describeRanking(terms []rankTerm) string {
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = strconv.FormatFloat(t.idf, 'f', 3, 64) + "·ts_rank(" + t.tsquery + ")"
	}
	return strings.Join(parts, " + ")
}
