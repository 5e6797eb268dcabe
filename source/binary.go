package source

import (
	"bytes"
	"unicode/utf8"
)

// maxInvalidShare is the share of bytes outside valid UTF-8 (as a divisor:
// one in four) above which content is binary. Random bytes have about half;
// a Latin-1 document, the likeliest text in another encoding, a few per
// cent, and stays readable with its stray bytes replaced.
const maxInvalidShare = 4

// isBinary reports whether content is not text: it holds a NUL byte, which no
// text file has (git calls such a file binary), or too many bytes that are
// not valid UTF-8.
func isBinary(content []byte) bool {
	if bytes.IndexByte(content, 0) >= 0 {
		return true
	}
	if utf8.Valid(content) {
		return false
	}
	invalid := 0
	for i := 0; i < len(content); {
		r, size := utf8.DecodeRune(content[i:])
		if r == utf8.RuneError && size == 1 {
			invalid++
		}
		i += size
	}
	return invalid*maxInvalidShare > len(content)
}
