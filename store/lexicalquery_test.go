package store

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
	"github.com/ragd/ragd/store/rules"
)

// words is a query of each w, its tokens split at spaces (a phrase when
// there are several), as analysed text.
func words(ws ...string) ragd.LexicalQuery {
	var q ragd.LexicalQuery
	for _, w := range ws {
		q.Terms = append(q.Terms, ragd.LexicalTerm{Word: w, Tokens: strings.Fields(w)})
	}
	return q
}

// everyWord is words with no pruning.
func everyWord(ws ...string) ragd.LexicalQuery {
	q := words(ws...)
	q.KeepFrequent = true
	return q
}

// english analyses a query written as the search package's syntax, in
// part: plain words (English), "quoted phrases", -exclusions, no stop word
// removal (the search package's).
func english(t testing.TB, text string) ragd.LexicalQuery {
	t.Helper()
	a, err := rules.AnalyzerFor("english")
	if err != nil {
		t.Fatal(err)
	}
	q := ragd.LexicalQuery{Language: "english"}
	for _, w := range strings.SplitAfter(text, " ") {
		w = strings.TrimSpace(w)
		if w == "" {
			continue
		}
		neg := strings.HasPrefix(w, "-")
		w = strings.TrimPrefix(w, "-")
		list := &q.Terms
		if neg {
			list = &q.Excluded
		}
		for _, term := range a.Word(w) {
			*list = append(*list, ragd.LexicalTerm{Word: w, Tokens: term.Tokens, Prefix: term.Prefix})
		}
	}
	return q
}

// term is a lexical query's term (testdb.Term).
var term = testdb.Term

func TestMatchExpression(t *testing.T) {
	for _, tc := range []struct {
		name string
		q    ragd.LexicalQuery
		want string
	}{
		{"one word", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{term("index", false, "index")}}, `"index"`},
		{"words are OR-ed", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{term("hybrid", false, "hybrid"), term("search", false, "search")}}, `"hybrid" OR "search"`},
		{"a phrase", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{term("weighted fusion", false, "weight", "fusion")}}, `"weight fusion"`},
		{"a prefix", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{term("検", true, "検")}}, `"検" *`},
		{"a prefix phrase", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{term("e-ma", true, "e", "ma")}}, `"e ma" *`},
		{"exclusions under one NOT", ragd.LexicalQuery{
			Terms:    []ragd.LexicalTerm{term("fusion", false, "fusion")},
			Excluded: []ragd.LexicalTerm{term("reciprocal rank", false, "reciproc", "rank"), term("rrf", false, "rrf")},
		}, `("fusion") NOT ("reciproc rank" OR "rrf")`},
		{"only exclusions: nothing", ragd.LexicalQuery{Excluded: []ragd.LexicalTerm{term("x", false, "x")}}, ``},
		{"no term", ragd.LexicalQuery{}, ``},
		{"quotes in tokens are doubled", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{term(`say "hi"`, false, `say`, `"hi"`), term(`"`, false, `"`)}}, `"say ""hi""" OR """"`},
		{"a NUL is a space, as the tokenizer reads it", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{term("a\x00b", false, "a\x00b")}}, `"a b"`},
		{"operators in tokens are text", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{term("x", false, "NEAR(a", "b)", "AND", "c*", "content:x", "^y")}}, `"NEAR(a b) AND c* content:x ^y"`},
		{"empty terms and tokens go", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{term("a", false), term("b", false, "", "b", ""), term("c", true, "")}}, `"b"`},
		{"empty exclusions go", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{term("a", false, "a")}, Excluded: []ragd.LexicalTerm{term("b", false, "")}}, `"a"`},
		{"a term repeated is searched once", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{term("Index", false, "index"), term("rare", false, "rare"), term("index", false, "index")}}, `"index" OR "rare"`},
		{"a prefix is not its word", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{term("a", false, "a"), term("a*", true, "a")}}, `"a" OR "a" *`},
	} {
		if got := MatchExpression(tc.q); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestPrune(t *testing.T) {
	a, err := rules.AnalyzerFor("english")
	if err != nil {
		t.Fatal(err)
	}
	// 100 rows: "common" in 90, "half" in exactly 50 (idf log 1 = 0: at
	// FTS5's floor), "mid" in 49 (idf 0.04: weighs), "rare" in 3,
	// "seldom" in 7, "absent" in none.
	td := TermDocs{Rows: 100, Docs: map[string]int64{}}
	for w, n := range map[string]int64{"common": 90, "half": 50, "mid": 49, "rare": 3, "seldom": 7, "absent": 0} {
		td.Docs[a.Text(w)] = n
	}
	phrase := func(q ragd.LexicalQuery, at int, ws string) ragd.LexicalQuery {
		var tokens []string
		for _, w := range strings.Fields(ws) {
			tokens = append(tokens, a.Text(w))
		}
		q.Terms = slices.Insert(q.Terms, at, ragd.LexicalTerm{Word: ws, Tokens: tokens})
		return q
	}
	for _, tc := range []struct {
		name    string
		q       ragd.LexicalQuery
		match   string // "" = unchanged
		dropped []string
	}{
		{"drops the terms at the floor", english(t, "common half rare"), `"rare"`, []string{"common", "half"}},
		{"keeps a term just below half", english(t, "common mid rare"), `"mid" OR "rare"`, []string{"common"}},
		{"a lone frequent term is searched", english(t, "common"), "", nil},
		{"all frequent: every term weighs the same and stays", english(t, "common half"), "", nil},
		{"a rare word no row holds does not count as weighing", english(t, "common absent"), "", nil},
		{"order of the remaining terms kept", english(t, "rare common seldom"), `"rare" OR "seldom"`, []string{"common"}},
		{"exclusions unchanged, even frequent ones", english(t, "common rare -half"), `("rare") NOT ("half")`, []string{"common"}},
		{"a phrase is kept and does not count as weighing", phrase(english(t, "common"), 1, "rare seldom"), "", nil},
		{"a phrase is kept beside a weighing word", phrase(english(t, "common seldom"), 1, "common half"), `"common half" OR "seldom"`, []string{"common"}},
		{"a word written twice is one term", english(t, "common rare Common"), `"rare"`, []string{"common"}},
		{"a lone unspaced character is a prefix: kept, and not weighing", english(t, "common 中"), "", nil},
		{"a word some of whose terms remain is not dropped", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{
			term("commonrare", false, "common"), term("commonrare", false, "rare")}}, `"rare"`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			terms := cleanTerms(tc.q.Terms)
			p := prune(terms, td)
			got, want := MatchExpression(tc.q), tc.match
			if p.kept != nil {
				got = matchOf(p.kept, cleanTerms(tc.q.Excluded))
			}
			if want == "" {
				want = MatchExpression(tc.q)
			}
			if got != want || !slices.Equal(p.dropped, tc.dropped) {
				t.Errorf("match %s dropped %q, want %s and %q", got, p.dropped, want, tc.dropped)
			}
		})
	}
	// An index with no rows: nothing is known, nothing is dropped.
	if p := prune(english(t, "common rare").Terms, TermDocs{Docs: map[string]int64{}}); p.kept != nil || p.dropped != nil {
		t.Errorf("empty index: %+v", p)
	}
}

// zipfCorpus indexes testdb.ZipfScopes' n chunks: "w1" is in nearly every
// chunk, "w300" in a few percent.
func zipfCorpus(t *testing.T, n int) (*Store, int64) {
	t.Helper()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "zipf")
	corpus := testdb.ZipfScopes(n, func(path string, pos int, text string) ragd.ChunkInput { return docChunk(path, pos, text, nil) })
	for _, sc := range corpus {
		mustReplace(t, s, p.ID, sc.Scope, sc.Chunks)
	}
	return s, p.ID
}

// TestPrune_RankingUnchanged: on a real index, the lexical candidates of
// queries holding words found in most chunks are the same, in the same
// order, with and without pruning, up to ties; the scores differ by the
// dropped terms' weight at most (2.2e-6 each). When the rarer words match
// fewer rows than asked for, the rows only frequent words match follow.
func TestPrune_RankingUnchanged(t *testing.T) {
	const k = 12 // the search's default depth
	ctx := context.Background()
	s, project := zipfCorpus(t, 1200)
	sn, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	var all []string
	for i := 1; i <= 3000; i++ {
		all = append(all, "w"+strconv.Itoa(i))
	}
	td, err := sn.(*Snapshot).TermDocs(ctx, project, all)
	if err != nil {
		t.Fatal(err)
	}
	var frequent, mid, rare, scarce []string
	for _, w := range all {
		switch n := td.Docs[w]; {
		case n >= td.Rows/2+1:
			frequent = append(frequent, w)
		case n > td.Rows/4 && n < td.Rows/2-td.Rows/20 && len(mid) < 2:
			// Weighs little (idf 0.1 to 1.1), but more than tie noise: kept.
			mid = append(mid, w)
		case n >= 2*k && n < td.Rows/4 && len(rare) < 8:
			rare = append(rare, w)
		case n >= 1 && n < k/2 && len(scarce) < 3:
			scarce = append(scarce, w)
		}
	}
	if len(frequent) < 3 || len(mid) < 2 || len(rare) < 8 || len(scarce) < 3 {
		t.Fatalf("corpus of %d rows: frequent %v, mid %v, rare %v, scarce %v: too few to test", td.Rows, frequent, mid, rare, scarce)
	}
	var queries [][]string
	for i, r := range rare {
		queries = append(queries, []string{frequent[i%3], r}, []string{r, frequent[0], frequent[1], rare[(i+1)%len(rare)]},
			[]string{mid[i%2], frequent[2], r})
	}
	for _, sc := range scarce {
		queries = append(queries, []string{frequent[0], sc})
	}
	f := ragd.Filter{ProjectID: project}
	const tie = 1e-5 // far above the dropped terms' weight, far below a rare term's
	tails := 0
	for _, ws := range queries {
		// Deeper without pruning, to find the members of a tie the cut at
		// k splits.
		full, err := sn.LexicalCandidates(ctx, f, everyWord(ws...), 4*k)
		if err != nil {
			t.Fatal(err)
		}
		pruned, err := sn.LexicalCandidates(ctx, f, words(ws...), k)
		if err != nil {
			t.Fatal(err)
		}
		if len(pruned.Dropped) == 0 || len(full.Dropped) != 0 || full.Expression != MatchExpression(words(ws...)) || pruned.Expression == full.Expression {
			t.Fatalf("%q: dropped %q (%s) pruning, %q (%s) not", ws, pruned.Dropped, pruned.Expression, full.Dropped, full.Expression)
		}
		a, b := full.Candidates, pruned.Candidates
		if want := min(len(a), k); len(b) != want {
			t.Errorf("%q: %d candidates pruned, %d not", ws, len(b), want)
		}
		maxShift := 2.2e-6 * float64(len(pruned.Dropped))
		// Every candidate is where it was, up to ties, scored the same but
		// for the dropped terms' weight.
		for i, c := range b {
			j := slices.IndexFunc(a, func(x ragd.LexicalCandidate) bool { return x.ChunkID == c.ChunkID })
			if j < 0 {
				t.Errorf("%q: pruning found %s at %d, not found without", ws, c.ChunkID, i+1)
				continue
			}
			if d := a[j].Score - c.Score; d < 0 || d > maxShift+1e-12 {
				t.Errorf("%q: %s scored %g pruned, %g not", ws, c.ChunkID, c.Score, a[j].Score)
			}
			if j != i && math.Abs(a[i].Score-a[j].Score) > tie {
				t.Errorf("%q: %s ranked %d pruned, %d not (scores %g, %g)", ws, c.ChunkID, i+1, j+1, a[i].Score, a[j].Score)
			}
			if c.Score < maxShift {
				tails++ // a row only the dropped words match, from the whole query
			}
		}
		// A deeper pruned list starts with the shallower one: replays cut it.
		deep, err := sn.LexicalCandidates(ctx, f, words(ws...), 4*k)
		if err != nil {
			t.Fatal(err)
		}
		if got := deep.Candidates[:min(len(deep.Candidates), len(b))]; !slices.Equal(got, b) {
			t.Errorf("%q: pruned at depth %d\n%v\nstarts\n%v", ws, 4*k, deep.Candidates, b)
		}
		// LexicalScores scores as LexicalCandidates does, pruned and whole.
		ids := make([]string, len(b))
		for i, c := range b {
			ids[i] = c.ChunkID
		}
		scores, err := sn.LexicalScores(ctx, project, words(ws...), ids)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range b {
			if scores[c.ChunkID] != c.Score {
				t.Errorf("%q: %s scored %g by LexicalScores, %g listed", ws, c.ChunkID, scores[c.ChunkID], c.Score)
			}
		}
	}
	if tails == 0 {
		t.Errorf("no query's rarer words matched fewer than %d rows: the tail is not tested", k)
	}
}

// hostileTokens are tokens no analysis makes, which a LexicalQuery may
// still hold: none may make FTS5 fail.
var hostileTokens = []string{
	``, ` `, `"`, `""`, `"""`, `*`, `^`, `:`, `(`, `)`, `()`, `{`, `}`, `-`, `+`, `AND`, `OR`, `NOT`, `NEAR`,
	`NEAR(a b)`, `content:x`, `{title content}:x`, `a"b`, `"a" OR "b"`, "a\x00b", "\x00", "caf\xe9", "\xff\xfe",
	"\xe2\x82", "a\nb", "\t", `\`, `'`, `''`, `;`, `--`, `/*`, `%`, `_`, "🚀", "\u200b", "\U000E0001", "ǅ", "ⅷ",
	`\"`, `a*`, `*a`, "Ω≈ç√", `w1`, `title`,
}

// checkNeverFails runs q on sn: both lexical reads must answer.
func checkNeverFails(tb testing.TB, sn ragd.Snapshot, project int64, q ragd.LexicalQuery) {
	tb.Helper()
	ctx := context.Background()
	m, err := sn.LexicalCandidates(ctx, ragd.Filter{ProjectID: project}, q, 12)
	if err != nil {
		tb.Fatalf("%+v → %s: %v", q, MatchExpression(q), err)
	}
	if _, err := sn.LexicalScores(ctx, project, q, []string{"missing", "x"}); err != nil {
		tb.Fatalf("%+v → %s: scores: %v", q, m.Expression, err)
	}
	if (m.Expression == "") != (MatchExpression(q) == "") {
		tb.Fatalf("%+v: expression %q, whole %q", q, m.Expression, MatchExpression(q))
	}
}

// hostileStore is a store whose project holds a few chunks, some holding
// frequent words, for queries to run on.
func hostileStore(tb testing.TB) (ragd.Snapshot, int64) {
	tb.Helper()
	s := mustOpen(tb, 4)
	p := mustProject(tb, s, "hostile")
	var in []ragd.ChunkInput
	for i := range 6 {
		in = append(in, docChunk(fmt.Sprintf("docs/%d.md", i), 0, fmt.Sprintf("w1 w2 near content a b w%d café", 10+i), nil))
	}
	if _, err := s.ReplaceScope(context.Background(), p.ID, ragd.ScopeDocs, in); err != nil {
		tb.Fatal(err)
	}
	sn, err := s.Snapshot(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { sn.Close() })
	return sn, p.ID
}

// TestLexicalQuery_AnyBytesNeverFail: every hostile token, alone, as a
// prefix, in a phrase, as an exclusion, beside a frequent word.
func TestLexicalQuery_AnyBytesNeverFail(t *testing.T) {
	sn, project := hostileStore(t)
	for _, tok := range hostileTokens {
		for _, prefix := range []bool{false, true} {
			h := term(tok, prefix, tok)
			w1 := term("w1", false, "w1")
			for _, q := range []ragd.LexicalQuery{
				{Terms: []ragd.LexicalTerm{h}},
				{Terms: []ragd.LexicalTerm{w1, h}},
				{Terms: []ragd.LexicalTerm{term("p", prefix, "a", tok, "b")}},
				{Terms: []ragd.LexicalTerm{w1}, Excluded: []ragd.LexicalTerm{h}},
				{Terms: []ragd.LexicalTerm{h, h, term("w10", false, "w10")}, Excluded: []ragd.LexicalTerm{h, w1}},
			} {
				checkNeverFails(t, sn, project, q)
			}
		}
	}
	// Hostile tokens together, and more terms than FTS5 nests.
	var all []ragd.LexicalTerm
	for i, tok := range hostileTokens {
		all = append(all, term(tok, i%2 == 0, tok, "x"+strconv.Itoa(i)))
	}
	for i := range 600 {
		all = append(all, term("", false, "w"+strconv.Itoa(i)))
	}
	checkNeverFails(t, sn, project, ragd.LexicalQuery{Terms: all, Excluded: all})
}

// FuzzLexicalQuery builds a query from arbitrary text (terms split at |,
// tokens at commas, exclusions after a #) and runs it: FTS5 must never fail.
func FuzzLexicalQuery(f *testing.F) {
	for _, s := range []string{"w1|w2", `a,"b"|c#w1`, "NEAR(a,b)|*#^", "\x00|\xff", `"|""|"""`, "w1,w2|w10#", "|,|,#,|"} {
		f.Add(s, uint8(0))
	}
	sn, project := hostileStore(f)
	f.Fuzz(func(t *testing.T, in string, prefixes uint8) {
		pos, neg, _ := strings.Cut(in, "#")
		terms := func(s string) []ragd.LexicalTerm {
			var out []ragd.LexicalTerm
			for i, tt := range strings.Split(s, "|") {
				out = append(out, term(tt, prefixes&(1<<(i%8)) != 0, strings.Split(tt, ",")...))
			}
			return out
		}
		checkNeverFails(t, sn, project, ragd.LexicalQuery{Terms: terms(pos), Excluded: terms(neg)})
	})
}
