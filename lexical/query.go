package lexical

import (
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	"golang.org/x/text/unicode/norm"
)

// Term is one phrase of analysed tokens: a document matches when it holds
// the tokens adjacent and in order. With Prefix, the last token matches any
// token it begins. The search package hands terms to the store as
// ragd.LexicalTerm, and the store renders them in its own syntax.
type Term struct {
	Tokens []string
	Prefix bool
}

// Empty reports whether t has no token: it matches nothing and must be
// left out of a query.
func (t Term) Empty() bool { return len(t.Tokens) == 0 }

// Word analyses a plain (unquoted) word of a user's query into the terms
// to OR together, in order. The word's spaced tokens that follow one
// another stay one phrase, as a document's "e-mail" is indexed; each bigram of an
// unspaced run is a term of its own, so that a sentence typed without
// spaces finds text sharing some of its characters, best ranked those
// sharing most. A run of one unspaced character can only be matched as
// the start of the bigrams holding it, so it is a prefix term (it misses
// the character at the end of a run). Nil when nothing is indexable.
func (a *Analyzer) Word(w string) []Term {
	var out []Term
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, Term{Tokens: cur})
			cur = nil
		}
	}
	a.scan(w, func(p piece) bool {
		if !p.gram {
			cur = append(cur, p.tok)
			return true
		}
		flush()
		out = append(out, Term{Tokens: []string{p.tok}, Prefix: p.units == 1})
		return true
	})
	flush()
	return out
}

// Phrase analyses a quoted phrase of a user's query: every token, stop
// words and bigrams included, in the order the document analysis gives
// them, so the phrase matches the same text in a document. A phrase that
// is one unspaced character is a prefix term, as in Word.
func (a *Analyzer) Phrase(p string) Term {
	t, last := a.phrase(p)
	t.Prefix = len(t.Tokens) == 1 && last.gram && last.units == 1
	return t
}

// phrase collects every token of p in document order, and the last piece.
func (a *Analyzer) phrase(p string) (Term, piece) {
	var t Term
	var last piece
	a.scan(p, func(pc piece) bool {
		t.Tokens = append(t.Tokens, pc.tok)
		last = pc
		return true
	})
	return t, last
}

// Prefix analyses a word the user marked as a prefix (index*): its tokens
// as in Phrase, the last one turned into a prefix. A prefix is not a word,
// so its last token is not stemmed as one: it is cut to what the prefix
// and its stem have in common ("indexes" → "index", "happy" → "happ"),
// which matches the stems of the words it begins as long as the prefix
// does not run past their stem (indexi* misses indexing, stemmed index).
func (a *Analyzer) Prefix(p string) Term {
	t, last := a.phrase(p)
	if t.Empty() {
		return t
	}
	t.Prefix = true
	if last.gram {
		// Bigrams are substrings already; only a lone character is a prefix.
		t.Prefix = last.units == 1
		return t
	}
	if cut := a.prefixForm(last.norm); cut != "" {
		t.Tokens[len(t.Tokens)-1] = cut
	}
	return t
}

// prefixForm is the longest common prefix of a normalised word and its
// stem, folded; "" when they share nothing.
func (a *Analyzer) prefixForm(w string) string {
	stem := a.stemmerFor(w)
	if stem == nil || len(w) > maxStemBytes {
		return fold(w)
	}
	if a.foldFirst(w) {
		w = fold(w)
	}
	if a.cyrillic != nil {
		w = strings.ReplaceAll(w, "ё", "е")
	}
	env := envPool.Get().(*snowballstem.Env)
	defer envPool.Put(env)
	env.SetCurrent(w)
	stem(env)
	s := env.Current()
	n := 0
	for n < len(w) && n < len(s) {
		r1, size := utf8.DecodeRuneInString(w[n:])
		r2, _ := utf8.DecodeRuneInString(s[n:])
		if r1 != r2 {
			break
		}
		n += size
	}
	if n == 0 {
		return ""
	}
	out := fold(norm.NFC.String(w[:n]))
	if !validToken(out) {
		return ""
	}
	return out
}

// IsStopWord reports whether the plain word w is one of the language's
// stop words, in any case and with or without its diacritics.
func (a *Analyzer) IsStopWord(w string) bool {
	if !isASCII(w) {
		w = norm.NFKC.String(w)
	}
	w = strings.ToLower(w)
	return a.stop[w] || a.stop[fold(w)]
}
