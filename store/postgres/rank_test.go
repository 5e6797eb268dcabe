package postgres

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/store/rules"
)

func TestIDF(t *testing.T) {
	for _, tc := range []struct {
		n, N int64
		want float64
	}{
		{1, 5, math.Log(1 + 4.5/1.5)},
		{4, 5, math.Log(1 + 1.5/4.5)},
		{5, 5, math.Log(1 + 0.5/5.5)},
		{0, 0, math.Log(2)},
	} {
		if got := idf(tc.n, tc.N); math.Abs(got-tc.want) > 1e-12 || got <= 0 {
			t.Errorf("idf(%d, %d) = %v, want %v (> 0)", tc.n, tc.N, got, tc.want)
		}
	}
	if idf(1, 100) <= idf(10, 100) {
		t.Error("a rarer term does not weigh more")
	}
}

func TestScoredTerms(t *testing.T) {
	q := ragd.LexicalQuery{
		Terms:    []ragd.LexicalTerm{term("a", false, "a"), term("b c", false, "b", "c"), term("a", false, "a"), term("d*", true, "d"), term("blank", false, " ")},
		Excluded: []ragd.LexicalTerm{term("x", false, "x")},
	}
	got := scoredTerms(q)
	want := []string{"'a'", "('b' <-> 'c')", "'d':*"}
	if len(got) != len(want) {
		t.Fatalf("scoredTerms = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("scoredTerms = %q, want %q", got, want)
		}
	}
}

// A rare term outranks a common one, though the common term's chunks hold
// it twice and come first: ts_rank_cd, which weighs both terms alike, put
// them first.
func TestRareTermOutranksCommon(t *testing.T) {
	s, _ := openTest(t, Options{})
	ctx := context.Background()
	p := addProject(t, s, "demo")
	var chunks []ragd.ChunkInput
	for _, name := range []string{"b.md", "c.md", "d.md", "e.md"} {
		chunks = append(chunks, doc(name, 0, "common words common here", nil))
	}
	rare := doc("a.md", 0, "rare words only here", nil)
	chunks = append(chunks, rare)
	replace(t, s, p.ID, ragd.ScopeDocs, chunks...)
	sn, err := s.snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	q := words("common", "rare")
	m, err := sn.LexicalCandidates(ctx, ragd.Filter{ProjectID: p.ID}, q, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Candidates) != 5 || m.Candidates[0].ChunkID != idOf(rare, p.ID, ragd.ScopeDocs) || m.Candidates[0].Score <= m.Candidates[1].Score {
		t.Fatalf("%s: %+v, want a.md first", m.Expression, m.Candidates)
	}
	var cd []string
	rows, err := sn.tx.Query(ctx, `SELECT id FROM chunks, to_tsquery('simple', $1) AS q WHERE project_id = $2 AND tsv @@ q
		ORDER BY ts_rank_cd('{1,1,1,1}', tsv, q, 1) DESC, seq`, renderTSQuery(q), p.ID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		cd = append(cd, id)
	}
	if err := rows.Err(); err != nil || len(cd) != 5 || cd[0] == idOf(rare, p.ID, ragd.ScopeDocs) {
		t.Fatalf("ts_rank_cd ranked %v (%v): the test no longer tells the rankings apart", cd, err)
	}
	// The weights are bm25's idf of the snapshot's counts: 1 of 5 chunks
	// holds "rare", 4 hold "common".
	st := sn.stats[p.ID]
	if st == nil || st.chunks != 5 || st.df["'rare'"] != 1 || st.df["'common'"] != 4 {
		t.Fatalf("statistics %+v, want 5 chunks, rare in 1, common in 4", st)
	}
	var tsRank float64
	if err := sn.tx.QueryRow(ctx, `SELECT ts_rank('{1,1,1,1}', tsv, to_tsquery('simple', $1), `+rankNormalization+`) FROM chunks WHERE id = $2`,
		"'rare'", m.Candidates[0].ChunkID).Scan(&tsRank); err != nil {
		t.Fatal(err)
	}
	// ts_rank is a float4, read as text: six significant digits agree.
	if want := idf(1, 5) * tsRank; math.Abs(m.Candidates[0].Score-want) > 1e-6*want {
		t.Fatalf("score %v, want idf·ts_rank = %v", m.Candidates[0].Score, want)
	}
}

// LexicalScores agrees with LexicalCandidates on every query shape, from
// the snapshot's cached counts; exclusions, phrases and prefixes still
// decide what matches.
func TestLexicalScoresAgree(t *testing.T) {
	s, _ := openTest(t, Options{})
	ctx := context.Background()
	p := addProject(t, s, "demo")
	texts := map[string]string{
		"a.md": "the quick brown fox jumps",
		"b.md": "a lazy dog sleeps all day",
		"c.md": "the dog is quick and the dog is brown",
		"d.md": "sleepers sleep while the fox watches",
		"e.md": "nothing to see",
	}
	var chunks []ragd.ChunkInput
	for _, name := range []string{"a.md", "b.md", "c.md", "d.md", "e.md"} {
		chunks = append(chunks, doc(name, 0, texts[name], nil))
	}
	replace(t, s, p.ID, ragd.ScopeDocs, chunks...)
	a, _ := rules.AnalyzerFor("english")
	tk := func(w string, prefix bool) ragd.LexicalTerm {
		return ragd.LexicalTerm{Word: w, Tokens: a.Analyze(w), Prefix: prefix}
	}
	for _, tc := range []struct {
		name string
		q    ragd.LexicalQuery
		want int
	}{
		{"words", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{tk("fox", false), tk("dog", false), tk("quick", false)}}, 4},
		{"phrase", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{tk("lazy dog", false), tk("brown", false)}}, 3},
		{"prefix", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{{Word: "sle*", Tokens: []string{"sle"}, Prefix: true}}}, 2},
		{"exclusion", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{tk("dog", false), tk("fox", false)}, Excluded: []ragd.LexicalTerm{tk("lazy", false)}}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sn, err := s.snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer sn.Close()
			m, err := sn.LexicalCandidates(ctx, ragd.Filter{ProjectID: p.ID}, tc.q, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Candidates) != tc.want {
				t.Fatalf("%s: %d candidates %+v, want %d", m.Expression, len(m.Candidates), m.Candidates, tc.want)
			}
			ids := make([]string, len(m.Candidates))
			for i, c := range m.Candidates {
				ids[i] = c.ChunkID
				if c.Score <= 0 || i > 0 && c.Score > m.Candidates[i-1].Score {
					t.Fatalf("%s: %+v, want positive scores, best first", m.Expression, m.Candidates)
				}
			}
			counted := len(sn.stats[p.ID].df)
			scores, err := sn.LexicalScores(ctx, p.ID, tc.q, append(ids, idOf(chunks[4], p.ID, ragd.ScopeDocs)))
			if err != nil {
				t.Fatal(err)
			}
			if len(scores) != len(ids) {
				t.Fatalf("scores %v, want the %d candidates'", scores, len(ids))
			}
			for _, c := range m.Candidates {
				if scores[c.ChunkID] != c.Score {
					t.Fatalf("%s: score of %s %v, candidate's %v", m.Expression, c.ChunkID, scores[c.ChunkID], c.Score)
				}
			}
			if got := len(sn.stats[p.ID].df); got != counted {
				t.Fatalf("LexicalScores counted %d more terms, want the snapshot's counts reused", got-counted)
			}
		})
	}
}

// lexicalStatsOf runs q in a fresh snapshot and returns the statistics it
// ranked with and whether they all came from the Store's cache.
func lexicalStatsOf(t *testing.T, s *Store, projectID int64, q ragd.LexicalQuery) (lexStats, bool) {
	t.Helper()
	ctx := context.Background()
	sn, err := s.snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	if _, err := sn.LexicalLanguage(ctx, projectID); err != nil {
		t.Fatal(err)
	}
	gen := sn.generations[projectID]
	cached := lexStats{chunks: -1, df: map[string]int64{}}
	s.stats.load(projectID, gen, &cached, scoredTerms(q))
	if _, err := sn.LexicalCandidates(ctx, ragd.Filter{ProjectID: projectID}, q, 10); err != nil {
		t.Fatal(err)
	}
	st := sn.stats[projectID]
	fromCache := cached.chunks == st.chunks && len(cached.df) == len(st.df)
	// The project's coverage, counted with its language or taken from the
	// cache by generation, is N.
	if n, _, err := sn.VectorCoverage(ctx, ragd.Filter{ProjectID: projectID}); err != nil || int64(n) != st.chunks {
		t.Fatalf("vector coverage: %d chunks (%v), N %d", n, err, st.chunks)
	}
	return *st, fromCache
}

// The statistics are counted once per state of the project and counted
// again after every write that changes them: chunks added or deleted, a
// chunk's text analysed anew (a title changed in place), a session shared.
// A vector's backfill changes nothing the ranking reads.
func TestLexicalStatsFollowWrites(t *testing.T) {
	s, url := openTest(t, Options{Owner: "alice"})
	ctx := context.Background()
	p := addProject(t, s, "demo")
	a := doc("a.md", 0, "rare words here", nil)
	b := doc("b.md", 0, "common words there", nil)
	replace(t, s, p.ID, ragd.ScopeDocs, a, b)
	q := words("rare", "common")
	check := func(what string, chunks, rare int64, wantCached bool) {
		t.Helper()
		st, cached := lexicalStatsOf(t, s, p.ID, q)
		if st.chunks != chunks || st.df["'rare'"] != rare || cached != wantCached {
			t.Fatalf("%s: N %d, n(rare) %d, from the cache %v; want %d, %d, %v", what, st.chunks, st.df["'rare'"], cached, chunks, rare, wantCached)
		}
	}
	check("first search", 2, 1, false)
	check("same state", 2, 1, true)

	c := doc("c.md", 0, "rare again", nil)
	replace(t, s, p.ID, ragd.ScopeDocs, a, b, c)
	check("a chunk added", 3, 2, false)
	check("same state", 3, 2, true)

	// Same text under a title holding the word: updated in place.
	b2 := b
	b2.Title = "rare title"
	if res := replace(t, s, p.ID, ragd.ScopeDocs, a, b2, c); res.Kept != 3 {
		t.Fatalf("replace kept %d chunks, want 3 updated in place", res.Kept)
	}
	check("a title changed", 3, 3, false)

	replace(t, s, p.ID, ragd.ScopeDocs, a, b2)
	check("a chunk deleted", 2, 2, false)

	if _, err := s.pool.Exec(ctx, "UPDATE chunks SET embedding_space = NULL WHERE project_id = $1", p.ID); err != nil {
		t.Fatal(err)
	}
	check("vectors changed", 2, 2, true)

	// Bob's session chunks are his until shared: Alice's N counts them then.
	bob := openAt(t, url, Options{Owner: "bob"})
	replace(t, bob, p.ID, ragd.ScopeSession, sessionChunk("s1", "e1", "rare session words", nil))
	st, _ := lexicalStatsOf(t, s, p.ID, q)
	if st.chunks != 2 || st.df["'rare'"] != 2 {
		t.Fatalf("bob's private session: N %d, n(rare) %d; want 2, 2", st.chunks, st.df["'rare'"])
	}
	if _, err := s.pool.Exec(ctx, "UPDATE chunks SET shared = true WHERE project_id = $1 AND scope = 'session'", p.ID); err != nil {
		t.Fatal(err)
	}
	check("bob's session shared", 3, 3, false)
}

func TestSplitFrequent(t *testing.T) {
	const N = 1000
	mk := func(q string, df int64, plain bool) rankTerm {
		return rankTerm{tsquery: q, df: df, idf: idf(df, N), plain: plain}
	}
	names := func(ts []rankTerm) string {
		var out []string
		for _, t := range ts {
			out = append(out, t.tsquery)
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		name  string
		terms []rankTerm
		k     int
		want  string
		left  float64
	}{
		{"frequent beside rare", []rankTerm{mk("f", 900, true), mk("r", 5, true)}, 10, "r", idf(900, N)},
		{"two frequent", []rankTerm{mk("f", 900, true), mk("g", 800, true), mk("r", 5, true)}, 10, "r", idf(900, N) + idf(800, N)},
		{"all rare", []rankTerm{mk("r", 5, true), mk("s", 7, true)}, 10, "r s", 0},
		{"one term", []rankTerm{mk("f", 900, true)}, 10, "f", 0},
		{"a phrase stays", []rankTerm{mk("f", 900, false), mk("r", 5, true)}, 10, "f r", 0},
		{"nothing plain left", []rankTerm{mk("f", 900, true), mk("p", 5, false)}, 10, "f p", 0},
		{"matches nothing", []rankTerm{mk("f", 900, true), mk("z", 0, true)}, 10, "f z", 0},
		// One "m" scores below "f"'s bound, but the k chunks of "r" each
		// score above it: "f" is left out at k 10, not at k 30.
		{"the rarest term's k chunks", []rankTerm{mk("f", 200, true), mk("m", 100, true), mk("r", 20, true)}, 10, "m r", idf(200, N)},
		{"fewer than k rare chunks", []rankTerm{mk("f", 200, true), mk("m", 100, true), mk("r", 20, true)}, 30, "f m r", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, bound := splitFrequent(tc.terms, tc.k)
			if names(got) != tc.want || math.Abs(bound-tc.left) > 1e-12 {
				t.Fatalf("splitFrequent = %q, U %v; want %q, %v", names(got), bound, tc.want, tc.left)
			}
		})
	}
}

// Ranking the rarer terms' matches first gives exactly the whole query's
// ranking: the same chunks, scores and order, when the frequent word's
// chunks cannot reach the top k, and when they can (then the whole query
// is ranked).
func TestFrequentWordRankingExact(t *testing.T) {
	s, _ := openTest(t, Options{})
	ctx := context.Background()
	p := addProject(t, s, "demo")
	if _, err := s.SetLanguage(ctx, p.ID, "english"); err != nil {
		t.Fatal(err)
	}
	var chunks []ragd.ChunkInput
	for i := range 40 {
		text := "common filler words"
		switch {
		case i%7 == 0:
			text += " rare"
		case i%5 == 0:
			text += " common common common"
		}
		chunks = append(chunks, doc(fmt.Sprintf("d%02d.md", i), 0, text, nil))
	}
	replace(t, s, p.ID, ragd.ScopeDocs, chunks...)
	q := words("common", "rare")
	for _, k := range []int{3, 6, 10, 30} {
		t.Run(fmt.Sprint(k), func(t *testing.T) { checkFrequentRanking(t, s, p.ID, q, k, 1) })
	}
}

// The same when the frequent word is left out because the rarest word's
// chunks are k or more (kthAtLeast), though one occurrence of the middle
// word scores below the frequent word's bound: "common" in 20 of 60
// chunks (idf 1.09), "medium" in 15 (one occurrence 0.83), "rare" in 6
// (one occurrence 1.36).
func TestFrequentWordRankingExactByRarestChunks(t *testing.T) {
	s, _ := openTest(t, Options{})
	p := addProject(t, s, "demo")
	if _, err := s.SetLanguage(context.Background(), p.ID, "english"); err != nil {
		t.Fatal(err)
	}
	var chunks []ragd.ChunkInput
	for i := range 60 {
		text := "filler words"
		if i%3 == 0 {
			text += " common"
			if i%9 == 0 {
				text += " common common"
			}
		}
		if i%4 == 1 {
			text += " medium"
		}
		if i%10 == 2 {
			text += " rare"
		}
		chunks = append(chunks, doc(fmt.Sprintf("d%02d.md", i), 0, text, nil))
	}
	replace(t, s, p.ID, ragd.ScopeDocs, chunks...)
	q := words("common", "medium", "rare")
	for _, k := range []int{3, 6} {
		t.Run(fmt.Sprint(k), func(t *testing.T) { checkFrequentRanking(t, s, p.ID, q, k, 2) })
	}
}

func checkFrequentRanking(t *testing.T, s *Store, projectID int64, q ragd.LexicalQuery, k, wantRarer int) {
	ctx := context.Background()
	sn, err := s.snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	p := struct{ ID int64 }{projectID}
	{
		f := ragd.Filter{ProjectID: p.ID}
		m, err := sn.LexicalCandidates(ctx, f, q, k)
		if err != nil {
			t.Fatal(err)
		}
		terms, err := sn.rankTerms(ctx, p.ID, q)
		if err != nil {
			t.Fatal(err)
		}
		if rarer, _ := splitFrequent(terms, k); len(rarer) != wantRarer {
			t.Fatalf("split %+v: the test no longer leaves the frequent word out", rarer)
		}
		where, args, err := sn.filterSQL(f)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := sn.rankMatches(ctx, f, where, args, renderTSQuery(q), terms, k)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Candidates) != k || len(whole) != k {
			t.Fatalf("k %d: %d candidates, whole query %d", k, len(m.Candidates), len(whole))
		}
		for i := range whole {
			if m.Candidates[i] != whole[i] {
				t.Fatalf("k %d: candidates %+v, whole query's ranking %+v", k, m.Candidates, whole)
			}
		}
	}
}
