package chunking

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// Chunk is one piece of a document or message, the unit that is embedded,
// indexed and cited.
type Chunk struct {
	// Position is the chunk's 0-based order within its document or message.
	Position int
	// HeadingPath holds the plain texts of the headings enclosing the
	// chunk's section, outermost first, the section's own heading last,
	// without the document's title heading (its first level-1 heading with
	// non-empty text, whose text is Title): the path names the section
	// under the title, ["Decision", "Weights"] rather than ["My ADR",
	// "Decision", "Weights"]. Later level-1 headings stay in it. For a
	// document (File, in every format) it is never nil: text before the
	// first heading, text under the title before its first subheading, and
	// all of a plain text file have an empty path. Nil for Text. Chunks of
	// one section share the slice; do not modify it.
	HeadingPath []string
	// Title is the document's title (see Markdown, and each format's
	// function); empty for Text.
	Title string
	// Content is the chunk's text: valid UTF-8, without leading or trailing
	// whitespace.
	Content string
	// Start and End are the byte offsets of Content in the source that was
	// passed in. For valid UTF-8 input without NUL bytes, Content ==
	// src[Start:End], except that MDX, RST and AsciiDoc blank their markup:
	// there Content has the span's length and its bytes, some (never a
	// line ending) turned into spaces. Otherwise Content is the sanitised
	// text and src[Start:End] is the source span it came from: each U+FFFD
	// that replaced a run of bad bytes stands for that whole run.
	Start, End int
	// Hash is the hex SHA-256 of Content, the chunk's identity across
	// reindexes.
	Hash string
}

// Document is the result of chunking one source.
type Document struct {
	// Title is the document's title, copied into every chunk.
	Title string
	// Chunks are in source order; Position is the index in this slice.
	Chunks []Chunk
	// Replaced counts the runs of invalid UTF-8 and NUL bytes that were
	// each replaced by one U+FFFD. A run is a maximal sequence of such
	// bytes, so one damaged spot counts once. The caller reports it: the
	// text was indexed, but not as written.
	Replaced int
}

// builder turns spans of the sanitised text into Chunks.
type builder struct {
	text  string  // the sanitised text, shared by all Contents
	fixes offsets // maps sanitised offsets back to the source
	title string
	path  []string
	out   []Chunk
	// scratch holds a copy of the content being hashed: sha256 takes bytes,
	// and converting each string would allocate.
	scratch []byte
}

func (b *builder) emit(start, end int) {
	content := b.text[start:end]
	b.scratch = append(b.scratch[:0], content...)
	sum := sha256.Sum256(b.scratch)
	b.out = append(b.out, Chunk{
		Position:    len(b.out),
		HeadingPath: b.path,
		Title:       b.title,
		Content:     content,
		Start:       b.fixes.toSource(start),
		End:         b.fixes.toSource(end),
		Hash:        hex.EncodeToString(sum[:]),
	})
}

// Text cuts a session message (chat.message, agent.response) into chunks
// by size only: no heading splitting, empty Title, nil HeadingPath.
func Text(src string, opt Options) (Document, error) {
	if err := opt.Validate(); err != nil {
		return Document{}, fmt.Errorf("chunking text: %w", err)
	}
	text, fixes, replaced := src, offsets(nil), 0
	if !cleanString(src) {
		var san []byte
		san, fixes, replaced = sanitize([]byte(src))
		text = string(san)
	}
	b := &builder{text: text, fixes: fixes}
	newCutter(opt).cut(text, 0, len(text), b.emit)
	return Document{Chunks: b.out, Replaced: replaced}, nil
}
