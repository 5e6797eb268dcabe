package chunking

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// MDX chunks an MDX document (Docusaurus): markdown whose ESM lines
// (import and export statements), JSX tags (<Tabs>, <TabItem value="x">,
// <Foo />, fragments) and {expressions} (comments included) are markup,
// not prose, while the text between tags is. Code (fenced blocks, code
// spans) stays as written.
//
// The markup is blanked, byte for byte, to spaces in a copy of the text
// (line endings kept), and that copy is split by goldmark like Markdown and
// cut. So a chunk's Content is src[Start:End] with its markup bytes turned
// into spaces: the same length, every other byte as in the source (after
// the bad-byte replacement every format does, see Chunk.Start). A section
// whose only content is markup has no chunk.
//
// The title is the first level-1 heading's text, else the front matter's
// title, as Docusaurus does, else the file name without its extension.
func MDX(src []byte, name string, opt Options) (Document, error) {
	if err := opt.Validate(); err != nil {
		return Document{}, fmt.Errorf("chunking %s: %w", name, err)
	}
	san, fixes, replaced := sanitize(src)
	body := bodyStart(san)
	text := blankMDX(san, body)
	secs, title, err := markdownSections(text, body)
	if err != nil {
		return Document{}, fmt.Errorf("chunking %s: %w", name, err)
	}
	if title == "" {
		title = frontMatterTitle(san[:body])
	}
	if title == "" {
		title = fileTitle(name)
	}
	return assemble(text, fixes, replaced, title, secs, opt), nil
}

// Bounds on one piece of markup; a longer one is taken for text, and the
// bounds keep the scan linear on input that opens tags it never closes.
const (
	// maxTagBytes bounds a JSX tag with its attributes. Real tags with
	// inline objects run to a few hundred bytes.
	maxTagBytes = 4096
)

// blanker blanks spans of a text in a copy made on the first change.
type blanker struct {
	src, out []byte
}

func (b *blanker) blank(i, j int) {
	if i >= j {
		return
	}
	if b.out == nil {
		b.out = bytes.Clone(b.src)
	}
	blankOut(b.out[i:j])
}

// result is the blanked copy, or src itself when nothing was blanked.
func (b *blanker) result() []byte {
	if b.out == nil {
		return b.src
	}
	return b.out
}

// blankMDX returns src with the MDX markup after body blanked (see MDX).
func blankMDX(src []byte, body int) []byte {
	b := &blanker{src: src}
	var fence []byte // the open fence's marker run, nil outside code
	for i := body; i < len(src); {
		line, next := nextLine(src, i)
		switch {
		case fence != nil:
			if closesFence(line, fence) {
				fence = nil
			}
			i = next
			continue
		case isBlank(line):
			i = next
			continue
		}
		if f := openFence(line); f != nil {
			fence, i = f, next
			continue
		}
		// A paragraph: lines up to a blank line or a fence.
		end := next
		for end < len(src) {
			l, n := nextLine(src, end)
			if isBlank(l) || openFence(l) != nil {
				break
			}
			end = n
		}
		if isESM(line) {
			b.blank(i, end)
		} else {
			blankInline(b, src, i, end)
		}
		i = end
	}
	return b.result()
}

// isESM reports whether a paragraph starting with line is an ESM block:
// "import" or "export" at the start of the line, then a blank, "{" or "*".
func isESM(line []byte) bool {
	for _, kw := range []string{"import", "export"} {
		if rest, ok := bytes.CutPrefix(line, []byte(kw)); ok && len(rest) > 0 && strings.IndexByte(" \t{*", rest[0]) >= 0 {
			return true
		}
	}
	return false
}

// openFence returns the marker run of a code fence that line opens (three
// or more backticks or tildes after any indentation: MDX has no indented
// code), or nil.
func openFence(line []byte) []byte {
	t := bytes.TrimLeft(line, " \t")
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return nil
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 || (t[0] == '`' && bytes.IndexByte(t[n:], '`') >= 0) {
		return nil
	}
	return t[:n]
}

// closesFence reports whether line closes the fence opened by marker: a
// run of the same character at least as long, then only blanks.
func closesFence(line, marker []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	n := 0
	for n < len(t) && t[n] == marker[0] {
		n++
	}
	return n >= len(marker) && isBlank(t[n:])
}

// blankInline blanks the JSX tags, expressions and HTML comments of the
// paragraph src[a:z], leaving code spans alone. Braces are matched in one
// pass with a stack, so that an expression that is never closed costs no
// rescan: the outermost matched pairs are blanked, those inside an
// unmatched "{" included.
func blankInline(b *blanker, src []byte, a, z int) {
	type open struct {
		pos  int
		kids [][2]int // matched pairs directly inside, while this is open
	}
	var stack []open
	commentEnd := -1 // memo: where the next "-->" is, or len(src) if none
	for i := a; i < z; {
		switch c := src[i]; c {
		case '\\':
			i += 2
		case '`':
			i = codeSpanEnd(src, i, z)
		case '<':
			if bytes.HasPrefix(src[i:z], []byte("<!--")) {
				if commentEnd < i {
					commentEnd = len(src)
					if k := bytes.Index(src[i+4:z], []byte("-->")); k >= 0 {
						commentEnd = i + 4 + k
					}
				}
				if commentEnd < z {
					b.blank(i, commentEnd+3)
					i = commentEnd + 3
					continue
				}
			}
			if j := jsxTagEnd(src, i, min(z, i+maxTagBytes)); j > 0 {
				b.blank(i, j)
				i = j
				continue
			}
			i++
		case '{':
			stack = append(stack, open{pos: i})
			i++
		case '}':
			if n := len(stack); n > 0 {
				pair := [2]int{stack[n-1].pos, i + 1}
				stack = stack[:n-1]
				if n == 1 {
					b.blank(pair[0], pair[1])
				} else {
					stack[n-2].kids = append(stack[n-2].kids, pair)
				}
			}
			i++
		default:
			i++
		}
	}
	// The opens left are unmatched: what was matched inside them is
	// outermost after all.
	for _, o := range stack {
		for _, p := range o.kids {
			b.blank(p[0], p[1])
		}
	}
}

// codeSpanEnd returns the end of the code span whose backtick run starts at
// src[i], closed by a run of the same length before z on the same line, or
// the end of the run when it is not closed there.
func codeSpanEnd(src []byte, i, z int) int {
	j := i
	for j < z && src[j] == '`' {
		j++
	}
	n := j - i
	eol := z
	if k := bytes.IndexByte(src[j:z], '\n'); k >= 0 {
		eol = j + k
	}
	for k := j; k < eol; {
		if src[k] != '`' {
			k++
			continue
		}
		m := k
		for m < eol && src[m] == '`' {
			m++
		}
		if m-k == n {
			return m
		}
		k = m
	}
	return j
}

// jsxTagEnd returns the end of the JSX tag starting with the "<" at src[i]
// and ending before lim, or -1 if there is none: "<Name attr="v" x={e}
// {...spread}>", "</Name>", "<Name />", "<>" and "</>". A "<" followed by a
// blank, a digit or an autolink's "scheme://" is text.
func jsxTagEnd(src []byte, i, lim int) int {
	j := i + 1
	if j < lim && src[j] == '/' {
		j++
	}
	if j < lim && src[j] == '>' {
		return j + 1
	}
	if j >= lim || !isASCIILetter(src[j]) {
		return -1
	}
	for j < lim && isNameByte(src[j]) {
		j++
	}
	for j < lim {
		switch c := src[j]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			j++
		case c == '>':
			return j + 1
		case c == '/':
			if j+1 < lim && src[j+1] == '>' {
				return j + 2
			}
			return -1
		case c == '{':
			if j = braceEnd(src, j, lim); j < 0 {
				return -1
			}
		case isASCIILetter(c) || c == '_' || c == '$' || c == ':':
			for j < lim && isNameByte(src[j]) {
				j++
			}
			k := j
			for k < lim && (src[k] == ' ' || src[k] == '\t') {
				k++
			}
			if k >= lim || src[k] != '=' {
				continue // a boolean attribute
			}
			for k++; k < lim && (src[k] == ' ' || src[k] == '\t'); k++ {
			}
			if k >= lim {
				return -1
			}
			switch src[k] {
			case '"', '\'':
				e := bytes.IndexByte(src[k+1:lim], src[k])
				if e < 0 {
					return -1
				}
				j = k + 1 + e + 1
			case '{':
				if j = braceEnd(src, k, lim); j < 0 {
					return -1
				}
			default:
				return -1
			}
		default:
			return -1
		}
	}
	return -1
}

// braceEnd returns the end of the balanced {...} starting at src[i], before
// lim, skipping JavaScript strings, or -1.
func braceEnd(src []byte, i, lim int) int {
	depth := 0
	for j := i; j < lim; j++ {
		switch c := src[j]; c {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return j + 1
			}
		case '"', '\'', '`':
			for j++; j < lim && src[j] != c; j++ {
				if src[j] == '\\' {
					j++
				}
			}
		}
	}
	return -1
}

func isASCIILetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// isNameByte reports whether c may continue a JSX tag or attribute name
// (member expressions and namespaces included: <Foo.Bar>, xlink:href).
func isNameByte(c byte) bool {
	return isASCIILetter(c) || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' || c == ':' || c == '$'
}

// frontMatterTitle returns the value of the top-level "title:" key of a
// YAML front matter block (fm, as bodyStart delimited it), plain or quoted,
// or "" if there is none. A block scalar ("title: >") is not read.
func frontMatterTitle(fm []byte) string {
	for i := 0; i < len(fm); {
		line, next := nextLine(fm, i)
		i = next
		v, ok := bytes.CutPrefix(line, []byte("title:"))
		if !ok {
			continue
		}
		s := strings.TrimSpace(string(v))
		switch {
		case strings.HasPrefix(s, `"`):
			if u, err := strconv.Unquote(s); err == nil {
				s = u
			} else {
				s = strings.Trim(s, `"`)
			}
		case strings.HasPrefix(s, "'"):
			s = strings.ReplaceAll(strings.TrimSuffix(s[1:], "'"), "''", "'")
		case strings.HasPrefix(s, ">") || strings.HasPrefix(s, "|"):
			s = ""
		default:
			if k := strings.Index(s, " #"); k >= 0 {
				s = s[:k]
			}
		}
		return plainTitle(s)
	}
	return ""
}

// plainTitle returns s as a title: valid UTF-8, control characters as
// blanks, whitespace collapsed.
func plainTitle(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, replacement))
	return strings.Join(strings.Fields(s), " ")
}
