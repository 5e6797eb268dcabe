package lexical_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ragd/ragd/lexical"
)

// fuzzSeeds cover each script the analysis treats apart, accents in both
// normal forms, and the characters FTS5's syntax reads.
var fuzzSeeds = []string{
	"Индексом управляет демон; индексы строятся при регистрации",
	"Ёлка, йод, ЁЖ — и ещё chunks через ReplaceScope",
	"As buscas e a decisão: informações, índices, AÇÃO",
	"e\u0301te\u0301 cafe\u0301 Straße Ærø Łódź",
	"全文検索エンジンの設計。我们使用倒排索引。ภาษาไทย",
	`"quoted" -neg OR AND NOT NEAR(a b) col:x ^start x* (y) ""`,
	"\xff\xfe bad utf8 \x00 nul \u200b\u200d zw",
	"\u0301\u0308 leading marks ゙か",
	"Ｆｕｌｌ ﬁle ² ¼ ①",
}

// FuzzAnalyze checks, for every language: no panic; every token is one
// FTS5 token without syntax; a phrase analyses as the document does;
// normalisation is a projection (Simple gives the tokens back).
func FuzzAnalyze(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add(s, uint8(i))
	}
	langs := lexical.Languages()
	simple := mustNew(f, lexical.Simple)
	analyzers := make([]*lexical.Analyzer, len(langs))
	for i, l := range langs {
		analyzers[i] = mustNew(f, l)
	}
	f.Fuzz(func(t *testing.T, text string, li uint8) {
		a := analyzers[int(li)%len(analyzers)]
		toks := a.Analyze(text)
		checkTokens(t, text, toks)
		if p := a.Phrase(text); !slices.Equal(p.Tokens, toks) {
			t.Fatalf("%s: Phrase(%q) = %q, Analyze = %q", a.Language(), text, p.Tokens, toks)
		}
		joined := strings.Join(toks, " ")
		if again := simple.Analyze(joined); !slices.Equal(again, toks) {
			t.Fatalf("%s: tokens %q re-analysed as %q", a.Language(), toks, again)
		}
		for _, term := range a.Word(text) {
			checkTokens(t, text, term.Tokens)
		}
		checkTokens(t, text, a.Prefix(text).Tokens)
		lexical.Detect(text)
		a.IsStopWord(text)
	})
}

// FuzzMatch runs every term a text makes on real FTS5: none may fail, and
// the text's phrase finds the text itself.
func FuzzMatch(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add(s, uint8(i))
	}
	db := openFTS(f)
	langs := lexical.Languages()
	f.Fuzz(func(t *testing.T, text string, li uint8) {
		a := mustNew(t, langs[int(li)%len(langs)])
		if _, err := db.Exec("DELETE FROM docs"); err != nil {
			t.Fatalf("delete: %v", err)
		}
		if _, err := db.Exec("INSERT INTO docs (rowid, body) VALUES (1, ?)", a.Text(text)); err != nil {
			t.Fatalf("insert: %v", err)
		}
		terms := a.Word(text)
		terms = append(terms, a.Phrase(text), a.Prefix(text))
		for _, term := range terms {
			if m := match(term); m != "" {
				if got := matchIDs(t, db, m); !slices.Equal(got, []int64{1}) {
					t.Fatalf("%s: %s does not find its own text %q", a.Language(), m, text)
				}
			}
		}
	})
}
