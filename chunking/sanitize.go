package chunking

import (
	"bytes"
	"sort"
	"strings"
	"unicode/utf8"
)

// replacement is U+FFFD REPLACEMENT CHARACTER, which stands in for every run
// of bytes that cannot be shown.
const replacement = "\uFFFD"

// fix records one run of bad bytes that sanitize replaced: at san in the
// sanitised text stands one U+FFFD (3 bytes) where the source had srcLen
// bytes starting at src.
type fix struct {
	san, src, srcLen int
}

// offsets maps byte offsets in the sanitised text back to the source. The
// zero value is the identity, which is what clean input gets.
type offsets []fix

// toSource maps a sanitised offset p, which must be on a rune boundary, to
// the source. An offset just before a U+FFFD maps to the start of the bad
// run, one just after it to the end of the bad run.
func (fs offsets) toSource(p int) int {
	if len(fs) == 0 {
		return p
	}
	// k is the number of replacements that lie before p.
	k := sort.Search(len(fs), func(i int) bool { return fs[i].san >= p })
	if k == 0 {
		return p
	}
	f := fs[k-1]
	return p - (f.san + len(replacement)) + f.src + f.srcLen
}

// isBad reports whether the rune r of encoded size size at the start of a
// byte sequence must be replaced: an invalid or truncated UTF-8 sequence
// (utf8 reports those as RuneError of size 1; a literal U+FFFD has size 3
// and is kept), or a NUL byte, which CommonMark and SQLite's FTS5 both treat
// badly.
func isBad(r rune, size int) bool {
	return r == 0 || (r == utf8.RuneError && size == 1)
}

// clean reports whether src needs no sanitising. Both checks run at memory
// speed, so valid input, the common case, is never copied.
func clean(src []byte) bool {
	return utf8.Valid(src) && bytes.IndexByte(src, 0) < 0
}

// cleanString is clean for a string, without copying it.
func cleanString(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// sanitize returns src with every maximal run of invalid UTF-8 and NUL bytes
// replaced by one U+FFFD, the replacements made, and their number. When
// nothing needs replacing it returns src itself and a nil offsets.
//
// A run, not each byte, becomes one U+FFFD so that binary garbage grows by
// at most 3x and a reader sees one marker per damaged spot.
func sanitize(src []byte) ([]byte, offsets, int) {
	if clean(src) {
		return src, nil, 0
	}
	out := make([]byte, 0, len(src)+len(src)/8+len(replacement))
	var fs offsets
	i := 0
	for i < len(src) {
		// Copy the longest clean stretch in one append.
		j := i
		for j < len(src) {
			c := src[j]
			if c != 0 && c < utf8.RuneSelf {
				j++
				continue
			}
			r, size := utf8.DecodeRune(src[j:])
			if isBad(r, size) {
				break
			}
			j += size
		}
		out = append(out, src[i:j]...)
		if j == len(src) {
			break
		}
		// src[j] starts a bad run; extend it over every following bad byte.
		k := j
		for k < len(src) {
			r, size := utf8.DecodeRune(src[k:])
			if !isBad(r, size) {
				break
			}
			k += size
		}
		fs = append(fs, fix{san: len(out), src: j, srcLen: k - j})
		out = append(out, replacement...)
		i = k
	}
	return out, fs, len(fs)
}
