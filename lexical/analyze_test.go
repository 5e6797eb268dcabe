package lexical_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/ragd/ragd/lexical"
)

func mustNew(t testing.TB, lang lexical.Language) *lexical.Analyzer {
	t.Helper()
	a, err := lexical.New(lang)
	if err != nil {
		t.Fatalf("New(%q): %v", lang, err)
	}
	return a
}

// checkTokens fails unless every token is one FTS5 ascii-tokenizer token
// that no query syntax can hide in.
func checkTokens(t testing.TB, text string, toks []string) {
	t.Helper()
	for _, tok := range toks {
		if tok == "" {
			t.Fatalf("%q: empty token in %q", text, toks)
		}
		for _, r := range tok {
			bad := r < 0x80 && !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
			bad = bad || unicode.IsSpace(r) || unicode.IsControl(r) || r == '\uFFFD'
			bad = bad || !(unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) || unicode.Is(unicode.Co, r))
			if bad {
				t.Fatalf("%q: token %q holds %U", text, tok, r)
			}
		}
	}
}

func TestParseLanguage(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want lexical.Language
	}{
		{"", lexical.English}, {"Russian", lexical.Russian}, {" portuguese ", lexical.Portuguese},
		{"SIMPLE", lexical.Simple}, {"german", lexical.German}, {"french", lexical.French}, {"spanish", lexical.Spanish},
	} {
		got, err := lexical.ParseLanguage(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseLanguage(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"klingon", "en", "ru"} {
		if _, err := lexical.ParseLanguage(bad); !errors.Is(err, lexical.ErrUnknownLanguage) || !strings.Contains(err.Error(), "portuguese") {
			t.Errorf("ParseLanguage(%q) err = %v, want ErrUnknownLanguage listing the languages", bad, err)
		}
		if _, err := lexical.New(lexical.Language(bad)); !errors.Is(err, lexical.ErrUnknownLanguage) {
			t.Errorf("New(%q) err = %v", bad, err)
		}
	}
	if _, err := lexical.New(""); !errors.Is(err, lexical.ErrUnknownLanguage) {
		t.Errorf("New(\"\") err = %v: an analyzer names its language", err)
	}
}

// The inflections of a word meet in one token in its language, and only
// with stemming: Simple keeps them apart.
func TestAnalyze_InflectionsMeet(t *testing.T) {
	for _, tc := range []struct {
		lang  lexical.Language
		forms []string
	}{
		{lexical.Russian, []string{"индекс", "индекса", "индексом", "индексы", "индексов", "Индексу"}},
		{lexical.Russian, []string{"поиск", "поиска", "поиском", "поиске"}},
		{lexical.Russian, []string{"решение", "решения", "решением", "решении"}},
		{lexical.Russian, []string{"ёлка", "елки", "ёлкой"}},
		{lexical.Portuguese, []string{"busca", "buscas", "buscar"}},
		{lexical.Portuguese, []string{"índice", "índices", "indice"}},
		{lexical.Portuguese, []string{"informação", "informações"}},
		{lexical.Spanish, []string{"búsqueda", "búsquedas", "busqueda"}},
		{lexical.Spanish, []string{"decisión", "decisiones"}},
		{lexical.German, []string{"Suche", "Suchen"}},
		{lexical.German, []string{"Straße", "Strassen"}},
		{lexical.French, []string{"recherche", "recherches", "rechercher"}},
		{lexical.French, []string{"décision", "décisions", "decision"}},
		{lexical.English, []string{"index", "indexes", "indexing", "indexed"}},
	} {
		a := mustNew(t, tc.lang)
		want := a.Analyze(tc.forms[0])
		if len(want) != 1 {
			t.Fatalf("%s %q: %q, want one token", tc.lang, tc.forms[0], want)
		}
		for _, f := range tc.forms[1:] {
			if got := a.Analyze(f); !slices.Equal(got, want) {
				t.Errorf("%s: %q → %q, %q → %q: inflections do not meet", tc.lang, tc.forms[0], want, f, got)
			}
		}
		s := mustNew(t, lexical.Simple)
		if slices.Equal(s.Analyze(tc.forms[0]), s.Analyze(tc.forms[1])) {
			t.Errorf("simple: %q and %q meet without a stemmer", tc.forms[0], tc.forms[1])
		}
	}
}

// English words inside Russian prose are stemmed as English; Russian
// words in an English project are still stemmed as Russian.
func TestAnalyze_MixedScripts(t *testing.T) {
	ru := mustNew(t, lexical.Russian)
	doc := ru.Analyze("Команда индексирует chunks через ReplaceScope, а ранжирование делает bm25.")
	for _, q := range []string{"chunk", "Chunking", "индексирует", "ранжированием"} {
		tok := ru.Analyze(q)
		if len(tok) != 1 || !slices.Contains(doc, tok[0]) {
			t.Errorf("russian: %q → %q not in %q", q, tok, doc)
		}
	}
	en := mustNew(t, lexical.English)
	if a, b := en.Analyze("индексом"), en.Analyze("индекс"); !slices.Equal(a, b) {
		t.Errorf("english: Cyrillic not stemmed as Russian: %q vs %q", a, b)
	}
	// A Portuguese project stems its Latin words as Portuguese, not English.
	pt := mustNew(t, lexical.Portuguese)
	if a, b := pt.Analyze("buscas"), en.Analyze("buscas"); slices.Equal(a, b) {
		t.Errorf("portuguese and english agree on %q: %q", "buscas", a)
	}
}

func TestAnalyze_Normalisation(t *testing.T) {
	s := mustNew(t, lexical.Simple)
	for _, tc := range []struct{ in, want string }{
		{"Ação AÇÃO acao", "acao acao acao"},
		{"Ёж ёж еж", "еж еж еж"},
		{"Straße", "strasse"},
		{"e\u0301te\u0301 été", "ete ete"},                         // decomposed and composed accents
		{"Ｆｕｌｌ ﬁle ²", "full file 2"},                              // NFKC: full width, ligature
		{"project_id e-mail nDCG@10", "project id e mail ndcg 10"}, // unicode61's split
		{"Ωμέγα", "ωμεγα"},
		{"हिन्दी", "हिन्दी"}, // Devanagari vowel signs are kept
		{"  \t\n!!! — ", ""},
		{"bad\xffutf8", "bad utf8"},
	} {
		got := strings.Join(s.Analyze(tc.in), " ")
		if got != tc.want {
			t.Errorf("simple %q = %q, want %q", tc.in, got, tc.want)
		}
		checkTokens(t, tc.in, s.Analyze(tc.in))
	}
}

func TestAnalyze_Unspaced(t *testing.T) {
	a := mustNew(t, lexical.English)
	for _, tc := range []struct {
		doc   string
		found []string // queries that must find doc as a phrase
		not   []string // queries that must not
	}{
		{
			doc:   "我们使用倒排索引来加速全文检索，每个项目都有自己的索引。",
			found: []string{"倒排索引", "全文检索", "索引", "自己的索引"},
			not:   []string{"向量数据库", "索引倒排"},
		},
		{
			doc:   "このデーモンはプロジェクトごとに全文検索の索引を作ります。検索エンジンはSQLiteを使います。",
			found: []string{"全文検索", "検索エンジン", "プロジェクト", "索引を作ります", "SQLite"},
			not:   []string{"ベクトル検索", "エンジン検索"},
		},
		{
			doc:   "ภาษาไทยเขียนโดยไม่มีช่องว่างระหว่างคำ",
			found: []string{"ภาษาไทย", "ช่องว่าง"},
			not:   []string{"ภาษาลาว"},
		},
	} {
		doc := a.Analyze(tc.doc)
		checkTokens(t, tc.doc, doc)
		for _, q := range tc.found {
			if p := a.Phrase(q); p.Empty() || !containsRun(doc, p.Tokens) {
				t.Errorf("%q not found in %q (query %q, doc %q)", q, tc.doc, p.Tokens, doc)
			}
		}
		for _, q := range tc.not {
			if p := a.Phrase(q); containsRun(doc, p.Tokens) {
				t.Errorf("%q found in %q", q, tc.doc)
			}
		}
	}
	// Other scripts keep their tokens beside unspaced text.
	if got := a.Analyze("SQLiteの索引 indexes"); !slices.Equal(got, []string{"sqlite", "の索", "索引", "index"}) {
		t.Errorf("mixed run = %q", got)
	}
	if got := a.Analyze("検 索"); !slices.Equal(got, []string{"検", "索"}) {
		t.Errorf("lone characters = %q", got)
	}
}

// containsRun reports whether run occurs in toks as adjacent tokens.
func containsRun(toks, run []string) bool {
	for i := 0; i+len(run) <= len(toks); i++ {
		if slices.Equal(toks[i:i+len(run)], run) {
			return true
		}
	}
	return false
}

func TestAnalyze_Forms(t *testing.T) {
	text := "Индексы строятся при регистрации; the chunks are indexed. 全文検索。 Ação!"
	for _, lang := range lexical.Languages() {
		a := mustNew(t, lang)
		toks := a.Analyze(text)
		if len(toks) == 0 {
			t.Fatalf("%s: no tokens", lang)
		}
		if got := a.Text(text); got != strings.Join(toks, " ") {
			t.Errorf("%s: Text = %q, want tokens joined: %q", lang, got, toks)
		}
		if got := string(a.AppendText([]byte("x "), text)); got != "x "+strings.Join(toks, " ") {
			t.Errorf("%s: AppendText = %q", lang, got)
		}
		if got := slices.Collect(a.Tokens(text)); !slices.Equal(got, toks) {
			t.Errorf("%s: Tokens = %q, want %q", lang, got, toks)
		}
		var first []string
		for tok := range a.Tokens(text) {
			first = append(first, tok)
			if len(first) == 3 {
				break
			}
		}
		if !slices.Equal(first, toks[:3]) {
			t.Errorf("%s: Tokens stopped early = %q", lang, first)
		}
		if got, err := lexical.Analyze(lang, text); err != nil || !slices.Equal(got, toks) {
			t.Errorf("%s: package Analyze = %q, %v", lang, got, err)
		}
	}
}

// TestAnalyze_EnglishFoldsBeforeStemming: English's stemmer knows ASCII
// only, so accented words meet their unaccented spelling; languages written
// with diacritics stem the word whole.
func TestAnalyze_EnglishFoldsBeforeStemming(t *testing.T) {
	for _, tc := range []struct {
		lang lexical.Language
		a, b string
		same bool
	}{
		{lexical.English, "résumé", "resume", true},
		{lexical.English, "naïve", "naive", true},
		{lexical.English, "Décisions", "decisions", true},
		{lexical.Russian, "résumés", "resumes", true}, // Latin words of a Russian project are English
		{lexical.Portuguese, "decisões", "decisão", false},
	} {
		a, b := mustNew(t, tc.lang).Text(tc.a), mustNew(t, tc.lang).Text(tc.b)
		if (a == b) != tc.same {
			t.Errorf("%s: %q → %q, %q → %q; same: %v, want %v", tc.lang, tc.a, a, tc.b, b, a == b, tc.same)
		}
	}
}
