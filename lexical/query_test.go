package lexical_test

import (
	"reflect"
	"testing"

	"github.com/ragd/ragd/lexical"
)

func TestWord(t *testing.T) {
	ru := mustNew(t, lexical.Russian)
	for _, tc := range []struct {
		in   string
		want []lexical.Term
	}{
		{"индексом", []lexical.Term{{Tokens: []string{"индекс"}}}},
		{"Indexes", []lexical.Term{{Tokens: []string{"index"}}}},
		{"e-mail", []lexical.Term{{Tokens: []string{"e", "mail"}}}},
		{"API検索", []lexical.Term{{Tokens: []string{"api"}}, {Tokens: []string{"検索"}}}},
		{"全文検索", []lexical.Term{{Tokens: []string{"全文"}}, {Tokens: []string{"文検"}}, {Tokens: []string{"検索"}}}},
		{"a検b", []lexical.Term{{Tokens: []string{"a"}}, {Tokens: []string{"検"}, Prefix: true}, {Tokens: []string{"b"}}}},
		{`"*()NEAR:^`, []lexical.Term{{Tokens: []string{"near"}}}},
		{"!!! —", nil},
	} {
		if got := ru.Word(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Word(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func TestPhraseAndPrefix(t *testing.T) {
	ru := mustNew(t, lexical.Russian)
	en := mustNew(t, lexical.English)
	for _, tc := range []struct {
		got  lexical.Term
		want string
	}{
		{ru.Phrase("поиск по индексу"), `"поиск по индекс"`}, // stop words stay in phrases
		{ru.Phrase("全文検索"), `"全文 文検 検索"`},
		{ru.Phrase("検"), `"検" *`},
		{ru.Phrase(`say "hi"`), `"say hi"`},
		{ru.Phrase("..."), ``},
		{ru.Prefix("индексо"), `"индекс" *`},
		{en.Prefix("indexes"), `"index" *`},
		{en.Prefix("happy"), `"happ" *`}, // stem happi: cut to the common part
		{en.Prefix("e-ma"), `"e ma" *`},
		{en.Prefix("検索"), `"検索"`},
		{en.Prefix("検"), `"検" *`},
		{en.Prefix("ação"), `"acao" *`},
		{en.Prefix("--"), ``},
	} {
		if m := match(tc.got); m != tc.want {
			t.Errorf("as FTS5: %s, want %s (%+v)", m, tc.want, tc.got)
		}
	}
	// Phrase analyses exactly as documents are.
	text := "Индексы строятся при регистрации; the chunks are indexed. 全文検索。"
	if p, d := ru.Phrase(text), ru.Analyze(text); !reflect.DeepEqual(p.Tokens, d) {
		t.Errorf("Phrase tokens %q differ from Analyze %q", p.Tokens, d)
	}
}

func TestIsStopWord(t *testing.T) {
	for _, tc := range []struct {
		lang lexical.Language
		stop []string
		not  []string
	}{
		{lexical.English, []string{"the", "The", "WHICH"}, []string{"index", "который"}},
		{lexical.Russian, []string{"который", "Которые", "и", "в", "the", "is"}, []string{"индекс", "поиск"}},
		{lexical.Portuguese, []string{"não", "nao", "NÃO", "uma", "pelos"}, []string{"busca", "the"}},
		{lexical.Spanish, []string{"los", "más", "también"}, []string{"búsqueda"}},
		{lexical.German, []string{"und", "über", "uber", "daß"}, []string{"suche"}},
		{lexical.French, []string{"les", "où", "été"}, []string{"recherche"}},
		{lexical.Simple, []string{"the"}, []string{"и"}},
		// Words of Snowball's stop lists that ragd's first lists lacked (a
		// question is full of them), and the content words of those lists
		// that ragd leaves out.
		{lexical.English, []string{"did", "about", "doing", "been", "should", "after", "don't", "Didn't", "very"},
			[]string{"decide", "authentication", "mine", "us"}},
		{lexical.Russian, []string{"более", "всегда", "может", "нельзя", "сейчас"}, []string{"жизнь", "человек", "сказал", "два"}},
		{lexical.Portuguese, []string{"estava", "foram", "tinha", "aquele", "houve"}, []string{"decisão"}},
		{lexical.Spanish, []string{"estaba", "hemos", "tenía", "nosotros", "fueron"}, []string{"decisión"}},
		{lexical.German, []string{"hatte", "würden", "aber", "dann", "welche", "gewesen"}, []string{"machen", "weg", "entscheidung"}},
		{lexical.French, []string{"avait", "était", "sommes", "cela", "eux"}, []string{"décision"}},
	} {
		a := mustNew(t, tc.lang)
		for _, w := range tc.stop {
			if !a.IsStopWord(w) {
				t.Errorf("%s: %q is not a stop word", tc.lang, w)
			}
		}
		for _, w := range tc.not {
			if a.IsStopWord(w) {
				t.Errorf("%s: %q is a stop word", tc.lang, w)
			}
		}
	}
}
