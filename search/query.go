package search

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/lexical"
)

// Errors ParseQuery returns. Each wraps ragd.ErrInvalid.
var (
	ErrQueryEmpty    = fmt.Errorf("%w: query is empty", ragd.ErrInvalid)
	ErrQueryTooLong  = fmt.Errorf("%w: query is longer than %d characters", ragd.ErrInvalid, MaxQueryLength)
	ErrQueryEncoding = fmt.Errorf("%w: query is not valid UTF-8", ragd.ErrInvalid)
	ErrQueryNUL      = fmt.Errorf("%w: query contains a NUL byte", ragd.ErrInvalid)
)

// Query is user text parsed for both signals.
//
// The syntax is a web search's: plain words, "quoted phrases", -word and
// -"phrase" to exclude, and OR, which is accepted and changes nothing since
// plain words are already joined with OR. Every other character is text:
// the lexical query is a structure of analysed tokens (ragd.LexicalQuery),
// which the store renders in its own syntax, so no operator of an engine's
// query language can be typed.
//
// Words and phrases are analysed as the project's documents are (package
// lexical: its language's stemming and stop words, diacritics folded,
// bigrams for scripts written without spaces), so Lexical holds the tokens
// the project's lexical index holds.
type Query struct {
	// Text is the query as the user wrote it, trimmed: what telemetry records.
	Text string
	// Lexical is the query of the lexical signal; it has no term when the
	// query has no positive term (only exclusions, operators, quotes or
	// punctuation). Such a query is valid and finds nothing.
	Lexical ragd.LexicalQuery
	// Language is the analysis Lexical was built with.
	Language lexical.Language
	// Semantic is the text embedded for the vector signal: the positive
	// words and phrases in order, without quotes, exclusions or OR, stop
	// words kept (they carry meaning for a model). "" exactly when Lexical
	// has no term.
	Semantic string
	// Terms are the positive words and phrases Lexical searches for, as the
	// user wrote them, one for each that adds a term.
	Terms []string
	// Excluded are the words and phrases Lexical excludes, likewise.
	Excluded []string
	// Expression is the store's rendering of the lexical query it ran (for
	// --explain), and Dropped the words of Terms it left out as negligible
	// (nil when none was): both known once the lexical candidates are read.
	Expression string
	Dropped    []string

	// tokens are Text's words and phrases, to analyse it again with In.
	tokens []token
}

// Empty reports whether q has nothing to search for.
func (q Query) Empty() bool { return len(q.Lexical.Terms) == 0 }

// ParseQuery turns user text into a Query analysed for the default
// language (English): enough to validate a query or to embed it, since
// Semantic and Empty do not depend on the language. A search analyses it
// again for its project's language with In. It fails, with an error
// wrapping ragd.ErrInvalid, when the text is not valid UTF-8, contains a
// NUL byte, is empty after trimming, or is longer than MaxQueryLength
// characters. Any other text parses, and its Lexical query, in any
// language, is only analysed tokens: never syntax.
func ParseQuery(text string) (Query, error) {
	if !utf8.ValidString(text) {
		return Query{}, ErrQueryEncoding
	}
	if strings.IndexByte(text, 0) >= 0 {
		return Query{}, ErrQueryNUL
	}
	t := strings.TrimSpace(text)
	if t == "" {
		return Query{}, ErrQueryEmpty
	}
	if n := utf8.RuneCountInString(t); n > MaxQueryLength {
		return Query{}, fmt.Errorf("%w (%d)", ErrQueryTooLong, n)
	}
	a, err := lexical.New(lexical.DefaultLanguage)
	if err != nil {
		return Query{}, fmt.Errorf("parse query: %w", err) // never: every language has an analyser
	}
	return Query{Text: t, tokens: tokenize(t)}.In(a), nil
}

// In returns q analysed with a: plain words with a.Word (its stop words
// left out unless nothing else remains), phrases with a.Phrase, the same
// for exclusions; terms that analyse alike are searched once.
func (q Query) In(a *lexical.Analyzer) Query {
	out := Query{Text: q.Text, Language: a.Language(), tokens: q.tokens}
	type positive struct {
		text  string
		terms []lexical.Term
		stop  bool
	}
	var pos []positive
	var semantic []string
	var excluded []ragd.LexicalTerm
	seenNeg := map[string]bool{}
	for _, tok := range q.tokens {
		if !tok.phrase && !tok.neg && tok.text == "OR" {
			continue
		}
		core := tok.text
		var terms []lexical.Term
		if tok.phrase {
			core = strings.Join(strings.Fields(core), " ")
			if t := a.Phrase(core); !t.Empty() {
				terms = []lexical.Term{t}
			}
		} else {
			core = strings.TrimFunc(core, func(r rune) bool { return !isTokenRune(r) })
			terms = a.Word(core)
		}
		if len(terms) == 0 {
			continue // nothing the index holds
		}
		if tok.neg {
			if addTerms(&excluded, seenNeg, core, terms) {
				out.Excluded = append(out.Excluded, core)
			}
			continue
		}
		if tok.phrase {
			semantic = append(semantic, core)
		} else {
			semantic = append(semantic, tok.text)
		}
		pos = append(pos, positive{core, terms, !tok.phrase && a.IsStopWord(core)})
	}

	// Stop words go, unless nothing else would remain: then search for
	// them rather than for nothing. bm25 gives them near-zero weight, and
	// each one OR-ed into a question matches nearly every chunk: measured
	// at 100k chunks, a term present in every chunk costs about 70 ms
	// against 6 ms for a mid-frequency term.
	onlyStop := true
	for _, p := range pos {
		onlyStop = onlyStop && p.stop
	}
	var included []ragd.LexicalTerm
	seenPos := map[string]bool{}
	for _, p := range pos {
		if p.stop && !onlyStop {
			continue
		}
		if addTerms(&included, seenPos, p.text, p.terms) {
			out.Terms = append(out.Terms, p.text)
		}
	}
	out.Lexical.Language = string(a.Language())
	if len(included) == 0 {
		out.Excluded = nil
		return out
	}
	out.Semantic = strings.Join(semantic, " ")
	out.Lexical.Terms, out.Lexical.Excluded = included, excluded
	return out
}

// addTerms appends to list the terms of word not seen yet, and reports
// whether there was one.
func addTerms(list *[]ragd.LexicalTerm, seen map[string]bool, word string, terms []lexical.Term) bool {
	fresh := false
	for _, t := range terms {
		k := termKey(t)
		if t.Empty() || seen[k] {
			continue
		}
		seen[k] = true
		*list = append(*list, ragd.LexicalTerm{Word: word, Tokens: t.Tokens, Prefix: t.Prefix})
		fresh = true
	}
	return fresh
}

// termKey is what two terms that match alike share: their tokens in order
// and whether the last is a prefix.
func termKey(t lexical.Term) string {
	k := strings.Join(t.Tokens, "\x00")
	if t.Prefix {
		k += "\x00*"
	}
	return k
}

// token is a word or a phrase of user text.
type token struct {
	text   string
	phrase bool // was "quoted"
	neg    bool // was prefixed with -
}

// tokenize splits text into words at white space and into phrases at double
// quotes. An unbalanced quote runs to the end of the text. A - starts an
// exclusion only at the start of a word and before a non-space.
func tokenize(t string) []token {
	var out []token
	for i := 0; i < len(t); {
		r, size := utf8.DecodeRuneInString(t[i:])
		if unicode.IsSpace(r) {
			i += size
			continue
		}
		var neg bool
		if r == '-' && i+1 < len(t) {
			if next, _ := utf8.DecodeRuneInString(t[i+1:]); !unicode.IsSpace(next) {
				neg = true
				i++
				r = next
			}
		}
		if r == '"' {
			end := strings.IndexByte(t[i+1:], '"')
			if end < 0 {
				out = append(out, token{t[i+1:], true, neg})
				break
			}
			out = append(out, token{t[i+1 : i+1+end], true, neg})
			i += end + 2
			continue
		}
		end := strings.IndexFunc(t[i:], func(r rune) bool { return r == '"' || unicode.IsSpace(r) })
		if end < 0 {
			end = len(t) - i
		}
		out = append(out, token{t[i : i+end], false, neg})
		i += end
	}
	return out
}

// isTokenRune reports whether r can be part of a word: letters, numbers,
// marks and private-use characters. A plain word is analysed without the
// other characters around it.
func isTokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) || unicode.Is(unicode.Co, r)
}
