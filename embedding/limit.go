package embedding

import (
	"unicode"
	"unicode/utf8"
)

// Texts are cut to the model's input limit before they are sent (to
// limitMargin of it, by an estimate), rather than
// split and their vectors averaged: a chunk is ~1,200 characters, far under
// the 2k-8k tokens of the usual embedding models, so only odd chunks (a long
// line of CJK text, a minified file) reach the limit at all, and for those
// the beginning is what the lexical index also ranks first. Averaging would
// cost a request per part for a vector that no judged set here shows to be
// better; truncation is what Ollama itself does with truncate=true. A text
// the server still refuses alone as too long (its tokenizer makes more of
// it than estimated) is cut to half and sent once more; refused again, it
// is unembeddable (Result.Unembeddable): two requests at most, never a
// loop.
const (
	// specialTokens is what a model adds to every text ([CLS] and [SEP],
	// or <s> and </s>).
	specialTokens = 2
	// asciiRunesPerToken is a conservative count of ASCII letters and
	// digits per token: WordPiece and BPE vocabularies hold most English
	// words whole (5-6 characters a token); 4 leaves room for rare words
	// cut into pieces. Measured on 60 SciFact abstracts (1,200 characters,
	// the chunk size) against real Ollama's glove-100d: the estimate is
	// 1.47-2x the real count; over SciFact's 10,131 chunk-sized windows, 11
	// (0.1%) are estimated past a 512-token model's budget (3 would have
	// cut 213).
	asciiRunesPerToken = 4
	// limitMargin is the share of the model's limit the estimate may fill:
	// the estimate is a guess of the server's tokenizer, and real Ollama
	// with glove-100d makes 1.06 tokens of a Traditional Chinese character
	// (measured: 300 characters are 319 tokens).
	limitMargin = 0.9
)

// budget is the estimated tokens a text may have for a model of limit
// tokens.
func budget(limit int) int {
	return int(float64(limit) * limitMargin)
}

// estimateTokens returns an upper estimate of the tokens a model makes of
// s, special tokens included: every non-ASCII letter (CJK, Cyrillic…) and
// every punctuation mark as a token, ASCII words as a token per
// asciiRunesPerToken characters, white space as nothing.
func estimateTokens(s string) int {
	n, word := specialTokens, 0
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			word++
			continue
		case unicode.IsSpace(r):
		default:
			n++
		}
		n += (word + asciiRunesPerToken - 1) / asciiRunesPerToken
		word = 0
	}
	return n + (word+asciiRunesPerToken-1)/asciiRunesPerToken
}

// truncateTokens returns the longest prefix of s whose estimated tokens fit
// in limit (cut at a rune, preferably at white space), and whether it cut.
// A limit that leaves no room for text (specialTokens or less) cuts nothing.
func truncateTokens(s string, limit int) (string, bool) {
	if limit <= specialTokens || estimateTokens(s) <= limit {
		return s, false
	}
	n, word, lastSpace := specialTokens, 0, -1
	for i, r := range s {
		switch {
		case r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			word++
			if n+(word+asciiRunesPerToken-1)/asciiRunesPerToken > limit {
				return cutAt(s, i, lastSpace), true
			}
			continue
		case unicode.IsSpace(r):
			lastSpace = i
		default:
			if n+(word+asciiRunesPerToken-1)/asciiRunesPerToken+1 > limit {
				return cutAt(s, i, lastSpace), true
			}
			n++
		}
		n += (word + asciiRunesPerToken - 1) / asciiRunesPerToken
		word = 0
	}
	return s, false // unreachable: the estimate said it does not fit
}

// cutAt cuts s at i, or at the last white space before it when that keeps
// most of the text (a word is not cut in half).
func cutAt(s string, i, lastSpace int) string {
	if lastSpace > i/2 {
		return s[:lastSpace]
	}
	return s[:i]
}
