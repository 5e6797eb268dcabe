package chunking

// section is a span of the sanitised text and its heading path. Sections
// of one document are in source order and do not overlap.
type section struct {
	start, end int
	// body is where the section's text after its heading lines starts:
	// start for text before the first heading, which has no heading.
	body int
	path []string
}

// headingOnly reports whether s is a heading with nothing but whitespace
// under it before the next section.
func (s section) headingOnly(text []byte) bool {
	return s.body > s.start && isBlank(text[s.body:s.end])
}

// fold merges every section that is only a heading into the section after
// it: "# Milk" directly followed by "## Policy" is one section, from the
// "# Milk" line to the end of Policy's text, with Policy's path. A heading
// with no text under it is no citation of its own (issue 27): as its own
// chunk its few words would outrank the sections that say something about
// them. Its words stay indexed, in the content and through the title or
// the heading path. A run of heading-only sections at the end of the
// document, with nothing after them, goes into the section before the run;
// when there is none with text (a document of headings only), the run is
// one section with the path of its first heading.
func fold(text []byte, secs []section) []section {
	out := secs[:0]
	// run is whether out's last section is a run of heading-only sections
	// waiting for a section with a body.
	run := false
	for _, s := range secs {
		switch {
		case s.headingOnly(text) && run:
			out[len(out)-1].end = s.end
		case s.headingOnly(text):
			out = append(out, s)
			run = true
		case run:
			// s takes the run: it starts at the run's first heading.
			s.start = out[len(out)-1].start
			out[len(out)-1] = s
			run = false
		default:
			out = append(out, s)
		}
	}
	if n := len(out); run && n > 1 && !isBlank(text[out[n-2].start:out[n-2].end]) {
		// Headings with nothing after them end the previous section.
		out[n-2].end = out[n-1].end
		out = out[:n-1]
	}
	return out
}

// assemble cuts each section of text (sanitised; fixes maps it back to the
// source) into chunks of a Document with the given title.
func assemble(text []byte, fixes offsets, replaced int, title string, secs []section, opt Options) Document {
	b := &builder{text: string(text), fixes: fixes, title: title}
	c := newCutter(opt)
	for _, s := range secs {
		b.path = s.path
		c.cut(b.text, s.start, s.end, b.emit)
	}
	return Document{Title: title, Chunks: b.out, Replaced: replaced}
}
