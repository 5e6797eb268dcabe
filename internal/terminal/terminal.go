// Package terminal makes text read from the index (a file's name, a
// document's text, a session's message) safe to show on a terminal: a
// control character in it (ESC starting "\033[2J" or a clipboard write
// "\033]52;…", BEL, a C1 control) is written out as visible text instead
// of reaching the terminal as a command. Every human-readable printer of
// the ragd command goes through Writer; ragd browse's screen through
// Screen. Machine output (--json) is left exact: JSON escapes C0 controls
// itself.
package terminal

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"
)

// control reports whether r is a control character a terminal may act on:
// C0 but tab, newline and carriage return (layout the printers use), DEL,
// and C1.
func control(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f || r >= 0x80 && r <= 0x9f
}

// Safe returns s with each control character written as Go writes it in a
// string literal (\x1b, \a, \u009b) and each byte of invalid UTF-8 as \xNN.
func Safe(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case control(r):
			q := strconvQuote(r)
			b.WriteString(q)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// strconvQuote is r as an escape: \a \b \f \v for theirs, \xNN for other
// C0 controls and DEL, \u00NN for C1.
func strconvQuote(r rune) string {
	switch r {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\v':
		return `\v`
	}
	if r < 0x80 {
		return fmt.Sprintf(`\x%02x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

func needsEscape(s string) bool {
	for _, r := range s {
		if control(r) || r == utf8.RuneError {
			return true
		}
	}
	return false
}

// sgr is a Select Graphic Rendition sequence (colour, bold): what a
// screen drawn with lipgloss styles holds, and all it may.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// Screen is Safe for a drawn screen: its own colour sequences are kept,
// every other control character is escaped.
func Screen(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range sgr.FindAllStringIndex(s, -1) {
		b.WriteString(Safe(s[last:m[0]]))
		b.WriteString(s[m[0]:m[1]])
		last = m[1]
	}
	b.WriteString(Safe(s[last:]))
	return b.String()
}

// Writer returns a writer that writes Safe of what it is given to w. A
// character split between two writes is held until its end arrives.
func Writer(w io.Writer) io.Writer { return &writer{w: w} }

type writer struct {
	w    io.Writer
	held []byte
}

// Unwrap returns the writer written to (to ask whether it is a terminal).
func (t *writer) Unwrap() io.Writer { return t.w }

func (t *writer) Write(p []byte) (int, error) {
	data := append(t.held, p...)
	cut := len(data)
	for i := max(0, len(data)-utf8.UTFMax+1); i < len(data); i++ {
		if utf8.RuneStart(data[i]) && !utf8.FullRune(data[i:]) {
			cut = i
			break
		}
	}
	t.held = append([]byte(nil), data[cut:]...)
	if _, err := io.WriteString(t.w, Safe(string(data[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}
