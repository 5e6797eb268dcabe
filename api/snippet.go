package api

import (
	"slices"
	"strings"
	"unicode"
)

// Snippet tuning, in runes.
const (
	// SnippetRunes is a hit's snippet for a reader who pays for every
	// token (an MCP client's model): about two sentences of a chunk of up
	// to 1,400 runes.
	SnippetRunes = 240
	// snippetLead is how much of the text before the first query word a
	// snippet shows.
	snippetLead = 60
	// minTermRunes leaves out words too short to locate anything ("a", "of").
	minTermRunes = 3
)

// Snippet returns about size runes of text around the first word of query
// it holds (matched without case), whitespace collapsed, "…" where it was
// cut, starting a little before that word at a word's start and ending at
// a word's end; the start of text when it holds none.
func Snippet(text, query string, size int) string {
	snippetRunes := size
	rs := []rune(strings.Join(strings.Fields(text), " "))
	if len(rs) <= snippetRunes {
		return string(rs)
	}
	lower := make([]rune, len(rs))
	for i, r := range rs {
		lower[i] = unicode.ToLower(r)
	}
	first := -1
	for _, term := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		t := []rune(term)
		if len(t) < minTermRunes {
			continue
		}
		if i := index(lower, t); i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	start := 0
	if first > snippetLead {
		start = first - snippetLead
		// Start at a word.
		for start < first && !unicode.IsSpace(rs[start-1]) {
			start++
		}
	}
	end := min(len(rs), start+snippetRunes)
	if end-start < snippetRunes {
		start = max(0, end-snippetRunes)
	}
	// End at a word.
	if end < len(rs) {
		for e := end; e > start+snippetRunes/2; e-- {
			if unicode.IsSpace(rs[e]) {
				end = e
				break
			}
		}
	}
	out := strings.TrimSpace(string(rs[start:end]))
	if start > 0 {
		out = "…" + out
	}
	if end < len(rs) {
		out += "…"
	}
	return out
}

// index returns the first index of sub in s, or -1.
func index(s, sub []rune) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if slices.Equal(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}
