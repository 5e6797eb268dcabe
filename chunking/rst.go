package chunking

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// RST chunks a reStructuredText document (Sphinx). Section titles are
// found by their adornment: a title line underlined, or over- and
// underlined, by a line of one punctuation character at least as long as
// the title, after a blank line. Levels follow the order in which each
// style (character, with or without overline) first appears, as docutils
// has it; the first title is the document's Title and in no heading path.
// Titles are read at the left margin only, so indented text (literal
// blocks, directive bodies, block quotes) never holds one.
//
// Explicit markup that is not prose is blanked to spaces, as MDX does (see
// MDX for the Content contract): comments, hyperlink targets, substitution
// definitions, and the whole of directives that include, link or generate
// content instead of holding it (toctree, include, literalinclude, image,
// raw, contents, index, highlight, module and currentmodule, meta, the
// autodoc family; see rstHidden). Other directives (note, warning, tip,
// code-block, figure, function, ...) lose only their ".. name::" marker and
// their option lines; their arguments and bodies are text. Footnotes and
// citations lose their ".. [label]" marker. Field lists, literal blocks
// and tables, grid and simple, are text as written.
func RST(src []byte, name string, opt Options) (Document, error) {
	if err := opt.Validate(); err != nil {
		return Document{}, fmt.Errorf("chunking %s: %w", name, err)
	}
	san, fixes, replaced := sanitize(src)
	text, secs, title := rstSections(san)
	if title == "" {
		title = fileTitle(name)
	}
	return assemble(text, fixes, replaced, title, secs, opt), nil
}

// rstHidden lists the directives whose whole block is blanked: they point
// at other files or generate text from code, and what they hold (paths,
// module names, options) is no prose of this file.
var rstHidden = map[string]bool{
	"toctree": true, "include": true, "literalinclude": true, "image": true,
	"raw": true, "contents": true, "index": true, "highlight": true,
	"module": true, "currentmodule": true, "py:module": true, "py:currentmodule": true,
	"meta": true, "tabularcolumns": true, "sectionauthor": true, "codeauthor": true,
	"autosummary": true, "default-role": true, "default-domain": true, "role": true,
	"csv-table-file": true,
}

// rstCode lists the directives whose argument is a language name, which is
// no prose either.
var rstCode = map[string]bool{"code-block": true, "code": true, "sourcecode": true}

// rstStyle is a section adornment style.
type rstStyle struct {
	char byte
	over bool
}

// rstSections blanks the non-prose markup of san (in a copy) and returns
// the copy, its sections and the title.
func rstSections(san []byte) ([]byte, []section, string) {
	b := &blanker{src: san}
	start := skipBOM(san)
	ls := lines(san, start)
	o := newOutline(start)
	var styles []rstStyle
	blankBefore := true // the previous line ends a block: a title may start here
	for i := 0; i < len(ls); {
		l := san[ls[i].start:ls[i].end]
		ind, nonBlank := indentOf(l)
		if !nonBlank {
			blankBefore = true
			i++
			continue
		}
		if t := l[len(l)-len(bytes.TrimLeft(l, " \t")):]; isExplicitStart(t) {
			i = rstExplicit(b, san, ls, i, ind)
			blankBefore = true
			continue
		}
		if blankBefore && ind == 0 {
			if n, st, txt := rstTitle(san, ls, i); n > 0 {
				level := -1
				for k, s := range styles {
					if s == st {
						level = k
					}
				}
				if level < 0 {
					styles = append(styles, st)
					level = len(styles) - 1
				}
				o.heading(ls[i].start, ls[i+n-1].next, level, rstPlain(txt))
				i += n
				blankBefore = true
				continue
			}
		}
		blankBefore = false
		i++
	}
	secs, title := o.finish(b.result(), len(san))
	return b.result(), secs, title
}

// isExplicitStart reports whether t, a line without its indentation,
// starts an explicit markup block: ".." alone or followed by a blank.
func isExplicitStart(t []byte) bool {
	return bytes.Equal(t, []byte("..")) || bytes.HasPrefix(t, []byte(".. ")) || bytes.HasPrefix(t, []byte("..\t"))
}

// rstTitle reports whether a section title starts at line i: n is the
// number of lines it takes (2 or 3, 0 if none), st its style and txt its
// raw text.
func rstTitle(san []byte, ls []line, i int) (n int, st rstStyle, txt string) {
	get := func(k int) []byte {
		if k >= len(ls) {
			return nil
		}
		return san[ls[k].start:ls[k].end]
	}
	l := get(i)
	if c, ok := adornment(l); ok {
		// Overline, text, underline equal to the overline.
		t, u := get(i+1), get(i+2)
		_, textNonBlank := indentOf(t)
		text := bytes.TrimSpace(t)
		if textNonBlank && bytes.Equal(u, l) && len(l) >= runeWidth(text) {
			if _, isAdorn := adornment(text); !isAdorn {
				return 3, rstStyle{c, true}, string(text)
			}
		}
		return 0, st, ""
	}
	u := get(i + 1)
	c, ok := adornment(u)
	if !ok {
		return 0, st, ""
	}
	if w := runeWidth(l); len(u) < w && len(u) < 4 {
		return 0, st, ""
	}
	return 2, rstStyle{c, false}, string(l)
}

// adornment reports whether l is a section adornment line: at least two
// of one non-alphanumeric printable ASCII character and nothing else, not
// ".." or "::" (explicit markup, a literal block marker).
func adornment(l []byte) (byte, bool) {
	if len(l) < 2 || !strings.ContainsRune(rstAdornChars, rune(l[0])) {
		return 0, false
	}
	for _, c := range l {
		if c != l[0] {
			return 0, false
		}
	}
	if len(l) == 2 && (l[0] == '.' || l[0] == ':') {
		return 0, false
	}
	return l[0], true
}

// rstAdornChars are the characters docutils accepts in adornments.
const rstAdornChars = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// runeWidth counts the runes of b, the columns of a title for the
// adornment-length rule (East Asian wide characters count as one: a
// shorter underline only costs the title).
func runeWidth(b []byte) int { return utf8.RuneCount(b) }

// rstExplicit handles the explicit markup block starting at line i,
// indented ind (the block is the lines indented more than its start, and
// blank lines between them): it blanks what is not prose, and returns the
// line to go on from: after the block when all of it was blanked, else
// after its marker and option lines, so that explicit markup nested in
// the body (a code-block in a note) is read too.
func rstExplicit(b *blanker, san []byte, ls []line, i, ind int) int {
	first := san[ls[i].start:ls[i].end]
	mark := len(first) - len(bytes.TrimLeft(first, " \t")) // where ".." is
	rest := first[mark+2:]
	body := bytes.TrimLeft(rest, " \t")
	// whole blanks the block and returns the line after it. Only blocks
	// blanked whole are measured, and skipped: each line is measured
	// once, however deep directives nest.
	whole := func() int {
		end := i + 1
		for k := i + 1; k < len(ls); k++ {
			in, nonBlank := indentOf(san[ls[k].start:ls[k].end])
			if !nonBlank {
				continue
			}
			if in <= ind {
				break
			}
			end = k + 1
		}
		b.blank(ls[i].start, ls[end-1].end)
		return end
	}
	switch {
	case len(body) == 0, body[0] == '_', body[0] == '|':
		// A comment, a hyperlink target, a substitution definition.
		return whole()
	case body[0] == '[':
		// A footnote or citation: its text is prose, its label is not.
		if k := bytes.IndexByte(body, ']'); k > 0 {
			b.blank(ls[i].start+mark, ls[i].end-len(body)+k+1)
			return i + 1
		}
		return whole()
	}
	name, ok := directiveName(body)
	if !ok {
		return whole() // a comment
	}
	if rstHidden[name] || strings.HasPrefix(name, "auto") || strings.HasPrefix(name, "py:auto") {
		return whole()
	}
	// The marker, through "::", and for code its language.
	markEnd := ls[i].end - len(body) + len(name) + 2
	if rstCode[name] {
		markEnd = ls[i].end
	}
	b.blank(ls[i].start+mark, markEnd)
	// Option lines: a field list right under the directive line.
	k := i + 1
	for ; k < len(ls); k++ {
		l := san[ls[k].start:ls[k].end]
		t := bytes.TrimLeft(l, " \t")
		if in, _ := indentOf(l); in <= ind || len(t) < 2 || t[0] != ':' || bytes.IndexByte(t[1:], ':') < 0 {
			break
		}
		b.blank(ls[k].start, ls[k].end)
	}
	return k
}

// directiveName returns the name of the directive that body (the text
// after ".. ") starts, "name::" followed by a blank or the line end, and
// whether it is one. Names may hold a domain ("py:function").
func directiveName(body []byte) (string, bool) {
	k := bytes.Index(body, []byte("::"))
	if k <= 0 || (k+2 < len(body) && body[k+2] != ' ' && body[k+2] != '\t') {
		return "", false
	}
	for _, c := range body[:k] {
		if !(isASCIILetter(c) || (c >= '0' && c <= '9') || strings.IndexByte("-_.:+", c) >= 0) {
			return "", false
		}
	}
	return strings.ToLower(string(body[:k])), true
}

// Inline markup of reStructuredText titles, reduced to its text.
var (
	// rstRole is an interpreted text role before its backquoted text.
	rstRole = regexp.MustCompile(":[A-Za-z0-9_.:+-]+:`")
	// rstTarget is `text <target>`, with any trailing reference marks.
	rstTarget = regexp.MustCompile("`([^`<]*?)\\s*<[^`>]*>`_{0,2}")
	// rstQuoted is ``literal``, `interpreted`, `reference`_ or `anon`__.
	rstQuoted = regexp.MustCompile("``([^`]*)``|`([^`]*)`_{0,2}")
	// rstEmph is *emphasis* and **strong**.
	rstEmph = regexp.MustCompile(`\*{1,2}([^*]+)\*{1,2}`)
	// rstEscape is a backslash escape.
	rstEscape = regexp.MustCompile(`\\(.)`)
)

// rstPlain returns the plain text of a title: roles, references,
// literals, emphasis and escapes reduced to their text.
func rstPlain(s string) string {
	s = clip(s)
	if strings.ContainsAny(s, "`*\\") {
		s = rstRole.ReplaceAllString(s, "`")
		s = rstTarget.ReplaceAllString(s, "$1")
		s = rstQuoted.ReplaceAllString(s, "$1$2")
		s = rstEmph.ReplaceAllString(s, "$1")
		s = rstEscape.ReplaceAllString(s, "$1")
	}
	return collapse(s)
}
