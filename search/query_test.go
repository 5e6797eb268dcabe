package search

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
	"github.com/ragd/ragd/internal/testdb/sqlitedb"
	"github.com/ragd/ragd/lexical"
	"github.com/ragd/ragd/store"
)

func TestParseQuery(t *testing.T) {
	for _, tc := range []struct {
		in       string
		match    string
		terms    []string
		excluded []string
		semantic string
	}{
		{in: "hybrid search", match: `"hybrid" OR "search"`, terms: []string{"hybrid", "search"}, semantic: "hybrid search"},
		{in: "  padded\t\n", match: `"pad"`, terms: []string{"padded"}, semantic: "padded"},
		{in: `"weighted fusion" threshold`, match: `"weight fusion" OR "threshold"`, terms: []string{"weighted fusion", "threshold"}, semantic: "weighted fusion threshold"},
		{in: `"  spaced   phrase "`, match: `"space phrase"`, terms: []string{"spaced phrase"}, semantic: "spaced phrase"},
		{in: "rrf OR weighted", match: `"rrf" OR "weight"`, terms: []string{"rrf", "weighted"}, semantic: "rrf weighted"},
		{in: "fusion -rrf", match: `("fusion") NOT ("rrf")`, terms: []string{"fusion"}, excluded: []string{"rrf"}, semantic: "fusion"},
		{in: `fusion -"reciprocal rank" -rrf -RRF`, match: `("fusion") NOT ("reciproc rank" OR "rrf")`, terms: []string{"fusion"}, excluded: []string{"reciprocal rank", "rrf"}, semantic: "fusion"},
		{in: "--x y", match: `("y") NOT ("x")`, terms: []string{"y"}, excluded: []string{"x"}, semantic: "y"},
		{in: "- x", match: `"x"`, terms: []string{"x"}, semantic: "x"},
		{in: "foo-bar", match: `"foo bar"`, terms: []string{"foo-bar"}, semantic: "foo-bar"},
		// Stop words go from plain words, stay in phrases and in Semantic.
		{in: "What is the default limit?", match: `"default" OR "limit"`, terms: []string{"default", "limit"}, semantic: "What is the default limit?"},
		{in: `"the end" of it`, match: `"the end"`, terms: []string{"the end"}, semantic: "the end of it"},
		{in: "the of", match: `"the" OR "of"`, terms: []string{"the", "of"}, semantic: "the of"},
		{in: "what did we decide about authentication", match: `"decid" OR "authent"`, terms: []string{"decide", "authentication"}, semantic: "what did we decide about authentication"},
		{in: "Why didn't we keep it?", match: `"keep"`, terms: []string{"keep"}, semantic: "Why didn't we keep it?"},
		{in: "weights Weights weights,", match: `"weight"`, terms: []string{"weights"}, semantic: "weights Weights weights,"},
		// FTS5 syntax in user text is text.
		{in: "NEAR(a b) AND c*", match: `"near a" OR "b" OR "c"`, terms: []string{"NEAR(a", "b", "c"}, semantic: "NEAR(a b) AND c*"},
		{in: "content:secret", match: `"content secret"`, terms: []string{"content:secret"}, semantic: "content:secret"},
		{in: "{heading_path content}: x", match: `"head path" OR "content" OR "x"`, terms: []string{"heading_path", "content", "x"}, semantic: "{heading_path content}: x"},
		{in: "^start NOT (x)", match: `"start" OR "x"`, terms: []string{"start", "x"}, semantic: "^start NOT (x)"},
		{in: "a + b", match: `"b"`, terms: []string{"b"}, semantic: "a b"},
		// Quotes: unbalanced runs to the end, empty ones vanish, mid-word
		// ones split.
		{in: `say "hi there`, match: `"say" OR "hi there"`, terms: []string{"say", "hi there"}, semantic: "say hi there"},
		{in: `x"y"z`, match: `"x" OR "y" OR "z"`, terms: []string{"x", "y", "z"}, semantic: "x y z"},
		{in: `he said ""quoted""`, match: `"said" OR "quot"`, terms: []string{"said", "quoted"}, semantic: "he said quoted"},
		// Analysed as English, the default: stemmed, folded, and text
		// written without spaces as bigrams; terms that analyse alike
		// once.
		{in: "index indexes indexing", match: `"index"`, terms: []string{"index"}, semantic: "index indexes indexing"},
		{in: "resume -résumé", match: `("resum") NOT ("resum")`, terms: []string{"resume"}, excluded: []string{"résumé"}, semantic: "resume"},
		{in: `"全文" 検`, match: `"全文" OR "検" *`, terms: []string{"全文", "検"}, semantic: "全文 検"},
		// Unicode and emoji.
		{in: "поиск по документам", match: `"поиск" OR "по" OR "документ"`, terms: []string{"поиск", "по", "документам"}, semantic: "поиск по документам"},
		{in: "🚀 launch", match: `"launch"`, terms: []string{"launch"}, semantic: "launch"},
		{in: "ragd🙂", match: `"ragd"`, terms: []string{"ragd"}, semantic: "ragd🙂"},
		{in: "検索エンジン", match: `"検索" OR "索エ" OR "エン" OR "ンジ" OR "ジン"`, terms: []string{"検索エンジン"}, semantic: "検索エンジン"},
		{in: "café naïve", match: `"cafe" OR "naiv"`, terms: []string{"café", "naïve"}, semantic: "café naïve"},
		// Valid but nothing to search for: an empty Match, not an error.
		{in: "-only -exclusions"},
		{in: "OR OR"},
		{in: `"" ""`},
		{in: `"`},
		{in: "()"},
		{in: "*** ^^ :"},
		{in: "🚀🔥"},
		{in: "-"},
	} {
		q, err := ParseQuery(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if store.MatchExpression(q.Lexical) != tc.match || !slices.Equal(q.Terms, tc.terms) || !slices.Equal(q.Excluded, tc.excluded) || q.Semantic != tc.semantic {
			t.Errorf("%q:\n got match %s terms %q excluded %q semantic %q\nwant match %s terms %q excluded %q semantic %q",
				tc.in, store.MatchExpression(q.Lexical), q.Terms, q.Excluded, q.Semantic, tc.match, tc.terms, tc.excluded, tc.semantic)
		}
		if q.Empty() != (tc.match == "") {
			t.Errorf("%q: Empty() = %v", tc.in, q.Empty())
		}
		if q.Text != strings.TrimSpace(tc.in) {
			t.Errorf("%q: Text %q", tc.in, q.Text)
		}
	}
}

// TestQuery_In analyses the same text for other languages: their
// stemmers, their stop words, and the English ones too for Russian, whose
// projects write English identifiers.
func TestQuery_In(t *testing.T) {
	for _, tc := range []struct {
		lang     lexical.Language
		in       string
		match    string
		terms    []string
		excluded []string
	}{
		{lexical.Russian, "поиск по индексу и индексам", `"поиск" OR "индекс"`, []string{"поиск", "индексу"}, nil},
		{lexical.Russian, "the index of документов -индексом", `("index" OR "документ") NOT ("индекс")`, []string{"index", "документов"}, []string{"индексом"}},
		{lexical.Russian, "и по", `"и" OR "по"`, []string{"и", "по"}, nil},
		{lexical.Portuguese, "as buscas do índice", `"busc" OR "indic"`, []string{"buscas", "índice"}, nil},
		{lexical.Portuguese, `"a decisão" e não`, `"a decisa"`, []string{"a decisão"}, nil},
		{lexical.Simple, "Indexes of indexing", `"indexes" OR "indexing"`, []string{"Indexes", "indexing"}, nil},
		{lexical.English, "Indexes of indexing", `"index"`, []string{"Indexes"}, nil},
	} {
		a, err := lexical.New(tc.lang)
		if err != nil {
			t.Fatal(err)
		}
		q, err := ParseQuery(tc.in)
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		q = q.In(a)
		if q.Language != tc.lang || store.MatchExpression(q.Lexical) != tc.match || !slices.Equal(q.Terms, tc.terms) || !slices.Equal(q.Excluded, tc.excluded) {
			t.Errorf("%s %q:\n got %s match %s terms %q excluded %q\nwant match %s terms %q excluded %q",
				tc.lang, tc.in, q.Language, store.MatchExpression(q.Lexical), q.Terms, q.Excluded, tc.match, tc.terms, tc.excluded)
		}
		if q.Semantic != tc.in && !strings.Contains(tc.in, "-") && !strings.Contains(tc.in, `"`) {
			t.Errorf("%s %q: semantic %q", tc.lang, tc.in, q.Semantic)
		}
	}
}

func TestParseQuery_BadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want error
	}{
		{"empty", "", ErrQueryEmpty},
		{"white space", " \t\n\u00a0\u3000 ", ErrQueryEmpty},
		{"1001 characters", strings.Repeat("a", 1001), ErrQueryTooLong},
		{"1001 two-byte characters", strings.Repeat("é", 1001), ErrQueryTooLong},
		{"NUL", "a\x00b", ErrQueryNUL},
		{"invalid UTF-8", "caf\xe9", ErrQueryEncoding},
		{"truncated UTF-8", "\xe2\x82", ErrQueryEncoding},
	} {
		_, err := ParseQuery(tc.in)
		if !errors.Is(err, tc.want) || !errors.Is(err, ragd.ErrInvalid) {
			t.Errorf("%s: err = %v, want %v wrapping ragd.ErrInvalid", tc.name, err, tc.want)
		}
	}
	for _, ok := range []string{strings.Repeat("é", 1000), "  " + strings.Repeat("a", 1000) + "\n"} {
		if _, err := ParseQuery(ok); err != nil {
			t.Errorf("1000 characters (%d bytes): %v", len(ok), err)
		}
	}
}

// TestParseQuery_RunsOnFTS5 runs every table query, and some hostile ones,
// against a real FTS5 table.
func TestParseQuery_RunsOnFTS5(t *testing.T) {
	st, project := ftsStore(t)
	inputs := append(fuzzSeeds(),
		strings.Repeat("w ", 499)+"w",
		strings.Repeat("-x", 500),
		strings.Repeat(`"a" `, 250),
		strings.Repeat(`-"a b" `, 142),
	)
	// 333 distinct exclusions: a chain of NOTs would pass FTS5's depth limit.
	var many []string
	for i := range 333 {
		many = append(many, "-w"+strconv.Itoa(i))
	}
	inputs = append(inputs, "keep "+strings.Join(many, " "))
	for _, in := range inputs {
		checkOnFTS5(t, st, project, in)
	}
}

func fuzzSeeds() []string {
	return []string{
		"hybrid search", `"weighted fusion" threshold`, "fusion -rrf", `-"a b"`, "NEAR(a b) AND c*",
		"content:secret", "{heading_path content}: x", `say "hi there`, `"" ""`, `"`, "()", "🚀🔥", "ragd🙂",
		"поиск по документам", "a OR", "OR", "NOT", "AND AND", `x"y"z`, "-", "--", `-"`, `"-x"`, "*", "^x",
		"x:", ":x", "\"\"\"", "a\u200bb", "\u0378x", "\uffff", "\U000E0001tag", "a\x01b", "ǅ", "ⅷ",
		"индексом -\"индекса\" ИЛИ", "ёлка* NEAR(поиск)", "não -ação \"decisões do ADR\"", "Straße ﬁle ＡＢＣ",
		"e\u0301\u0301 \u0301", "全文検索 \"検\" -エンジン", "ภาษาไทย", "Ω≈ç√ ДЖ:", "\"и\" \"и\"",
	}
}

// ftsStore is a store with a few chunks for FTS5 to match against.
func ftsStore(tb testing.TB) (*store.Store, int64) {
	st := sqlitedb.OpenDims(tb, 4)
	project := testdb.AddProject(tb, st, "fts", "/repos/fts").ID
	testdb.Replace(tb, st, project, ragd.ScopeDocs, []ragd.ChunkInput{
		doc("docs/a.md", 0, []string{"Search"}, "hybrid search: weighted fusion, threshold, rrf", unit(1)),
		doc("docs/b.md", 0, []string{"Contenu"}, "поиск по документам, café naïve, content near secret", unit(0.5)),
	})
	return st, project
}

func checkOnFTS5(tb testing.TB, st *store.Store, project int64, in string) {
	tb.Helper()
	q, err := ParseQuery(in)
	if err != nil {
		if !errors.Is(err, ragd.ErrInvalid) {
			tb.Fatalf("%q: error %v does not wrap ragd.ErrInvalid", in, err)
		}
		t := strings.TrimSpace(in)
		if utf8.ValidString(in) && !strings.ContainsRune(in, 0) && t != "" && utf8.RuneCountInString(t) <= MaxQueryLength {
			tb.Fatalf("%q: valid input refused: %v", in, err)
		}
		return
	}
	if q.Empty() != (q.Semantic == "") || q.Empty() != (len(q.Terms) == 0) {
		tb.Fatalf("%q: match %q semantic %q terms %q disagree", in, store.MatchExpression(q.Lexical), q.Semantic, q.Terms)
	}
	if q.Empty() {
		return
	}
	ctx := context.Background()
	sn, err := st.Snapshot(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	defer sn.Close()
	// In every language: the analysis differs, never its safety, nor
	// whether there is something to search for.
	for _, lang := range lexical.Languages() {
		a, err := lexical.New(lang)
		if err != nil {
			tb.Fatal(err)
		}
		ql := q.In(a)
		if ql.Empty() != q.Empty() || ql.Semantic != q.Semantic {
			tb.Fatalf("%q in %s: match %q semantic %q, in English %q %q", in, lang, store.MatchExpression(ql.Lexical), ql.Semantic, store.MatchExpression(q.Lexical), q.Semantic)
		}
		if _, err := sn.LexicalCandidates(ctx, ragd.Filter{ProjectID: project}, ql.Lexical, DefaultCandidates); err != nil {
			tb.Fatalf("%q in %s → %s: %v", in, lang, store.MatchExpression(ql.Lexical), err)
		}
	}
}

// FuzzParseQuery fails on any query FTS5 refuses, as the store renders it.
func FuzzParseQuery(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	st, project := ftsStore(f)
	f.Fuzz(func(t *testing.T, in string) {
		checkOnFTS5(t, st, project, in)
	})
}
