package search

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragd/ragd"
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
// FTS5's operators (AND, NOT, NEAR, *, ^, :, parentheses, column filters)
// reach FTS5 only inside double-quoted strings, where they are not syntax.
type Query struct {
	// Text is the query as the user wrote it, trimmed: what telemetry records.
	Text string
	// Match is the FTS5 expression for the lexical signal, "" when the query
	// has no positive term (only exclusions, operators, quotes or
	// punctuation). Such a query is valid and finds nothing.
	Match string
	// Semantic is the text embedded for the vector signal: the positive
	// words and phrases in order, without quotes, exclusions or OR, stop
	// words kept (they carry meaning for a model). "" exactly when Match is.
	Semantic string
	// Terms are the positive words and phrases Match searches for.
	Terms []string
	// Excluded are the words and phrases Match excludes.
	Excluded []string
}

// Empty reports whether q has nothing to search for.
func (q Query) Empty() bool { return q.Match == "" }

// stopWords are dropped from plain words (never from phrases) unless nothing
// else would remain. bm25 gives them near-zero weight anyway, and each one
// OR-ed into a question matches nearly every chunk: measured at 100k chunks,
// a term present in every chunk costs about 70 ms against 6 ms for a
// mid-frequency term.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be but by can do does for from had has have how i if in
		into is it its me my no not of on or our so than that the their then there these they this to
		was we were what when where which who whom why will with would you your`) {
		stopWords[w] = true
	}
}

// ParseQuery turns user text into a Query. It fails, with an error wrapping
// ragd.ErrInvalid, when the text is not valid UTF-8, contains a NUL byte, is empty
// after trimming, or is longer than MaxQueryLength characters. Any other text
// parses, and its Match never makes FTS5 report a syntax error.
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

	q := Query{Text: t}
	type term struct {
		text string
		stop bool
	}
	var positive []term
	var semantic []string
	seenPos, seenNeg := map[string]bool{}, map[string]bool{}
	for _, tok := range tokenize(t) {
		if !tok.phrase && !tok.neg && tok.text == "OR" {
			continue
		}
		core := tok.text
		if tok.phrase {
			core = strings.Join(strings.Fields(core), " ")
		} else {
			core = strings.TrimFunc(core, func(r rune) bool { return !isTokenRune(r) })
		}
		if !strings.ContainsFunc(core, isTokenRune) {
			continue // nothing FTS5 would index
		}
		key := strings.ToLower(core)
		if tok.neg {
			if !seenNeg[key] {
				seenNeg[key] = true
				q.Excluded = append(q.Excluded, core)
			}
			continue
		}
		if tok.phrase {
			semantic = append(semantic, core)
		} else {
			semantic = append(semantic, tok.text)
		}
		if !seenPos[key] {
			seenPos[key] = true
			positive = append(positive, term{core, !tok.phrase && stopWords[key]})
		}
	}

	for _, p := range positive {
		if !p.stop {
			q.Terms = append(q.Terms, p.text)
		}
	}
	if len(q.Terms) == 0 {
		// Only stop words: search for them rather than for nothing.
		for _, p := range positive {
			q.Terms = append(q.Terms, p.text)
		}
	}
	if len(q.Terms) == 0 {
		q.Excluded = nil
		return q, nil
	}
	q.Semantic = strings.Join(semantic, " ")
	q.Match = orList(q.Terms)
	if len(q.Excluded) > 0 {
		// One NOT over an OR group, not a chain of NOTs: FTS5 flattens OR
		// but nests each NOT, and refuses trees deeper than 256.
		q.Match = "(" + q.Match + ") NOT (" + orList(q.Excluded) + ")"
	}
	return q, nil
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

// isTokenRune reports whether FTS5's unicode61 tokenizer indexes r: by
// default letters, numbers and private-use characters; everything else
// separates tokens.
func isTokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r)
}

// orList joins terms as FTS5 strings with OR.
func orList(terms []string) string {
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString(quoteFTS(t))
	}
	return b.String()
}

// quoteFTS makes s an FTS5 string: inside double quotes nothing is syntax,
// and a double quote is written twice.
func quoteFTS(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
