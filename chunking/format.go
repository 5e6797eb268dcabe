package chunking

import (
	"fmt"
	"strings"
)

// The formats File reads, as FormatOf names them.
const (
	FormatMarkdown = "markdown" // CommonMark: .md, .markdown
	FormatMDX      = "mdx"      // markdown with JSX and ESM (Docusaurus): .mdx
	FormatRST      = "rst"      // reStructuredText (Sphinx): .rst, .rest
	FormatAsciiDoc = "asciidoc" // AsciiDoc (Antora, Asciidoctor): .adoc, .asciidoc, .asc
	FormatText     = "text"     // plain text: .txt, and any other file
)

// formatsByExt maps a lower-case file name extension to its format.
var formatsByExt = map[string]string{
	".md":       FormatMarkdown,
	".markdown": FormatMarkdown,
	".mdx":      FormatMDX,
	".rst":      FormatRST,
	".rest":     FormatRST,
	".adoc":     FormatAsciiDoc,
	".asciidoc": FormatAsciiDoc,
	".asc":      FormatAsciiDoc,
	".txt":      FormatText,
}

// FormatOf returns the format File reads the file name as, chosen by its
// extension in any letter case, and whether the extension is one of a
// prose format (.md .markdown .mdx .rst .rest .adoc .asciidoc .asc .txt).
// Any other name is FormatText with ok false: File still reads it as
// plain text.
func FormatOf(name string) (format string, ok bool) {
	base := name[strings.LastIndexAny(name, `/\`)+1:]
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		if f, ok := formatsByExt[strings.ToLower(base[i:])]; ok {
			return f, true
		}
	}
	return FormatText, false
}

// File chunks one documentation file in the format its name gives (see
// FormatOf): Markdown, MDX, RST, AsciiDoc, or PlainText for .txt and
// unknown extensions. name is the file's path; its base name without
// extension is the title when the document has none of its own.
func File(src []byte, name string, opt Options) (Document, error) {
	f, _ := FormatOf(name)
	switch f {
	case FormatMarkdown:
		return Markdown(src, name, opt)
	case FormatMDX:
		return MDX(src, name, opt)
	case FormatRST:
		return RST(src, name, opt)
	case FormatAsciiDoc:
		return AsciiDoc(src, name, opt)
	}
	return PlainText(src, name, opt)
}

// PlainText chunks a text file by size only, like Text, but as a document:
// the title is the file name without its extension, and every chunk's
// HeadingPath is empty (not nil). A UTF-8 byte order mark is not content.
func PlainText(src []byte, name string, opt Options) (Document, error) {
	if err := opt.Validate(); err != nil {
		return Document{}, fmt.Errorf("chunking %s: %w", name, err)
	}
	san, fixes, replaced := sanitize(src)
	start := 0
	if strings.HasPrefix(string(san[:min(len(san), len(bom))]), bom) {
		start = len(bom)
	}
	secs := []section{{start: start, body: start, end: len(san), path: []string{}}}
	return assemble(san, fixes, replaced, fileTitle(name), secs, opt), nil
}

// bom is the UTF-8 byte order mark, which some editors put at the start of
// a file; it is not text.
const bom = "\uFEFF"
