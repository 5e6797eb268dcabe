package chunking

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// outline collects the sections of a document whose parser finds headings
// line by line (reStructuredText, AsciiDoc): each heading closes the
// section before it and opens its own, which runs to the next heading.
type outline struct {
	secs  []section
	start int // the open section's start, and where its body starts
	body  int
	path  []string
	stack []heading
	title string
}

func newOutline(start int) *outline {
	return &outline{start: start, body: start, path: []string{}}
}

// heading records a heading of the given level (0 outermost) and plain
// text whose lines start at lineStart and end at bodyStart. The first
// level-0 heading with text is the title: its text is Title, and it is in
// no heading path.
func (o *outline) heading(lineStart, bodyStart, level int, text string) {
	o.secs = append(o.secs, section{start: o.start, body: o.body, end: lineStart, path: o.path})
	isTitle := o.title == "" && level == 0 && text != ""
	if isTitle {
		o.title = text
	}
	for len(o.stack) > 0 && o.stack[len(o.stack)-1].level >= level {
		o.stack = o.stack[:len(o.stack)-1]
	}
	o.stack = append(o.stack, heading{level: level, text: text, title: isTitle})
	o.path = make([]string, 0, len(o.stack))
	for _, e := range o.stack {
		if !e.title {
			o.path = append(o.path, e.text)
		}
	}
	o.start, o.body = lineStart, bodyStart
}

// finish closes the last section at end and returns the sections, those
// that are only a heading folded into what follows.
func (o *outline) finish(text []byte, end int) ([]section, string) {
	o.secs = append(o.secs, section{start: o.start, body: o.body, end: end, path: o.path})
	return fold(text, o.secs), o.title
}

// line is one line of a text: [start, end) without its line ending and
// trailing blanks, next the start of the line after it.
type line struct {
	start, end, next int
}

// lines splits text[from:] into lines.
func lines(text []byte, from int) []line {
	var out []line
	for i := from; i < len(text); {
		l, next := nextLine(text, i)
		out = append(out, line{start: i, end: i + len(l), next: next})
		i = next
	}
	return out
}

// indentOf returns the width of b's leading blanks, tabs to multiples of 8
// as docutils counts them, and whether b has anything else.
func indentOf(b []byte) (int, bool) {
	col := 0
	for _, c := range b {
		switch c {
		case ' ':
			col++
		case '\t':
			col += 8 - col%8
		default:
			return col, true
		}
	}
	return col, false
}

// skipBOM returns where the text starts after a UTF-8 byte order mark.
func skipBOM(text []byte) int {
	if bytes.HasPrefix(text, []byte(bom)) {
		return len(bom)
	}
	return 0
}

// clip returns s cut to at most maxHeadingBytes on a rune boundary: a
// longer "heading" is no title, and its plain text is not worth the work.
func clip(s string) string {
	if len(s) <= maxHeadingBytes {
		return s
	}
	s = s[:maxHeadingBytes]
	for len(s) > 0 {
		if r, size := utf8.DecodeLastRuneInString(s); r != utf8.RuneError || size != 1 {
			break
		}
		s = s[:len(s)-1]
	}
	return s
}

// collapse joins the words of s with single spaces.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }
