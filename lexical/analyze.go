package lexical

import (
	"fmt"
	"iter"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	"golang.org/x/text/unicode/norm"
)

// maxStemBytes is the longest word stemmed: dictionary words of these
// languages stay under about 40 letters (80 bytes in Cyrillic), and longer
// runs are identifiers, hashes or base64 on which stemming is wasted work.
const maxStemBytes = 100

// Analyzer analyses text for one language. It holds no mutable state: one
// Analyzer serves any number of goroutines.
type Analyzer struct {
	lang  Language
	latin stemFunc // nil: Latin-script words are not stemmed
	// latinASCII is set when latin knows ASCII letters only (English).
	latinASCII bool
	cyrillic   stemFunc // nil: Cyrillic words are not stemmed
	stop       map[string]bool
}

// New returns the Analyzer of lang, or an error wrapping ErrUnknownLanguage.
// Analyzers are immutable: every call for a language returns the same one.
func New(lang Language) (*Analyzer, error) {
	if a, ok := analyzers()[lang]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("lexical analyzer: %w %q", ErrUnknownLanguage, lang)
}

// analyzers holds the Analyzer of every language, built at first use.
var analyzers = sync.OnceValue(func() map[Language]*Analyzer {
	m := make(map[Language]*Analyzer, len(Languages()))
	for _, l := range Languages() {
		m[l] = newAnalyzer(l)
	}
	return m
})

func newAnalyzer(lang Language) *Analyzer {
	a := &Analyzer{lang: lang, stop: stopWords(lang)}
	if lang != Simple {
		a.latin = latinStemmer[lang]
		a.latinASCII = latinStemsASCII[lang]
		a.cyrillic = cyrillicStemmer
	}
	return a
}

// Analyze returns the tokens of text analysed for lang; see
// [Analyzer.Analyze].
func Analyze(lang Language, text string) ([]string, error) {
	a, err := New(lang)
	if err != nil {
		return nil, err
	}
	return a.Analyze(text), nil
}

// Language returns the language a analyses.
func (a *Analyzer) Language() Language { return a.lang }

// Analyze returns the tokens of a document's text, in order: what the
// lexical index holds for it. Stop words are kept: phrases need their
// positions, and bm25 weighs them near zero anyway.
//
// A run of a script written without spaces becomes its overlapping
// character bigrams ("全文検索" → "全文", "文検", "検索"); a run of one
// character stays one token. Marks belong to the character before them.
//
// Normalisation (NFKC, lowercase, folding) is a projection: analysing the
// tokens again with Simple gives them back unchanged. Stemming is not
// idempotent (Snowball may shorten a stem again), so the index must store
// analyses of the original text, never re-analyse its own output.
func (a *Analyzer) Analyze(text string) []string {
	var out []string
	a.scan(text, func(p piece) bool {
		out = append(out, p.tok)
		return true
	})
	return out
}

// Tokens yields the tokens Analyze returns, without collecting them.
func (a *Analyzer) Tokens(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		a.scan(text, func(p piece) bool { return yield(p.tok) })
	}
}

// AppendText appends text's tokens to dst joined by single spaces: the
// analysed text an FTS5 column with the ascii tokenizer indexes as exactly
// these tokens.
func (a *Analyzer) AppendText(dst []byte, text string) []byte {
	first := true
	a.scan(text, func(p piece) bool {
		if !first {
			dst = append(dst, ' ')
		}
		first = false
		dst = append(dst, p.tok...)
		return true
	})
	return dst
}

// Text returns text analysed and joined by single spaces; see AppendText.
func (a *Analyzer) Text(text string) string {
	return string(a.AppendText(nil, text))
}

// piece is one token with what the query side needs to know about it.
type piece struct {
	tok string
	// gram is set for the bigrams (or lone characters) of unspaced scripts.
	gram bool
	// units counts the characters of a gram: 1 for a lone character.
	units int
	// norm is a word token before stemming and folding: lowercased, NFKC.
	norm string
}

// envPool recycles Snowball environments: one per scan, reused per word.
var envPool = sync.Pool{New: func() any { return snowballstem.NewEnv("") }}

// scan splits text into runs and emits their tokens until emit returns
// false. Invalid UTF-8 separates tokens like punctuation.
func (a *Analyzer) scan(text string, emit func(piece) bool) {
	if !isASCII(text) && !utf8.ValidString(text) {
		// Invalid bytes separate tokens; as spaces they also leave NFKC
		// nothing to stop at (it passes over what follows a bad byte).
		text = strings.ToValidUTF8(text, " ")
	}
	if !isASCII(text) && !norm.NFKC.IsNormalString(text) {
		// NFKC so that full-width letters, ligatures and decomposed
		// accents analyse as their plain forms, on both sides.
		text = norm.NFKC.String(text)
	}
	env := envPool.Get().(*snowballstem.Env)
	defer envPool.Put(env)
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isTokenRune(r) {
			i += size
			continue
		}
		unspaced := isUnspaced(r)
		j := i + size
		for j < len(text) {
			r2, s2 := utf8.DecodeRuneInString(text[j:])
			if !isTokenRune(r2) || (!unicode.IsMark(r2) && isUnspaced(r2) != unspaced) {
				break
			}
			j += s2
		}
		run := text[i:j]
		i = j
		if unspaced {
			if !grams(run, emit) {
				return
			}
			continue
		}
		if p, ok := a.word(run, env); ok && !emit(p) {
			return
		}
	}
}

// word analyses one run of a spaced script: lowercase, stem by script,
// fold diacritics. ok is false when nothing indexable is left.
func (a *Analyzer) word(run string, env *snowballstem.Env) (piece, bool) {
	lower := strings.ToLower(run)
	if !hasBase(lower) {
		return piece{}, false // marks alone
	}
	p := piece{norm: lower}
	stemmed := lower
	if stem := a.stemmerFor(lower); stem != nil && len(lower) <= maxStemBytes {
		if a.foldFirst(lower) {
			stemmed = fold(stemmed)
		}
		if a.cyrillic != nil {
			// Snowball's Russian expects ё written as е, as most text does.
			stemmed = strings.ReplaceAll(stemmed, "ё", "е")
		}
		env.SetCurrent(stemmed)
		stem(env)
		// A stem of marks alone ("̈s" less its s) would re-analyse as
		// nothing: keep the word as it was.
		if s := env.Current(); s != "" && validToken(s) && hasBase(s) {
			stemmed = s
		}
	}
	p.tok = fold(stemmed)
	if p.tok == "" || !validToken(p.tok) {
		return piece{}, false
	}
	return p, true
}

// stemmerFor picks the stemmer of a lowercased word by its script: any
// Cyrillic letter makes it Cyrillic, else any Latin letter makes it Latin;
// words of other scripts, and numbers, are not stemmed.
func (a *Analyzer) stemmerFor(w string) stemFunc {
	latin := false
	for _, r := range w {
		switch {
		case r < utf8.RuneSelf:
			latin = latin || ('a' <= r && r <= 'z')
		case unicode.Is(unicode.Cyrillic, r):
			return a.cyrillic
		case unicode.Is(unicode.Latin, r):
			latin = true
		}
	}
	if latin {
		return a.latin
	}
	return nil
}

// foldFirst reports whether the word's stemmer wants its diacritics folded
// before it stems: English's rules know ASCII letters only, so "résumé"
// must reach it as "resume" to be stemmed like the word typed without
// accents (FTS5's porter over unicode61 folded first too). The stemmers of
// languages written with diacritics read them, and get the word whole.
func (a *Analyzer) foldFirst(w string) bool {
	return a.latinASCII && !isASCII(w) && !strings.ContainsFunc(w, isCyrillic)
}

func isCyrillic(r rune) bool { return r >= utf8.RuneSelf && unicode.Is(unicode.Cyrillic, r) }

// grams emits the bigrams of a run of an unspaced script, or its one
// character. A character is a base rune with the marks that follow it.
func grams(run string, emit func(piece) bool) bool {
	var starts []int // byte offset of each character, then len(run)
	for i, r := range run {
		if !unicode.IsMark(r) || len(starts) == 0 {
			starts = append(starts, i)
		}
	}
	starts = append(starts, len(run))
	n := len(starts) - 1
	if n == 1 {
		return emit(piece{tok: run, gram: true, units: 1})
	}
	for k := 0; k+2 <= n; k++ {
		if !emit(piece{tok: run[starts[k]:starts[k+2]], gram: true, units: 2}) {
			return false
		}
	}
	return true
}

// foldSpecial maps letters that carry a diacritic or ligature without
// decomposing into base plus mark, as FTS5's remove_diacritics does.
var foldSpecial = map[rune]string{
	'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'ł': "l", 'đ': "d",
	'ð': "d", 'þ': "th", 'ħ': "h", 'ı': "i", 'ŀ': "l",
}

// fold removes the diacritics of Latin, Greek and Cyrillic letters. Marks
// of other scripts (Devanagari vowel signs, Thai tones) are letters' parts
// there and are kept.
func fold(s string) string {
	if isASCII(s) {
		return s
	}
	if norm.NFD.IsNormalString(s) && !strings.ContainsFunc(s, needsFold) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	var base rune
	for _, r := range norm.NFD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			if foldsMarks(base) {
				continue
			}
			b.WriteRune(r)
			continue
		}
		base = r
		if rep, ok := foldSpecial[r]; ok {
			b.WriteString(rep)
			continue
		}
		b.WriteRune(r)
	}
	return norm.NFC.String(b.String())
}

// needsFold reports whether fold changes r even in NFD text.
func needsFold(r rune) bool {
	_, special := foldSpecial[r]
	return special || unicode.Is(unicode.Mn, r)
}

func foldsMarks(base rune) bool {
	return base != 0 && (base < utf8.RuneSelf || unicode.In(base, unicode.Latin, unicode.Greek, unicode.Cyrillic))
}

// isTokenRune reports whether r belongs to a token: letters, numbers,
// marks and private-use characters, as FTS5's unicode61 indexes them (it
// counts marks with their letter when it removes diacritics).
func isTokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) || unicode.Is(unicode.Co, r)
}

// hasBase reports whether s holds a token rune that is not a mark.
func hasBase(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return isTokenRune(r) && !unicode.IsMark(r) })
}

// unspacedScripts are written without spaces between words.
var unspacedScripts = []*unicode.RangeTable{
	unicode.Han, unicode.Hiragana, unicode.Katakana,
	unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar,
}

// prolongedSound is the katakana-hiragana prolonged sound mark (ー), whose
// script is Common but which only occurs inside Japanese words.
const prolongedSound = '\u30fc'

func isUnspaced(r rune) bool {
	if r < 0x0e00 { // below Thai: every unspaced script starts above
		return false
	}
	return r == prolongedSound || unicode.In(r, unspacedScripts...)
}

// validToken reports whether s may be a token: non-empty, no ASCII but
// lowercase letters and digits, and only token runes. FTS5's ascii
// tokenizer then keeps it whole, and no query syntax can hide in it.
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < utf8.RuneSelf {
			if !('a' <= r && r <= 'z' || '0' <= r && r <= '9') {
				return false
			}
			continue
		}
		if r == utf8.RuneError || !isTokenRune(r) {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
