package chunking

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// blockParser finds the document's block structure, CommonMark without
// extensions: headings are all we need, and extensions (tables, footnotes)
// never create or hide one. It has no inline parsers, so paragraphs are not
// inline-parsed: that is a third of goldmark's time, and its link parser is
// quadratic on some inputs. Heading texts are inline-parsed one by one with
// inlineParser instead. goldmark parsers are safe for concurrent use.
var blockParser = parser.NewParser(
	parser.WithBlockParsers(parser.DefaultBlockParsers()...),
	parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
)

// inlineParser parses a heading's raw text. Its only block parser is the
// paragraph, so heading text such as "1. Scope" or "- x" stays text.
var inlineParser = parser.NewParser(
	parser.WithBlockParsers(util.Prioritized(parser.NewParagraphParser(), 100)),
	parser.WithInlineParsers(parser.DefaultInlineParsers()...),
)

// maxHeadingBytes bounds the heading text that is inline-parsed: a longer
// "heading" (a setext underline under a huge paragraph) is no title, and
// goldmark's link parser is quadratic in it.
const maxHeadingBytes = 1024

// Markdown splits a markdown document into sections at its headings and cuts
// each section into chunks. name is the file's path; its base name without
// extension is the title when the document has no level-1 heading.
//
// Invalid UTF-8 and NUL bytes are replaced before parsing (see
// Document.Replaced and Chunk.Start). It returns an error only for invalid
// options or if the markdown parser panics.
func Markdown(src []byte, name string, opt Options) (Document, error) {
	if err := opt.Validate(); err != nil {
		return Document{}, fmt.Errorf("chunking %s: %w", name, err)
	}
	san, fixes, replaced := sanitize(src)
	secs, title, err := markdownSections(san, bodyStart(san))
	if err != nil {
		return Document{}, fmt.Errorf("chunking %s: %w", name, err)
	}
	if title == "" {
		title = fileTitle(name)
	}
	return assemble(san, fixes, replaced, title, secs, opt), nil
}

// markdownSections returns the sections of the markdown in text from body
// on, heading-only ones folded into what follows, and the title heading's
// text.
func markdownSections(text []byte, body int) ([]section, string, error) {
	secs, title, err := parse(text, body)
	if err != nil {
		return nil, "", err
	}
	return fold(text, secs), title, nil
}

// parse parses src from body on and returns its sections and title.
// goldmark is well fuzzed, but a panic in it must not take the daemon down
// with it: it becomes an error for this file.
func parse(src []byte, body int) (secs []section, title string, err error) {
	defer func() {
		if r := recover(); r != nil {
			secs, title, err = nil, "", fmt.Errorf("markdown parser panicked: %v", r)
		}
	}()
	md := tame(src[body:])
	pc := parser.NewContext()
	root := blockParser.Parse(text.NewReader(md), parser.WithContext(pc))
	secs, title = sections(src, body, md, root, pc)
	return secs, title, nil
}

// sections lists the sections of src, where the markdown starts at body; md
// is what was parsed (src[body:] or its tamed copy), root its AST and pc
// the parse's context, which holds the link reference definitions. It also
// returns the title: the text of the first non-empty level-1 heading. That
// heading is left out of every section's path (see Chunk.HeadingPath).
//
// Only headings at the top level of the document open a section: a heading
// inside a list item or a block quote belongs to that block, and cutting the
// block in two at it would tear the list or the quote apart.
func sections(src []byte, body int, md []byte, root ast.Node, pc parser.Context) ([]section, string) {
	var (
		secs  []section
		title string
		// stack holds the enclosing headings, outermost first.
		stack []heading
	)
	start, hbody := body, body
	path := []string{}
	// bare is where the body of the current section starts when its heading
	// has no text (a lone "##"), else -1: such a heading with nothing under
	// it is an empty section, not a chunk holding "##".
	bare := -1
	add := func(end int) {
		if bare < 0 || !isBlank(src[bare:end]) {
			secs = append(secs, section{start: start, body: hbody, end: end, path: path})
		}
	}
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok {
			continue
		}
		pos := h.Pos()
		if pos < 0 && h.Lines().Len() > 0 {
			pos = h.Lines().At(0).Start
		}
		if pos < 0 || pos > len(md) {
			continue // no position: leave it to the section it is in
		}
		// A section starts at the heading's line: Pos is past the
		// indentation of an ATX heading, and at the first text line of a
		// setext one.
		lineStart := body + bytes.LastIndexByte(md[:pos], '\n') + 1
		add(lineStart)

		txt := headingText(h, md, pc)
		bare = -1
		if txt == "" {
			_, bare = nextLine(src, body+pos)
		}
		isTitle := title == "" && h.Level == 1 && txt != ""
		if isTitle {
			title = txt
		}
		for len(stack) > 0 && stack[len(stack)-1].level >= h.Level {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, heading{level: h.Level, text: txt, title: isTitle})
		// The title is the document's, carried by Chunk.Title: the path
		// names the section under it (["Decision", "Weights"]).
		path = make([]string, 0, len(stack))
		for _, e := range stack {
			if !e.title {
				path = append(path, e.text)
			}
		}
		start, hbody = lineStart, body+headingEnd(md, h, lineStart-body)
	}
	add(len(src))
	return secs, title
}

// headingEnd returns where the lines of heading h, whose line starts at
// lineStart in md, end: after the line of an ATX heading, after the
// underline of a setext one.
func headingEnd(md []byte, h *ast.Heading, lineStart int) int {
	_, next := nextLine(md, lineStart)
	lines := h.Lines()
	if lines.Len() == 0 || bytes.HasPrefix(bytes.TrimLeft(md[lineStart:next], " \t"), []byte("#")) {
		return next
	}
	// Setext: the underline is the line after the last text line.
	_, under := nextLine(md, lines.At(lines.Len()-1).Start)
	_, next = nextLine(md, under)
	return next
}

// isBlank reports whether b holds only whitespace.
func isBlank(b []byte) bool {
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if !isSpace(r) {
			return false
		}
		b = b[size:]
	}
	return true
}

type heading struct {
	level int
	text  string
	title bool // the document's title heading, left out of paths
}

// bodyStart returns where the markdown starts in src: after a UTF-8 byte
// order mark and a front matter block, neither of which is content. Front
// matter is a "---" line at the very top closed by a "---" or "..." line; an
// unclosed one is markdown (a thematic break).
func bodyStart(src []byte) int {
	start := 0
	if bytes.HasPrefix(src, []byte("\uFEFF")) {
		start = len("\uFEFF")
	}
	line, next := nextLine(src, start)
	if string(line) != "---" {
		return start
	}
	for next < len(src) {
		line, next = nextLine(src, next)
		if s := string(line); s == "---" || s == "..." {
			return next
		}
	}
	return start
}

// nextLine returns the line of src starting at i, without its line ending
// and trailing blanks, and the start of the line after it.
func nextLine(src []byte, i int) ([]byte, int) {
	end := len(src)
	next := end
	if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
		end, next = i+j, i+j+1
	}
	return bytes.TrimRight(src[i:end], " \t\r"), next
}

// headingText returns the plain text of heading h: inline markup reduced to
// its text, escapes and entities resolved, whitespace collapsed. The raw
// text is inline-parsed on its own, with the document's link references.
func headingText(h *ast.Heading, md []byte, pc parser.Context) string {
	lines := h.Lines()
	if lines.Len() == 0 {
		return ""
	}
	var raw []byte
	for i := range lines.Len() {
		if i > 0 {
			raw = append(raw, '\n')
		}
		seg := lines.At(i)
		raw = append(raw, bytes.TrimRight(seg.Value(md), "\r\n")...)
		if len(raw) > maxHeadingBytes {
			// md is valid UTF-8, so an error at the end is a cut rune.
			raw = raw[:maxHeadingBytes]
			for len(raw) > 0 {
				if r, size := utf8.DecodeLastRune(raw); r != utf8.RuneError || size != 1 {
					break
				}
				raw = raw[:len(raw)-1]
			}
			break
		}
	}
	if bytes.IndexAny(raw, inlineMarkup) < 0 {
		// Plain text, the common case: nothing for the parser to reduce.
		return strings.Join(strings.Fields(string(raw)), " ")
	}
	root := inlineParser.Parse(text.NewReader(raw), parser.WithContext(refContext{parser.NewContext(), pc}))
	var sb strings.Builder
	appendPlain(&sb, root, raw)
	return strings.Join(strings.Fields(strings.ToValidUTF8(sb.String(), replacement)), " ")
}

// inlineMarkup holds the bytes that start inline markup in CommonMark:
// escapes, code spans, emphasis, links and images, autolinks and raw HTML,
// entities.
const inlineMarkup = "\\`*_[<&"

// refContext is a fresh parse context that resolves link references in the
// document's context, so that "## [Unreleased]" with a definition further
// down reads "Unreleased", as it renders.
type refContext struct {
	parser.Context
	doc parser.Context
}

// Reference implements parser.Context.
func (c refContext) Reference(label string) (parser.Reference, bool) {
	return c.doc.Reference(label)
}

func appendPlain(sb *strings.Builder, n ast.Node, src []byte) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			v := c.Value(src)
			if !c.IsRaw() {
				v = util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
			}
			sb.Write(v)
			if c.SoftLineBreak() || c.HardLineBreak() {
				sb.WriteByte(' ')
			}
		case *ast.String:
			sb.Write(c.Value)
		case *ast.CodeSpan:
			// Its children are raw Text nodes: no unescaping in code.
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if t, ok := t.(*ast.Text); ok {
					sb.Write(t.Value(src))
				}
			}
		case *ast.AutoLink:
			sb.Write(c.Label(src))
		case *ast.RawHTML:
			// Tags are markup, not text.
		default:
			// Emphasis, links and images (their alt text) hold text.
			appendPlain(sb, c, src)
		}
	}
}

// fileTitle returns the base name of path without its extension; either
// slash separates directories so that Windows paths work too.
func fileTitle(path string) string {
	base := path[strings.LastIndexAny(path, `/\`)+1:]
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	if !utf8.ValidString(base) {
		base = strings.ToValidUTF8(base, replacement)
	}
	return base
}
