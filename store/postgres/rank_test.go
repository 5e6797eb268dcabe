package postgres

import (
	"context"
	"math"
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
