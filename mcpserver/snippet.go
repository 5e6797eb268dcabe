package mcpserver

import (
	"slices"
	"strings"
	"unicode"
)

// Snippet sizes, in runes: a search result is read by a model that pays for
// every token, so a hit shows about two sentences (a chunk is up to 1,400
// runes), starting a little before the first word of the query it holds.
const (
	snippetRunes = 240
	snippetLead  = 60
	// minTermRunes leaves out words too short to locate anything ("a", "of").
	minTermRunes = 3
)

// snippet returns the part of text around the first word of query it holds
// (matched without case), whitespace collapsed, "…" where it was cut; the
// start of text when it holds none.
func snippet(text, query string) string {
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
