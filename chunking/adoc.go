package chunking

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// AsciiDoc chunks an AsciiDoc document (Asciidoctor, Antora). Section
// titles are "= Title" (level 0, the document title) to "====== Title"
// (level 5), or the markdown-style "#" to "######" AsciiDoc accepts, at the
// left margin, outside delimited blocks and not inside a paragraph; the
// first level-0 title is the document's Title and in no heading path, like
// markdown's first level-1 heading.
//
// What is not prose is blanked to spaces, as MDX does (see MDX for the
// Content contract): attribute entries (":name: value", with their
// continuation lines), preprocessor directives (include::, ifdef::,
// ifndef::, ifeval::, endif::), block macros (image::, video::, audio::,
// toc::), line comments ("//") and comment blocks ("////"), block
// attribute and anchor lines ("[source,java]", "[[id]]", "[#id]"), and
// list continuations ("+" alone on its line).
// Delimited blocks (listing "----", literal "....", passthrough "++++",
// fenced "```", example "====", sidebar "****", quote "____", open "--",
// tables "|===") are text; a title inside one is no section. An
// unterminated block runs to the end of the document, as in Asciidoctor.
// Antora's nav.adoc, a list of xrefs, is text like any other.
func AsciiDoc(src []byte, name string, opt Options) (Document, error) {
	if err := opt.Validate(); err != nil {
		return Document{}, fmt.Errorf("chunking %s: %w", name, err)
	}
	san, fixes, replaced := sanitize(src)
	text, secs, title := adocSections(san)
	if title == "" {
		title = fileTitle(name)
	}
	return assemble(text, fixes, replaced, title, secs, opt), nil
}

// adocBlock is an open delimited block: its delimiter line, and whether its
// content is verbatim (no nested blocks, nothing blanked but preprocessor
// lines).
type adocBlock struct {
	delim    []byte
	verbatim bool
	comment  bool
}

var (
	// adocAttrEntry is an attribute entry: ":name: value", ":name!:",
	// ":!name:".
	adocAttrEntry = regexp.MustCompile(`^:!?[A-Za-z0-9_][A-Za-z0-9_-]*!?:(\s|$)`)
	// adocDirective is a preprocessor directive or a block macro alone on
	// its line.
	adocDirective = regexp.MustCompile(`^(include|ifdef|ifndef|ifeval|endif|image|video|audio|toc)::.*\[.*\]$`)
)

// adocSections blanks the non-prose lines of san (in a copy) and returns
// the copy, its sections and the title.
func adocSections(san []byte) ([]byte, []section, string) {
	b := &blanker{src: san}
	start := skipBOM(san)
	ls := lines(san, start)
	o := newOutline(start)
	var blocks []adocBlock
	inPara := false // the previous line is paragraph text
	// inHeader is whether the lines since the document title are its
	// header (author, revision, attribute entries), up to a blank line.
	inHeader := false
	for i := 0; i < len(ls); i++ {
		ln := ls[i]
		l := san[ln.start:ln.end]
		var top *adocBlock
		if len(blocks) > 0 {
			top = &blocks[len(blocks)-1]
		}
		if top != nil && top.comment {
			b.blank(ln.start, ln.end)
			if bytes.Equal(l, top.delim) {
				blocks = blocks[:len(blocks)-1]
			}
			continue
		}
		if adocDirective.Match(l) && (top == nil || !top.verbatim || isPreprocessor(l)) {
			b.blank(ln.start, ln.end)
			continue
		}
		if top != nil && top.verbatim {
			if bytes.Equal(l, top.delim) {
				blocks = blocks[:len(blocks)-1]
			}
			continue
		}
		if _, nonBlank := indentOf(l); !nonBlank {
			inPara, inHeader = false, false
			continue
		}
		if bytes.HasPrefix(l, []byte("//")) && !isRun(l, '/', 4) {
			b.blank(ln.start, ln.end) // a line comment
			continue
		}
		if top != nil && bytes.Equal(l, top.delim) {
			blocks = blocks[:len(blocks)-1]
			inPara = false
			continue
		}
		if d, ok := adocDelimiter(l); ok {
			if d.comment {
				b.blank(ln.start, ln.end)
			}
			blocks = append(blocks, d)
			inPara = false
			continue
		}
		if string(l) == "+" {
			// A list continuation: it attaches the next block to the
			// list item, and is markup.
			b.blank(ln.start, ln.end)
			inPara = false
			continue
		}
		if inPara {
			// Block attributes right over a delimited block end the
			// paragraph before them.
			if l[0] == '[' && l[len(l)-1] == ']' && i+1 < len(ls) {
				if _, ok := adocDelimiter(san[ls[i+1].start:ls[i+1].end]); ok {
					b.blank(ln.start, ln.end)
					inPara = false
				}
			}
			continue
		}
		if level, txt, ok := adocTitle(l); ok && len(blocks) == 0 {
			hadTitle := o.title != ""
			o.heading(ln.start, ln.next, level, adocPlain(txt))
			inHeader = !hadTitle && o.title != ""
			continue
		}
		switch {
		case l[0] == '[' && l[len(l)-1] == ']':
			b.blank(ln.start, ln.end) // block attributes, an anchor
		case adocAttrEntry.Match(l):
			b.blank(ln.start, ln.end)
			// A value goes on over lines ending in " \".
			for bytes.HasSuffix(l, []byte(" \\")) && i+1 < len(ls) {
				i++
				ln = ls[i]
				l = san[ln.start:ln.end]
				b.blank(ln.start, ln.end)
			}
		case l[0] == '.' && len(l) > 1 && l[1] != '.' && l[1] != ' ':
			// A block title: text, but it starts no paragraph.
		default:
			// The author and revision lines of a header are text, but
			// the attribute entries after them are still entries.
			inPara = !inHeader
		}
	}
	secs, title := o.finish(b.result(), len(san))
	return b.result(), secs, title
}

// isPreprocessor reports whether l, a directive line, is a preprocessor
// directive, which applies even inside verbatim blocks.
func isPreprocessor(l []byte) bool {
	return !bytes.HasPrefix(l, []byte("image::")) && !bytes.HasPrefix(l, []byte("video::")) &&
		!bytes.HasPrefix(l, []byte("audio::")) && !bytes.HasPrefix(l, []byte("toc::"))
}

// isRun reports whether l is at least n of c and nothing else.
func isRun(l []byte, c byte, n int) bool {
	if len(l) < n {
		return false
	}
	for _, x := range l {
		if x != c {
			return false
		}
	}
	return true
}

// adocDelimiter reports whether l opens a delimited block, and which.
func adocDelimiter(l []byte) (adocBlock, bool) {
	d := adocBlock{delim: l}
	switch {
	case isRun(l, '/', 4):
		d.comment, d.verbatim = true, true
	case isRun(l, '-', 4), isRun(l, '.', 4), isRun(l, '+', 4):
		d.verbatim = true
	case bytes.HasPrefix(l, []byte("```")):
		d.verbatim, d.delim = true, []byte("```")
	case isRun(l, '=', 4), isRun(l, '*', 4), isRun(l, '_', 4), string(l) == "--":
	case len(l) >= 4 && strings.IndexByte("|,:!", l[0]) >= 0 && isRun(l[1:], '=', 3):
	default:
		return d, false
	}
	return d, true
}

// adocTitle reports whether l is a section title: one to six "=" or "#",
// a blank, then text. level is the number of marks less one; txt is
// the text without a symmetric closing run ("== Title ==").
func adocTitle(l []byte) (level int, txt string, ok bool) {
	if len(l) == 0 || (l[0] != '=' && l[0] != '#') {
		return 0, "", false
	}
	n := 0
	for n < len(l) && l[n] == l[0] {
		n++
	}
	if n > 6 || n >= len(l) || (l[n] != ' ' && l[n] != '\t') {
		return 0, "", false
	}
	t := bytes.TrimSpace(l[n:])
	if closing := bytes.Repeat(l[:1], n); bytes.HasSuffix(t, closing) {
		if u := bytes.TrimRight(t[:len(t)-n], " \t"); len(u) < len(t)-n {
			t = u
		}
	}
	if len(t) == 0 {
		return 0, "", false
	}
	return n - 1, string(t), true
}

// Inline markup of AsciiDoc titles, reduced to its text.
var (
	// adocAnchor is an inline anchor: [[id]], [[id,label]] or [#id].
	adocAnchor = regexp.MustCompile(`\[\[[^\]]*\]\]|\[#[^\]]*\]`)
	// adocXref is <<id>> or <<id,text>>.
	adocXref = regexp.MustCompile(`<<([^,>]*)(?:,\s*([^>]*))?>>`)
	// adocMacro is an inline macro with text: xref:t[text], link:u[text],
	// kbd:[x], also with an empty target.
	adocMacro = regexp.MustCompile(`\b[a-z]+:[^\s\[]*\[([^\]]*)\]`)
	// adocMarks are constrained and unconstrained formatting marks around
	// text: *strong*, _emphasis_, `mono`, #mark#, +pass+.
	adocMarks = regexp.MustCompile("(\\*\\*|__|``|##|\\+\\+|[*_`#+])([^*_`#+]+)(\\*\\*|__|``|##|\\+\\+|[*_`#+])")
)

// adocPlain returns the plain text of a title: anchors dropped, cross
// references and macros reduced to their text, formatting marks removed.
func adocPlain(s string) string {
	s = clip(s)
	if strings.ContainsAny(s, "[<*_`#+") {
		s = adocAnchor.ReplaceAllString(s, "")
		s = adocXref.ReplaceAllStringFunc(s, func(m string) string {
			g := adocXref.FindStringSubmatch(m)
			if g[2] != "" {
				return g[2]
			}
			return g[1]
		})
		s = adocMacro.ReplaceAllString(s, "$1")
		s = adocMarks.ReplaceAllString(s, "$2")
	}
	return collapse(s)
}
