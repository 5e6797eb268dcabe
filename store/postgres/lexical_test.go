package postgres

import (
	"context"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
	"github.com/ragd/ragd/store/rules"
)

func TestRenderTSQuery(t *testing.T) {
	for _, tc := range []struct {
		name string
		q    ragd.LexicalQuery
		want string
	}{
		{"empty", ragd.LexicalQuery{}, ""},
		{"one word", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{term("fox", false, "fox")}}, "'fox'"},
		{"words ORed", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{term("fox", false, "fox"), term("dogs", false, "dog")}}, "'fox' | 'dog'"},
		{"phrase", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{term("lazy dog", false, "lazi", "dog")}}, "('lazi' <-> 'dog')"},
		{"prefix", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{term("qui*", true, "qui")}}, "'qui':*"},
		{"prefix phrase", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{term("brown fo*", true, "brown", "fo")}}, "('brown' <-> 'fo':*)"},
		{"exclusion", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{term("fox", false, "fox")}, Excluded: []ragd.LexicalTerm{term("dog", false, "dog")}},
			"'fox' & !('dog')"},
		{"exclusions of a disjunction", ragd.LexicalQuery{
			Terms:    []ragd.LexicalTerm{term("fox", false, "fox"), term("cat", false, "cat")},
			Excluded: []ragd.LexicalTerm{term("lazy dog", false, "lazi", "dog"), term("x*", true, "x")}},
			"('fox' | 'cat') & !(('lazi' <-> 'dog')) & !('x':*)"},
		{"only exclusions", ragd.LexicalQuery{Excluded: []ragd.LexicalTerm{term("dog", false, "dog")}}, ""},
		{"empty terms left out", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{term("", false), term("—", false, " "), term("fox", false, "fox")},
			Excluded: []ragd.LexicalTerm{term("", false)}}, "'fox'"},
		{"syntax quoted", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{term("x", false, `it's`, `a\b`, `&|!():*<->`)}},
			`('it''s' <-> 'a\\b' <-> '&|!():*<->')`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := renderTSQuery(tc.q); got != tc.want {
				t.Fatalf("renderTSQuery = %q, want %q", got, tc.want)
			}
		})
	}
}

// Every rendering parses on the server, and matches what the structure
// says: phrases in order, prefixes, exclusions.
func TestTSQueryMatches(t *testing.T) {
	s, _ := openTest(t, Options{})
	ctx := context.Background()
	p := addProject(t, s, "demo")
	replace(t, s, p.ID, ragd.ScopeDocs,
		doc("a.md", 0, "The quick brown fox", nil),
		doc("b.md", 0, "A lazy dog sleeps", nil),
		doc("c.md", 0, "The dog is quick", nil))
	a, err := rules.AnalyzerFor("english")
	if err != nil {
		t.Fatal(err)
	}
	tok := func(w string) []string { return a.Analyze(w) }
	sn, err := s.snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	f := ragd.Filter{ProjectID: p.ID}
	for _, tc := range []struct {
		name string
		q    ragd.LexicalQuery
		want []string // sources, in any order
	}{
		{"word", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{{Word: "quick", Tokens: tok("quick")}}}, []string{"a.md", "c.md"}},
		{"phrase in order", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{{Word: "lazy dog", Tokens: tok("lazy dog")}}}, []string{"b.md"}},
		{"phrase out of order", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{{Word: "dog lazy", Tokens: tok("dog lazy")}}}, nil},
		{"prefix", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{{Word: "sle*", Tokens: []string{"sle"}, Prefix: true}}}, []string{"b.md"}},
		{"exclusion", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{{Word: "dog", Tokens: tok("dog")}}, Excluded: []ragd.LexicalTerm{{Word: "lazy", Tokens: tok("lazy")}}},
			[]string{"c.md"}},
		{"syntax is no syntax", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{{Word: "x", Tokens: []string{`'&|!():*`, `\`, "<->"}}}}, nil},
		{"title matches", ragd.LexicalQuery{Terms: []ragd.LexicalTerm{{Word: "b.md", Tokens: tok("b.md")}}}, []string{"b.md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := sn.LexicalCandidates(ctx, f, tc.q, 10)
			if err != nil {
				t.Fatal(err)
			}
			ids := make([]string, len(m.Candidates))
			for i, c := range m.Candidates {
				ids[i] = c.ChunkID
				if c.Score <= 0 {
					t.Errorf("candidate %s has score %v, want > 0", c.ChunkID, c.Score)
				}
			}
			chunks, err := sn.Chunks(ctx, ids)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, c := range chunks {
				got[c.SourcePath] = true
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%s matched %v, want %v", m.Expression, got, tc.want)
			}
			for _, w := range tc.want {
				if !got[w] {
					t.Fatalf("%s matched %v, want %v", m.Expression, got, tc.want)
				}
			}
			if m.Dropped != nil {
				t.Errorf("dropped %v, want none", m.Dropped)
			}
		})
	}
}

// The language decides the analysis: a Russian project's text is stemmed
// as Russian, and SetLanguage rebuilds every chunk's tsv.
func TestLanguageAndRebuild(t *testing.T) {
	s, _ := openTest(t, Options{})
	ctx := context.Background()
	p := addProject(t, s, "ru")
	replace(t, s, p.ID, ragd.ScopeDocs, doc("a.md", 0, "Индексация документов проекта выполняется быстро", nil))
	got, err := s.Project(ctx, "ru")
	if err != nil {
		t.Fatal(err)
	}
	if got.LexicalLanguage != "russian" {
		t.Fatalf("language detected: %q, want russian", got.LexicalLanguage)
	}
	ru, _ := rules.AnalyzerFor("russian")
	if n := countMatches(t, s, p.ID, ru.Analyze("документы")); n != 1 {
		t.Fatalf("russian stem of документы matched %d chunks, want 1", n)
	}
	ch, err := s.SetLanguage(ctx, p.ID, "simple")
	if err != nil {
		t.Fatal(err)
	}
	if !ch.Rebuilt || ch.Chunks != 1 || ch.Project.LexicalLanguage != "simple" {
		t.Fatalf("set language: %+v", ch)
	}
	simple, _ := rules.AnalyzerFor("simple")
	if n := countMatches(t, s, p.ID, simple.Analyze("документов")); n != 1 {
		t.Fatalf("unstemmed word matched %d chunks after the rebuild, want 1", n)
	}
	if _, err := s.SetLanguage(ctx, p.ID, "klingon"); err == nil {
		t.Fatal("unknown language: no error")
	}
}

func countMatches(t testing.TB, s *Store, projectID int64, tokens []string) int {
	t.Helper()
	sn, err := s.snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	m, err := sn.LexicalCandidates(context.Background(), ragd.Filter{ProjectID: projectID},
		ragd.LexicalQuery{Terms: []ragd.LexicalTerm{{Word: "w", Tokens: tokens}}}, 100)
	if err != nil {
		t.Fatal(err)
	}
	return len(m.Candidates)
}

// term is a lexical query's term (testdb.Term).
var term = testdb.Term
