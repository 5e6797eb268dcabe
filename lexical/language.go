// Package lexical turns text into the tokens of ragd's lexical index, and
// user terms into the same tokens, for each language a project can be
// written in. It is pure: no database, no I/O.
//
// The analysis, identical for documents and queries:
//
//   - Words are runs of letters, numbers, marks and private-use characters,
//     as SQLite FTS5's unicode61 tokenizer splits them (so "project_id" is
//     two words and "e-mail" is a two-word phrase, as today).
//   - Text in scripts written without spaces (Han, Hiragana, Katakana,
//     Thai, Lao, Khmer, Myanmar) becomes overlapping character bigrams, so
//     a few of its characters find it; see [Analyzer.Analyze].
//   - Other words are lowercased and stemmed with Snowball, the stemmer
//     chosen by the word's script: Cyrillic words always with Russian (the
//     only Cyrillic language offered), Latin-script words with the
//     project's language, or with English when that language is Russian
//     (English identifiers in Russian prose). Simple stems nothing.
//   - Diacritics of Latin, Greek and Cyrillic letters are then folded
//     ("ação" and "acao" share their last steps; "ё" and "е", "й" and "и"
//     are one letter), as FTS5's remove_diacritics does today.
//
// Every token holds only lowercase ASCII letters and digits or non-ASCII
// letters, numbers and marks: never white space, punctuation or anything
// FTS5's query syntax reads. The analysed text, tokens joined by single
// spaces, is meant for an FTS5 column with the ascii tokenizer, which then
// indexes exactly these tokens.
package lexical

import (
	"fmt"
	"strings"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/portuguese"
	"github.com/blevesearch/snowballstem/russian"
	"github.com/blevesearch/snowballstem/spanish"
)

// Language names a project's language: it picks the stemmer of its
// Latin-script words and its stop words.
type Language string

// The languages ragd analyses. The names are those of PostgreSQL's text
// search configurations, which the original system used.
const (
	English    Language = "english"
	Russian    Language = "russian"
	Portuguese Language = "portuguese"
	Spanish    Language = "spanish"
	German     Language = "german"
	French     Language = "french"
	// Simple lowercases and folds diacritics but stems nothing.
	Simple Language = "simple"
)

// DefaultLanguage is the language of a project that has none set and no
// text to detect one from.
const DefaultLanguage = English

// Languages returns every language, the default first.
func Languages() []Language {
	return []Language{English, Russian, Portuguese, Spanish, German, French, Simple}
}

// ErrUnknownLanguage is what ParseLanguage's errors match with errors.Is.
var ErrUnknownLanguage = fmt.Errorf("unknown language")

// ParseLanguage returns the language named s, ignoring case and surrounding
// space; "" is DefaultLanguage. Any other name fails with an error wrapping
// ErrUnknownLanguage that lists the known ones.
func ParseLanguage(s string) (Language, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return DefaultLanguage, nil
	}
	for _, l := range Languages() {
		if string(l) == s {
			return l, nil
		}
	}
	names := make([]string, 0, len(Languages()))
	for _, l := range Languages() {
		names = append(names, string(l))
	}
	return "", fmt.Errorf("%w %q (known: %s)", ErrUnknownLanguage, s, strings.Join(names, ", "))
}

// stemFunc stems the word in env in place, as the Snowball-generated
// stemmers do.
type stemFunc func(*snowballstem.Env) bool

// latinStemmer is the stemmer of each language's Latin-script words. A
// Russian project's Latin words are English identifiers and terms.
var latinStemmer = map[Language]stemFunc{
	English:    english.Stem,
	Russian:    english.Stem,
	Portuguese: portuguese.Stem,
	Spanish:    spanish.Stem,
	German:     german.Stem,
	French:     french.Stem,
}

// latinStemsASCII marks the languages whose Latin stemmer is English's,
// whose rules see ASCII letters only.
var latinStemsASCII = map[Language]bool{English: true, Russian: true}

// cyrillicStemmer stems Cyrillic words in every language but Simple:
// Russian is the only Cyrillic language offered, and a project detected as
// English that holds Russian documents still finds their inflections.
var cyrillicStemmer stemFunc = russian.Stem
