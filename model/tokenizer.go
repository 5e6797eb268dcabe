package model

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// maxWordRunes is WordPiece's limit: a longer word is one unknown token
// (max_input_chars_per_word of every BERT tokenizer.json).
const maxWordRunes = 100

// Tokenizer is BERT's uncased WordPiece tokenizer, as the Hugging Face
// tokenizers library runs it from a tokenizer.json with a BertNormalizer
// (lowercase, accents stripped, control characters removed, CJK characters
// split), a BertPreTokenizer (white space and punctuation) and a WordPiece
// model.
type Tokenizer struct {
	vocab                  map[string]int32
	cls, sep, unk          int32
	prefix                 string // continuing_subword_prefix, "##"
	lowercase, stripAccent bool
}

// LoadTokenizer reads a Hugging Face tokenizer.json of a BERT WordPiece
// tokenizer.
func LoadTokenizer(path string) (*Tokenizer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read tokenizer: %w", err)
	}
	var f struct {
		Normalizer struct {
			Type         string `json:"type"`
			Lowercase    bool   `json:"lowercase"`
			StripAccents *bool  `json:"strip_accents"`
		} `json:"normalizer"`
		Model struct {
			Type   string           `json:"type"`
			Unk    string           `json:"unk_token"`
			Prefix string           `json:"continuing_subword_prefix"`
			Vocab  map[string]int32 `json:"vocab"`
		} `json:"model"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", path, err)
	}
	if f.Model.Type != "WordPiece" || f.Normalizer.Type != "BertNormalizer" {
		return nil, fmt.Errorf("tokenizer %s: model %q with normalizer %q, want a BERT WordPiece tokenizer", path, f.Model.Type, f.Normalizer.Type)
	}
	t := &Tokenizer{vocab: f.Model.Vocab, prefix: f.Model.Prefix, lowercase: f.Normalizer.Lowercase, stripAccent: f.Normalizer.Lowercase}
	if f.Normalizer.StripAccents != nil {
		t.stripAccent = *f.Normalizer.StripAccents
	}
	for tok, dst := range map[string]*int32{"[CLS]": &t.cls, "[SEP]": &t.sep, f.Model.Unk: &t.unk} {
		id, ok := t.vocab[tok]
		if !ok {
			return nil, fmt.Errorf("tokenizer %s: no %q in the vocabulary", path, tok)
		}
		*dst = id
	}
	return t, nil
}

// Tokens returns how many tokens the model makes of text, [CLS] and [SEP]
// included, before any cut.
func (t *Tokenizer) Tokens(text string) int {
	n := 2
	for _, w := range preTokenize(t.normalize(text)) {
		n += len(t.wordPiece(nil, w))
	}
	return n
}

// TokenizerFile returns the path of the tokenizer of the model in dir.
func TokenizerFile(dir string) string { return filepath.Join(dir, tokenizerFile) }

// Encode returns the token ids of text between [CLS] and [SEP], at most
// maxTokens of them in all (the words past it are cut, as the reference
// truncates).
func (t *Tokenizer) Encode(text string, maxTokens int) []int32 {
	ids := []int32{t.cls}
	for _, w := range preTokenize(t.normalize(text)) {
		ids = t.wordPiece(ids, w)
		if len(ids) >= maxTokens-1 {
			ids = ids[:maxTokens-1]
			break
		}
	}
	return append(ids, t.sep)
}

// normalize is BertNormalizer: clean the text, space out CJK characters,
// strip accents, lower-case.
func (t *Tokenizer) normalize(text string) string {
	var b strings.Builder
	for _, r := range text {
		switch {
		case r == 0 || r == unicode.ReplacementChar || isControl(r):
		case unicode.IsSpace(r):
			b.WriteByte(' ')
		case isCJK(r):
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	s := b.String()
	if t.stripAccent {
		b.Reset()
		for _, r := range norm.NFD.String(s) {
			if !unicode.Is(unicode.Mn, r) {
				b.WriteRune(r)
			}
		}
		s = b.String()
	}
	if t.lowercase {
		s = strings.ToLower(s)
	}
	return s
}

// isControl is the tokenizers library's test: the "other" categories,
// except the white space characters tab, newline and carriage return.
func isControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs) || !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.C)
}

// isCJK reports the CJK Unified Ideographs blocks BERT splits per character.
func isCJK(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) || (r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) || (r >= 0x2B820 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) || (r >= 0x2F800 && r <= 0x2FA1F)
}

// isPunct is BERT's punctuation: ASCII punctuation or a Unicode P character.
func isPunct(r rune) bool {
	return (r < 0x80 && unicode.IsPunct(r)) || (r < 0x80 && unicode.IsSymbol(r)) || unicode.IsPunct(r)
}

// preTokenize is BertPreTokenizer: words split at white space, and every
// punctuation character a word of its own.
func preTokenize(s string) []string {
	var words []string
	start := -1
	for i, r := range s {
		switch {
		case unicode.IsSpace(r):
			if start >= 0 {
				words = append(words, s[start:i])
			}
			start = -1
		case isPunct(r):
			if start >= 0 {
				words = append(words, s[start:i])
			}
			words = append(words, string(r))
			start = -1
		default:
			if start < 0 {
				start = i
			}
		}
	}
	if start >= 0 {
		words = append(words, s[start:])
	}
	return words
}

// wordPiece appends the ids of word's greedy longest-match-first pieces to
// ids, or the unknown token when some part of it matches nothing.
func (t *Tokenizer) wordPiece(ids []int32, word string) []int32 {
	runes := []rune(word)
	if len(runes) > maxWordRunes {
		return append(ids, t.unk)
	}
	mark := len(ids)
	for start := 0; start < len(runes); {
		end := len(runes)
		found := int32(-1)
		for ; end > start; end-- {
			piece := string(runes[start:end])
			if start > 0 {
				piece = t.prefix + piece
			}
			if id, ok := t.vocab[piece]; ok {
				found = id
				break
			}
		}
		if found < 0 {
			return append(ids[:mark], t.unk)
		}
		ids = append(ids, found)
		start = end
	}
	return ids
}
