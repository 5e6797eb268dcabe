// Package chunking cuts documentation files (markdown, MDX,
// reStructuredText, AsciiDoc, plain text) and session messages into
// overlapping chunks for hybrid (vector + FTS5) search. File picks the
// format by the file name's extension (FormatOf); Text cuts a message.
//
// # Sizes
//
// Sizes are in runes (Unicode code points), not bytes and not tokens. With
// Options{Target, Overlap, Window} (DefaultOptions: 1200, 150, 200):
//
//   - A span of at most Target runes is one chunk.
//   - A longer span is cut at a boundary between Target-Window and
//     Target+Window runes from the chunk start: the paragraph break (a
//     whitespace run holding two or more line feeds, so "\n\n" and
//     "\r\n\r\n" alike) nearest to Target; else the word break (whitespace)
//     nearest to it; else, inside a word, the grapheme boundary nearest to
//     it. The end of the span, when within the window, counts as a
//     paragraph break, so a tail is not split off for a few runes.
//   - No chunk is longer than Target+Window runes.
//   - The lower end of the window is raised, when the options call for it,
//     to Overlap plus half of Target-Overlap, so that each chunk brings new
//     text and the work stays linear in the input.
//   - The next chunk starts Overlap runes before the previous one ended,
//     moved to the nearest word start, else to the nearest grapheme
//     boundary, within snap runes: max(Overlap/3, 32) bounded by
//     (lo-Overlap)/4, lo being the lower end of the window (50 runes with
//     the defaults). So consecutive chunks overlap by Overlap±snap runes,
//     less only when the text around that point is all whitespace or one
//     grapheme (the start moves forward to the next grapheme). When the cut
//     fell in a whitespace run longer than (lo-Overlap)/4 runes, or
//     Overlap is 0, the next chunk starts at the first word after the cut,
//     with no overlap.
//   - Cuts never split a UTF-8 sequence, and never fall before a combining
//     mark (Mn, Mc, Me, including variation selectors), a zero-width
//     (non-)joiner, an emoji modifier or a tag character, nor after a
//     zero-width joiner, between two regional indicators (a flag) or inside
//     "\r\n". Only a window holding no grapheme boundary at all (a wall of
//     combining marks, or options with a window narrower than a grapheme)
//     forces a cut inside one.
//   - Chunks never begin or end with whitespace; whitespace between two
//     chunks that do not overlap belongs to neither.
//
// # Markdown
//
// Markdown first loses its UTF-8 byte order mark and its front matter (a
// "---" line at the very top, closed by a "---" or "..." line), then is
// parsed with goldmark (CommonMark, block structure only) to find the
// headings, so that a "#" in a fenced or indented code block or an HTML
// block is not one, and setext headings ("===", "---" underlines) are.
// Each heading at the top level of the document opens a section that runs
// from the heading's line to the next heading's line; text before the
// first heading is a section with an empty heading path. Whitespace-only
// sections, and lone headings without text ("##"), produce no chunk. A
// section is cut as above, independently of its neighbours: chunks never
// overlap across sections.
//
// A heading with nothing under it ("# Milk" directly followed by "##
// Policy") is no section of its own: it joins the section after it, which
// then starts at its line and keeps its own path, so that a chunk of a few
// heading words never outranks the sections that say something about them;
// those words are still in the content, the Title or the paths. Headings
// with nothing after them at the end of a document join the section before
// them. This holds in every format.
//
// The document's Title is the plain text of its first level-1 heading with
// non-empty text, else the file name without its extension. A chunk's
// HeadingPath names its section within the document: the plain texts of
// the enclosing headings, outermost first, ending with the section's own
// heading, leaving out the title heading, whose text is already the
// chunk's Title. So in "# My ADR", "## Decision", "### Weights" the last
// section's path is ["Decision", "Weights"], and the text under the title
// before its first subheading has an empty path, like text before any
// heading. Every other heading stays, empty ones ("##") as "", and so do
// later level-1 headings: a second "# Appendix" has the path ["Appendix"]
// and its "## Notes" ["Appendix", "Notes"]. A document without a non-empty
// level-1 heading has no title heading: its paths start at its outermost
// heading.
// Plain text means inline markup reduced to its text (code spans,
// emphasis, link text, image alt text), escapes and entities resolved, raw
// HTML tags dropped, whitespace collapsed; reference links resolve against
// the document's definitions.
//
// # Other formats
//
// MDX, reStructuredText and AsciiDoc have their own heading rules (see
// MDX, RST and AsciiDoc) and the same contract otherwise: a title, heading
// paths without the title heading, sections cut independently. What is
// markup rather than prose (MDX imports and JSX, rst directives that only
// point elsewhere, AsciiDoc attribute entries and includes, comments) is
// blanked to spaces in a copy of the text of the same length, so a chunk's
// Content is src[Start:End] with some bytes, never line endings, turned
// into spaces. PlainText (.txt and unknown extensions) is one section with
// an empty path, titled by the file name.
//
// # Offsets and bad input
//
// Invalid UTF-8 and NUL bytes are replaced before anything else: each
// maximal run of them becomes one U+FFFD, and Document.Replaced counts the
// runs. Chunk.Content is always valid UTF-8. Chunk.Start and Chunk.End are
// byte offsets into the source as passed in: for valid input
// Content == src[Start:End] (but for the blanked markup of the formats
// above); otherwise src[Start:End] is the source span that Content was made
// from, each U+FFFD in Content standing for one run of bad bytes.
//
// Memory and time are linear in the input, including on constructs that
// make goldmark quadratic (see tame.go) and on markup that is opened and
// never closed, and nothing panics: a panic in the parser is returned as
// an error.
package chunking
