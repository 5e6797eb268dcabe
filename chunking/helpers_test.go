package chunking

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// span is a chunk's byte range in the sanitised text.
type span struct{ start, end int }

// checkChunks checks what holds for every Document, whatever the input:
// positions, sizes, valid and trimmed content, hashes, offsets consistent
// with the source and monotonic.
func checkChunks(t testing.TB, src []byte, opt Options, doc Document) {
	t.Helper()
	checkChunksWith(t, src, opt, doc, func(content, span string) bool { return content == span })
}

// checkMarkup is checkChunks for the formats that blank their markup (MDX,
// RST, AsciiDoc): Content is the source span with some bytes turned into
// spaces, line endings kept.
func checkMarkup(t testing.TB, src []byte, opt Options, doc Document) {
	t.Helper()
	checkChunksWith(t, src, opt, doc, sameButBlanked)
	for i, c := range doc.Chunks {
		if c.HeadingPath == nil {
			t.Fatalf("chunk %d: nil heading path", i)
		}
	}
}

// sameButBlanked reports whether content is span with some bytes, none a
// line ending, turned into spaces.
func sameButBlanked(content, span string) bool {
	if len(content) != len(span) {
		return false
	}
	for i := range len(content) {
		if c := content[i]; c != span[i] && (c != ' ' || span[i] == '\n' || span[i] == '\r') {
			return false
		}
	}
	return true
}

// checkChunksWith is checkChunks, with same telling whether a chunk's
// Content fits the (sanitised) source span it names.
func checkChunksWith(t testing.TB, src []byte, opt Options, doc Document, same func(content, span string) bool) {
	t.Helper()
	maxRunes := opt.Target + opt.Window
	isClean := clean(src)
	for i, c := range doc.Chunks {
		if c.Position != i {
			t.Fatalf("chunk %d: Position %d", i, c.Position)
		}
		if c.Content == "" {
			t.Fatalf("chunk %d: empty content", i)
		}
		if !utf8.ValidString(c.Content) {
			t.Fatalf("chunk %d: invalid UTF-8 %q", i, c.Content)
		}
		if strings.ContainsRune(c.Content, 0) {
			t.Fatalf("chunk %d: NUL in content", i)
		}
		if n := utf8.RuneCountInString(c.Content); n > maxRunes {
			t.Fatalf("chunk %d: %d runes > %d", i, n, maxRunes)
		}
		first, _ := utf8.DecodeRuneInString(c.Content)
		last, _ := utf8.DecodeLastRuneInString(c.Content)
		if isSpace(first) || isSpace(last) {
			t.Fatalf("chunk %d: untrimmed content %q", i, c.Content)
		}
		sum := sha256.Sum256([]byte(c.Content))
		if c.Hash != hex.EncodeToString(sum[:]) {
			t.Fatalf("chunk %d: hash %s is not sha256 of content", i, c.Hash)
		}
		if c.Title != doc.Title {
			t.Fatalf("chunk %d: title %q, document %q", i, c.Title, doc.Title)
		}
		if c.Start < 0 || c.End > len(src) || c.Start >= c.End {
			t.Fatalf("chunk %d: bad offsets [%d,%d) of %d", i, c.Start, c.End, len(src))
		}
		if isClean {
			if got := string(src[c.Start:c.End]); !same(c.Content, got) {
				t.Fatalf("chunk %d: src[%d:%d] = %q, content %q", i, c.Start, c.End, got, c.Content)
			}
		} else if got, _, _ := sanitize(src[c.Start:c.End]); !same(c.Content, string(got)) {
			t.Fatalf("chunk %d: sanitised src[%d:%d] = %q, content %q", i, c.Start, c.End, got, c.Content)
		}
		if i > 0 {
			p := doc.Chunks[i-1]
			if c.Start <= p.Start || c.End <= p.End {
				t.Fatalf("chunk %d: [%d,%d) not after chunk %d [%d,%d)", i, c.Start, c.End, i-1, p.Start, p.End)
			}
		}
	}
	if isClean && doc.Replaced != 0 {
		t.Fatalf("clean input: Replaced = %d", doc.Replaced)
	}
	if !isClean && doc.Replaced == 0 {
		t.Fatalf("dirty input: Replaced = 0")
	}
}

// checkSection checks the pieces cut from text[a:b]: they cover its
// non-whitespace text completely and in order, consecutive pieces overlap
// by Overlap±snap runes (less when only whitespace or long graphemes
// are around the overlap point: the start then moves to the next one) or are separated by whitespace only (then by more
// than lim.gap runes of it, unless Overlap is 0), and, when graphemes is
// set, no boundary splits a grapheme.
func checkSection(t testing.TB, text string, a, b int, spans []span, opt Options, graphemes bool) {
	t.Helper()
	lim := newLimits(opt)
	a, b = trimSpace(text, a, b)
	if a == b {
		if len(spans) != 0 {
			t.Fatalf("blank section [%d,%d) has %d chunks", a, b, len(spans))
		}
		return
	}
	if len(spans) == 0 {
		t.Fatalf("section [%d,%d) %.40q has no chunk", a, b, text[a:b])
	}
	if spans[0].start != a || spans[len(spans)-1].end != b {
		t.Fatalf("section [%d,%d): chunks run [%d,%d)", a, b, spans[0].start, spans[len(spans)-1].end)
	}
	// Rebuild the section from the chunks minus their overlaps, filling
	// the gaps between non-overlapping chunks, which must be whitespace.
	var sb strings.Builder
	sb.WriteString(text[spans[0].start:spans[0].end])
	for i := 1; i < len(spans); i++ {
		p, c := spans[i-1], spans[i]
		if c.start <= p.start || c.end <= p.end {
			t.Fatalf("chunk %d [%d,%d) does not advance past [%d,%d)", i, c.start, c.end, p.start, p.end)
		}
		if c.start < p.end {
			// The start is within reach of the point Overlap runes
			// before the end, or the first possible start after that
			// point when only whitespace or long graphemes are around it.
			ov := utf8.RuneCountInString(text[c.start:p.end])
			if ov > lim.overlap+lim.snap || ov < 1 {
				t.Fatalf("chunks %d,%d overlap %d runes, want %d±%d", i-1, i, ov, lim.overlap, lim.snap)
			}
			if ov < lim.overlap-lim.snap {
				checkNoStart(t, text, runesBefore(text, p.end, lim.overlap), c.start)
			}
			sb.WriteString(text[p.end:c.end])
			continue
		}
		gap := text[p.end:c.start]
		if strings.TrimFunc(gap, isSpace) != "" {
			t.Fatalf("chunks %d,%d: non-space gap %q is lost", i-1, i, gap)
		}
		if n := utf8.RuneCountInString(gap); lim.overlap > 0 && n <= lim.gap {
			// No overlap after a short gap: only when no start was
			// possible between the overlap point and the end.
			checkNoStart(t, text, runesBefore(text, p.end, lim.overlap), p.end)
		}
		sb.WriteString(gap)
		sb.WriteString(text[c.start:c.end])
	}
	if got := sb.String(); got != text[a:b] {
		t.Fatalf("section [%d,%d) rebuilt from chunks differs:\n got %q\nwant %q", a, b, got, text[a:b])
	}
	if !graphemes {
		return
	}
	for i, s := range spans {
		if splitsGrapheme(text, s.start) || splitsGrapheme(text, s.end) {
			t.Fatalf("chunk %d [%d,%d) splits a grapheme: ...%q|%q...", i, s.start, s.end,
				text[max(0, s.start-8):s.start], text[s.start:min(len(text), s.start+8)])
		}
	}
}

// runesBefore returns the offset n runes before i in text.
func runesBefore(text string, i, n int) int {
	for ; n > 0 && i > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(text[:i])
		i -= size
	}
	return i
}

// checkNoStart checks that no chunk could start in text[from:to]: only
// whitespace and the insides of graphemes are there.
func checkNoStart(t testing.TB, text string, from, to int) {
	t.Helper()
	for j := from; j < to; {
		r, size := utf8.DecodeRuneInString(text[j:])
		if !isSpace(r) && !splitsGrapheme(text, j) {
			t.Fatalf("a chunk could have started at %d, after %q", j, text[from:j])
		}
		j += size
	}
}

// splitsGrapheme reports whether a boundary at byte i of text falls inside
// a grapheme, in the terms of the package documentation.
func splitsGrapheme(text string, i int) bool {
	if i <= 0 || i >= len(text) {
		return false
	}
	prev, _ := utf8.DecodeLastRuneInString(text[:i])
	next, _ := utf8.DecodeRuneInString(text[i:])
	return isContinuation(next) || prev == zwj ||
		(isRegionalIndicator(prev) && isRegionalIndicator(next)) || (prev == '\r' && next == '\n')
}

// cutSpans cuts text[a:b] with opt and returns the spans.
func cutSpans(text string, a, b int, opt Options) []span {
	var out []span
	newCutter(opt).cut(text, a, b, func(s, e int) { out = append(out, span{s, e}) })
	return out
}

// checkMarkdownSections rebuilds the sections of src the way Markdown does
// and checks every section's chunks with checkSection; it also checks that
// the chunks Markdown returned are exactly those.
func checkMarkdownSections(t testing.TB, src []byte, opt Options, doc Document, graphemes bool) {
	t.Helper()
	san, _, _ := sanitize(src)
	body := bodyStart(san)
	secs, _, err := markdownSections(san, body)
	if err != nil {
		t.Fatal(err)
	}
	text := string(san)
	k := 0
	for _, s := range secs {
		spans := cutSpans(text, s.start, s.end, opt)
		checkSection(t, text, s.start, s.end, spans, opt, graphemes)
		for _, sp := range spans {
			if k >= len(doc.Chunks) {
				t.Fatalf("Markdown returned %d chunks, sections hold more", len(doc.Chunks))
			}
			c := doc.Chunks[k]
			if c.Content != text[sp.start:sp.end] || !slices.Equal(c.HeadingPath, s.path) {
				t.Fatalf("chunk %d: %q %q, section gives %q %q", k, c.HeadingPath, c.Content, s.path, text[sp.start:sp.end])
			}
			k++
		}
	}
	if k != len(doc.Chunks) {
		t.Fatalf("Markdown returned %d chunks, sections hold %d", len(doc.Chunks), k)
	}
}

// formatSections returns the text File cuts for format (sanitised, its
// markup blanked) and its sections, as File finds them.
func formatSections(t testing.TB, src []byte, format string) ([]byte, []section) {
	t.Helper()
	san, _, _ := sanitize(src)
	switch format {
	case FormatMarkdown, FormatMDX:
		body := bodyStart(san)
		text := san
		if format == FormatMDX {
			text = blankMDX(san, body)
		}
		secs, _, err := markdownSections(text, body)
		if err != nil {
			t.Fatal(err)
		}
		return text, secs
	case FormatRST:
		text, secs, _ := rstSections(san)
		return text, secs
	case FormatAsciiDoc:
		text, secs, _ := adocSections(san)
		return text, secs
	}
	start := skipBOM(san)
	return san, []section{{start: start, body: start, end: len(san), path: []string{}}}
}

// checkFormatSections checks the sections of src in format: in order,
// disjoint, none only a heading unless nothing with text comes before it
// (see fold), each cut as checkSection wants, and together exactly the
// chunks of doc.
func checkFormatSections(t testing.TB, src []byte, format string, opt Options, doc Document) {
	t.Helper()
	text, secs := formatSections(t, src, format)
	if len(text) != len(sanitized(src)) {
		t.Fatalf("blanked text is %d bytes, sanitised source %d", len(text), len(sanitized(src)))
	}
	k := 0
	for i, s := range secs {
		if s.start > s.body || s.body > s.end || s.end > len(text) || (i > 0 && s.start < secs[i-1].end) {
			t.Fatalf("section %d [%d,%d,%d) out of order (before: %+v)", i, s.start, s.body, s.end, secs[max(0, i-1)])
		}
		if s.headingOnly(text) && i > 0 && !isBlank(text[secs[0].start:secs[i-1].end]) {
			t.Fatalf("section %d %q is only a heading after text", i, text[s.start:s.end])
		}
		if s.path == nil {
			t.Fatalf("section %d: nil path", i)
		}
		spans := cutSpans(string(text), s.start, s.end, opt)
		checkSection(t, string(text), s.start, s.end, spans, opt, false)
		for _, sp := range spans {
			if k >= len(doc.Chunks) {
				t.Fatalf("File returned %d chunks, sections hold more", len(doc.Chunks))
			}
			c := doc.Chunks[k]
			if c.Content != string(text[sp.start:sp.end]) || !slices.Equal(c.HeadingPath, s.path) {
				t.Fatalf("chunk %d: %q %q, section gives %q %q", k, c.HeadingPath, c.Content, s.path, text[sp.start:sp.end])
			}
			k++
		}
	}
	if k != len(doc.Chunks) {
		t.Fatalf("File returned %d chunks, sections hold %d", len(doc.Chunks), k)
	}
}

// sanitized is sanitize's text.
func sanitized(src []byte) []byte {
	san, _, _ := sanitize(src)
	return san
}
