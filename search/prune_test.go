package search

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/lexical"
)

// termDocs describes an index of rows rows in which each word (analysed
// as English) is held by the given number of rows.
func termDocs(t *testing.T, rows int64, docs map[string]int64) ragd.TermDocs {
	t.Helper()
	a, err := lexical.New(lexical.English)
	if err != nil {
		t.Fatal(err)
	}
	td := ragd.TermDocs{Rows: rows, Docs: map[string]int64{}}
	for w, n := range docs {
		td.Docs[a.Text(w)] = n
	}
	return td
}

func TestPrune(t *testing.T) {
	// 100 rows: "common" in 90, "half" in exactly 50 (idf log 1 = 0: at
	// FTS5's floor), "mid" in 49 (idf 0.04: weighs), "rare" in 3,
	// "seldom" in 7, "absent" in none.
	td := termDocs(t, 100, map[string]int64{"common": 90, "half": 50, "mid": 49, "rare": 3, "seldom": 7, "absent": 0})
	for _, tc := range []struct {
		name, query string
		match       string // "" = unchanged
		dropped     []string
	}{
		{"drops the terms at the floor", "common half rare", `"rare"`, []string{"common", "half"}},
		{"keeps a term just below half", "common mid rare", `"mid" OR "rare"`, []string{"common"}},
		{"a lone frequent term is searched", "common", "", nil},
		{"all frequent: every term weighs the same and stays", "common half", "", nil},
		{"a rare word no row holds does not count as weighing", "common absent", "", nil},
		{"order of the remaining terms kept", "rare common seldom", `"rare" OR "seldom"`, []string{"common"}},
		{"exclusions unchanged, even frequent ones", "common rare -half", `("rare") NOT ("half")`, []string{"common"}},
		{"a phrase is kept and does not count as weighing", `common "rare seldom"`, "", nil},
		{"a phrase is kept beside a weighing word", `common "common half" seldom`, `"common half" OR "seldom"`, []string{"common"}},
		{"stop words were gone before", "the common rare", `"rare"`, []string{"common"}},
		{"a word written twice is one term", "common rare Common", `"rare"`, []string{"common"}},
		{"a lone unspaced character is a prefix: kept, and not weighing", "common 中", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			got := q.Prune(td)
			want := tc.match
			if want == "" {
				want = q.Match
			}
			if got.Match != want || !slices.Equal(got.Dropped, tc.dropped) {
				t.Errorf("%q: match %s dropped %q, want %s and %q", tc.query, got.Match, got.Dropped, want, tc.dropped)
			}
			if !slices.Equal(got.Terms, q.Terms) || got.Semantic != q.Semantic || !slices.Equal(got.Excluded, q.Excluded) {
				t.Errorf("%q: pruning changed what the query is about: %+v", tc.query, got)
			}
		})
	}
	// An index with no rows: nothing is known, nothing is dropped.
	q, _ := ParseQuery("common rare")
	if got := q.Prune(ragd.TermDocs{Docs: map[string]int64{}}); got.Match != q.Match || got.Dropped != nil {
		t.Errorf("empty index: %s %q", got.Match, got.Dropped)
	}
}

// pruneCorpus indexes n chunks of words drawn from a Zipf distribution, as
// the benchmarks' corpus: "w1" is in nearly every chunk, "w300" in a few
// percent. It returns the store's searcher and project.
func pruneCorpus(t *testing.T, n int) (*Searcher, int64) {
	t.Helper()
	st := openStore(t, 4)
	p := addProject(t, st, "zipf")
	r := rand.New(rand.NewSource(5))
	z := rand.NewZipf(r, 1.07, 2, 5000)
	for i, scope := range []string{ragd.ScopeDocs, ragd.ScopeADR} {
		var in []ragd.ChunkInput
		for j := range n / 2 {
			var b strings.Builder
			for b.Len() < 300+r.Intn(600) {
				b.WriteString("w" + strconv.FormatUint(z.Uint64()+1, 10) + " ")
			}
			path := fmt.Sprintf("docs/%d/%d.md", i, j/10)
			if scope == ragd.ScopeADR {
				path = fmt.Sprintf("docs/adr/%d.md", j)
			}
			in = append(in, doc(path, j%10, []string{"Heading"}, b.String(), nil))
		}
		replace(t, st, p, scope, in)
	}
	return searcher(st, nil), p
}

// TestPrune_RankingUnchanged: on a real index, the lexical candidates of
// queries holding words found in most chunks are the same, in the same
// order, with and without pruning, up to ties; the scores differ by the
// dropped terms' weight at most (2.2e-6 each). When the rarer words match
// fewer rows than asked for, the rows only frequent words match follow.
func TestPrune_RankingUnchanged(t *testing.T) {
	ctx := context.Background()
	s, project := pruneCorpus(t, 1200)
	sn, err := s.Store.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	for i := 1; i <= 3000; i++ {
		words = append(words, "w"+strconv.Itoa(i))
	}
	td, err := sn.TermDocs(ctx, project, words)
	sn.Close()
	if err != nil {
		t.Fatal(err)
	}
	var frequent, mid, rare, scarce []string
	for _, w := range words {
		switch n := td.Docs[w]; {
		case n >= td.Rows/2+1:
			frequent = append(frequent, w)
		case n > td.Rows/4 && n < td.Rows/2-td.Rows/20 && len(mid) < 2:
			// Weighs little (idf 0.1 to 1.1), but more than tie noise: kept.
			mid = append(mid, w)
		case n >= 2*DefaultCandidates && n < td.Rows/4 && len(rare) < 8:
			rare = append(rare, w)
		case n >= 1 && n < DefaultCandidates/2 && len(scarce) < 3:
			scarce = append(scarce, w)
		}
	}
	if len(frequent) < 3 || len(mid) < 2 || len(rare) < 8 || len(scarce) < 3 {
		t.Fatalf("corpus of %d rows: frequent %v, mid %v, rare %v, scarce %v: too few to test", td.Rows, frequent, mid, rare, scarce)
	}
	var queries []string
	for i, r := range rare {
		queries = append(queries, frequent[i%3]+" "+r, r+" "+frequent[0]+" "+frequent[1]+" "+rare[(i+1)%len(rare)],
			mid[i%2]+" "+frequent[2]+" "+r)
	}
	for _, sc := range scarce {
		queries = append(queries, frequent[0]+" "+sc)
	}
	const tie = 1e-5 // far above the dropped terms' weight, far below a rare term's
	tails := 0
	for _, q := range queries {
		off, on := *s, *s
		off.KeepFrequentTerms = true
		// Deeper without pruning, to find the members of a tie the cut at
		// DefaultCandidates splits.
		full, err := off.Candidates(ctx, CandidatesRequest{ProjectID: project, Query: q, Depth: 4 * DefaultCandidates})
		if err != nil {
			t.Fatal(err)
		}
		pruned, err := on.Candidates(ctx, CandidatesRequest{ProjectID: project, Query: q, Depth: DefaultCandidates})
		if err != nil {
			t.Fatal(err)
		}
		if len(pruned.Query.Dropped) == 0 || len(full.Query.Dropped) != 0 {
			t.Fatalf("%q: dropped %q pruning, %q not", q, pruned.Query.Dropped, full.Query.Dropped)
		}
		a, b := full.Candidates.Lexical, pruned.Candidates.Lexical
		if want := min(len(a), DefaultCandidates); len(b) != want {
			t.Errorf("%q: %d candidates pruned, %d not", q, len(b), want)
		}
		maxShift := 2.2e-6 * float64(len(pruned.Query.Dropped))
		// Every candidate is where it was, up to ties, scored the same but
		// for the dropped terms' weight.
		for i, c := range b {
			j := slices.IndexFunc(a, func(x ragd.LexicalCandidate) bool { return x.ChunkID == c.ChunkID })
			if j < 0 {
				t.Errorf("%q: pruning found %s at %d, not found without", q, c.ChunkID, i+1)
				continue
			}
			if d := c.BM25 - a[j].BM25; d < 0 || d > maxShift+1e-12 {
				t.Errorf("%q: %s scored %g pruned, %g not", q, c.ChunkID, c.BM25, a[j].BM25)
			}
			if j != i && math.Abs(a[i].BM25-a[j].BM25) > tie {
				t.Errorf("%q: %s ranked %d pruned, %d not (scores %g, %g)", q, c.ChunkID, i+1, j+1, a[i].BM25, a[j].BM25)
			}
			if c.BM25 > -maxShift {
				tails++ // a row only the dropped words match, from the whole query
			}
		}
		// A deeper pruned list starts with the shallower one: replays cut it.
		deep, err := on.Candidates(ctx, CandidatesRequest{ProjectID: project, Query: q, Depth: 4 * DefaultCandidates})
		if err != nil {
			t.Fatal(err)
		}
		if got := deep.Candidates.Lexical[:min(len(deep.Candidates.Lexical), len(b))]; !slices.Equal(got, b) {
			t.Errorf("%q: pruned at depth %d\n%v\nstarts\n%v", q, 4*DefaultCandidates, deep.Candidates.Lexical, b)
		}
	}
	if tails == 0 {
		t.Errorf("no query's rarer words matched fewer than %d rows: the tail is not tested", DefaultCandidates)
	}
	// The answer says which words were left out, and the match without them.
	q := frequent[0] + " " + rare[0]
	resp, err := s.Search(ctx, Request{ProjectID: project, Query: q, Limit: DefaultLimit, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if e := resp.Explain; e == nil || !slices.Equal(e.Dropped, []string{frequent[0]}) || e.Match != `"`+rare[0]+`"` {
		t.Errorf("%q: explain %+v, want %s dropped", q, resp.Explain, frequent[0])
	}
}
