package postgres

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

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

// rankTerm is one scored term of a query: its tsquery and its weight.
type rankTerm struct {
	tsquery string
	idf     float64
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
	st := sn.stats[projectID]
	b := &pgx.Batch{}
	if st == nil {
		st = &lexStats{chunks: -1, df: map[string]int64{}}
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
		sn.stats[projectID] = st
	}
	out := make([]rankTerm, len(terms))
	for i, t := range terms {
		out[i] = rankTerm{tsquery: t, idf: idf(st.df[t], st.chunks)}
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
