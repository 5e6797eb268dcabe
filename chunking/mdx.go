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
// paragraph src[a:z], leaving code spans alone.
func blankInline(b *blanker, src []byte, a, z int) {
	p := paragraph{src: src, a: a, z: z, eol: -1, commentEnd: -1}
	p.matchBraces()
	for i := a; i < z; {
		switch src[i] {
		case '\\':
			i += 2
		case '`':
			i = p.codeSpanEnd(i)
		case '<':
			if bytes.HasPrefix(src[i:z], []byte("<!--")) {
				if p.commentEnd < i {
					p.commentEnd = z
					if k := bytes.Index(src[i+4:z], []byte("-->")); k >= 0 {
						p.commentEnd = i + 4 + k
					}
				}
				if p.commentEnd < z {
					b.blank(i, p.commentEnd+3)
					i = p.commentEnd + 3
					continue
				}
			}
			if j := p.tagEnd(i, min(z, i+maxTagBytes)); j > 0 {
				b.blank(i, j)
				i = j
				continue
			}
			i++
		case '{':
			// An expression: an outermost matched pair, also inside a
			// "{" that is never closed.
			if j := p.closeOf(i); j > 0 {
				b.blank(i, j)
				i = j
				continue
			}
			i++
		default:
			i++
		}
	}
}

// paragraph is one paragraph of an MDX text being scanned, with what the
// scan learns once so that no position is scanned again and again: the
// matching brace of each "{", where the current line and the next HTML
// comment end.
type paragraph struct {
	src  []byte
	a, z int
	// closes[i-a] is the end (past the "}") of the pair the "{" at i
	// opens, 0 if it is not closed in the paragraph; nil when the
	// paragraph has no brace.
	closes     []int32
	eol        int // end of the line holding the last code span start
	commentEnd int // where the next "-->" is, z if none
}

// matchBraces pairs the paragraph's braces with a stack, in one pass,
// skipping escapes, code spans and, inside braces, JavaScript strings
// closed on their line (a quote without a closing one is text, and the
// last of its kind on the line, so no position is scanned twice).
func (p *paragraph) matchBraces() {
	if bytes.IndexByte(p.src[p.a:p.z], '{') < 0 {
		return
	}
	p.closes = make([]int32, p.z-p.a)
	var stack []int
	for i := p.a; i < p.z; {
		switch p.src[i] {
		case '\\':
			i += 2
			continue
		case '`':
			i = p.codeSpanEnd(i)
			continue
		case '"', '\'':
			if len(stack) > 0 {
				if k := p.stringEnd(i); k > 0 {
					i = k
					continue
				}
			}
		case '{':
			stack = append(stack, i)
		case '}':
			if n := len(stack); n > 0 {
				p.closes[stack[n-1]-p.a] = int32(i + 1 - p.a)
				stack = stack[:n-1]
			}
		}
		i++
	}
	p.eol = -1
}

// stringEnd returns the end of the string whose quote is at src[i], closed
// on the same line, or 0.
func (p *paragraph) stringEnd(i int) int {
	q := p.src[i]
	for k := i + 1; k < p.z; k++ {
		switch p.src[k] {
		case '\\':
			k++
		case q:
			return k + 1
		case '\n':
			return 0
		}
	}
	return 0
}

// closeOf returns the end of the brace pair opened at i, or 0.
func (p *paragraph) closeOf(i int) int {
	if p.closes == nil || p.closes[i-p.a] == 0 {
		return 0
	}
	return p.a + int(p.closes[i-p.a])
}

// codeSpanEnd returns the end of the code span whose backtick run starts at
// src[i], closed by a run of the same length on the same line within
// maxTagBytes, or the end of the run when it is not closed there.
func (p *paragraph) codeSpanEnd(i int) int {
	src := p.src
	j := i
	for j < p.z && src[j] == '`' {
		j++
	}
	n := j - i
	if p.eol < j {
		p.eol = p.z
		if k := bytes.IndexByte(src[j:p.z], '\n'); k >= 0 {
			p.eol = j + k
		}
	}
	end := min(p.eol, j+maxTagBytes)
	for k := j; k < end; {
		if src[k] != '`' {
			k++
			continue
		}
		m := k
		for m < end && src[m] == '`' {
			m++
		}
		if m-k == n {
			return m
		}
		k = m
	}
	return j
}

// tagEnd returns the end of the JSX tag starting with the "<" at src[i]
// and ending before lim, or -1 if there is none: "<Name attr="v" x={e}
// {...spread}>", "</Name>", "<Name />", "<>" and "</>". A "<" followed by a
// blank, a digit or an autolink's "scheme://" is text.
func (p *paragraph) tagEnd(i, lim int) int {
	src := p.src
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
			if j = p.closeOf(j); j <= 0 || j > lim {
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
				if j = p.closeOf(k); j <= 0 || j > lim {
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
